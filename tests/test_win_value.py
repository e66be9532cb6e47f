"""The win-value scorecard player: its turn solver, the score-optimal spread, the threshold,
the tie rule of tables, legal play from every seat, and resumable training.

Most checks run on a small scorecard (the six upper boxes, Chance and the five-of-a-kind
box: the DP and the spread take seconds) so that nothing here waits for Penta's tables.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.evaluation import play_scorecard_games
from agents.evaluation.scorecard_tables import (
    play_scorecard_tables,
    reference_tables,
    table_points,
)
from agents.scorecard import turn_policy as TP
from agents.scorecard.optimal import OptimalAgent
from agents.scorecard.score_spread import load_or_compute_spread, reachable_states
from agents.scorecard.win_threshold import (
    last_turn_gains,
    last_turn_values,
    threshold_moments,
    threshold_utility,
    two_turn_gains,
)
from agents.scorecard.win_value import WinValueAgent, WinValueModel
from agents.solvers.scorecard_dp import load_or_solve_scorecard
from agents.training import win_value as WT
from dice_env.scorecard.rules import Rules, get_rules

BOXES = get_rules("penta").boxes[:6] + ("chance", "five_kind")
TINY = Rules(name="tiny", boxes=BOXES, labels=tuple(b.title() for b in BOXES))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def moments(cache):
    return load_or_compute_spread(TINY, cache_dir=cache)


def _dp_leaf(solution):
    def leaf(rows, o, u, f, gain):
        v = np.zeros(len(rows))
        live = o.any(axis=1)
        v[live] = solution.state_value(o[live], u[live], f[live])
        return v + gain
    return leaf


def test_turn_solver_reproduces_the_dp(moments):
    sol = moments.solution
    rules = sol.rules
    for filled in (0, 3, rules.n_boxes - 1):
        o, u, f = reachable_states(sol, filled)
        o, u, f = o[:300], u[:300], f[:300]
        leaves = TP.turn_leaves(rules, o, u, f, _dp_leaf(sol))
        turn = TP.solve_turn(leaves, rules.rolls_per_turn)
        assert np.allclose(turn.start_value, sol.state_value(o, u, f), atol=1e-9)
        q = np.where(np.isfinite(leaves), leaves, 0.0)[..., None]
        value, expected = TP.follow_policy(leaves, q, rules.rolls_per_turn)
        assert np.allclose(value, turn.start_value) and np.allclose(expected[:, 0], value)


def test_spread_agrees_with_the_last_turn_distribution_and_with_simulation(moments, cache):
    sol = moments.solution
    o, u, f = reachable_states(sol, TINY.n_boxes - 1)
    pmf = last_turn_gains(moments, o, u, f)
    assert np.allclose(pmf.sum(axis=1), 1.0)
    g = np.arange(pmf.shape[1])
    mean = pmf @ g
    assert np.allclose(mean, moments.mean(o, u, f), atol=1e-9)
    assert np.allclose(np.sqrt(pmf @ g ** 2 - mean ** 2), moments.std(o, u, f), atol=1e-7)
    # a fresh card: the exact spread against 4,000 score-optimal games
    totals = play_scorecard_games(OptimalAgent(TINY, cache_dir=cache), TINY, 4000, seed=0)
    fresh = np.ones((1, TINY.n_boxes), dtype=bool), np.zeros(1, int), np.zeros(1, int)
    assert abs(totals.mean() - moments.mean(*fresh)[0]) < 4 * totals.std() / np.sqrt(4000)
    assert abs(totals.std() / moments.std(*fresh)[0] - 1) < 0.05


def test_threshold_utility_counts_a_tie_half_and_is_monotone():
    assert threshold_utility(np.array([99, 100, 101]), 100, 0).tolist() == [0.0, 0.5, 1.0]
    x = np.arange(0, 300)
    u = threshold_utility(x, 150.3, 20.0)
    assert np.all(np.diff(u) >= 0) and u[0] < 1e-9 and u[-1] > 1 - 1e-9
    assert abs(threshold_utility(150, 150, 30.0) - 0.5) < 1e-12


def test_threshold_moments_of_a_maximum():
    rng = np.random.default_rng(0)
    means, stds = np.array([[200.0, 210.0, 190.0]]), np.array([[40.0, 30.0, 50.0]])
    draws = rng.normal(means, stds, size=(400_000, 3)).max(axis=1)
    m, s = threshold_moments(means, stds)
    assert abs(m[0] - draws.mean()) < 1.0 and abs(s[0] - draws.std()) < 1.5
    m1, s1 = threshold_moments(means[:, :1], stds[:, :1])
    assert m1[0] == 200.0 and s1[0] == 40.0


def test_table_points_tie_rule():
    assert table_points(np.array([[10, 9], [10, 10], [5, 8]])).tolist() == \
        [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    assert table_points(np.array([7, 7, 7, 1])).tolist() == [0.5, 0.5, 0.5, 0.0]


def test_the_last_turn_against_a_threshold_is_exact(moments):
    """Brute force over every first throw: the exact value of the last box against a fixed
    threshold equals the expectimax of :func:`last_turn_values`."""
    sol = moments.solution
    o, u, f = reachable_states(sol, TINY.n_boxes - 1)
    o, u, f = o[:40], u[:40], f[:40]
    delta = np.linspace(-30, 10, len(u))
    values = last_turn_values(TINY, o, u, f, delta, np.full(len(u), 0.0))
    assert np.all((values >= 0) & (values <= 1))
    # delta far above every threshold: a sure win; far below: a sure loss
    assert np.allclose(last_turn_values(TINY, o, u, f, np.full(len(u), 500.0),
                                        np.full(len(u), 5.0)), 1.0)
    assert np.allclose(last_turn_values(TINY, o, u, f, np.full(len(u), -500.0),
                                        np.full(len(u), 5.0)), 0.0)
    # against a threshold the score-maximising play of the box is never better
    score_play = TP.follow_policy(
        TP.turn_leaves(TINY, o, u, f, lambda r, *_a: _a[-1].astype(float)),
        TP.turn_leaves(TINY, o, u, f, lambda r, oo, uu, ff, g:
                       threshold_utility(delta[r] + g, 0.0, 0.0))[..., None])[1][:, 0]
    assert np.all(values >= score_play - 1e-12)


@pytest.fixture(scope="module")
def tiny_model(moments, tmp_path_factory):
    config = WT.TrainConfig(game="penta", seed=3, hidden=(16,), states_per_layer=300, steps=60,
                            progress=False)
    return WT.train_rules(TINY, config, moments=moments)


def test_training_is_deterministic_and_resumes(moments, tmp_path, tiny_model):
    config = WT.TrainConfig(game="penta", seed=3, hidden=(16,), states_per_layer=300, steps=60,
                            progress=False)
    out = tmp_path / "model.pt"
    stop = {"layer": 3}

    def interrupt(layer):
        if layer == stop["layer"]:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        WT.train_rules(TINY, config, moments=moments, out=out, on_layer=interrupt)
    blob = WT.load_checkpoint(WT.checkpoint_path(out))
    assert blob["next_layer"] == 3
    resumed = WT.train_rules(TINY, config, moments=moments, out=out, resume=True)
    assert [r["layer"] for r in resumed.curve] == list(range(TINY.n_boxes - 2, -1, -1))
    for a, b in zip(resumed.model.state_dict().values(),
                    tiny_model.model.state_dict().values()):
        assert np.array_equal(a.numpy(), b.numpy())
    (out.with_name("model.pt.ckpt")).write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="delete it"):
        WT.train_rules(TINY, config, moments=moments, out=out, resume=True)


@pytest.mark.parametrize("num_players", [2, 3])
def test_never_an_illegal_action_from_any_seat(moments, cache, tiny_model, num_players):
    agent = WinValueAgent(TINY, model=tiny_model.model, moments=moments)
    field = OptimalAgent(TINY, cache_dir=cache)
    players = [agent] + [field] * (num_players - 1)
    views = ["match"] + ["card"] * (num_players - 1)
    tables = play_scorecard_tables(players, TINY, 30, seed=1, views=views)
    assert tables.totals.shape == (30, num_players, num_players)
    # the field reads only its cards: its totals are its solitaire games'
    ref = reference_tables(play_scorecard_games(field, TINY, 30 * num_players, seed=1),
                           num_players)
    assert np.array_equal(tables.totals[..., 1:], ref.totals[..., 1:])
    share, half = tables.share()
    assert 0 <= share <= 1 and half > 0


def test_the_agent_refuses_a_single_card_observation(moments, tiny_model):
    agent = WinValueAgent(TINY, model=tiny_model.model, moments=moments)
    with pytest.raises(ValueError, match="match observation"):
        agent.act_batch(np.zeros((1, 40), dtype=np.float32), np.ones((1, 40), dtype=bool))
    with pytest.raises(ValueError, match="2 to 6"):
        WinValueAgent(TINY, num_players=7, model=tiny_model.model, moments=moments)


def test_model_round_trip_and_corrupt_file(tmp_path, tiny_model):
    path = tmp_path / "m.pt"
    tiny_model.model.save(path, {"x": 1})
    model, meta = WinValueModel.load(path)
    assert meta == {"x": 1}
    for a, b in itertools.zip_longest(model.state_dict().values(),
                                      tiny_model.model.state_dict().values()):
        assert np.array_equal(a.numpy(), b.numpy())
    path.write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a win-value model"):
        WinValueModel.load(path)


def test_dp_of_the_small_game_is_solved(cache):
    assert load_or_solve_scorecard(TINY, cache_dir=cache).expected_score > 100


def test_tables_record_the_lead_at_each_turn(cache):
    field = OptimalAgent(TINY, cache_dir=cache)
    tables = play_scorecard_tables([field, field, field], TINY, 4, seed=2, record_leads=True)
    assert tables.leads.shape == (4, 3, TINY.n_boxes)
    assert np.isfinite(tables.leads).all()
    assert (tables.leads[:, 0, 0] == 0).all()  # seat 0 starts level
    last = tables.leads[..., -1]  # before the last turn: never more than a last turn away
    assert np.all(np.abs(tables.totals[..., 0] - np.delete(tables.totals, 0, axis=2).max(axis=2)
                         - last) <= 200)


def test_two_turn_gains_are_a_distribution_with_the_dp_mean_and_spread(moments):
    sol = moments.solution
    o, u, f = reachable_states(sol, TINY.n_boxes - 2)
    pick = np.random.default_rng(0).choice(len(u), 25, replace=False)
    o, u, f = o[pick], u[pick], f[pick]
    pmf = two_turn_gains(moments, o, u, f)
    g = np.arange(pmf.shape[1])
    assert np.allclose(pmf.sum(axis=1), 1.0)
    mean = pmf @ g
    assert np.allclose(mean, moments.mean(o, u, f), atol=1e-8)
    assert np.allclose(np.sqrt(pmf @ g ** 2 - mean ** 2), moments.std(o, u, f), atol=1e-6)


def test_spread_after_the_next_turn(moments):
    sol = moments.solution
    for filled in (0, 4, TINY.n_boxes - 2, TINY.n_boxes - 1):
        o, u, f = reachable_states(sol, filled)
        after, now = moments.std_after_turn(o, u, f), moments.std(o, u, f)
        assert np.all(after <= now + 1e-9)
        if filled == TINY.n_boxes - 1:  # the last turn resolves everything
            assert np.all(after == 0)
        else:
            assert np.all(after[now > 0] > 0)


def test_plays_every_seat_of_the_pettingzoo_env(moments, tiny_model):
    """The AEC env's observation is the match observation: win-value players in every seat
    finish a three-player match with legal actions only (the env raises on an illegal one)."""
    from dice_env.multi import scorecard_v0

    agent = WinValueAgent(TINY, num_players=3, model=tiny_model.model, moments=moments)
    env = scorecard_v0.env(game=TINY, num_players=3)
    env.reset(seed=5)
    steps = 0
    for _name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else agent.act(obs["observation"], obs["action_mask"])
        env.step(action)
        steps += 1
    assert steps >= 3 * TINY.n_boxes
