"""Pig's evaluation hooks (agents/pig/evaluation.py): the exact regret against the optimal player,
the seat-balanced rows of ``dice-env evaluate``, and ``dice-env solve pig --json``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import agents.cli as cli
from agents.evaluation.any_policy import evaluate_players, regret_of_players
from agents.evaluation.benchmark import Roster
from agents.games import resolve
from agents.pig.evaluation import DEFAULT_OPPONENTS, pig_gap, regret_of
from agents.pig.matches import play_matches
from agents.pig.optimal import OptimalAgent
from agents.pig.solver import fixed_policy_win_probability, load_or_solve
from dice_env.pig.rules import HOLD, ROLL, PigRules


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("pig-cache")


@pytest.fixture(autouse=True)
def _cache_env(cache, monkeypatch):
    monkeypatch.setenv("DICE_ENV_CACHE", str(cache))


@pytest.fixture(scope="module")
def sol(cache):
    return load_or_solve("pig", cache_dir=cache)


@pytest.fixture(scope="module")
def optimal(sol):
    return OptimalAgent("pig", solution=sol)


@pytest.fixture(scope="module")
def hold20():
    return agents.make("hold-20", resolve("pig"))


def test_the_optimal_players_regret_is_exactly_zero(optimal):
    r = regret_of(optimal, resolve("pig"), 100, 3, name="optimal")
    assert r.gap == 0.0 and r.ci == (0.0, 0.0) and r.mistakes == 0 and r.decisions > 0
    assert r.value == pytest.approx(0.5, abs=1e-12)
    assert r.unit == "win probability"


def test_hold_20_regret_matches_its_exact_win_probability(sol, optimal, hold20):
    r = pig_gap(hold20, 2000, 0, optimal=optimal, name="hold-20")
    assert r.games == 2000 and r.draws == 0
    low, high = r.ci
    assert 0 < low < r.gap < high
    # the exact seat-balanced win probability of hold-20 against the optimal player
    mine, best = hold20.roll_table(), sol.roll_table()
    opens = fixed_policy_win_probability("pig", mine, best)
    second = 1.0 - fixed_policy_win_probability("pig", best, mine)
    exact = (opens + second) / 2
    value, v_low, v_high = r.estimate()
    assert r.value == value == pytest.approx(0.5 - r.gap, abs=1e-12)
    assert v_low <= exact <= v_high, (exact, r.estimate())
    # the count of wins agrees with the regret, and is far noisier
    a = r.agreement()
    assert a[1] <= 0.0 <= a[2]
    assert r.variance_reduction() > 5
    # hold-20 gives up most when it holds where the optimum rolls
    assert r.action_loss[HOLD, ROLL] > r.action_loss[ROLL, HOLD] > 0
    assert r.action_counts.sum() == r.decisions and r.mistakes > 0


def test_the_regret_plays_the_same_games_as_play_matches(optimal, hold20):
    r = pig_gap(hold20, 60, 5, optimal=optimal)
    m = play_matches([hold20, optimal], 30, seed=5)
    assert r.outcome.sum() == m["wins"][0] and r.draws == m["draws"]
    assert np.array_equal(r.per_deal(r.outcome), m["deal_win_rate"][:, 0])


def test_summary_and_text(optimal, hold20):
    r = pig_gap(hold20, 41, 1, optimal=optimal, name="hold-20")
    assert r.games == 42  # rounded up to whole deals
    s = json.loads(json.dumps(r.summary(), default=float))
    assert s["unit"] == "win probability" and s["agent"] == "hold-20" and s["games"] == 42
    assert s["gap"] == pytest.approx(r.gap) and s["estimate"][0] == pytest.approx(r.value)
    assert s["first_player_win_probability"] == pytest.approx(0.530593, abs=1e-6)
    text = r.format_text()
    assert text.startswith("hold-20 on pig against the optimal player: 42 games")
    assert "gap to the optimum" in text and "hold -> roll" in text


def test_the_regret_refuses_more_than_two_players_and_illegal_actions(hold20, optimal):
    with pytest.raises(ValueError, match="covers two players"):
        regret_of(hold20, PigRules(num_players=3), 10, 0)
    with pytest.raises(ValueError, match="illegal action 7"):
        pig_gap(lambda obs, mask: 7, 4, 0, optimal=optimal)
    with pytest.raises(ValueError, match="games must be a positive integer"):
        pig_gap(hold20, 0, 0, optimal=optimal)


def test_regret_of_players_as_agents_evaluate_runs_it(optimal):
    g = resolve("pig")
    players = {"optimal": agents.make("optimal", g), "hold-20": agents.make("hold-20", g),
               "random": agents.make("random", g, seed=0)}
    results = {r.agent: r for r in regret_of_players(players, g, 200, 0, progress=False)}
    assert results["optimal"].gap == 0.0
    assert 0 < results["hold-20"].gap < results["random"].gap
    assert results["random"].value < results["hold-20"].value < 0.5


def test_evaluate_rows_are_seat_balanced_win_rates(optimal, hold20):
    g = resolve("pig")
    rows = evaluate_players({"hold-20": hold20, "optimal": optimal}, g, "pig", 400, 0,
                            ["hold-20", "optimal", "threshold"])
    # 'threshold' is not a Pig player: left out (with a note)
    assert [(r["agent"], r["opponent"]) for r in rows] == [
        ("hold-20", "hold-20"), ("hold-20", "optimal"), ("optimal", "hold-20"),
        ("optimal", "optimal")]
    by = {(r["agent"], r["opponent"]): r for r in rows}
    for r in rows:
        assert r["game"] == "pig" and r["games"] == 400 and r["draws"] == 0
        assert r["ci_low"] <= r["win_rate"] <= r["ci_high"]
    # a player against itself on the same dice from both seats wins exactly half
    assert by["hold-20", "hold-20"]["win_rate"] == 0.5 == by["optimal", "optimal"]["win_rate"]
    # the two sides of a pairing are the same games
    assert by["hold-20", "optimal"]["win_rate"] + by["optimal", "hold-20"]["win_rate"] == 1.0
    assert by["hold-20", "optimal"]["ci_low"] < 0.5


def test_evaluate_hook_defaults_to_hold_20_and_optimal(hold20):
    hook = resolve("pig").family.hook("evaluate_players")
    rows = hook({"hold-20": hold20}, resolve("pig"), "pig", 10, 0, None, Roster(0))
    assert [r["opponent"] for r in rows] == list(DEFAULT_OPPONENTS)
    with pytest.raises(ValueError, match="roster must build the opponents"):
        hook({"hold-20": hold20}, resolve("pig"), "pig", 10, 0, None, None)


def test_dice_env_solve_pig_json_gives_neller_and_presser(cache, capsys):
    assert cli.main(["solve", "pig", "--json", "--quiet", "--cache-dir", str(cache)]) in (0, None)
    record = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert record["game"] == "pig"
    assert f"{record['first_player_win_probability']:.4f}" == "0.5306"
