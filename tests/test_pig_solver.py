"""The exact two-player optimum of Pig (agents/pig/solver.py) and its players."""

import itertools

import numpy as np
import pytest

from agents.pig.bots import HoldAtAgent
from agents.pig.matches import play_matches
from agents.pig.optimal import OptimalAgent
from agents.pig.solver import (
    bellman_residual,
    fixed_policy_win_probability,
    load_or_solve,
    solve,
    solve_record,
)
from dice_env.pig import rules as R
from dice_env.pig.env import PigEnv
from dice_env.pig.observation import encode_observation
from dice_env.pig.rules import HOLD, ROLL, PigRules, PigState


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("pig-cache")


@pytest.fixture(scope="module")
def sol(cache):
    return load_or_solve("pig", cache_dir=cache)


def test_neller_and_presser_first_player_wins_0_5306(sol, cache):
    assert round(sol.first_player_win_probability, 4) == 0.5306
    assert sol.residual < 1e-9
    assert bellman_residual(sol.rules, sol.table) < 1e-9
    record = solve_record("pig", cache_dir=cache)
    assert record["first_player_win_probability"] == pytest.approx(0.530593, abs=1e-6)
    assert record["source"] == "cache" and record["iterations"] == sol.sweeps > 0


def test_a_second_call_loads_the_table(sol, cache):
    again = load_or_solve("pig", cache_dir=cache)
    assert again.source == "cache" and again.cache_path == sol.cache_path
    assert np.array_equal(again.table, sol.table)
    fresh = load_or_solve("pig", cache_dir=cache, force=True)
    assert fresh.source == "solved"


def naive_value_iteration(rules, tol=1e-13):
    """Pig's equations in plain Python, Jacobi sweeps over every state: an independent check."""
    w, s = rules.win_score, rules.die_sides
    faces = [1] * (s - 1) if rules.piglet else list(range(2, s + 1))
    p = {(i, j, k): 0.0 for i in range(w) for j in range(w) for k in range(w - i)}

    def value(table, i, j, k):
        return 1.0 if i + k >= w else table[i, j, k]

    for _ in range(100_000):
        new = {}
        for (i, j, k) in p:
            roll = ((1 - value(p, j, i, 0)) + sum(value(p, i, j, k + f) for f in faces)) / s
            hold = 1 - value(p, j, i + k, 0)
            new[i, j, k] = max(roll, hold)
        delta = max(abs(new[key] - p[key]) for key in p)
        p = new
        if delta < tol:
            return p
    raise AssertionError("did not converge")


@pytest.mark.parametrize("knobs", [{"win_score": 8, "die_sides": 3},
                                   {"win_score": 6, "die_sides": 2, "piglet": True},
                                   {"win_score": 10, "die_sides": 6}])
def test_other_rules_against_a_naive_solver(knobs):
    rules = PigRules(**knobs)
    fast = solve(rules)
    slow = naive_value_iteration(rules)
    for (i, j, k), v in slow.items():
        assert fast.table[i, j, k] == pytest.approx(v, abs=1e-9)
    assert bellman_residual(rules, fast.table) < 1e-9


def test_more_than_two_players_is_refused():
    with pytest.raises(ValueError, match="covers two players.*num_players=3"):
        solve(PigRules(num_players=3))
    with pytest.raises(ValueError, match="covers two players"):
        OptimalAgent(PigRules(num_players=4))
    agent = OptimalAgent("pig", solution=solve())
    obs = encode_observation(PigRules(num_players=3), R.initial_state(PigRules(num_players=3)), 0)
    with pytest.raises(ValueError, match="plays two-player games; got a 3-player observation"):
        agent.act(obs, np.array([1, 1]))


def test_optimal_values_against_the_solver_at_every_state(sol):
    agent = OptimalAgent("pig", solution=sol)
    rules = PigRules()
    rng = np.random.default_rng(0)
    obs, masks, keys = [], [], []
    for _ in range(500):
        i, j = rng.integers(100, size=2)
        k = int(rng.integers(0, 100 - i + 5))
        state = PigState((int(i), int(j)), k, 0, 0)
        obs.append(encode_observation(rules, state, 0))
        masks.append(R.action_mask(rules, state))
        keys.append((int(i), int(j), k))
    values = agent.action_values(np.array(obs))
    actions = agent.act_batch(np.array(obs), np.array(masks))
    for (i, j, k), v, a, m in zip(keys, values, actions, masks):
        assert m[a]
        if i + k >= 100:
            assert a == HOLD and np.isnan(v[ROLL]) and v[HOLD] == 1.0
            continue
        best = max(v)
        assert best == pytest.approx(sol.win_probability(i, j, k), abs=1e-12)
        assert v[a] == pytest.approx(best, abs=1e-12)
    advice = agent.advise({"scores": [0, 0], "turn_total": 0})
    assert list(advice) == [ROLL, HOLD] and advice[ROLL] == pytest.approx(0.530593, abs=1e-6)


def test_the_optimal_policy_evaluates_to_its_own_value(sol):
    """The fixed-policy evaluator (another kernel) gives the optimum its solved value, and
    hold-at-20 against itself a plausible first-move edge."""
    table = sol.roll_table()
    assert fixed_policy_win_probability("pig", table, table) == pytest.approx(
        sol.first_player_win_probability, abs=1e-10)
    hold = HoldAtAgent("pig").roll_table()
    assert 0.5 < fixed_policy_win_probability("pig", hold, hold) < 0.56


def test_optimal_beats_hold_at_20_with_common_random_numbers(sol):
    optimal, hold = OptimalAgent("pig", solution=sol), HoldAtAgent("pig")
    result = play_matches([optimal, hold], 2000, seed=11)
    assert result["games"] == 4000 and result["draws"] == 0
    rate, se = result["win_rate"][0], result["stderr"][0]
    assert rate - 0.5 > 3 * se
    # the exact value: each seating once
    opt, h20 = sol.roll_table(), hold.roll_table()
    exact = (fixed_policy_win_probability("pig", opt, h20)
             + 1 - fixed_policy_win_probability("pig", h20, opt)) / 2
    assert abs(rate - exact) < 4 * se
    assert 0.53 < exact < 0.55


def test_common_random_numbers_give_mirror_games_the_same_dice():
    hold = HoldAtAgent("pig")
    r = play_matches([hold, hold], 300, seed=5)  # the same player in both seats
    assert r["wins"][0] + r["wins"][1] + r["draws"] == r["games"] == 600
    # the same player in every seat: both games of a deal play the same dice the same way, so
    # the same seat wins both, and each player wins one of the deal's two games
    assert np.allclose(r["deal_win_rate"], 0.5)


def test_the_optimal_player_as_an_env_opponent(sol):
    env = PigEnv(opponents=OptimalAgent("pig", solution=sol), agent_seat=0)
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        obs, r, term, trunc, info = env.step(HOLD if info["action_mask"][ROLL] == 0
                                             or obs[2] * 100 >= 25 else ROLL)
        done = term or trunc
    assert term


@pytest.mark.parametrize("threshold, turn, expected", [(20, 19, ROLL), (20, 20, HOLD),
                                                      (5, 5, HOLD), (25, 24, ROLL)])
def test_hold_at_agent(threshold, turn, expected):
    bot = HoldAtAgent("pig", threshold=threshold)
    rules = PigRules()
    state = PigState((10, 50), turn, 0, 0)
    obs = encode_observation(rules, state, 0)
    assert bot.act(obs, np.array([1, 1])) == expected
    assert bot.act_batch(obs[None, :], np.array([[1, 1]])).tolist() == [expected]
    near = encode_observation(rules, PigState((90, 50), 10, 0, 0), 0)
    assert bot.act(near, np.array([0, 1])) == HOLD  # the forced winning hold
    with pytest.raises(ValueError, match="threshold must be a positive integer"):
        HoldAtAgent("pig", threshold=0)


def test_roll_table_of_the_hold_at_bot():
    table = HoldAtAgent(PigRules(win_score=30), threshold=7).roll_table()
    for i, j, k in itertools.product(range(30), range(0, 30, 7), range(30)):
        assert table[i, j, k] == (k < 7 and i + k < 30)
