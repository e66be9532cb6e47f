"""The scorecard DP solver and the optimal agent.

* the published optimal expected scores of solitaire Yahtzee (three rule readings);
* the solver against a slow, straightforward reference DP (dense keep->roll matrix, all 32
  holds, every upper total, ``box_outcomes`` called state by state) on small scorecards;
* the kernel's rule tables against ``box_outcomes``; the per-decision action values against
  the solved table;
* the agent: legal actions under both mask styles, ``act`` = ``act_batch``, ``advise``, a
  game through the Gymnasium env, and a simulation whose mean matches the DP value.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.scorecard.optimal import OptimalAgent, simulate_optimal_games
from agents.solvers import scorecard_dp as DP
from agents.solvers.cache import peak_memory_mb
from dice_env import dice as D
from dice_env.scorecard import game as G
from dice_env.scorecard.observation import encode_observation
from dice_env.scorecard.rules import (
    FIVE_FIFTY,
    FIVE_OPEN,
    FIVE_ZERO,
    PRESETS,
    UPPER_KINDS,
    box_outcomes,
    five_state_after,
    get_rules,
    upper_bonus_earned,
)

PUBLISHED = {
    "yahtzee-official": 254.5877,  # forced Joker (Hasbro)
    "yahtzee-free-joker": 254.5896,  # Verhoeff's free-choice Joker
    "yahtzee-no-bonus": 245.8708,  # no Yahtzee bonus, no Joker
}
# Our own solves (regression values; see results/optimal.md).
OURS = {"penta": 254.484846, "dice-poker": 314.832099}


@pytest.fixture(scope="session")
def solutions(tmp_path_factory):
    """Solutions of the presets, solved once per session through a temporary cache."""
    cache = tmp_path_factory.mktemp("dp-cache")
    memo: dict[str, DP.ScorecardSolution] = {}

    def get(game: str) -> DP.ScorecardSolution:
        if game not in memo:
            memo[game] = DP.load_or_solve_scorecard(game, cache_dir=cache)
        return memo[game]

    return get


@pytest.fixture(scope="session")
def agents(solutions):
    memo: dict[str, OptimalAgent] = {}

    def get(game: str) -> OptimalAgent:
        if game not in memo:
            memo[game] = OptimalAgent(game, solution=solutions(game))
        return memo[game]

    return get


# -- published and regression values ---------------------------------------------------------

@pytest.mark.parametrize("game", sorted(PUBLISHED))
def test_published_yahtzee_values(solutions, game):
    assert solutions(game).expected_score == pytest.approx(PUBLISHED[game], abs=5e-4)


@pytest.mark.parametrize("game", sorted(OURS))
def test_penta_and_dice_poker_values(solutions, game):
    assert solutions(game).expected_score == pytest.approx(OURS[game], abs=1e-5)


def test_reachable_values_are_finite(solutions):
    sol = solutions("yahtzee-official")
    m = sol.model
    for fs in (FIVE_OPEN, FIVE_FIFTY, FIVE_ZERO):
        full = m.full_mask(np.arange(m.n_rest), fs)
        reach = m.reachable[full & 63]
        vals = sol.values[fs]
        assert np.isfinite(vals[reach]).all()
        assert np.isnan(vals[~reach]).all()
    # a full card is worth nothing more
    assert sol.values[FIVE_FIFTY, -1].max() == 0.0 == sol.values[FIVE_ZERO, -1].max()


def test_box_order_does_not_matter(solutions):
    """Penta is Hasbro's Yahtzee minus the Joker on a scratched box, in another box order."""
    yahtzee_like_penta = get_rules("yahtzee-official", joker_when_scratched=False)
    assert DP.solve_scorecard(yahtzee_like_penta).expected_score == pytest.approx(
        solutions("penta").expected_score, abs=1e-9)


def test_solve_script(tmp_path, capsys):
    """``dice-env solve`` (``scripts/solve.py``): solved, then loaded from the cache."""
    import json

    from agents.cli import solve as script

    args = ["yahtzee-no-bonus", "--json", "--cache-dir", str(tmp_path), "--quiet"]
    assert script.main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["source"] == "solved"
    assert first["expected_score"] == pytest.approx(PUBLISHED["yahtzee-no-bonus"], abs=5e-4)
    # the process's peak (an xdist worker's, after whatever ran there before): at most now's
    assert first["seconds"] > 0 and 0 < first["peak_mb"] <= peak_memory_mb() + 0.1
    assert script.main(args) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "cache"
    assert script.main(["yahtzee-no-bonus", "--cache-dir", str(tmp_path)]) == 0
    assert "245.8708" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        script.main(["no-such-game"])


# -- the solver against a reference DP -------------------------------------------------------

def reference_values(rules) -> dict[tuple[int, int], np.ndarray]:
    """Slow straightforward DP: ``{(filled mask, five state): values over u = 0..threshold}``."""
    n, thr, fb = rules.n_boxes, rules.upper_bonus_threshold, rules.five_kind_box
    u = np.arange(thr + 1)
    rolls = np.arange(D.N_ROLLS)
    upper = rules.tables.is_upper
    full_all = (1 << n) - 1
    values = {(full_all, FIVE_FIFTY): np.zeros(thr + 1), (full_all, FIVE_ZERO): np.zeros(thr + 1)}
    masks = sorted(range(full_all), key=lambda m: -bin(m).count("1"))
    for m in masks:
        states = (FIVE_FIFTY, FIVE_ZERO) if m >> fb & 1 else (FIVE_OPEN,)
        open_ = np.array([not m >> b & 1 for b in range(n)])
        for fs in states:
            legal, pts, bonus = box_outcomes(rules, rolls, np.tile(open_, (D.N_ROLLS, 1)),
                                             np.full(D.N_ROLLS, fs))
            v0 = np.full((D.N_ROLLS, thr + 1), -np.inf)
            for b in np.flatnonzero(open_):
                p = pts[:, b]
                nfs = five_state_after(rules, np.full(D.N_ROLLS, fs), np.full(D.N_ROLLS, b), p)
                add = np.where(upper[b], p, 0)
                u2 = np.minimum(u[None, :] + add[:, None], thr)
                ub = upper_bonus_earned(rules, u[None, :], add[:, None])
                nxt = np.full((3, thr + 1), np.nan)
                for s in (FIVE_OPEN, FIVE_FIFTY, FIVE_ZERO):
                    if (m | 1 << b, s) in values:
                        nxt[s] = values[(m | 1 << b, s)]
                val = p[:, None] + bonus[:, None] + ub + nxt[nfs[:, None], u2]
                v0 = np.where(legal[:, b][:, None], np.maximum(v0, val), v0)
            level = v0
            for _ in range(1, rules.rolls_per_turn):
                keep_values = D.KEEP_TO_ROLL_PROB @ level
                level = keep_values[D.HOLD_KEEP].max(axis=1)
            values[(m, fs)] = D.FRESH_ROLL_PROB @ level
    return values


SMALL_GAMES = {
    # upper boxes + five of a kind, Hasbro's forced Joker (also when scratched)
    "forced": dict(boxes=UPPER_KINDS + ("five_kind",), joker="forced",
                   joker_when_scratched=True),
    # Full house and the free Joker (25 only once Full's upper box... is filled), two throws
    "free": dict(boxes=UPPER_KINDS + ("full_house", "five_kind"), joker="free",
                 joker_when_scratched=False, rolls_per_turn=2, upper_bonus_threshold=30),
    # no bonus, no Joker: the two filled five states are merged by the solver
    "none": dict(boxes=UPPER_KINDS + ("five_kind", "chance"), joker="none", five_kind_bonus=0),
}


@pytest.mark.parametrize("name", sorted(SMALL_GAMES))
def test_solver_matches_reference_dp(name):
    knobs = dict(SMALL_GAMES[name])
    knobs["labels"] = knobs["boxes"]
    rules = get_rules("yahtzee-official", **knobs)
    sol = DP.solve_scorecard(rules)
    assert sol.model.merge_fifty_zero == (name == "none")
    ref = reference_values(rules)
    m = sol.model
    checked = 0
    for (full, fs), vals in ref.items():
        if full == (1 << rules.n_boxes) - 1:
            continue
        reach = m.reachable[full & 63]
        got = sol.values[fs, m.rest_index[full]]
        np.testing.assert_allclose(got[reach], vals[reach], rtol=0, atol=1e-9)
        checked += reach.sum()
    assert checked > 1000
    assert sol.expected_score == pytest.approx(ref[(0, FIVE_OPEN)][0], abs=1e-9)


# -- the kernel's tables against the rules engine --------------------------------------------

@pytest.mark.parametrize("game", sorted(PRESETS))
def test_model_tables_match_box_outcomes(game):
    rules = get_rules(game)
    m = DP.prepare_model(rules)
    rng = np.random.default_rng(1)
    n = rules.n_boxes
    for _ in range(40):
        full = int(rng.integers(0, (1 << n) - 1))
        fs = FIVE_OPEN
        if full >> m.five_box & 1:
            fs = int(rng.choice([FIVE_FIFTY, FIVE_ZERO]))
        rest = m.rest_index[full]
        open_ = np.array([not full >> b & 1 for b in range(n)])
        legal, pts, bonus = box_outcomes(rules, np.arange(D.N_ROLLS),
                                         np.tile(open_, (D.N_ROLLS, 1)), np.full(D.N_ROLLS, fs))
        for r in range(D.N_ROLLS):
            s5 = m.five_slot[r]
            if s5 >= 0:
                bits = m.jk_legal[fs, rest, s5]
                row = m.jk_pts[fs, rest, s5]
                b5 = m.jk_bonus[fs, rest, s5]
            else:
                bits = int(np.sum(open_ << np.arange(n)))
                row = m.reg_pts[fs, r]
                b5 = m.reg_bonus[fs, r]
            got_legal = np.array([bool(bits >> b & 1) for b in range(n)])
            np.testing.assert_array_equal(got_legal, legal[r])
            np.testing.assert_array_equal(np.where(got_legal, row, 0), pts[r])
            assert b5 == bonus[r]


# -- per-decision action values --------------------------------------------------------------

def _random_states(sol, rng, count):
    m = sol.model
    n = m.n_boxes
    out = []
    while len(out) < count:
        full = int(rng.integers(0, (1 << n) - 1))
        fs = FIVE_OPEN if not full >> m.five_box & 1 else int(rng.choice([1, 2]))
        u = int(rng.choice(np.flatnonzero(m.reachable[full & 63])))
        out.append((np.array([not full >> b & 1 for b in range(n)]), u, fs))
    return out


@pytest.mark.parametrize("game", ["yahtzee-official", "penta"])
def test_action_values_agree_with_the_table(solutions, game):
    sol = solutions(game)
    rng = np.random.default_rng(7)
    last = sol.rules.rolls_per_turn - 1
    rolls = np.arange(D.N_ROLLS)
    for open_, u, fs in _random_states(sol, rng, 6):
        def values(rolls_left, open_=open_, u=u, fs=fs):
            k = len(rolls)
            return sol.action_values(rolls, np.full(k, rolls_left), np.tile(open_, (k, 1)),
                                     np.full(k, u), np.full(k, fs))
        by_level = [values(level) for level in range(last + 1)]
        best = [v.max(axis=1) for v in by_level]
        # the state's value is the mean over a fresh throw of the best first decision
        state_value = sol.state_value(open_, u, fs)
        assert fresh_mean(best[last]) == pytest.approx(state_value, abs=1e-9)
        # a hold is worth the mean, over the reroll, of the best decision one level down
        for level in range(1, last + 1):
            holds = by_level[level][:, :D.N_HOLDS]
            expect = D.KEEP_TO_ROLL_PROB @ best[level - 1]
            np.testing.assert_allclose(holds, expect[D.HOLD_KEEP], rtol=0, atol=1e-9)
        assert np.all(np.isneginf(by_level[0][:, :D.N_HOLDS]))


def fresh_mean(v: np.ndarray) -> float:
    """Mean over a fresh throw of five dice of a per-roll array."""
    return float(D.FRESH_ROLL_PROB @ v)


# -- the agent ---------------------------------------------------------------------------------

def _observations(rules, state):
    legal, points, _ = G.box_options(rules, state)
    obs = encode_observation(rules, state.dice, state.roll, state.rolls_left,
                             state.open_boxes(), points, state.upper_total,
                             state.five_state(rules))
    return obs, legal


@pytest.mark.parametrize("canonical", [True, False])
def test_agent_plays_legal_actions_and_batch_agrees(agents, canonical):
    agent = agents("penta")
    rules = agent.rules
    rng = np.random.default_rng(3)
    n = 300
    state = G.ScorecardState.empty(rules, n)
    G.start_games(rules, state, np.ones(n, dtype=bool), rng)
    for _ in range(12):  # a few turns' worth of decisions
        active = ~state.finished()
        obs, legal = _observations(rules, state)
        masks = G.action_mask(rules, state, canonical, legal)
        batch = agent.act_batch(obs[active], masks[active])
        single = np.array([agent.act(o, mk.astype(np.int8))
                           for o, mk in zip(obs[active], masks[active], strict=True)])
        np.testing.assert_array_equal(batch, single)
        assert masks[active][np.arange(len(batch)), batch].all()
        actions = np.zeros(n, dtype=np.int64)
        actions[active] = batch
        G.apply_actions(rules, state, actions, rng, active=active)


def test_agent_respects_a_restrictive_mask(agents):
    agent = agents("yahtzee-official")
    rules = agent.rules
    state = G.ScorecardState.empty(rules, 1)
    G.start_games(rules, state, np.ones(1, dtype=bool), np.random.default_rng(0))
    obs, legal = _observations(rules, state)
    mask = np.zeros(agent.n_actions, dtype=np.int8)
    mask[32 + 5] = 1  # only "Sixes" allowed
    assert agent.act(obs[0], mask) == 32 + 5
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(obs[0], np.zeros(agent.n_actions, dtype=np.int8))


def test_advise_values_and_joker_example(agents):
    agent = agents("penta")
    rules = agent.rules
    # docs/rules.md: 4 4 4 4 4, Penta box holds 50, Fours open -> only Fours, 20 points + 100 bonus
    scores = [None] * rules.n_boxes
    scores[rules.five_kind_box] = 50
    scores[0] = 3
    state = {"game": "penta", "dice": [4, 4, 4, 4, 4], "rolls_left": 0, "scores": scores,
             "penta_bonus": 0}
    advice = agent.advise(state)
    assert list(advice) == [32 + 3]
    open_ = np.array([s is None for s in scores])
    after = open_.copy()
    after[3] = False
    future = agent.solution.state_value(after, 3 + 20, FIVE_FIFTY)
    assert advice[32 + 3] == pytest.approx(53 + 20 + 100 + future, abs=1e-9)

    # with rerolls left the hold values are listed too, best first
    state["rolls_left"] = 2
    advice = agent.advise(state)
    values = list(advice.values())
    assert values == sorted(values, reverse=True)
    assert 32 + 3 in advice and 31 not in advice  # holding all five is never legal
    assert all(0 <= a < 31 for a in advice if a < 32)
    full_holds = agent.advise(state, canonical_holds=False)
    assert len(full_holds) == 31 + 1

    with pytest.raises(ValueError):
        agent.advise({**state, "game": "dice-poker"})
    with pytest.raises(ValueError):
        agent.advise({**state, "rolls_left": 5})


def test_advise_at_the_first_throw_averages_to_the_expected_score(agents):
    agent = agents("yahtzee-free-joker")
    rules = agent.rules
    best = np.empty(D.N_ROLLS)
    for r, dice in enumerate(D.ROLLS.tolist()):
        state = {"game": rules.name, "dice": dice, "rolls_left": 2,
                 "scores": [None] * rules.n_boxes, "penta_bonus": 0}
        best[r] = max(agent.advise(state).values())
    assert fresh_mean(best) == pytest.approx(agent.expected_score, abs=1e-9)


def test_agent_through_the_gymnasium_env(agents):
    import gymnasium as gym

    import dice_env  # noqa: F401 - registers the ids

    agent = agents("penta")
    env = gym.make("dice_env/Penta-v0")
    obs, info = env.reset(seed=5)
    total, done = 0.0, False
    while not done:
        action = agent.act(obs, info["action_mask"])
        assert info["action_mask"][action]
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    assert terminated and total > 0
    env.close()


def test_simulated_mean_matches_the_dp_value(agents):
    agent = agents("penta")
    stats = simulate_optimal_games(agent, 4000, seed=11, batch_size=2000)
    totals = stats["total"]
    se = totals.std(ddof=1) / np.sqrt(len(totals))
    assert abs(totals.mean() - agent.expected_score) < 4 * se
    assert 0.5 < stats["upper_bonus"].mean() < 0.85
    assert 0.2 < stats["five_kind"].mean() < 0.5
    assert np.all(stats["five_bonus"][~stats["five_kind"]] == 0)


def test_agent_from_the_factory(tmp_path, solutions):
    import agents as agents_pkg

    solutions("yahtzee-official")  # solved once for the session; here through another cache
    agent = agents_pkg.make("optimal", "dice_env/YahtzeeOfficial-v0", cache_dir=tmp_path,
                            seed=0)
    assert isinstance(agent, OptimalAgent) and isinstance(agent, agents_pkg.Agent)
    assert agent.expected_score == pytest.approx(PUBLISHED["yahtzee-official"], abs=5e-4)
    agent.seed(1)
