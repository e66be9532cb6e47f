"""The scorecard Gymnasium environments: API, masks, state, illegal actions, rendering."""

import json

import gymnasium as gym
import numpy as np
import pytest
from conftest import need
from gymnasium.utils.env_checker import check_env

import dice_env
from dice_env.errors import IllegalActionError
from dice_env.scorecard.env import ScorecardEnv
from dice_env.scorecard.render import MUST_SCRATCH_WARNING

IDS = list(dice_env.SCORECARD_IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_check_env(env_id):
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=False)
    assert env.action_space.n == 32 + env.unwrapped.rules.n_boxes


def penta_state(dice, scores=None, rolls_left=0, bonus=0):
    if scores is None:
        scores = [None] * 13
    return {"dice": dice, "rolls_left": rolls_left, "scores": scores, "penta_bonus": bonus}


def test_reset_from_state_and_round_trip():
    env = ScorecardEnv("penta")
    scores = [2, None, 9, None, None, 18, None, None, 25, None, None, 22, 50]
    state = penta_state([6, 4, 4, 4, 4], scores, rolls_left=1, bonus=100)
    obs, info = env.reset(options={"state": state})
    got = env.get_state()
    assert got["dice"] == [4, 4, 4, 4, 6] and got["scores"] == scores
    assert got["penta_bonus"] == 100 and got["rolls_left"] == 1 and got["game"] == "penta"
    json.dumps(got)
    env2 = ScorecardEnv("penta")
    obs2, _ = env2.reset(options={"state": got})
    assert np.array_equal(obs, obs2) and env2.get_state() == got


def test_joker_is_enforced_by_the_mask():
    env = ScorecardEnv("penta", illegal_action="raise")
    scores = [None] * 12 + [50]
    _, info = env.reset(options={"state": penta_state([4] * 5, scores)})
    fours = 32 + 3
    assert np.flatnonzero(info["action_mask"]).tolist() == [fours]
    _, reward, *_ = env.step(fours)
    assert reward == 120 and env.get_state()["penta_bonus"] == 100


def test_upper_bonus_is_paid_when_the_threshold_is_crossed():
    env = ScorecardEnv("penta")
    scores = [3, 6, 9, 12, 15, None] + [None] * 7  # upper 45, needs 18 from Sixes
    env.reset(options={"state": penta_state([6, 6, 6, 1, 2], scores)})
    _, reward, *_ = env.step(32 + 5)
    assert reward == 18 + 35
    poker = ScorecardEnv("dice-poker")
    scores = [3, 6, 9, 12, 15, None] + [None] * 9
    poker.reset(options={"state": penta_state([6, 6, 6, 1, 2], scores)})
    _, reward, *_ = poker.step(32 + 5)
    assert reward == 18  # 63 is not "higher than 63"


def test_must_scratch_flag_and_warning():
    env = ScorecardEnv("penta", render_mode="ansi")
    scores = [1, 2, 3, 4, None, 6, 10, 10, 25, 30, 40, 20, None]
    scores[8] = None  # Full open
    _, info = env.reset(options={"state": penta_state([1, 2, 3, 4, 6], scores)})
    assert info["must_scratch"]
    assert MUST_SCRATCH_WARNING in env.render()
    _, info = env.reset(options={"state": penta_state([1, 2, 3, 4, 5], [None] * 13)})
    assert not info["must_scratch"] and MUST_SCRATCH_WARNING not in env.render()


def test_illegal_action_raise_names_the_action_and_keeps_state():
    env = ScorecardEnv("penta", illegal_action="raise")
    env.reset(seed=3)
    before = env.get_state()
    with pytest.raises(IllegalActionError, match=r"illegal action 31 .*legal actions: \["):
        env.step(31)
    assert env.get_state() == before
    env.step(32)  # a legal step still works
    scored = env.get_state()["scores"]
    with pytest.raises(IllegalActionError, match="score Aces"):
        env.step(32)
    assert env.get_state()["scores"] == scored
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(99)


def test_illegal_action_penalize_and_terminate():
    env = ScorecardEnv("penta", illegal_action="penalize", illegal_penalty=-5)
    env.reset(seed=0)
    before = env.get_state()
    _, reward, terminated, truncated, info = env.step(31)
    assert reward == -5 and info["illegal_action"] and not terminated and not truncated
    assert env.get_state() == before
    env = ScorecardEnv("penta", illegal_action="terminate")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(31)
    assert terminated and reward == -1 and info["illegal_action"]


def test_step_limit_truncates():
    env = ScorecardEnv("penta", max_steps=3)
    env.reset(seed=0)
    results = [env.step(31) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(32)


def test_holds_canonical_and_free():
    env = ScorecardEnv("penta")
    _, info = env.reset(options={"state": penta_state([2, 2, 2, 5, 5], rolls_left=2)})
    mask = info["action_mask"][:32]
    # distinct keeps of 2 2 2 5 5 without the full hold: 4 * 3 - 1 = 11
    assert mask.sum() == 11 and mask[0b00001] and not mask[0b00010] and not mask[31]
    free = ScorecardEnv("penta", canonical_holds=False)
    _, info = free.reset(options={"state": penta_state([2, 2, 2, 5, 5], rolls_left=2)})
    assert info["action_mask"][:32].sum() == 31
    _, info = free.reset(options={"state": penta_state([2, 2, 2, 5, 5], rolls_left=0)})
    assert info["action_mask"][:32].sum() == 0
    assert env.action_masks().dtype == bool and info["action_mask"].dtype == np.int8


def test_holding_keeps_the_held_dice():
    env = ScorecardEnv("penta")
    env.reset(seed=1, options={"state": penta_state([1, 3, 6, 6, 6], rolls_left=2)})
    env.step(0b11100)
    state = env.get_state()
    assert state["dice"].count(6) >= 3 and state["rolls_left"] == 1


@pytest.mark.parametrize("bad,message", [
    ({"dice": [0, 1, 2, 3, 4]}, "dice"),
    ({"dice": [1, 2, 3]}, "dice"),
    ({"dice": [1, 2, 3, 4, 5.5]}, "dice"),
    ({"rolls_left": 3}, "rolls_left"),
    ({"rolls_left": True}, "rolls_left"),
    ({"scores": [None] * 12}, "13 entries"),
    ({"scores": [7] + [None] * 12}, "no roll scores 7 in Aces"),
    ({"scores": [None] * 8 + [20] + [None] * 4}, "Full"),
    ({"scores": [0] * 13}, "over"),
    ({"penta_bonus": 100}, "does not hold 50"),
    ({"penta_bonus": 150, "scores": [None] * 12 + [50]}, "multiple of 100"),
    ({"penta_bonus": 100, "scores": [None] * 12 + [50]}, "boxes filled"),
    ({"game": "dice-poker"}, "game"),
    ({"colour": "red"}, "unknown state keys"),
])
def test_malformed_states_are_refused(bad, message):
    env = ScorecardEnv("penta")
    state = penta_state([1, 2, 3, 4, 5])
    state.update(bad)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"state": state})


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="unknown reset options"):
        ScorecardEnv("penta").reset(options={"sate": {}})
    with pytest.raises(ValueError, match="illegal_action"):
        ScorecardEnv("penta", illegal_action="ignore")
    with pytest.raises(ValueError, match="known presets"):
        ScorecardEnv("generala")
    with pytest.warns(UserWarning, match="render_mode"):
        assert ScorecardEnv("penta", render_mode="rgb_array").render() is None


def test_human_render_prints_and_sb3_make_vec_env_works(capsys):
    env = ScorecardEnv("penta", render_mode="human")
    env.reset(seed=0)
    env.step(32)
    assert "Aces" in capsys.readouterr().out
    sb3_env_util = need("stable_baselines3.common.env_util", "pip install -e '.[train]'")
    venv = sb3_env_util.make_vec_env("dice_env/Penta-v0", n_envs=2, seed=0)
    assert venv.reset().shape == (2, 45)


def test_final_info_has_the_score_breakdown():
    env = ScorecardEnv("penta")
    scores = [3, 6, 9, 12, 15, 18, 20, 20, 25, 30, 40, 22, None]
    env.reset(options={"state": penta_state([2, 2, 2, 2, 2], scores)})
    _, reward, terminated, _, info = env.step(32 + 12)
    assert terminated and reward == 50  # the upper bonus belongs to the starting state
    assert info["score"] == {"upper": 63, "upper_bonus": 35, "lower": 157 + 50,
                             "penta_bonus": 0, "total": 63 + 35 + 207}


def test_seeded_resets_are_reproducible():
    a, b = ScorecardEnv("dice-poker"), ScorecardEnv("dice-poker")
    oa, _ = a.reset(seed=42)
    ob, _ = b.reset(seed=42)
    assert np.array_equal(oa, ob)
    for action in (0, 3, 32 + 14):
        ra, rb = a.step(action), b.step(action)
        assert np.array_equal(ra[0], rb[0]) and ra[1:4] == rb[1:4]
