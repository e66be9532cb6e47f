"""The scorecard envs' ``observation="bonus"`` option and the agents that play from it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from conftest import need

import dice_env
from dice_env.scorecard.env import ScorecardEnv
from dice_env.scorecard.observation import (
    N_BONUS_FEATURES,
    bonus_features,
    observation_size,
    observation_slices,
    with_bonus_features,
)
from dice_env.scorecard.vector import ScorecardVectorEnv


@pytest.mark.parametrize("game, basic", [("penta", 45), ("dice-poker", 49)])
def test_sizes_and_spaces(game, basic):
    env = ScorecardEnv(game, observation="bonus")
    assert observation_size(env.rules) == basic
    assert env.observation_space.shape == (basic + N_BONUS_FEATURES,)
    vec = ScorecardVectorEnv(3, game, observation="bonus")
    assert vec.single_observation_space.shape == (basic + N_BONUS_FEATURES,)
    assert vec.reset(seed=0)[0].shape == (3, basic + N_BONUS_FEATURES)


def test_unknown_kind_is_refused_with_the_kinds():
    with pytest.raises(ValueError, match=r"unknown observation kind 'bonuses'.*'basic', 'bonus'"):
        ScorecardEnv("penta", observation="bonuses")
    with pytest.raises(ValueError, match="unknown observation kind"):
        gym.make_vec("dice_env/Penta-v0", num_envs=2, vectorization_mode="vector_entry_point",
                     observation="full")


@pytest.mark.parametrize("env_id", ["dice_env/Penta-v0", "dice_env/DicePoker-v0"])
def test_bonus_entries_extend_the_basic_observation_along_random_games(env_id):
    """Same seed, same actions: the bonus env's observation is the basic one plus
    bonus_features of it, and stays inside its space."""
    bonus, basic = gym.make(env_id, observation="bonus"), gym.make(env_id)
    rules = bonus.unwrapped.rules
    rng = np.random.default_rng(0)
    obs, info = bonus.reset(seed=3)
    plain, _ = basic.reset(seed=3)
    for game in range(3):
        done = False
        while not done:
            assert bonus.observation_space.contains(obs)
            np.testing.assert_array_equal(obs[:len(plain)], plain)
            np.testing.assert_allclose(obs, with_bonus_features(rules, plain)[0])
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            obs, _, done, _, info = bonus.step(action)
            plain, *_ = basic.step(action)
        obs, info = bonus.reset(seed=10 + game)
        plain, _ = basic.reset(seed=10 + game)


def card(dice, scores, rolls_left=0):
    return {"dice": dice, "rolls_left": rolls_left, "scores": scores, "penta_bonus": 0}


def named(env) -> dict[str, np.ndarray]:
    obs = env.unwrapped._observation()
    start = observation_slices(env.unwrapped.rules)["turn"].stop
    tail = obs[start:]
    return {"need": tail[0], "par": tail[1], "slack": tail[2], "secured": tail[3],
            "reachable": tail[4], "after": tail[5:]}


def test_bonus_entries_of_a_card_behind_par():
    """Aces 1, Twos 4, Threes 6 filled (11 points, 16 below par 27 for those boxes): 52 still
    needed, par of the open Fours..Sixes is 45, so 7 short.  [4 4 4 6 6] scores par in
    Fours (still 7 short), 6 below par in Sixes (13 short), 15 below in Fives (22 short)."""
    env = ScorecardEnv("penta", observation="bonus")
    scores = [1, 4, 6] + [None] * 10
    env.reset(options={"state": card([4, 4, 4, 6, 6], scores)})
    f = named(env)
    assert f["need"] == pytest.approx(52 / 63)
    assert f["par"] == pytest.approx(45 / 63)
    assert f["slack"] == pytest.approx(0.5 - 0.5 * 7 / 63)
    assert f["secured"] == 0 and f["reachable"] == 1
    np.testing.assert_allclose(f["after"][:3], 0)  # filled boxes
    assert f["after"][3] == pytest.approx(0.5 - 0.5 * 7 / 63)
    assert f["after"][5] == pytest.approx(0.5 - 0.5 * 13 / 63)
    assert f["after"][4] == pytest.approx(0.5 - 0.5 * 22 / 63)


def test_bonus_entries_once_secured_and_once_out_of_reach():
    env = ScorecardEnv("penta", observation="bonus")
    env.reset(options={"state": card([1, 2, 3, 4, 6], [3, 6, 9, 20, 25, 6] + [None] * 7)})
    f = named(env)
    assert f["need"] == 0 and f["secured"] == 1 and f["reachable"] == 1 and f["par"] == 0
    env.reset(options={"state": card([1, 2, 3, 4, 6], [0, 0, 0, 0, None, None] + [None] * 7)})
    f = named(env)  # 63 needed, at most 25 + 30 = 55 from Fives and Sixes
    assert f["need"] == 1 and f["secured"] == 0 and f["reachable"] == 0


def test_bonus_features_of_a_batch_match_row_by_row():
    venv = ScorecardVectorEnv(8, "dice-poker", observation="bonus")
    obs, _ = venv.reset(seed=1)
    start = observation_size(venv.rules)
    rows = np.stack([bonus_features(venv.rules, o[:start])[0] for o in obs])
    np.testing.assert_allclose(obs[:, start:], rows)


def test_a_bonus_model_plays_from_basic_observations(tmp_path):
    """A model trained on the bonus observation loads for the game and acts on the basic
    observations evaluation harnesses give it (and on bonus ones)."""
    need("sb3_contrib", "pip install -e '.[train]'")
    from sb3_contrib import MaskablePPO

    import agents
    from agents.evaluation import play_scorecard_games
    from dice_env.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env("dice_env/Penta-v0", num_envs=4, seed=0, observation="bonus")
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, seed=0,
                        policy_kwargs={"net_arch": [16]})
    path = tmp_path / "bonus.zip"
    model.save(path)
    player = agents.load(str(path), "penta")
    totals = play_scorecard_games(player, "dice_env/Penta-v0", 4, seed=0)
    assert len(totals) == 4 and (totals >= 0).all()
    env = ScorecardEnv("penta", observation="bonus")
    obs, info = env.reset(seed=0)
    assert info["action_mask"][player.act(obs, info["action_mask"])]
    assert player.act(obs[:45], info["action_mask"]) == player.act(obs, info["action_mask"])
    with pytest.raises(ValueError, match="cannot use the model"):
        agents.load(str(path), "dice-poker")


def test_registered_ids_accept_the_option():
    for env_id in dice_env.SCORECARD_IDS:
        env = gym.make(env_id, observation="bonus")
        assert env.observation_space.shape[0] == observation_size(env.unwrapped.rules, "bonus")
