"""Pig's envs: dice_env/Pig-v0 (single and natively batched) and the PettingZoo AEC env."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from pettingzoo.test import api_test, seed_test

from dice_env.errors import IllegalActionError
from dice_env.pig import aec
from dice_env.pig import rules as R
from dice_env.pig.bots import HoldAtBot
from dice_env.pig.env import PigEnv
from dice_env.pig.registration import register_envs
from dice_env.pig.rules import HOLD, ROLL, PigRules
from dice_env.pig.vector import PigVectorEnv

ENV_ID = "dice_env/Pig-v0"


@pytest.fixture(scope="module", autouse=True)
def registered():
    assert register_envs() == [ENV_ID]
    register_envs()  # twice is fine


def random_policy(rng, hold=0.2):
    """Random legal moves: hold with probability ``hold`` when rolling is legal."""
    def act(obs, mask):
        return HOLD if not mask[ROLL] or rng.random() < hold else ROLL
    return act


# -- single env --------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"num_players": 3, "win_score": 30, "die_sides": 4},
                                    {"num_players": 10, "horizon": 40, "piglet": True}])
def test_check_env(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(PigEnv(**kwargs))
        check_env(gym.make(ENV_ID, **kwargs).unwrapped)


def test_make_and_spaces():
    env = gym.make(ENV_ID, num_players=4)
    assert isinstance(env.unwrapped, PigEnv)
    assert env.action_space == gym.spaces.Discrete(2)
    assert env.observation_space.shape == (10,)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].tolist() == [1, 1]
    assert np.array_equal(env.unwrapped.action_masks(), [True, True])


@pytest.mark.parametrize("kwargs", [{}, {"num_players": 3, "win_score": 20, "die_sides": 3},
                                    {"num_players": 2, "win_score": 40, "horizon": 30}])
def test_masks_never_empty_and_rewards_sum_to_the_outcome(kwargs):
    env = PigEnv(**kwargs, opponents=HoldAtBot(PigRules(**{k: v for k, v in kwargs.items()
                                                             if k != "num_players"}),
                                               threshold=8))
    rng = np.random.default_rng(3)
    outcomes = set()
    for episode in range(60):
        obs, info = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            assert info["action_mask"].any()
            assert env.observation_space.contains(obs)
            obs, reward, term, trunc, info = env.step(random_policy(rng)(obs, info["action_mask"]))
            total += reward
            done = term or trunc
        assert term and not trunc
        expected = R.returns(env.rules, env.state)[info["agent_seat"]]
        assert total == pytest.approx(expected)
        outcomes.add(round(total, 6))
        assert info["winner"] == R.winner(env.rules, env.state)
    p = env.num_players
    assert outcomes <= {1.0, round(-1 / (p - 1), 6), 0.0} and len(outcomes) >= 2


def test_a_draw_at_the_horizon():
    env = PigEnv(horizon=6, agent_seat=0, opponents=lambda o, m: HOLD)
    env.reset(seed=0)
    done, rewards = False, []
    while not done:
        _, r, term, trunc, info = env.step(HOLD)
        rewards.append(r)
        done = term or trunc
    assert term and info["winner"] == -1 and sum(rewards) == 0.0 and info["moves"] == 6
    assert info["events"][-1] == {"type": "draw", "moves": 6}


def test_illegal_action_raise_leaves_the_state_untouched():
    env = PigEnv(illegal_action="raise", agent_seat=1)
    env.reset(seed=0, options={"state": {"scores": [40, 95], "turn_total": 6,
                                         "current_player": 1, "moves": 30}})
    before = env.get_state()
    assert env.legal_actions() == [HOLD]
    for bad in (ROLL, 2, -1, 1.0, "1", True, None, np.array([1])):
        with pytest.raises(IllegalActionError, match="legal actions: \\[1\\]"):
            env.step(bad)
        assert env.get_state() == before
    _, reward, term, _, info = env.step(np.int64(HOLD))
    assert term and reward == 1.0 and info["winner"] == 1


def test_illegal_action_penalize_and_terminate():
    state = {"scores": [40, 95], "turn_total": 6, "current_player": 0, "moves": 30}
    env = PigEnv(agent_seat=0)
    env.reset(seed=0, options={"state": {**state, "scores": [95, 40]}})
    before = env.get_state()
    _, r, term, trunc, info = env.step(ROLL)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, False, False, True)
    assert env.get_state() == before
    env = PigEnv(agent_seat=0, illegal_action="terminate", illegal_penalty=-2.0)
    env.reset(seed=0, options={"state": {**state, "scores": [95, 40]}})
    _, r, term, _, info = env.step(5)
    assert (r, term, info["illegal_action"]) == (-2.0, True, True)


def test_bad_arguments_and_opponents():
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 10"):
        PigEnv(num_players=11)
    with pytest.raises(ValueError, match="agent_seat must be 'random' or a seat from 0 to 1"):
        PigEnv(agent_seat=2)
    with pytest.raises(ValueError, match="sequence of 2 players"):
        PigEnv(num_players=3, opponents=[HoldAtBot()])
    env = PigEnv(agent_seat=1, opponents=lambda o, m: 7)
    with pytest.raises(RuntimeError, match="chose the illegal action 7"):
        env.reset(seed=0)


def test_render_ansi():
    env = PigEnv(render_mode="ansi", agent_seat=1)
    env.reset(seed=2)
    text = env.render()
    assert text.startswith("Pig: first to 100 with a d6") and "(you)" in text


# -- vector env --------------------------------------------------------------------------------
def test_make_vec_with_the_vector_entry_point():
    v = gym.make_vec(ENV_ID, num_envs=8, vectorization_mode="vector_entry_point", num_players=3)
    assert isinstance(v.unwrapped, PigVectorEnv)
    assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    single = gym.make(ENV_ID, num_players=3)
    assert v.single_observation_space == single.observation_space
    assert v.single_action_space == single.action_space
    obs, info = v.reset(seed=0)
    assert obs.shape == (8, 8) and v.observation_space.contains(obs)
    assert info["action_mask"].shape == (8, 2) and info["action_mask"].dtype == np.int8


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_vector_masks_never_empty_and_rewards_sum_to_the_outcome(mode):
    v = PigVectorEnv(num_envs=16, num_players=3, win_score=30, autoreset_mode=mode)
    rng = np.random.default_rng(0)
    obs, info = v.reset(seed=1)
    totals = np.zeros(16)
    finished = 0
    pending = np.zeros(16, dtype=bool)  # NEXT_STEP: the step after an end resets
    for _ in range(400):
        mask = info["action_mask"].astype(bool)
        assert mask.any(axis=1).all()
        keys = np.where(mask, rng.random(mask.shape), -1)
        obs, reward, term, trunc, info = v.step(keys.argmax(axis=1))
        assert not trunc.any()
        assert (reward[pending] == 0).all() and not term[pending].any()
        totals += reward
        if term.any():
            fi = info["final_info"] if mode == AutoresetMode.SAME_STEP else info
            for i in np.flatnonzero(term):
                w = fi["winner"][i]
                want = 0.0 if w < 0 else (1.0 if w == fi["agent_seat"][i] else -0.5)
                assert totals[i] == pytest.approx(want)
                assert max(fi["scores"][i]) >= 30 or w < 0
                totals[i] = 0.0
                finished += 1
        pending = term | trunc if mode == AutoresetMode.NEXT_STEP else pending & False
    assert finished > 20


def test_a_vector_env_of_one_replays_the_single_env():
    kw = {"num_players": 3, "win_score": 40}
    single = PigEnv(**kw)
    vec = PigVectorEnv(num_envs=1, **kw)
    o1, i1 = single.reset(seed=7)
    o2, i2 = vec.reset(seed=7)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        assert np.array_equal(o1, o2[0])
        assert np.array_equal(i1["action_mask"], i2["action_mask"][0])
        a = random_policy(rng)(o1, i1["action_mask"])
        o1, r1, t1, tr1, i1 = single.step(a)
        o2, r2, t2, tr2, i2 = vec.step(np.array([a]))
        assert (r1, t1, tr1) == (r2[0], t2[0], tr2[0])
        if t1:
            assert np.array_equal(o1, i2["final_obs"][0])
            o1, i1 = single.reset()
            ends += 1
    assert ends >= 3


def test_vector_illegal_action_raise_moves_no_game():
    v = PigVectorEnv(num_envs=3, illegal_action="raise", agent_seat=0)
    v.reset(seed=0, options={"states": [None, {"scores": [98, 10], "turn_total": 4,
                                               "current_player": 0}, None]})
    before = [v.get_state(i) for i in range(3)]
    with pytest.raises(IllegalActionError, match="sub-env 1: illegal action 0 \\(roll\\)"):
        v.step(np.array([ROLL, ROLL, ROLL]))
    assert [v.get_state(i) for i in range(3)] == before
    _, r, term, _, info = v.step(np.array([ROLL, HOLD, ROLL]))
    assert term[1] and r[1] == 1.0 and info["final_info"]["winner"][1] == 0


def test_vector_penalize():
    v = PigVectorEnv(num_envs=2, agent_seat=0)
    v.reset(seed=0, options={"states": [{"scores": [98, 10], "turn_total": 4}, None]})
    before = v.get_state(0)
    _, r, term, _, info = v.step(np.array([ROLL, ROLL]))
    assert r[0] == -1.0 and not term[0] and info["illegal_action"].tolist() == [True, False]
    assert v.get_state(0) == before


# -- AEC env -----------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 10])
def test_api_test(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(aec.env(num_players=num_players), num_cycles=1000)


def test_seed_test():
    seed_test(lambda: aec.env(num_players=3, win_score=30), num_cycles=300)


@pytest.mark.parametrize("num_players", [2, 4])
def test_aec_masks_and_returns(num_players):
    env = aec.env(num_players=num_players, win_score=40)
    rng = np.random.default_rng(1)
    for game in range(20):
        env.reset(seed=game)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            assert obs["action_mask"].any()
            env.step(random_policy(rng)(obs["observation"], obs["action_mask"]))
        rules = env.unwrapped.rules
        final = R.returns(rules, env.unwrapped._state)
        assert [total[a] for a in env.possible_agents] == pytest.approx(list(final))


def test_aec_illegal_raise_leaves_the_state_untouched():
    env = aec.env(illegal_action="raise")
    env.reset(seed=0, options={"state": {"scores": [97, 0], "turn_total": 5}})
    before = env.unwrapped.get_state()
    with pytest.raises(IllegalActionError, match="by player_0"):
        env.step(ROLL)
    assert env.unwrapped.get_state() == before
