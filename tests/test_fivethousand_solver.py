"""The 5000 solvers and the optimal 5000 player, checked from several sides.

* a case solved by hand (target 100: one exact 100 wins);
* a reference written from docs/rules.md alone -- its own roll scoring over all ``6**n`` ordered
  throws, its own bank rules (bumps, gifts, lost gifts, exact wins), a plain recursion per
  state and plain Gauss-Seidel value iteration -- solved from scratch on small targets, and
  applied as a Bellman operator to the solver's table for target 1000 / entry 500;
* the fixed point does not depend on the starting values; the tables follow the rules module;
* the full 5000 solve (once per session, through a temporary cache): values, sweeps,
  residual, the cache and the summary record (its solve time is a benchmark figure, in the
  "Solve time and memory" table of results/optimal.md's 5000 section, not a test);
* the single-turn facts by brute force and by Monte-Carlo turns on the game core;
* the agent in the Gymnasium, solo and AEC envs; simulations (optimal vs optimal, solo,
  optimal vs threshold bots) against the exact values, within 4 standard errors.
"""

from __future__ import annotations

import itertools
import json
import sys
import warnings
from collections import Counter
from functools import cache

import gymnasium as gym
import numpy as np
import pytest

import dice_env  # noqa: F401  (registers the envs)
from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.evaluation.fivethousand_report import seat_balanced, single_turn_monte_carlo
from agents.fivethousand.optimal import OptimalAgent, play_solo_games
from agents.solvers import cache as C
from agents.solvers import fivethousand_vi as VI
from agents.solvers.fivethousand_vi import kernels as K
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.bots import RandomBot, ThresholdBot
from dice_env.fivethousand.observation import encode_observation
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.state import state_from_dict
from dice_env.multi import five_thousand_v0

# Regression values of our own solve (see results/optimal.md); exact to about 1e-10.
FIRST_PLAYER_WINS = 0.5151345761
EXPECTED_TURNS_SOLO = 23.1326456246
ENTRY_PROBABILITY = 0.2859817328
EXPECTED_POINTS = 287.6402790450

SMALL = FiveThousandRules(target=1000, entry=500)


# ------------------------------------------------------------------------------------------
# An independent reference, from docs/rules.md alone
# ------------------------------------------------------------------------------------------
def _combos() -> list[tuple[tuple[int, ...], int]]:
    out = [((1, 0, 0, 0, 0, 0), 100), ((0, 0, 0, 0, 1, 0), 50),
           ((1, 1, 1, 1, 1, 0), 1500), ((0, 1, 1, 1, 1, 1), 1500)]
    for f in range(1, 7):
        three = 1100 if f == 1 else 100 * f
        for k, mult in ((3, 1), (4, 2), (5, 4)):
            out.append((tuple(k if g == f else 0 for g in range(1, 7)), three * mult))
    return out


COMBOS = _combos()


@cache
def ref_best(counts: tuple[int, ...]) -> tuple[int, int]:
    """(points, scoring dice) of the best split of a multiset of dice (face counts)."""
    best = (0, 0)
    for combo, pts in COMBOS:
        if all(c >= k for c, k in zip(counts, combo)):
            sp, sk = ref_best(tuple(c - k for c, k in zip(counts, combo)))
            best = max(best, (pts + sp, sum(combo) + sk))
    return best


@cache
def ref_throws(n: int, choose: bool) -> tuple[float, tuple]:
    """(bust probability, ((options, probability), ...)) of a throw of ``n`` dice, over all
    ``6**n`` ordered throws; an option is (points set aside, dice thrown next)."""
    groups: Counter = Counter()
    bust = 0.0
    for faces in itertools.product(range(1, 7), repeat=n):
        counts = tuple(faces.count(f) for f in range(1, 7))
        pts, k = ref_best(counts)
        if pts == 0:
            bust += 6.0 ** -n
            continue
        if not choose:
            opts: tuple = ((pts, 5 if k == n else n - k),)
        else:
            found = set()
            for sub in itertools.product(*(range(c + 1) for c in counts)):
                m = sum(sub)
                sp, sk = ref_best(sub)
                if m and sk == m:  # every die of the set-aside scores in it
                    found.add((sp, 5 if m == n else n - m))
            opts = tuple(sorted(found))
        groups[opts] += 6.0 ** -n
    return bust, tuple(groups.items())


class Reference:
    """Plain two-player and solo value iteration for ``(target, entry)``."""

    def __init__(self, target: int, entry: int, choose: bool = False) -> None:
        self.target, self.choose = target, choose
        self.low = max(entry, 100)
        self.scores = [0] + list(range(self.low, target, 100))
        self.cap = 2 * target  # turn totals beyond: every bank is lost anyway

    def can_bank(self, a: int, t: int) -> bool:
        return t % 100 == 0 and t >= (self.low if a == 0 else 100)

    def bank_value(self, w: dict, a: int, b: int, t: int) -> float:
        if a + t <= self.target:  # the bank fits: bump an equal score, exact target wins
            a2 = a + t
            if a2 == self.target:
                return 1.0
            return 1.0 - w[(0 if b == a2 else b, a2)]
        if b > 0 and b + t <= self.target:  # overshoot: gift to the entered opponent
            return 0.0 if b + t == self.target else 1.0 - w[(b + t, a)]
        return 1.0 - w[(b, a)]  # the gift is lost

    def turn(self, w: dict, a: int, b: int) -> float:
        lose = 1.0 - w[(b, a)]
        memo: dict = {}

        def roll(t: int, n: int) -> float:
            bust, groups = ref_throws(n, self.choose)
            return bust * lose + sum(p * max(decide(t + pts, left) for pts, left in opts)
                                     for opts, p in groups)

        def decide(t: int, n: int) -> float:
            if t > self.cap:
                return lose
            if (t, n) not in memo:
                v = roll(t, n)
                if self.can_bank(a, t):
                    v = max(v, self.bank_value(w, a, b, t))
                memo[(t, n)] = v
            return memo[(t, n)]

        return roll(0, 5)

    def bellman(self, w: dict) -> dict:
        return {(a, b): self.turn(w, a, b) for (a, b) in w}

    def solve(self, tol: float = 1e-12) -> dict:
        w = {(a, b): 0.5 for a in self.scores for b in self.scores}
        while True:
            delta = 0.0
            for key in w:
                new = self.turn(w, *key)
                delta = max(delta, abs(new - w[key]))
                w[key] = new
            if delta < tol:
                return w

    def solo_turn(self, f: dict, a: int) -> float:
        lose = 1.0 + f[a]
        memo: dict = {}

        def bank(t: int) -> float:
            if a + t == self.target:
                return 1.0
            return 1.0 + f[a + t] if a + t < self.target else lose

        def roll(t: int, n: int) -> float:
            bust, groups = ref_throws(n, self.choose)
            return bust * lose + sum(p * min(decide(t + pts, left) for pts, left in opts)
                                     for opts, p in groups)

        def decide(t: int, n: int) -> float:
            if t > self.cap:
                return lose
            if (t, n) not in memo:
                v = roll(t, n)
                memo[(t, n)] = min(v, bank(t)) if self.can_bank(a, t) else v
            return memo[(t, n)]

        return roll(0, 5)

    def solve_solo(self, tol: float = 1e-12) -> dict:
        f = {a: 0.0 for a in self.scores}
        for a in reversed(self.scores):  # higher scores first; iterate this one alone
            while True:
                new = self.solo_turn(f, a)
                done = abs(new - f[a]) < tol
                f[a] = new
                if done:
                    break
        return f


def as_table(ref: Reference, w: dict) -> np.ndarray:
    return np.array([[w[(a, b)] for b in ref.scores] for a in ref.scores])


# ------------------------------------------------------------------------------------------
# Small cases
# ------------------------------------------------------------------------------------------
def test_reference_scoring_agrees_with_the_rules_examples():
    for dice, pts in [((1, 1, 5, 6, 4), 250), ((1, 1, 1, 2, 3), 1100), ((2, 2, 2, 2, 6), 400),
                      ((1, 1, 1, 1, 1), 4400), ((2, 3, 4, 5, 6), 1500), ((2, 2, 3, 4, 6), 0)]:
        assert ref_best(tuple(dice.count(f) for f in range(1, 7)))[0] == pts


def test_target_100_solved_by_hand():
    """Target 100, entry 100: a turn wins iff it banks exactly 100 -- a first throw worth 100,
    or 50 and then 50 from the four dice left; anything more overshoots and is lost (the
    opponent never enters).  So with ``p`` that chance: solo 1/p turns, and the opener wins
    with ``W = p + (1 - p)(1 - W) = 1 / (2 - p)``."""
    def exactly(n: int, pts: int) -> float:
        return sum(1 for f in itertools.product(range(1, 7), repeat=n)
                   if ref_best(tuple(f.count(x) for x in range(1, 7)))[0] == pts) / 6**n

    p = exactly(5, 100) + exactly(5, 50) * exactly(4, 50)
    rules = FiveThousandRules(target=100, entry=100)
    solo = VI.solve_solo(rules)
    two = VI.solve_two_player(rules, tol=1e-13)
    assert solo.expected_turns == pytest.approx(1 / p, rel=1e-12)
    assert two.first_player_win_probability == pytest.approx(1 / (2 - p), abs=1e-12)


@pytest.mark.parametrize("target, entry, choose", [(600, 300, False), (300, 100, True)])
def test_two_player_matches_the_reference_solved_from_scratch(target, entry, choose):
    rules = FiveThousandRules(target=target, entry=entry, choose_scoring_dice=choose)
    ref = Reference(target, entry, choose)
    sol = VI.solve_two_player(rules, tol=1e-12)
    assert ref.scores == sol.model.scores.tolist()
    np.testing.assert_allclose(sol.win, as_table(ref, ref.solve()), atol=1e-10)
    assert sol.residual < 1e-10


def test_the_solved_table_is_a_fixed_point_of_the_reference_bellman_operator():
    ref = Reference(1000, 500)
    sol = VI.solve_two_player(SMALL, tol=1e-12)
    w = {(a, b): sol.win[i, j] for i, a in enumerate(ref.scores)
         for j, b in enumerate(ref.scores)}
    np.testing.assert_allclose(as_table(ref, ref.bellman(w)), sol.win, atol=1e-11)


@pytest.mark.parametrize("target, entry, choose", [(1000, 500, False), (600, 200, False),
                                                   (400, 100, True)])
def test_solo_matches_the_reference(target, entry, choose):
    rules = FiveThousandRules(target=target, entry=entry, choose_scoring_dice=choose)
    ref = Reference(target, entry, choose)
    f = ref.solve_solo()
    sol = VI.solve_solo(rules)
    np.testing.assert_allclose(sol.turns, [f[a] for a in ref.scores], rtol=1e-10)
    assert sol.residual < 1e-9


def test_fixed_point_does_not_depend_on_the_start_or_on_threads():
    a = VI.solve_two_player(SMALL, init=0.0, tol=1e-12, parallel=False)
    b = VI.solve_two_player(SMALL, init=1.0, tol=1e-12, parallel=True)
    c = VI.solve_two_player(SMALL, init=0.5)
    np.testing.assert_allclose(a.win, b.win, atol=1e-11)
    np.testing.assert_allclose(a.win, c.win, atol=1e-9)
    assert c.sweeps >= 2 and c.timings["sweep_changes"][-1] <= 1e-9
    assert np.all((a.win >= 0) & (a.win <= 1))


def test_model_tables_follow_the_rules_module():
    m = VI.build_model(None)
    assert m.n_scores == 46 and m.n_slots == 101
    assert m.scores.tolist() == [0] + list(range(500, 5000, 100))
    rng = np.random.default_rng(0)
    k = m.n_scores
    for _ in range(300):
        ia, ib, j = rng.integers(k), rng.integers(k), rng.integers(m.n_slots)
        a, b, t = int(m.scores[ia]), int(m.scores[ib]), 50 * int(j)
        assert m.bank_ok[ia, j] == bool(R.bank_allowed(m.rules, a, t))
        if not m.bank_ok[ia, j]:
            continue
        out = R.resolve_bank(m.rules, [[a, b]], 0, t)
        nxt = m.bank_next[ia, ib, j]
        if out.winner[0] == 0:
            assert nxt == K.WIN
        elif out.winner[0] == 1:
            assert nxt == K.LOSS
        else:
            assert m.scores[nxt // k] == out.scores[0, 1] and m.scores[nxt % k] == out.scores[0, 0]
    # beyond j_hi every bank leaves the scores as they are (the turn is worth a bust)
    for ia in range(k):
        for ib in range(k):
            tail = m.bank_ok[ia, m.j_hi[ia, ib] + 1:]
            assert np.all(m.bank_next[ia, ib, m.j_hi[ia, ib] + 1:][tail] == ib * k + ia)
    # throw tables = outcome_distribution, with the bust apart
    for n in range(1, 6):
        od = R.outcome_distribution(n)
        g = slice(m.grp_start[n], m.grp_start[n + 1])
        assert m.bust_prob[n] == pytest.approx(od.bust_prob)
        assert sorted(zip(50 * m.opt_slot[m.opt_start[g.start]:m.opt_start[g.stop]],
                          m.opt_left[m.opt_start[g.start]:m.opt_start[g.stop]])) == sorted(
            (int(p), int(d)) for p, d in zip(od.points, od.dice_left) if p > 0)
    # pairs of a level never read each other (the parallel sweep relies on it): checked when
    # the model is built; every pair appears once
    assert len(m.pairs_a) == k * (k + 1) // 2
    assert np.all(np.diff(m.level_sums) < 0)


def test_degenerate_rules_and_knob_errors():
    sol = VI.solve_two_player(FiveThousandRules(target=500, entry=500))
    assert sol.model.scores.tolist() == [0]
    assert 0.5 < sol.first_player_win_probability < 1
    with pytest.raises(ValueError, match="not a possible score"):
        sol.win_probability(250, 0)
    with pytest.raises(ValueError, match="rules must be"):
        VI.build_model(42)
    m = VI.build_model(FiveThousandRules(target=1000, choose_scoring_dice=True))
    with pytest.raises(NotImplementedError):
        VI.match_win_probabilities(m.rules, np.zeros((1, 1, 1, 1), bool), None)


# ------------------------------------------------------------------------------------------
# The full game
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fivethousand-cache")


@pytest.fixture(scope="session")
def solved(cache_dir):
    """Both 5000 solutions, solved once per session through a temporary cache."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", C.CacheCorruptionWarning)
        two = VI.load_or_solve_two_player(cache_dir=cache_dir)
        solo = VI.load_or_solve_solo(cache_dir=cache_dir)
    return two, solo


@pytest.fixture(scope="session")
def agent(solved):
    two, solo = solved
    return OptimalAgent(two_player=two, solo=solo, num_players=2)


def test_full_solve_values_and_convergence(solved):
    two, solo = solved
    assert two.source == "solved" and solo.source == "solved"
    assert two.first_player_win_probability == pytest.approx(FIRST_PLAYER_WINS, abs=1e-9)
    assert solo.expected_turns == pytest.approx(EXPECTED_TURNS_SOLO, abs=1e-9)
    assert two.timings["converged"] and two.sweeps <= 20
    assert two.timings["sweep_changes"][-1] <= 1e-9 < two.timings["sweep_changes"][-2]
    assert two.residual < 1e-9 and solo.residual < 1e-9
    # the second player, and symmetric states, are consistent
    assert two.win_probability(0, 0) == two.first_player_win_probability
    # not monotone near the end: 4900 needs exactly 100 and takes longer than 4800
    assert np.all(solo.turns[1:] < solo.turns[0])
    assert solo.expected_turns_from(4900) > solo.expected_turns_from(4800)


def test_the_cache_is_used_checked_and_repaired(solved, cache_dir):
    two, solo = solved
    again = VI.load_or_solve_two_player(cache_dir=cache_dir)
    assert again.source == "cache" and again.sweeps == two.sweeps
    np.testing.assert_array_equal(again.win, two.win)
    assert VI.load_or_solve_solo(cache_dir=cache_dir).source == "cache"
    # a corrupted file is reported and recomputed
    path = again.cache_path
    data = bytearray(path.read_bytes())
    data[-40] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.warns(C.CacheCorruptionWarning):
        fixed = VI.load_or_solve_two_player(cache_dir=cache_dir)
    assert fixed.source == "solved"
    np.testing.assert_allclose(fixed.win, two.win, atol=1e-12)
    assert VI.load_or_solve_two_player(cache_dir=cache_dir).source == "cache"
    # other rules get their own table
    assert C.cache_path(cache_dir, "x", VI.cache_key(SMALL, "2p", 1e-9)) != C.cache_path(
        cache_dir, "x", VI.cache_key(VI.coerce_rules(None), "2p", 1e-9))


def test_summary_record(solved, cache_dir):
    rec = VI.solve_fivethousand_summary(cache_dir=cache_dir)
    json.dumps(rec)
    assert rec["game"] == "fivethousand" and rec["source"] == "cache"
    for key in ("first_player_win_probability", "expected_turns_solo", "seconds", "peak_mb"):
        assert key in rec
    assert rec["first_player_win_probability"] == pytest.approx(FIRST_PLAYER_WINS, abs=1e-9)
    assert rec["expected_turns_solo"] == pytest.approx(EXPECTED_TURNS_SOLO, abs=1e-9)
    assert rec["sweeps"] == solved[0].sweeps and rec["solved_seconds"] > 0
    text = VI.describe_fivethousand(rec)
    assert "0.5151345761" in text and "not solved in this run" in text


# ------------------------------------------------------------------------------------------
# One turn
# ------------------------------------------------------------------------------------------
def test_single_turn_facts_by_brute_force():
    facts = VI.single_turn_facts()
    assert facts["entry_probability"] == pytest.approx(ENTRY_PROBABILITY, abs=1e-9)
    assert facts["expected_points"] == pytest.approx(EXPECTED_POINTS, abs=1e-8)
    assert facts["expected_points_cap_check"] == pytest.approx(facts["expected_points"],
                                                               abs=1e-9)
    assert facts["entry_policy_is_bank_when_allowed"]

    @cache
    def enter(t: int, n: int) -> float:  # the best of banking (entering) and rolling on
        if t > 5000:  # an overshoot is not an entry, and the total only grows
            return 0.0
        roll = sum(p * enter(t + pts, left) for opts, p in ref_throws(n, False)[1]
                   for pts, left in opts)
        return max(roll, 1.0) if t >= 500 and t % 100 == 0 else roll

    @cache
    def points(t: int, n: int) -> float:  # the best of banking and rolling on
        roll = 0.0 if t > 20_000 else sum(p * points(t + pts, left) for opts, p in
                                           ref_throws(n, False)[1] for pts, left in opts)
        return max(roll, t) if t >= 100 and t % 100 == 0 else roll

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        fresh_points = sum(p * points(pts, left) for opts, p in ref_throws(5, False)[1]
                           for pts, left in opts)
    finally:
        sys.setrecursionlimit(old)
    fresh_enter = sum(p * enter(pts, left) for opts, p in ref_throws(5, False)[1]
                      for pts, left in opts)
    assert facts["entry_probability"] == pytest.approx(fresh_enter, abs=1e-12)
    assert facts["expected_points"] == pytest.approx(fresh_points, abs=1e-9)


def test_single_turn_facts_by_monte_carlo():
    mc = single_turn_monte_carlo(60_000, seed=11)
    assert abs(mc["entry_rate"] - ENTRY_PROBABILITY) < 4 * mc["entry_se"]
    assert abs(mc["points_mean"] - EXPECTED_POINTS) < 4 * mc["points_se"]


# ------------------------------------------------------------------------------------------
# The agent
# ------------------------------------------------------------------------------------------
def _play_env(env, agent, episodes: int, seed: int) -> list[float]:
    returns = []
    for ep in range(episodes):
        obs, info = env.reset(seed=seed + ep)
        total, done = 0.0, False
        while not done:
            a = agent.act(obs, info["action_mask"])
            assert info["action_mask"][a] == 1
            obs, r, term, trunc, info = env.step(a)
            total += r
            done = term or trunc
        returns.append(total)
    return returns


def test_agent_plays_the_gymnasium_envs(agent):
    import agents

    returns = _play_env(gym.make("dice_env/FiveThousand-v0"), agent, 5, 0)
    assert set(returns) <= {1.0, -1.0}
    solo_returns = _play_env(gym.make("dice_env/FiveThousandSolo-v0"), agent, 5, 0)
    assert all(-200 <= r <= -1 for r in solo_returns)
    three = gym.make("dice_env/FiveThousand-v0", num_players=3)
    assert set(_play_env(three, agent, 3, 0)) <= {1.0, -1.0}
    # as an opponent inside the env, and built through the factory's signature
    env = gym.make("dice_env/FiveThousand-v0", opponents=agent)
    assert set(_play_env(env, RandomBot(seed=1), 3, 0)) <= {1.0, -1.0}
    built = OptimalAgent("dice_env/FiveThousandSolo-v0", mode="solo",
                         solo=agent.solo, seed=3)
    assert isinstance(built, agents.Agent)
    obs, info = gym.make("dice_env/FiveThousand-v0").reset(seed=0)
    with pytest.raises(ValueError, match="solo"):
        built.act(obs, info["action_mask"])


def test_agent_plays_the_aec_env(agent):
    env = five_thousand_v0.env(num_players=2)
    for seed in range(3):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][a] == 1
            env.step(a)


@pytest.mark.parametrize("players", [1, 2, 3])
def test_act_matches_act_batch_act_states_and_advise(agent, players):
    """Over the positions of many games played by the agent: the scalar ``act``, the batched
    ``act_batch`` (observations, whose totals clip at the target) and ``act_states`` (exact
    states) choose the same legal actions, and ``advise`` ranks them the same way."""
    from dice_env.fivethousand.state import state_to_dict

    rules = agent.rules
    rng = np.random.default_rng(players)
    st = G.FiveThousandState.empty(1500, players)
    G.start_games(rules, st, np.ones(st.n, bool), rng)
    checked = 0
    for step in range(60):
        live = np.flatnonzero(~st.finished())
        if live.size == 0:
            break
        masks = G.action_mask(rules, st)
        obs = encode_observation(rules, st, st.current)
        batch = agent.act_batch(obs[live], masks[live].astype(np.int8))
        assert np.all(masks[live, batch])
        np.testing.assert_array_equal(agent.act_states(st.take(live), masks[live]), batch)
        for k in range(step % 13, len(live), 13):
            i = live[k]
            assert agent.act(obs[i], masks[i].astype(np.int8)) == batch[k]
            checked += 1
            if k % 5 == 0:
                adv = agent.advise(state_to_dict(rules, st, int(i)))
                values = list(adv.values())
                assert values == sorted(values, reverse=players > 1)
                assert set(adv) == set(np.flatnonzero(masks[i]).tolist())
                best = values[0]
                assert abs(adv[int(batch[k])] - best) <= 1e-12
        actions = np.zeros(st.n, dtype=np.int64)
        actions[live] = batch
        G.step_games(rules, st, actions, rng, active=~st.finished())
    assert checked > 2000


def test_values_at_the_start_of_a_turn_and_beyond_the_target(agent):
    two = agent.two_player
    # rolling on after the opening throw averages back to the turn-start value
    od = R.outcome_distribution(5)
    roll, bank = two.tables()
    for a, b in [(0, 0), (500, 4900), (4900, 4800), (2000, 2000)]:
        i, j = two.model.index(a), two.model.index(b)
        v = od.bust_prob * (1 - two.win[j, i])
        for pts, left, p in zip(od.points, od.dice_left, od.prob):
            if pts:
                s = min(pts // 50, two.model.n_slots)
                best = roll[i, j, s, left]
                if not np.isnan(bank[i, j, s]):
                    best = max(best, bank[i, j, s])
                v += p * best
        assert v == pytest.approx(two.win[i, j], abs=1e-9)
    # a turn total past the target is worth a bust, and the clipped observation knows it
    d = {"scores": [4000, 3000], "current_player": 0, "turn_total": 5200, "dice": [1, 2, 3]}
    st, _ = state_from_dict(agent.rules, d, 2)
    obs = encode_observation(agent.rules, st, 0)
    lose = 1 - two.win_probability(3000, 4000)
    np.testing.assert_allclose(agent.action_values(obs)[0], [lose, lose])
    np.testing.assert_allclose(agent.state_action_values(st)[0], [lose, lose])
    # an entered player's overshooting bank gifts the opponent: 4900 + 200 -> opponent 3200
    d = {"scores": [4900, 3000], "current_player": 0, "turn_total": 100, "dice": [1, 2, 3]}
    adv = agent.advise(d)
    assert adv[R.BANK] == pytest.approx(1 - two.win_probability(3200, 4900))


def test_solo_advice_counts_turns(agent):
    d = {"scores": [4900], "current_player": 0, "turn_total": 0, "dice": [1, 2, 3, 4, 6]}
    adv = agent.advise(d)
    assert adv[R.BANK] == 1.0  # banking 100 ends the game this turn
    assert adv[R.ROLL] > 1.0
    d = {"scores": [0], "current_player": 0, "turn_total": 0, "dice": [1, 2, 3, 4, 6]}
    assert list(agent.advise(d)) == [R.ROLL]  # 100 cannot enter
    assert 1 < agent.advise(d)[R.ROLL] < agent.expected_turns + 5


def test_agent_with_other_rules_and_choose_scoring_dice(tmp_path):
    rules = FiveThousandRules(target=1000, entry=500, choose_scoring_dice=True)
    ag = OptimalAgent(rules=rules, cache_dir=tmp_path)
    env = gym.make("dice_env/FiveThousand-v0", rules=rules, opponents=ThresholdBot(rules))
    assert set(_play_env(env, ag, 5, 1)) <= {1.0, -1.0}
    res = play_fivethousand_matches([ag, ag], 6000, seed=4, rules=rules)
    p = np.mean(res.winner == res.first)
    se = np.sqrt(p * (1 - p) / 6000)
    assert abs(p - ag.first_player_win_probability) < 4 * se
    # choosing the set-aside is worth something: never worse than the literal rules' solo
    literal = VI.solve_solo(SMALL)
    assert ag.expected_turns <= literal.expected_turns + 1e-12


# ------------------------------------------------------------------------------------------
# Simulation and exact match checks
# ------------------------------------------------------------------------------------------
def test_optimal_vs_optimal_reproduces_the_first_player_win_probability(agent):
    n = 16_000
    res = play_fivethousand_matches([agent, agent], n, seed=2024)
    p = float(np.mean(res.winner == res.first))
    se = np.sqrt(p * (1 - p) / n)
    assert abs(p - FIRST_PLAYER_WINS) < 4 * se


def test_solo_simulation_reproduces_the_expected_turns(agent):
    turns = play_solo_games(agent, 8_000, seed=7).astype(float)
    se = turns.std(ddof=1) / np.sqrt(len(turns))
    assert abs(turns.mean() - EXPECTED_TURNS_SOLO) < 4 * se


def test_exact_match_value_against_the_default_bot_agrees_with_simulation(agent):
    """Optimal vs the envs' default opponent: the exact seat-balanced win probability (both
    policies fixed, solved on the game's state space) against 16,000 simulated games."""
    two = agent.two_player
    bot = ThresholdBot()
    exact = VI.match_win_probabilities(None, VI.policy_of(two), VI.threshold_policy(two.model,
                                                                                   bot))
    assert exact["a_seat_balanced"] > 0.55
    sim = seat_balanced(agent, bot, 16_000, seed=99)
    assert abs(sim["win_rate"] - exact["a_seat_balanced"]) < 4 * sim["standard_error"]
    assert sim["win_rate"] - 4 * sim["standard_error"] > 0.5


@pytest.mark.parametrize("bot", [ThresholdBot(), ThresholdBot(threshold=700),
                                 ThresholdBot(thresholds=[400] * 5)])
def test_threshold_policy_table_is_what_the_bot_plays(bot):
    """The bot's decision table (asked on representative throws) against its decisions on
    the positions of real games."""
    model = VI.build_model(None)
    table = VI.threshold_policy(model, bot)
    rng = np.random.default_rng(3)
    st = G.FiveThousandState.empty(3000, 2)
    G.start_games(model.rules, st, np.ones(3000, bool), rng)
    checked = 0
    for _ in range(60):
        live = np.flatnonzero(~st.finished())
        if live.size == 0:
            break
        masks = G.action_mask(model.rules, st)
        obs = encode_observation(model.rules, st, st.current)
        acts = np.zeros(st.n, dtype=np.int64)
        acts[live] = bot.act_batch(obs[live], masks[live].astype(np.int8))
        rows = np.arange(st.n)
        t = st.full_turn_total()
        ok = live[t[live] <= model.rules.target]
        ia = model.index(st.scores[rows, st.current][ok])
        ib = model.index(st.scores[rows, 1 - st.current][ok])
        want = table[ia, ib, t[ok] // 50, st.dice_left()[ok]]
        np.testing.assert_array_equal(acts[ok] == R.BANK, want)
        checked += ok.size
        G.step_games(model.rules, st, acts, rng, active=~st.finished())
    assert checked > 50_000


def test_optimal_beats_every_threshold_heuristic_exactly():
    """On a short game (target 1000) the optimal player, seat-balanced, beats every
    ``ThresholdBot`` threshold and every flat threshold; and nothing beats it: against the
    best response to itself it keeps at least its value."""
    two = VI.solve_two_player(SMALL, tol=1e-11)
    opt = VI.policy_of(two)
    # the evaluation of fixed players reproduces the solved value when both play optimally
    same = VI.match_win_probabilities(SMALL, opt, opt, tol=1e-11)
    assert same["a_first"] == pytest.approx(two.first_player_win_probability, abs=1e-9)
    assert same["a_seat_balanced"] == pytest.approx(0.5, abs=1e-9)
    bots = [ThresholdBot(SMALL, threshold=k) for k in range(100, 1050, 100)]
    bots += [ThresholdBot(SMALL, thresholds=[k] * 5) for k in range(100, 1050, 100)]
    for bot in bots:
        pol = VI.threshold_policy(two.model, bot)
        res = VI.match_win_probabilities(SMALL, opt, pol)
        assert res["a_seat_balanced"] > 0.5, bot
        if bot.thresholds[1] == 300:  # exploiting the bot wins more than playing minimax
            best = VI.match_win_probabilities(SMALL, None, pol)
            assert best["a_seat_balanced"] >= res["a_seat_balanced"] - 1e-9
    exploit = VI.match_win_probabilities(SMALL, None, opt)  # A best-responds to optimal B
    assert exploit["a_first"] <= two.first_player_win_probability + 1e-8
    assert exploit["b_first"] <= 1 - two.first_player_win_probability + 1e-8
