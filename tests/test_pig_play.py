"""Pig for people (issue 44, part 4): the game model (:mod:`agents.pig.session`), the terminal
game (``dice-env play pig``) and the web game (:mod:`agents.pig.web_view`), all reached
through the family's hooks -- the terminal program and the web app know nothing of Pig."""

from __future__ import annotations

import io
import re
import warnings

import pytest
from conftest import need

import agents
from agents.families import IllegalMove
from agents.pig.session import PigSession, check_people
from agents.play.terminal.cli import main
from dice_env.pig import rules as R


def _run(argv: list[str], lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO("".join(x + "\n" for x in lines)), stdout=out)
    return code, out.getvalue()


#: a person who rolls three times, then holds (a refused roll is answered by the next line)
SCRIPT = ["r", "r", "r", "h"] * 400


# -- the game model ----------------------------------------------------------------------------
def test_a_seed_deals_the_envs_game():
    """With one person at seat 0, a seed deals the game ``PigEnv(agent_seat=0)`` deals with
    the same opponent: the same throws, the same bot decisions, the same end."""
    from dice_env.pig.env import PigEnv

    for seed in (0, 7):
        session = PigSession("pig", ["hold-20"], seed=seed)
        env = PigEnv(agent_seat=0, opponents=[agents.make("hold-20", "pig")])
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            assert session.human_to_move() and info["scores"] == list(session.state.scores)
            assert info["turn_total"] == session.state.turn_total
            action = R.HOLD if session.state.turn_total >= 12 or not session.mask()[R.ROLL] \
                else R.ROLL
            session.play(action)
            session.play_bots()
            _, reward, done, _, info = env.step(action)
        assert session.over() and list(session.state.scores) == info["scores"]
        assert (session.winner() == 0) == (reward > 0)


def test_the_advisor_is_the_optimal_players_advice_and_judges_each_choice():
    s = PigSession("pig", ["hold-20"], seed=1, advise=True)
    values = s.advice()
    assert values == agents.make("optimal", "pig").advise(s.state_dict())
    assert list(values) == [R.ROLL, R.HOLD]  # best first: rolling, at the start
    assert values[R.ROLL] == pytest.approx(0.5306, abs=5e-5)
    move = s.play(R.HOLD)  # holding 0 gives the opponent the first turn
    assert move.verdict.cost == pytest.approx(100 * (values[R.ROLL] - values[R.HOLD]))
    assert s.summary().decisions == 1 and s.summary().loss == pytest.approx(move.verdict.cost)


def test_illegal_moves_are_refused_and_change_nothing():
    s = PigSession("pig", ["hold-20"], seed=2)
    s.state = R.PigState((95, 0), 6, 0, 10)  # 95 + 6 reaches 100: the person must hold
    with pytest.raises(IllegalMove, match="cannot roll") as exc:
        s.play(R.ROLL)
    assert exc.value.legal == ["hold"] and s.state.turn_total == 6
    s.play(R.HOLD)
    assert s.over() and s.winner() == 0
    with pytest.raises(IllegalMove, match="over"):
        s.play(R.HOLD)
    lines = s.summary().lines(s.names, 1)
    assert lines[:2] == ["Scores: you 101 | hold-20 0", "Winner: you"]


def test_seats_bots_and_people():
    alone = PigSession("pig", seed=0)  # Pig needs two players: the envs' default opponent
    assert alone.names == ["you", "hold-20"] and alone.rules.num_players == 2
    table = PigSession("pig", ["hold-20", "random", "hold-20"], seed=0, advise=True,
                       people=[" Ann ", "Bob"])
    assert table.names == ["Ann", "Bob", "hold-20", "random", "hold-20 2"]
    assert table.rules.num_players == 5 and table.advisor is None  # two players only
    assert "two-player" in table.advisor_note()
    with pytest.raises(ValueError, match="optimal cannot play a 3-player game"):
        PigSession("pig", ["optimal", "hold-20"])
    with pytest.raises(ValueError, match="at most 10"):
        PigSession("pig", ["random"] * 10)
    with pytest.raises(ValueError, match="unknown player"):
        PigSession("pig", ["nobody"])


def test_people_are_checked_as_every_game_checks_them():
    """Pig's model sits below the play layer, so it reads the names' one check where the play
    layer's seats read it too (agents/people.py): the same functions, not copies."""
    import agents.people
    import agents.pig.session
    import agents.play.seats

    for name in ("check_people", "unique_names", "YOU", "MAX_NAME"):
        shared = getattr(agents.people, name)
        assert getattr(agents.pig.session, name, shared) is shared
        assert getattr(agents.play.seats, name) is shared
    assert check_people([" Ann  Lee ", "Bob"]) == ["Ann Lee", "Bob"]
    with pytest.raises(ValueError, match="two people are called 'ann'"):
        check_people(["Ann", "ann"])


# -- the terminal ------------------------------------------------------------------------------
def test_a_whole_terminal_game_against_hold_20():
    code, text = _run(["pig", "--seed", "4", "--opponents", "hold-20"], SCRIPT)
    assert code == 0 and "=== Pig - game over ===" in text
    scores = dict(re.findall(r"(you|hold-20) (\d+)", text.split("game over")[-1]))
    winner = re.search(r"Winner: (you|hold-20)", text).group(1)
    assert int(scores[winner]) >= 100 > int(scores["hold-20" if winner == "you" else "you"])
    assert "You roll a" in text and "hold-20 holds" in text
    assert "you reach 100: hold [h]>" in text or winner == "hold-20"
    _, again = _run(["pig", "--seed", "4", "--opponents", "hold-20"], SCRIPT)
    assert again == text  # a seed replays the game


def test_the_terminal_advisor_against_the_optimal_player():
    """``--advise``: the optimal player's win probability of rolling and of holding before
    each decision, the cost of the choice after it, and the total at the end."""
    code, text = _run(["pig", "--seed", "5", "--opponents", "optimal", "--advise"], SCRIPT)
    assert code == 0 and "game over" in text
    assert "Advisor (your win probability after each option):\n    53.06%  roll\n    46.94%  hold" \
        in text
    costs = [float(x) for x in re.findall(r"cost of your choice: ([\d.]+) percentage", text)]
    total = re.search(r"Total expected loss of your game: ([\d.]+) percentage points of win "
                      r"chance over (\d+) decisions", text)
    assert total and int(total.group(2)) == len(costs) > 0
    assert float(total.group(1)) == pytest.approx(sum(costs), abs=0.01 * len(costs))
    assert any(c > 0 for c in costs)  # rolling three times, then holding, is not optimal


def test_terminal_commands_help_quit_and_errors():
    code, text = _run(["pig", "--seed", "1"], ["?", "zz", "r", "q"])
    assert code == 0
    assert "Commands:" in text and "Unknown command 'zz'" in text
    assert "You quit the game." in text and "Scores: you" in text
    code, text = _run(["pig", "--people", "Ann,Bob", "--seed", "2"], ["r", "h", "q"])
    assert ">>> Ann's turn: pass the keyboard to Ann. <<<" in text and "quit the game" in text
    with pytest.raises(SystemExit) as exc:
        _run(["pig", "--opponents", "optimal,hold-20"], [])
    assert exc.value.code == 2
    code, text = _run(["pig", "--seed", "1"], ["r"])  # then the end of input
    assert code == 0 and "End of input" in text


# -- the web -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():
    need("starlette", "pip install -e '.[web]'")
    need("httpx", "pip install -e '.[web]'")
    from agents.play.web.app import create_app
    from agents.play.web.players import allowed_agents

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    with TestClient(create_app(allowed_agents(), auto_seconds=3)) as c:
        yield c


def test_the_web_menu_offers_pig_with_its_players(client):
    cfg = client.get("/api/config").json()
    assert {"id": "pig", "title": "Pig", "family": "pig"} in cfg["games"]
    assert set(cfg["bots"]["pig"]) == set(agents.available("pig"))
    assert "pig" not in client.get("/api/inspect/options").json()["games"]  # no inspection


def test_a_whole_web_game_through_the_api(client):
    """Roll until 15, then hold, against the optimal bot with the advisor on: every view sends
    the layout the page draws; the verdicts add up to the summary's loss."""
    r = client.post("/api/games", json={"game": "pig", "opponents": ["optimal"], "seed": 6,
                                        "advisor": True})
    assert r.status_code == 201, r.text
    key, state = r.json()["id"], r.json()["state"]
    assert state["status"] == "Pig (first to 100): your turn" and state["dice"] == []
    assert [o["text"] for o in state["advice"]["options"]] == ["roll", "hold"]
    costs, frames = [], 0
    while not state["over"]:
        buttons = {b["id"]: b for b in state["controls"]["buttons"]}
        assert set(buttons) == {"roll", "hold"} and state["board"]["kind"] == "table"
        rows = state["board"]["rows"]
        assert [r["cells"][:2] for r in rows] == [[n, str(s)] for n, s in
                                                  zip(state["names"], state["scores"])]
        assert buttons["roll"]["enabled"] == state["legal"]["roll"]
        press = buttons["hold"] if state["turn_total"] >= 15 or not buttons["roll"]["enabled"] \
            else buttons["roll"]
        answer = client.post(f"/api/games/{key}/move", json=press["move"]).json()
        costs.append(answer["verdict"]["cost"])
        frames += len(answer["frames"])
        for f in answer["frames"]:
            assert f["view"]["controls"]["buttons"] == [] and f["text"].startswith("optimal")
        state = answer["state"]
        if not state["over"] and state["turn_total"]:
            assert len(state["dice"]) == 1 and 2 <= state["dice"][0] <= 6
    assert frames > 0 and state["summary"]["decisions"] == len(costs)
    assert state["summary"]["loss"] == pytest.approx(sum(costs))
    assert state["summary"]["lines"][1].startswith("Winner: ")
    assert state["status"] == "Pig: game over" and state["controls"]["buttons"] == []
    r = client.post(f"/api/games/{key}/move", json={"kind": "roll"})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_web_illegal_and_malformed_moves(client):
    key = client.post("/api/games", json={"game": "pig", "seed": 1}).json()["id"]
    r = client.post(f"/api/games/{key}/move", json={"kind": "hold"})  # the dice hold's kind
    assert r.status_code == 400 and "roll" in r.json()["error"]
    r = client.post("/api/games", json={"game": "pig", "opponents": ["optimal", "random"]})
    assert r.status_code == 400 and "optimal cannot play a 3-player game" in r.json()["error"]
    r = client.post("/api/games", json={"game": "pig", "people": ["Ann", "ann"]})
    assert r.status_code == 400 and "two people" in r.json()["error"]


def test_a_roll_that_must_be_a_hold_is_a_409_naming_the_legal_move(client):
    from agents.pig.session import PigSession
    from agents.pig.web_view import PigWebGame

    game = PigWebGame(PigSession("pig", ["hold-20"], seed=0), "Pig")
    game.session.state = R.PigState((97, 40), 5, 0, 30)
    view = game.view()
    roll = next(b for b in view["controls"]["buttons"] if b["id"] == "roll")
    assert not roll["enabled"] and "hold to win" in roll["title"]
    with pytest.raises(IllegalMove) as exc:
        game.move({"kind": "roll"})
    assert exc.value.legal == ["hold"]
    answer = game.move({"kind": "bank"})
    assert answer["messages"] == ["You hold 5: score 102", "You win!"]
    assert answer["frames"] == [] and game.view()["winner"] == "you"


def test_the_view_builds_the_layout_as_the_layout_helpers_do():
    """Pig's view writes the layout's dicts itself (it does not import the web app): they are
    exactly what :mod:`agents.play.web.layout`'s helpers build."""
    from agents.pig import web_view as V
    from agents.play.web import layout as L

    for kwargs in ({}, {"enabled": False, "primary": True, "title": "why", "key": "r"}):
        assert V._button("b", "B", {"kind": "roll"}, **kwargs) == L.button(
            "b", "B", {"kind": "roll"}, **kwargs)
    spec = ("t", [("Player", None), ("Score", "score")], [("mover", ["you", 3]), (None, ["x", 0])])
    assert V._players_table(*spec) == L.players_table(*spec)
    view = V.PigWebGame(PigSession("pig", ["random", "random"], seed=3), "Pig").view()
    assert view["warning"] is None and view["advisor"] is False
    assert len(view["board"]["rows"]) == 3 and view["turn_key"] == "0:0"


# -- in a browser ------------------------------------------------------------------------------
@pytest.mark.xdist_group("browser")
def test_a_pig_game_in_the_browser(page):
    """The Play page draws Pig from its view alone: Roll and Hold buttons (and their keys),
    the die, the scores table; the game runs to its end."""
    need("uvicorn", "pip install -e '.[web]'")
    from agents.play.web.app import create_app
    from agents.play.web.players import allowed_agents
    from agents.play.web.server import serve_in_thread

    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    server = serve_in_thread(create_app(allowed_agents(), auto_seconds=0))
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.eval_on_selector("#speed",
                              "e => { e.value = '0'; e.dispatchEvent(new Event('input')) }")
        page.select_option("#game", "pig")
        page.click("#add-bot")
        page.locator("#bot-list select").nth(0).select_option("hold-20")
        page.fill("#seed", "2")
        page.click("#start")
        page.wait_for_selector("body[data-busy='0']")
        assert page.text_content("#status") == "Pig (first to 100): your turn"
        assert page.eval_on_selector_all("#actions button", "b => b.map(x => x.textContent)") \
            == ["Roll", "Hold"]
        for _ in range(400):
            if page.is_visible("#summary"):
                break
            turn = int(page.text_content("#scores tbody tr.mover td.turn") or 0) \
                if page.locator("#scores tbody tr.mover").count() else 0
            if turn >= 20 or page.is_disabled("#roll"):
                page.keyboard.press("h")
            else:
                page.click("#roll")
            page.wait_for_selector("body[data-busy='0']")
            dice = page.locator("#dice svg.die").count()
            assert dice <= 1
        assert page.is_visible("#summary")
        assert "Winner: " in page.text_content("#summary")
        assert page.locator("#scores tbody tr").count() == 2
    finally:
        server.stop()
    assert not errors, errors
