"""The inspect records (agents.evaluation.inspect) and their HTTP routes.

The records must be the regret tools' own numbers: a game's per-decision regrets sum to what
``optimality_gap`` / ``fivethousand_gap`` charge that game, the habits table is the regret
tool's box-vs-optimal table over the same games, and two agents side by side meet the same
dice.  The routes accept only the agent names the server was given and refuse every bad
parameter with a one-line JSON error, loading nothing a request names.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import need

import agents
from agents.evaluation.fivethousand_regret import fivethousand_gap
from agents.evaluation.inspect import habits, inspect, inspector, parse_seed_range
from agents.evaluation.scorecard_games import run_scorecard_games
from agents.evaluation.scorecard_regret import optimality_gap


@pytest.fixture(scope="module")
def penta():
    return inspector("penta")


@pytest.fixture(scope="module")
def five():
    return inspector("fivethousand")


def _regret_sum(record: dict) -> float:
    return sum(d["regret"] for d in record["decisions"])


@pytest.mark.parametrize("game, seed", [("penta", 3), ("dice-poker", 11)])
def test_scorecard_regrets_equal_optimality_gap(game, seed):
    insp = inspector(game)
    agent = agents.make("greedy", game)
    data = inspect(agent, game, seed, optimal=insp)
    json.dumps(data, allow_nan=False)  # JSON-serialisable as it is
    (view,) = data["games"]
    (record,) = view["players"]
    gap = optimality_gap(agent, game, games=2, seed=seed, optimal=insp.optimal, paired=False)
    assert gap.per_game[0] > 0
    assert _regret_sum(record) == pytest.approx(gap.per_game[0], abs=1e-9)
    assert record["regret"] == pytest.approx(gap.per_game[0], abs=1e-9)
    assert record["score"] == gap.stats.total[0]
    assert record["optimal_value"] == pytest.approx(gap.optimal_value)
    # every decision: the chosen option is legal, the regret is the gap to the best value
    for d in record["decisions"]:
        values = {o["action"]: o["value"] for o in d["options"]}
        assert d["chosen"] in values and d["best"] in values
        assert d["value"] == max(values.values())
        assert d["regret"] == pytest.approx(max(0.0, d["value"] - values[d["chosen"]]), abs=1e-9)
    # the chart ends on the final score with the whole regret
    last = record["turns"][-1]
    assert last["score"] == record["score"]
    assert last["regret"] == pytest.approx(record["regret"])


def test_game_seeds_are_the_first_games_of_their_seeds():
    agent = agents.make("greedy", "penta")
    together = run_scorecard_games(agent, "penta", 3, game_seeds=[4, 9, 4]).total
    alone = [run_scorecard_games(agent, "penta", 2, seed=s).total[0] for s in (4, 9)]
    assert together.tolist() == [alone[0], alone[1], alone[0]]


def test_fivethousand_regrets_equal_fivethousand_gap(five):
    agent = agents.make("heuristic", "fivethousand")
    data = inspect(agent, "fivethousand", 5, optimal=five)
    json.dumps(data, allow_nan=False)
    gap = fivethousand_gap(agent, 2, 5, optimal=five.optimal)
    assert len(data["games"]) == 2
    for k, view in enumerate(data["games"]):
        (record,) = view["players"]
        assert record["opens"] == (k == 0)
        assert _regret_sum(record) == pytest.approx(gap.per_game[k], abs=1e-9)
        assert record["won"] == bool(gap.outcome[k])
        assert record["optimal_value"] == pytest.approx(gap.baseline[k])
        for d in record["decisions"]:
            assert 0.0 <= d["value"] <= 1.0
            assert {o["action"] for o in d["options"]} >= {d["chosen"], d["best"]}
            assert d["facts"] == [  # what the page lists of the position ("position": "facts")
                ["scores", f"agent {d['scores'][0]} · optimal {d['scores'][1]}"],
                ["turn total before this throw", str(d["turn_total"])],
                ["this throw scores", str(d["roll_points"])]]


def test_the_payload_says_how_the_page_draws_it(penta, five):
    """The page reads the payload's layout, never its family (issue 44): how a position is
    drawn, how many games a seed plays, which dice a choice keeps."""
    assert (penta.header()["position"], penta.header()["games_per_seed"]) == ("card", 1)
    assert (five.header()["position"], five.header()["games_per_seed"]) == ("facts", 2)
    assert (penta.header()["title"], five.header()["title"]) == ("Penta", "5000")
    assert five.header()["unit"] == "win probability" and penta.header()["unit"] == "points"
    data = inspect(agents.make("greedy", "penta"), "penta", 4, optimal=penta)
    for d in data["games"][0]["players"][0]["decisions"]:
        assert d["kept"] == ([i for i in range(5) if d["chosen"] >> i & 1]
                             if d["chosen"] < 32 else [])
    with pytest.raises(ValueError, match="inspect plays 5000 two-player"):
        inspector("dice_env/FiveThousandSolo-v0")


def test_side_by_side_meets_the_same_dice(penta):
    first, second = agents.make("greedy", "penta"), agents.make("heuristic", "penta")
    both = inspect(first, "penta", 2, name="greedy", other=second, other_name="heuristic",
                   optimal=penta)
    a, b = both["games"][0]["players"]
    assert both["agents"] == ["greedy", "heuristic"] and a["stream"] == b["stream"]
    # the same throws until the two first decide differently
    for da, db in zip(a["decisions"], b["decisions"], strict=False):
        assert da["dice"] == db["dice"]
        if da["chosen"] != db["chosen"]:
            break
    # each side is the agent's own game: the same as inspecting it alone
    alone = inspect(second, "penta", 2, name="heuristic", optimal=penta)["games"][0]["players"][0]
    assert alone == b


def test_scorecard_habits_are_the_regret_tools_table(penta):
    agent = agents.make("greedy", "penta")
    seeds = range(0, 6)
    found = habits(agent, "penta", seeds, optimal=penta, include_games=True)
    json.dumps(found, allow_nan=False)
    gap = optimality_gap(agent, "penta", game_seeds=seeds, optimal=penta.optimal, paired=False)
    assert found["counts"] == gap.box_counts.tolist()
    assert np.allclose(found["loss"], gap.box_loss)
    counts = sum(optimality_gap(agent, "penta", game_seeds=[s], optimal=penta.optimal,
                                paired=False).box_counts for s in seeds)
    assert found["counts"] == counts.tolist()
    for g in found["per_game"]:
        single = optimality_gap(agent, "penta", games=2, seed=g["seed"], optimal=penta.optimal,
                                paired=False)
        assert g["regret"] == pytest.approx(single.per_game[0], abs=1e-9)
    assert found["cells"], "greedy makes costly box choices"
    cell = found["cells"][0]
    assert cell["loss"] == max(c["loss"] for c in found["cells"])
    for example in cell["examples"]:
        # the example position is that decision of that seed's inspected game
        view = inspect(agent, "penta", example["seed"], optimal=penta)["games"][0]
        d = view["players"][0]["decisions"][example["decision"]]
        assert d["regret"] == pytest.approx(example["regret"])
        assert d["turn"] == example["turn"]
        labels = found["labels"]
        assert labels[cell["row"]] == cell["chosen"]
        assert (d["chosen"] - 32 if d["chosen"] >= 32 else len(labels) - 1) == cell["row"]
        assert str(example["seed"]) in found["example_games"]


def test_fivethousand_habits_are_the_regret_tools_table(five):
    agent = agents.make("threshold", "fivethousand")
    found = habits(agent, "fivethousand", range(3), optimal=five)
    counts = sum(fivethousand_gap(agent, 2, s, optimal=five.optimal).action_counts
                 for s in range(3))
    assert found["counts"] == counts.tolist()
    assert found["games"] == 6 and found["labels"] == ["roll on", "bank"]


@pytest.mark.parametrize(("text", "reason"), [
    ("", "look like"), ("x", "look like"), ("5-1", "A <= B"), ("-3", "look like"),
    ("1-2-3", "look like"), ("0-1000", "at most"), ("\uff10-3", "look like"),
    ("0-9223372036854775807", "at most"), ("99999999999999999999999-1", "go up to"),
])
def test_seed_ranges_are_checked(text, reason):
    with pytest.raises(ValueError, match=reason):
        parse_seed_range(text)


def test_habits_are_bounded(penta):
    with pytest.raises(ValueError, match="seeds"):
        habits(agents.make("greedy", "penta"), "penta", range(201), optimal=penta)


# -- the routes ------------------------------------------------------------------------------
class Factory:
    """A server-side agent factory that records the games it was asked for."""

    def __init__(self, name: str) -> None:
        self.name, self.calls = name, []

    def __call__(self, game: str):
        self.calls.append(game)
        if self.name == "greedy" and game == "fivethousand":
            raise ValueError("greedy plays scorecard games only")
        return agents.make(self.name, game)


@pytest.fixture(scope="module")
def served():
    import warnings

    need("starlette", "pip install -e '.[web]'")
    from starlette.applications import Starlette

    with warnings.catch_warnings():  # starlette 1.x prefers httpx2 to the httpx installed
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    from agents.play.web.inspect_routes import inspect_routes

    factories = {"greedy": Factory("greedy"), "heuristic": Factory("heuristic")}
    app = Starlette(routes=inspect_routes(factories))
    with TestClient(app) as client:
        yield client, factories


def test_routes_answer_the_regret_tools_numbers(served, penta):
    client, factories = served
    r = client.get("/api/inspect", params={"agent": "greedy", "game": "penta", "seed": "3"})
    assert r.status_code == 200
    record = r.json()["games"][0]["players"][0]
    gap = optimality_gap(agents.make("greedy", "penta"), "penta", games=2, seed=3,
                         optimal=penta.optimal, paired=False)
    assert _regret_sum(record) == pytest.approx(gap.per_game[0], abs=1e-9)
    r = client.get("/api/inspect/habits", params={"agent": "greedy", "game": "penta",
                                                  "seeds": "0-3"})
    assert r.status_code == 200 and r.json()["habits"][0]["games"] == 4
    options = client.get("/api/inspect/options").json()
    assert options["agents"] == ["greedy", "heuristic"]
    page = client.get("/inspect")
    assert page.status_code == 200 and "/inspect/inspect.js" in page.text
    assert client.get("/inspect/inspect.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/inspect/inspect.css").status_code == 200


BAD_REQUESTS = [
    ("/api/inspect", {"agent": "results/models/penta.zip", "game": "penta", "seed": "1"}),
    ("/api/inspect", {"agent": "agents.scorecard.heuristic:HeuristicAgent", "game": "penta",
                      "seed": "1"}),
    ("/api/inspect", {"agent": "ppo", "game": "penta", "seed": "1"}),
    ("/api/inspect", {"agent": "../../etc/passwd", "game": "penta", "seed": "1"}),
    ("/api/inspect", {"agent": "greedy", "game": "penta", "seed": "1",
                      "agent2": "os:system"}),
    ("/api/inspect", {"agent": "greedy", "game": "yahtzee-official", "seed": "1"}),
    ("/api/inspect", {"agent": "greedy", "game": "../penta", "seed": "1"}),
    ("/api/inspect", {"agent": "greedy", "game": "penta", "seed": "-1"}),
    ("/api/inspect", {"agent": "greedy", "game": "penta", "seed": "1e3"}),
    ("/api/inspect", {"agent": "greedy", "game": "penta", "seed": "99999999999999999999"}),
    ("/api/inspect", {"agent": "greedy", "game": "penta"}),
    ("/api/inspect", {"agent": "greedy", "game": "penta", "seed": "1", "model": "x.zip"}),
    ("/api/inspect", [("agent", "greedy"), ("agent", "heuristic"), ("game", "penta"),
                      ("seed", "1")]),
    ("/api/inspect", {"agent": "greedy", "game": "fivethousand", "seed": "1"}),
    ("/api/inspect/habits", {"agent": "greedy", "game": "penta", "seeds": "0-1000"}),
    ("/api/inspect/habits", {"agent": "greedy", "game": "penta", "seeds": "9-2"}),
    ("/api/inspect/habits", {"agent": "greedy", "game": "penta", "seeds": "a-b"}),
    ("/api/inspect/habits", {"agent": "heuristic", "game": "fivethousand", "seeds": "0-100"}),
    ("/api/inspect/habits", {"agent": "nobody", "game": "penta", "seeds": "0-1"}),
    ("/api/inspect/options", {"agent": "greedy"}),
]


@pytest.mark.parametrize("path, params", BAD_REQUESTS)
def test_bad_requests_get_a_one_line_error_and_load_nothing(served, monkeypatch, path, params):
    client, factories = served

    def refuse(*args, **kwargs):
        raise AssertionError(f"a request made the server load {args!r}")

    import agents.policies.specs

    monkeypatch.setattr(agents, "load", refuse)
    monkeypatch.setattr(agents.policies.specs, "load_policy", refuse)
    before = {name: list(f.calls) for name, f in factories.items()}
    r = client.get(path, params=params)
    assert 400 <= r.status_code < 500
    body = r.json()
    assert list(body) == ["error"] and "\n" not in body["error"] and body["error"]
    # only the allowed factories were ever called, and only for an allowed game
    for name, f in factories.items():
        new = f.calls[len(before[name]):]
        assert all(game in ("penta", "dice-poker", "fivethousand") for game in new)
