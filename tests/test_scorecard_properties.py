"""Property tests (hypothesis) and a fuzz test of the scorecard environments."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dice_env.scorecard import game as G
from dice_env.scorecard.env import ScorecardEnv
from dice_env.scorecard.rules import PRESETS
from dice_env.scorecard.state import possible_box_scores

GAMES = sorted(PRESETS)


def play_random_game(env, seed, policy_seed, check_round_trip=False):
    """Play one random legal game; check the invariants at every step; return its log."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    rewards, scoring_actions, steps = [], 0, 0
    twin = None
    if check_round_trip:
        twin = ScorecardEnv(env.rules, canonical_holds=env.canonical_holds)
    while True:
        mask = info["action_mask"]
        assert mask.any(), "empty mask before the end of the game"
        assert np.array_equal(mask.astype(bool), env.action_masks())
        if twin is not None:
            tobs, tinfo = twin.reset(options={"state": env.get_state()})
            assert np.array_equal(tobs, obs)
            assert np.array_equal(tinfo["action_mask"], mask)
        action = int(rng.choice(np.flatnonzero(mask)))
        scoring_actions += action >= G.N_HOLD_ACTIONS
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        rewards.append(reward)
        steps += 1
        assert not truncated
        if terminated:
            return rewards, scoring_actions, steps, info


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**31), policy=st.integers(0, 2**31),
       canonical=st.booleans())
def test_random_legal_games_keep_the_invariants(game, seed, policy, canonical):
    env = ScorecardEnv(game, canonical_holds=canonical)
    rewards, scoring, steps, info = play_random_game(env, seed, policy, check_round_trip=True)
    assert sum(rewards) == info["score"]["total"]
    assert scoring == env.rules.n_boxes
    assert steps <= env.rules.n_boxes * env.rules.rolls_per_turn
    s = info["score"]
    assert s["total"] == s["upper"] + s["upper_bonus"] + s["lower"] + s["penta_bonus"]
    assert not info["action_mask"].any()


@st.composite
def scorecard_states(draw, game):
    rules = PRESETS[game]
    possible = possible_box_scores(rules)
    scores = [draw(st.none() | st.sampled_from(sorted(v))) for v in possible]
    if all(s is not None for s in scores):
        scores[draw(st.integers(0, rules.n_boxes - 1))] = None
    bonus = 0
    five = rules.five_kind_box
    if rules.five_kind_bonus and scores[five] == rules.five_kind:
        others = sum(s is not None for k, s in enumerate(scores) if k != five)
        bonus = rules.five_kind_bonus * draw(st.integers(0, others))
    return {
        "game": game,
        "dice": sorted(draw(st.lists(st.integers(1, 6), min_size=5, max_size=5))),
        "rolls_left": draw(st.integers(0, rules.rolls_per_turn - 1)),
        "scores": scores,
        "penta_bonus": bonus,
    }


@settings(max_examples=60, deadline=None)
@given(data=st.data(), game=st.sampled_from(GAMES))
def test_state_round_trips(data, game):
    state = data.draw(scorecard_states(game))
    env = ScorecardEnv(game)
    _, info = env.reset(options={"state": state})
    assert env.get_state() == state
    assert info["action_mask"].any()
    # finishing the game from any state: the rewards add up to the change of the total
    before = env.score_breakdown()["total"]
    rng = np.random.default_rng(0)
    total_reward, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, done, _, info = env.step(action)
        total_reward += reward
    assert before + total_reward == info["score"]["total"]


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_random_games(game):
    """500 random legal games per preset through the single env: no error, sane totals.

    (The batched env plays many more in test_scorecard_vector; the count here is bounded by
    the single env's speed and the suite's time budget.)"""
    env = ScorecardEnv(game)
    rng = np.random.default_rng(1234)
    totals = []
    for g in range(500):
        _, info = env.reset(seed=g)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, done, _, info = env.step(action)
        totals.append(info["score"]["total"])
    totals = np.array(totals)
    assert totals.min() >= 0 and 20 < totals.mean() < 120
