"""The web app's HTTP API without a browser (issue 27, item 5): every request body validated,
illegal moves refused without a change, only the allowed players seated, games isolated and
bounded, nothing served outside the static folder."""

from __future__ import annotations

import http.client
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from agents.play.web.app import create_app  # noqa: E402
from agents.play.web.players import AgentFactory, allowed_agents  # noqa: E402
from agents.play.web.sessions import GameStore, StoreFull  # noqa: E402
from dice_env.scorecard.render import MUST_SCRATCH_WARNING  # noqa: E402


def _client(app):
    with warnings.catch_warnings():  # starlette 1.x prefers httpx2 for its TestClient
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    return TestClient(app)


@pytest.fixture(scope="module")
def agents():
    return allowed_agents()


@pytest.fixture
def client(agents):
    with _client(create_app(agents, auto_seconds=3, max_games=20)) as c:
        yield c  # (its lifespan stops the app's worker processes at the end)


def _new(client, **body):
    """A new game; a game that needs a table not solved yet waits for it, as the page does
    (202: poll the job, then ask again -- on a machine with a cold cache)."""
    import time

    body.setdefault("game", "penta")
    r = client.post("/api/games", json=body)
    while r.status_code == 202:
        job = r.json()["preparing"]
        while job["state"] in ("queued", "running"):
            time.sleep(0.2)
            job = client.get(f"/api/jobs/{job['job']}").json()
        assert job["state"] == "done", job
        r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _one_line_error(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    message = r.json()["error"]
    assert message and "\n" not in message
    return message


# -- pages, health, static files -------------------------------------------------------------
def test_health_page_and_config(client):
    r = client.get("/api/health")
    assert r.status_code == 200 and r.json()["status"] == "ok"
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert 'href="/inspect"' in page.text and "/static/play.js" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # no external URL
    for name in ("play.js", "style.css"):
        text = client.get(f"/static/{name}").text
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text
    assert client.get("/favicon.ico").status_code in (200, 204)  # never a 404 in the console
    cfg = client.get("/api/config").json()
    assert [g["id"] for g in cfg["games"]] == ["penta", "dice-poker", "yatzy", "yacht",
                                               "fivethousand", "pig"]
    assert "win-value" in cfg["bots"]["penta"] and "win-value" not in cfg["bots"]["fivethousand"]
    assert cfg["max_opponents"] == 5 and cfg["auto_seconds"] == 3


#: a test of a game family's name in a script: the family names, 5000 and a ``.family`` read
FAMILY_TEST = r"scorecard|five.?thousand|\b5000\b|\.family\b|\[[\"']family[\"']\]"


def test_the_page_scripts_know_no_game_family():
    """The Play and Inspect pages draw what the views and payloads say (the layout, the
    board, the position's renderer): no script names a family or reads ``family`` (issue
    44), so a new family needs a server-side view only."""
    import re

    from agents.paths import package_data

    static = package_data("play", "web", "static")
    scripts = sorted(p.name for p in static.iterdir() if p.name.endswith(".js"))
    assert scripts == ["inspect.js", "play.js"]
    for name in scripts:
        found = re.findall(FAMILY_TEST, (static / name).read_text(encoding="utf-8"), re.I)
        assert not found, (name, found)
    assert re.search(FAMILY_TEST, 'if (s.family === "x")')  # the pattern does find one


@pytest.mark.parametrize("game", ["penta", "dice-poker", "yatzy", "yacht", "fivethousand"])
def test_every_view_sends_the_layout_the_page_draws(client, game):
    """The fields the page reads instead of a game's name (agents/play/web/layout.py): the
    heading, the line under the dice, the turn key, the dice marks, the controls (each button
    with the move it sends, a move the server accepts) and the board."""
    state = _new(client, game=game, seed=3)["state"]
    assert state["status"].startswith(f"{state['title']}") and "your turn" in state["status"]
    assert isinstance(state["info"], str) and state["turn_key"].startswith("0:")
    assert len(state["dice_marks"]) in (0, len(state["dice"]))
    buttons = state["controls"]["buttons"]
    assert buttons and all(b["move"]["kind"] for b in buttons)
    assert state["board"]["kind"] in ("card", "table")
    if state["board"]["kind"] == "table":
        board = state["board"]
        assert len(board["rows"]) == len(state["names"])
        assert all(len(r["cells"]) == len(board["columns"]) for r in board["rows"])
    else:
        keys = {row["key"] for row in state["sum_rows"]}
        assert "total" in keys and keys <= set(state["totals"][0])
    key = _new(client, game=game, seed=3)["id"]
    pressed = next(b for b in buttons if b["enabled"])
    move = dict(pressed["move"], **({pressed["picked"]: [0]} if pressed["picked"] else {}))
    answer = client.post(f"/api/games/{key}/move", json=move)
    assert answer.status_code == 200, answer.json()


@pytest.fixture(scope="module")
def live_url(agents):
    from agents.play.web.server import serve_in_thread

    server = serve_in_thread(create_app(agents))
    yield server.url
    server.stop()


@pytest.mark.parametrize("path", [
    "/static/../app.py", "/static/%2e%2e/app.py", "/static/%2E%2E%2Fapp.py",
    "/static/..%2fapp.py", "/static/../../../pyproject.toml", "/static//etc/passwd",
    "/static/%2Fetc%2Fpasswd", "/static/..%5capp.py", "/../pyproject.toml",
    "/static/%2e%2e/%2e%2e/%2e%2e/pyproject.toml", "/etc/passwd", "/static/",
])
def test_nothing_outside_the_static_folder(live_url, path):
    """Raw paths (no client normalises them) to files outside ``static/``: never served."""
    host, port = live_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read().decode("utf-8", "replace")
    conn.close()
    assert r.status in (400, 404), (path, r.status)
    assert "create_app" not in body and "[project]" not in body and "root:" not in body


def test_only_loopback_hosts_when_asked(agents):
    c = _client(create_app(agents, allowed_hosts=["127.0.0.1", "localhost"]))
    assert c.get("/api/health", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/api/health", headers={"host": "evil.example"}).status_code == 400


# -- creating games ----------------------------------------------------------------------------
@pytest.mark.parametrize("body, status, words", [
    ([1, 2], 400, "JSON object"),
    ({"game": "chess"}, 400, "game must be one of"),
    ({}, 400, "missing keys"),
    ({"game": "penta", "extra": 1}, 400, "unknown keys"),
    ({"game": "penta", "opponents": "heuristic"}, 400, "list"),
    ({"game": "penta", "opponents": ["heuristic"] * 6}, 400, "at most 5"),
    ({"game": "penta", "opponents": ["nobody"]}, 400, "unknown player"),
    ({"game": "penta", "opponents": [7]}, 400, "unknown player"),
    ({"game": "penta", "opponents": ["threshold"]}, 400, "unknown player"),  # a 5000 bot
    ({"game": "fivethousand", "opponents": ["win-value"]}, 400, "unknown player"),
    ({"game": "penta", "seed": -1}, 400, "seed"),
    ({"game": "penta", "seed": 1.5}, 400, "seed"),
    ({"game": "penta", "seed": True}, 400, "seed"),
    ({"game": "penta", "seed": 2**64}, 400, "seed"),
    ({"game": "penta", "seed": "7"}, 400, "seed"),
    ({"game": "penta", "advisor": 1}, 400, "advisor"),
])
def test_new_game_bodies_are_checked(client, body, status, words):
    message = _one_line_error(client.post("/api/games", json=body), status)
    assert words in message
    assert client.get("/api/health").json()["games"] == 0  # nothing was created


@pytest.mark.parametrize("spec", [
    "../models/x.zip", "/tmp/bot.py:policy", "agents.registry:make", "os:system",
    "runs/ppo-penta", "tests/conftest.py:chromium_path",
])
def test_a_request_never_names_a_file_or_module(client, monkeypatch, spec):
    """Only names of the server's mapping are seated: anything else is refused before any
    player is built or any file read."""
    import agents as agents_package

    def refuse(*args, **kwargs):
        raise AssertionError("a request made the server load a player")

    monkeypatch.setattr(agents_package, "load", refuse)
    r = client.post("/api/games", json={"game": "penta", "opponents": [spec]})
    assert "unknown player" in _one_line_error(r, 400)


def test_malformed_json_and_transport_rules(client):
    headers = {"content-type": "application/json"}
    cases = [
        ({"content": b"{bad json", "headers": headers}, 400, "not valid JSON"),
        ({"content": b'{"game": "penta", "game": "dice-poker"}', "headers": headers}, 400,
         "duplicate key"),
        ({"content": b'{"game": "penta", "seed": NaN}', "headers": headers}, 400, "NaN"),
        ({"content": b"\xff\xfe", "headers": headers}, 400, "not valid JSON"),
        ({"content": b'{"game": "penta"}', "headers": {"content-type": "text/plain"}}, 415,
         "application/json"),
        ({"content": b'{"game": "penta", "x": "' + b"a" * 20_000 + b'"}', "headers": headers},
         413, "larger than"),
        ({"content": b"[" * 100_000, "headers": headers}, 413, "larger than"),
    ]
    for kwargs, status, words in cases:
        assert words in _one_line_error(client.post("/api/games", **kwargs), status)
    assert client.get("/api/health").json()["games"] == 0
    assert _one_line_error(client.put("/api/games"), 405)
    assert _one_line_error(client.get("/api/nothing"), 404)


# -- moves ------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, words", [
    ({}, "kind must be"),
    ({"kind": "fly"}, "kind must be"),
    ({"kind": "roll"}, "kind must be"),  # a 5000 move in a scorecard game
    ({"kind": "hold"}, "missing keys"),
    ({"kind": "hold", "positions": [5]}, "position"),
    ({"kind": "hold", "positions": [-1]}, "position"),
    ({"kind": "hold", "positions": ["1"]}, "position"),
    ({"kind": "hold", "positions": [True]}, "position"),
    ({"kind": "hold", "positions": [1, 1]}, "twice"),
    ({"kind": "hold", "positions": 3}, "list"),
    ({"kind": "hold", "positions": [0, 1, 2, 3, 4, 0]}, "list"),
    ({"kind": "score", "box": 13}, "box"),
    ({"kind": "score", "box": "Aces"}, "box"),
    ({"kind": "score", "box": 0, "also": 1}, "unknown keys"),
    ({"kind": "auto", "box": 1}, "unknown keys"),
])
def test_move_bodies_are_checked_and_change_nothing(client, body, words):
    game = _new(client, opponents=["heuristic"], seed=5)
    before = client.get(f"/api/games/{game['id']}").json()
    r = client.post(f"/api/games/{game['id']}/move", json=body)
    assert words in _one_line_error(r, 400)
    assert client.get(f"/api/games/{game['id']}").json() == before


def test_illegal_moves_name_the_legal_ones_and_change_nothing(client):
    game = _new(client, seed=11)
    key = game["id"]

    def refused(body, words):
        before = client.get(f"/api/games/{key}").json()
        r = client.post(f"/api/games/{key}/move", json=body)
        assert words in _one_line_error(r, 409)
        assert r.json()["legal"]
        assert client.get(f"/api/games/{key}").json() == before
        return r.json()["legal"]

    legal = refused({"kind": "auto"}, "after the last roll")
    assert legal[0] == "hold any dice and reroll" and "score Aces" in legal
    refused({"kind": "hold", "positions": [0, 1, 2, 3, 4]}, "all five")
    assert client.post(f"/api/games/{key}/move", json={"kind": "score", "box": 0}).status_code \
        == 200
    refused({"kind": "score", "box": 0}, "already filled")
    for _ in range(2):
        assert client.post(f"/api/games/{key}/move",
                           json={"kind": "hold", "positions": []}).status_code == 200
    legal = refused({"kind": "hold", "positions": [0]}, "No rerolls left")
    assert "hold any dice and reroll" not in legal and "score Aces" not in legal


def test_illegal_bank_in_5000(client):
    """A bank the rules refuse (here: below the entry of 500) is a 409 saying why."""
    for seed in range(40):
        game = _new(client, game="fivethousand", seed=seed)
        if not game["state"]["legal"]["bank"]:
            break
        client.delete(f"/api/games/{game['id']}")
    state = game["state"]
    r = client.post(f"/api/games/{game['id']}/move", json={"kind": "bank"})
    message = _one_line_error(r, 409)
    assert message == f"You cannot bank now: {state['bank_refusal']}."
    assert r.json()["legal"] == ["roll on"]
    assert client.get(f"/api/games/{game['id']}").json()["state"] == state
    assert _one_line_error(client.post(f"/api/games/{game['id']}/move",
                                       json={"kind": "score", "box": 0}), 400)


def test_unknown_and_deleted_games(client):
    fake = "A" * 24
    assert "no such game" in _one_line_error(client.get(f"/api/games/{fake}"), 404)
    assert _one_line_error(client.post(f"/api/games/{fake}/move", json={"kind": "auto"}), 404)
    game = _new(client)
    assert client.delete(f"/api/games/{game['id']}").status_code == 204
    assert _one_line_error(client.get(f"/api/games/{game['id']}"), 404)
    assert _one_line_error(client.delete(f"/api/games/{game['id']}"), 404)


# -- isolation, bounds, expiry -----------------------------------------------------------------
def test_games_are_isolated_by_unguessable_ids(client):
    a = _new(client, seed=3, opponents=["random"])
    b = _new(client, seed=3, opponents=["random"])
    assert a["id"] != b["id"] and len(a["id"]) >= 24
    assert set(a["id"]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert a["state"] == b["state"]  # same seed, same game
    client.post(f"/api/games/{a['id']}/move", json={"kind": "score", "box": 0})
    assert client.get(f"/api/games/{b['id']}").json()["state"] == b["state"]
    moved = client.post(f"/api/games/{b['id']}/move", json={"kind": "score", "box": 0}).json()
    assert moved["state"] == client.get(f"/api/games/{a['id']}").json()["state"]


def test_a_bounded_number_of_games(agents):
    c = _client(create_app(agents, max_games=2))
    first = _new(c)
    _new(c)
    r = c.post("/api/games", json={"game": "penta"})
    assert "too many games" in _one_line_error(r, 503)
    c.delete(f"/api/games/{first['id']}")
    _new(c)


def test_games_expire(agents):
    import time

    c = _client(create_app(agents, ttl=0.3))
    game = _new(c)
    assert c.get(f"/api/games/{game['id']}").status_code == 200
    time.sleep(0.5)
    assert _one_line_error(c.get(f"/api/games/{game['id']}"), 404)
    assert c.get("/api/health").json()["games"] == 0


def test_store_expiry_and_bound_with_a_clock():
    now = [0.0]
    store = GameStore(max_games=2, ttl=10, clock=lambda: now[0])
    a = store.add("a")
    store.add("b")
    with pytest.raises(StoreFull):
        store.add("c")
    now[0] = 6
    assert store.get(a).game == "a"  # used: its time renewed
    now[0] = 12
    assert len(store) == 1 and store.get(a) is not None  # "b" expired
    store.add("c")
    with pytest.raises(ValueError):
        GameStore(max_games=0)


# -- the advisor, the auto-score choice, whole games -------------------------------------------
def test_advisor_values_and_toggle(client):
    from agents.scorecard.optimal import OptimalAgent
    from dice_env.scorecard.rules import get_rules

    game = _new(client, seed=2, opponents=["heuristic"], advisor=True)
    key, state = game["id"], game["state"]
    advice = state["advice"]
    assert advice["kind"] == "score" and state["advisor"]
    card = {"dice": state["dice"], "rolls_left": state["rolls_left"],
            "scores": state["cards"][0], "penta_bonus": state["totals"][0]["penta_bonus"]}
    exact = OptimalAgent(get_rules("penta")).advise(card)
    assert [o["action"] for o in advice["options"]] == list(exact)
    assert [o["value"] for o in advice["options"]] == pytest.approx(list(exact.values()))
    worst = advice["options"][-1]
    move = ({"kind": "score", "box": worst["box"]} if worst["box"] is not None
            else {"kind": "hold", "positions": worst["positions"]})
    verdict = client.post(f"/api/games/{key}/move", json=move).json()["verdict"]
    best = advice["options"][0]["value"]
    assert verdict["cost"] == pytest.approx(best - worst["value"])
    off = client.post(f"/api/games/{key}/advisor", json={"on": False}).json()["state"]
    assert off["advice"] is None and not off["advisor"]
    assert client.post(f"/api/games/{key}/advisor", json={"on": True}).json()["state"]["advice"]
    for body in ({}, {"on": 1}, {"on": True, "x": 0}):
        assert _one_line_error(client.post(f"/api/games/{key}/advisor", json=body), 400)


def test_auto_score_plays_the_computers_choice(client):
    from agents.scorecard.heuristic import computer_choice

    game = _new(client, seed=4)
    key = game["id"]
    assert game["state"]["auto"] is None  # the timer runs only after the last roll
    for _ in range(2):
        state = client.post(f"/api/games/{key}/move",
                            json={"kind": "hold", "positions": []}).json()["state"]
    auto = state["auto"]
    card = {"dice": state["dice"], "scores": state["cards"][0]}
    assert auto["seconds"] == 3 and auto["box"] == computer_choice("penta", card)
    answer = client.post(f"/api/games/{key}/move", json={"kind": "auto"}).json()
    assert answer["messages"][0] == (f"No choice within 3s: the computer's choice, "
                                     f"{auto['label']}, is scored for you.")
    assert answer["state"]["cards"][0][auto["box"]] is not None


def test_whole_games_through_the_api(client):
    """Penta against five bots and Dice Poker alone to the end: a summary with the winner and
    the advisor's total loss; the must-scratch warning when no open box scores."""
    game = _new(client, seed=1, advisor=True,
                opponents=["heuristic", "optimal", "greedy", "random", "win-value"])
    key, state = game["id"], game["state"]
    warned = False
    while not state["over"]:
        k = state["legal_boxes"].index(True)
        warned |= state["warning"] == MUST_SCRATCH_WARNING
        answer = client.post(f"/api/games/{key}/move", json={"kind": "score", "box": k}).json()
        assert len(answer["frames"]) >= 5  # every bot's decisions, one frame each
        state = answer["state"]
    assert warned
    summary = state["summary"]
    assert summary["decisions"] == 13 and summary["loss"] > 0
    assert len(summary["totals"]) == 6 and summary["lines"][0].startswith("Final total:")
    assert "Total expected loss of your game" in summary["lines"][-1]
    solo = _new(client, game="dice-poker", seed=2)
    state = solo["state"]
    while not state["over"]:
        k = state["legal_boxes"].index(True)
        state = client.post(f"/api/games/{solo['id']}/move",
                            json={"kind": "score", "box": k}).json()["state"]
    assert len(state["cards"][0]) == 15 and state["summary"]["loss"] is None


def test_the_inspect_routes_get_the_same_players(monkeypatch, agents):
    from agents.play.web import inspect_routes as module

    seen = []
    monkeypatch.setattr(module, "inspect_routes",
                        lambda mapping, **kwargs: seen.append(mapping) or [])
    app = create_app(agents)
    assert seen == [app.state.agents] and set(seen[0]) == set(agents)


# -- the players of the command line ---------------------------------------------------------
def test_command_line_agents(tmp_path):
    bot = tmp_path / "my_bots.py"
    bot.write_text("import numpy as np\n"
                   "def first(observation, action_mask):\n"
                   "    return int(np.flatnonzero(action_mask)[0])\n")
    mapping = allowed_agents([f"mine={bot}:first", f"{bot}:first"])
    assert isinstance(mapping["mine"], AgentFactory) and not mapping["mine"].registered
    assert mapping["mine"].games == {"penta", "dice-poker", "yatzy", "yacht", "fivethousand", "pig"}
    assert "first" in mapping  # a bare spec is named after its last part
    c = _client(create_app(mapping))
    assert "mine" in c.get("/api/config").json()["agents"]
    game = _new(c, game="fivethousand", opponents=["mine", "heuristic"], seed=3)
    assert game["state"]["names"] == ["you", "mine", "heuristic"]
    bad = tmp_path / "bad_bot.py"
    bad.write_text("def cheat(observation, action_mask):\n    return 999\n")
    c = _client(create_app(allowed_agents([f"cheat={bad}:cheat"])))
    game = _new(c, opponents=["cheat"], seed=1)
    r = c.post(f"/api/games/{game['id']}/move", json={"kind": "score", "box": 0})
    assert "cheat chose the illegal action 999" in _one_line_error(r, 500)
    with pytest.raises(ValueError, match="taken"):
        allowed_agents([f"mine={bot}:first", f"mine={bot}:first"])
    with pytest.raises(ValueError, match="registered player"):
        allowed_agents(["optimal"])
    with pytest.raises(ValueError, match="plays none of the games"):
        allowed_agents([str(tmp_path / "missing.zip")])


def test_server_command_line_errors(capsys):
    from agents.play.web.server import main

    for argv in (["--port", "70000"], ["--auto-seconds", "-1"], ["--max-games", "0"],
                 ["--port", "x"], ["--agent", "no/such/model.zip"], ["--ttl", "0"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error:" in err, argv


# -- issue 36: numbers bounded and ASCII, never a 500 ------------------------------------------
class _NoJobs:
    """A job runner that runs nothing (a request that needs a job gets its 202 and no work
    starts)."""

    workers = 1

    def __init__(self) -> None:
        self.jobs: dict = {}

    def submit(self, key, what, fn, args=(), **kwargs):
        from agents.play.web.jobs import Job

        job = self.jobs.get(key) or Job(f"job{len(self.jobs)}", key, what, fn, tuple(args))
        self.jobs[key] = job
        return job

    def latest(self, key):
        return self.jobs.get(key)

    def get(self, job_id):
        return next((j for j in self.jobs.values() if j.id == job_id), None)

    def active(self):
        return list(self.jobs.values())

    def all_jobs(self):
        return list(self.jobs.values())

    async def wait(self, job, timeout):
        return False

    def shutdown(self):
        pass


@pytest.fixture
def quiet(agents):
    """An app whose long work never runs (no worker process is started)."""
    return _client(create_app(agents, runner=_NoJobs(), max_games=500))


def test_a_seed_of_5000_digits_is_a_400_not_a_500(quiet):
    """Was ``500 internal error: ValueError`` (Python's 4300-digit limit)."""
    body = b'{"game": "penta", "seed": ' + b"7" * 5000 + b"}"
    r = quiet.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert "has 5000 characters; at most 24" in _one_line_error(r, 400)
    r = quiet.post("/api/games", content=b'{"game": "penta", "seed": 1' + b"0" * 30 + b".5}",
                   headers={"content-type": "application/json"})
    assert "at most 24" in _one_line_error(r, 400)


@pytest.mark.parametrize("seeds, words", [
    ("0-9223372036854775807", "at most 200 seeds at once"),  # was 500 OverflowError
    ("99999999999999999999999-99999999999999999999999",
     "each seed must be an integer from 0 to 9223372036854775807"),  # was "need 0 <= A <= B"
    ("9223372036854775807-9223372036854775808", "each seed must be an integer from 0"),
    ("\uff11-\uff12", "ASCII digits"),  # full-width 1-2: was accepted
    ("\u0661-\u0662", "ASCII digits"),  # Arabic-Indic digits
    ("5-3", "A <= B"),
    ("-1", "ASCII digits"),
    ("1-", "ASCII digits"),
    (" 1-2", "ASCII digits"),
    ("1" * 80, "ASCII digits"),
])
def test_habits_seed_ranges_are_ascii_and_bounded(quiet, seeds, words):
    r = quiet.get("/api/inspect/habits", params={"agent": "greedy", "game": "penta",
                                                 "seeds": seeds})
    assert words in _one_line_error(r, 400)


@pytest.mark.parametrize("seed", ["\uff17", "\u0667", "7\uff17", "9223372036854775808", "+7",
                                  "0x7", "7 "])
def test_an_inspect_seed_is_ascii_and_bounded(quiet, seed):
    r = quiet.get("/api/inspect", params={"agent": "greedy", "game": "penta", "seed": seed})
    assert "seed must be an integer from 0 to 9223372036854775807" in _one_line_error(r, 400)


def test_a_content_length_is_ascii_digits(live_url):
    host, port = live_url.removeprefix("http://").split(":")
    for length in ("\uff11\uff12", "12a", "-1"):
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.putrequest("POST", "/api/games")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", length.encode("utf-8"))
        conn.endheaders()
        r = conn.getresponse()
        r.read()
        conn.close()
        assert 400 <= r.status < 500, (length, r.status)


def _fuzz_values(rng):
    import random

    assert isinstance(rng, random.Random)
    atoms = [None, True, False, 0, -1, 1, 5, 13, 99, 2**63, -(2**63), 10**30, 1.5, -0.0, 1e308,
             "", "penta", "dice-poker", "fivethousand", "heuristic", "optimal", "win-value",
             "\uff11", "\u0000", "\ud7ff", "x" * 300, "score", "hold", "auto", "roll", "bank"]

    def value(depth=0):
        kind = rng.random()
        if depth < 3 and kind < 0.15:
            return [value(depth + 1) for _ in range(rng.randint(0, 6))]
        if depth < 3 and kind < 0.25:
            return {rng.choice(["game", "kind", "box", "positions", "on", "seed", "opponents",
                                "advisor", "x"]): value(depth + 1)
                    for _ in range(rng.randint(0, 4))}
        return rng.choice(atoms)

    return value


def test_fuzz_no_malformed_request_gets_a_500(quiet):
    """Many malformed bodies and parameters, on every route: a 4xx (or a 2xx), never a 5xx."""
    import json
    import random

    rng = random.Random(36)
    value = _fuzz_values(rng)
    game = _new(quiet, seed=1)["id"]
    five = _new(quiet, game="fivethousand", seed=1)["id"]
    raw = [b"", b"{", b"[]", b"null", b"1e999999", b'{"game": 1' + b"0" * 5000 + b"}",
           b'{"game": "penta", "seed": -' + b"9" * 40 + b"}", b"\xff\xfe\x00", b'"\\ud800"',
           b'{"game": "\\u0000"}', b"[" * 2000 + b"]" * 2000, b'{"seed": 1e400}']
    statuses = []
    for i in range(400):
        path = rng.choice(["/api/games", f"/api/games/{game}/move", f"/api/games/{five}/move",
                           f"/api/games/{game}/advisor", f"/api/games/{five}/advisor"])
        if i < len(raw) * 2:
            content = raw[i % len(raw)]
        else:
            fields = value()
            content = json.dumps(fields if rng.random() < 0.8 else {"game": "penta",
                                                                     "seed": fields}).encode()
        r = quiet.post(path, content=content, headers={"content-type": "application/json"})
        statuses.append(r.status_code)
        assert r.status_code < 500, (path, content[:200], r.status_code, r.text)
    digits = ["0", "7", "-1", "\uff17", "\u0667", "9" * 30, "1e3", "0x10", "", " ", "1-3",
              "0-9223372036854775807", "3-1", "\u00b2", "\u2167", "١٢-١٣", "1--2", "%00"]
    for _ in range(200):
        path = rng.choice(["/api/inspect", "/api/inspect/habits", "/api/inspect/options",
                           "/api/jobs/x", "/api/ready", "/api/health"])
        params = {k: rng.choice(digits + ["greedy", "penta", "fivethousand", "nobody"])
                  for k in rng.sample(["agent", "agent2", "game", "seed", "seeds", "x"],
                                      rng.randint(0, 4))}
        r = quiet.get(path, params=params)
        statuses.append(r.status_code)
        assert r.status_code < 500, (path, params, r.status_code, r.text)
    assert any(400 <= s < 500 for s in statuses) and any(s < 300 for s in statuses)


# -- issue 36: other sites, expiry, limits ------------------------------------------------------
@pytest.mark.parametrize("headers", [
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
    {"origin": "https://evil.example"},
    {"origin": "null"},
    {"origin": "http://testserver:8000"},  # another port of the same host
    {"origin": "https://testserver"},  # another scheme
    {"sec-fetch-site": "same-origin", "origin": "http://evil.example"},
])
def test_requests_from_other_sites_start_no_work(quiet, headers):
    """An ``<img src=".../api/inspect/habits?...">`` or a form on another site: a 403 with a
    reason, and nothing starts."""
    game = _new(quiet)["id"]
    attempts = [
        ("POST", "/api/games", {"game": "penta"}),
        ("POST", f"/api/games/{game}/move", {"kind": "score", "box": 0}),
        ("POST", f"/api/games/{game}/advisor", {"on": True}),
        ("DELETE", f"/api/games/{game}", None),
        ("GET", "/api/inspect/habits?agent=greedy&game=penta&seeds=0-99", None),
        ("GET", "/api/inspect?agent=greedy&game=penta&seed=1", None),
        ("GET", "/api/jobs/abc", None),
        ("GET", "/api/config", None),
    ]
    for method, path, body in attempts:
        r = quiet.request(method, path, json=body, headers=headers)
        assert "refused" in _one_line_error(r, 403), (method, path)
    assert quiet.get("/api/health").json()["games"] == 1  # nothing was created or deleted
    assert quiet.get(f"/api/games/{game}").json()["state"]["cards"][0][0] is None
    assert quiet.app.state.runner.jobs == {}
    # liveness and readiness answer anyone; the pages too (a link from elsewhere)
    for path in ("/api/health", "/api/ready", "/", "/inspect"):
        assert quiet.get(path, headers=headers).status_code == 200


@pytest.mark.parametrize("headers", [
    {}, {"sec-fetch-site": "same-origin"}, {"sec-fetch-site": "none"},
    {"sec-fetch-site": "same-origin", "origin": "http://testserver"},
    {"origin": "http://TestServer:80"},
])
def test_this_servers_own_pages_pass(quiet, headers):
    r = quiet.post("/api/games", json={"game": "penta"}, headers=headers)
    assert r.status_code == 201, r.text


def test_games_never_moved_expire_soon_and_played_ones_keep_the_ttl():
    now = [0.0]
    store = GameStore(max_games=3, ttl=3600, unplayed_ttl=300, clock=lambda: now[0])
    idle, played = store.add("idle"), store.add("played")
    store.get(played).moved = True
    now[0] = 200
    assert store.retry_after() == 100  # the idle game frees its place in 100 s
    now[0] = 301
    assert store.get(idle) is None and store.get(played) is not None
    now[0] = 301 + 3599
    assert store.get(played) is not None
    now[0] = 301 + 3599 + 3601
    assert store.get(played) is None and len(store) == 0


def test_a_burst_of_creates_frees_its_places_soon(agents):
    now = [0.0]
    app = create_app(agents, max_games=3, unplayed_ttl=60, runner=_NoJobs())
    app.state.store._clock = lambda: now[0]
    c = _client(app)
    for _ in range(3):
        _new(c)
    r = c.post("/api/games", json={"game": "penta"})
    assert "too many games" in _one_line_error(r, 503)
    assert r.headers["retry-after"] == "60"
    now[0] = 61
    _new(c)


def test_too_many_requests_at_once_is_a_503_with_retry_after(agents):
    c = _client(create_app(agents, max_requests=0, runner=_NoJobs()))
    r = c.get("/api/config")
    assert "busy" in _one_line_error(r, 503) and r.headers["retry-after"] == "1"
    assert c.get("/api/health").status_code == 200


def _raw(url: str, data: bytes, seconds: float = 30.0) -> bytes:
    """Send ``data`` on a new connection to ``url`` and read until the server closes it (or
    ``seconds``, a bound against a hung test)."""
    import socket

    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=seconds) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(4096):
            out += chunk
        return out


def test_slow_clients_are_timed_out(agents, monkeypatch):
    """A request head or a body that never finishes arriving: the connection is closed (the
    head) or answered 408 (the body), instead of holding a place for ever."""
    from agents.play.web import server as server_module
    from agents.play.web import validation

    monkeypatch.setattr(server_module, "HEAD_SECONDS", 0.5)
    monkeypatch.setattr(validation, "BODY_SECONDS", 0.5)
    running = server_module.serve_in_thread(create_app(agents, runner=_NoJobs()))
    try:
        assert _raw(running.url, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n") == b""
        answer = _raw(running.url, b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                   b"Content-Type: application/json\r\nContent-Length: 100\r\n"
                                   b"\r\n{\"game\"")
        assert answer.startswith(b"HTTP/1.1 408") and b"took longer than 0.5 s" in answer
        whole = _raw(running.url, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  b"Connection: close\r\n\r\n")
        assert whole.startswith(b"HTTP/1.1 200")
    finally:
        running.stop()


def test_pass_and_play_games_are_created_with_their_people(quiet):
    """``people``: the names at one screen (checked by the game model: a 400 that says why)."""
    game = quiet.post("/api/games", json={"game": "penta", "people": ["Ann", "Bob"],
                                          "opponents": ["heuristic"]})
    assert game.status_code == 201 and game.json()["state"]["names"] == ["Ann", "Bob",
                                                                         "heuristic"]
    for people, words in ([["Ann", "ann"], "two people"], ["Ann", "list"], [[7], "list"],
                          [["x"] * 9, "at most 8"]):
        r = quiet.post("/api/games", json={"game": "penta", "people": people})
        assert words in _one_line_error(r, 400)
