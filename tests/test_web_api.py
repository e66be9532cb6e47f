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
    return _client(create_app(agents, auto_seconds=3, max_games=20))


def _new(client, **body):
    body.setdefault("game", "penta")
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
    cfg = client.get("/api/config").json()
    assert [g["id"] for g in cfg["games"]] == ["penta", "dice-poker", "fivethousand"]
    assert "win-value" in cfg["bots"]["penta"] and "win-value" not in cfg["bots"]["fivethousand"]
    assert cfg["max_opponents"] == 5 and cfg["auto_seconds"] == 3


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
    monkeypatch.setattr(module, "inspect_routes", lambda mapping: seen.append(mapping) or [])
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
    assert mapping["mine"].games == {"penta", "dice-poker", "fivethousand"}
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
