"""The batched scorecard VectorEnv: same game as the single env, Gymnasium and SB3 plumbing."""

import gymnasium as gym
import numpy as np
import pytest
from conftest import need
from gymnasium.vector import AutoresetMode

import dice_env
from dice_env.errors import IllegalActionError
from dice_env.scorecard.env import ScorecardEnv
from dice_env.scorecard.vector import ScorecardVectorEnv

GAMES = ["penta", "dice-poker", "yahtzee-official", "yahtzee-free-joker", "yahtzee-no-bonus"]


@pytest.mark.parametrize("game", GAMES)
def test_batch_of_one_is_the_single_env_die_for_die(game):
    """Same seed, same actions: every observation, reward, mask and end agree, autoreset too."""
    single = ScorecardEnv(game)
    batch = ScorecardVectorEnv(1, game)
    policy = np.random.default_rng(7)
    obs_s, info_s = single.reset(seed=3)
    obs_b, info_b = batch.reset(seed=3)
    games = 0
    while games < 4:
        assert np.array_equal(obs_s, obs_b[0])
        assert np.array_equal(info_s["action_mask"], info_b["action_mask"][0])
        assert info_s["must_scratch"] == info_b["must_scratch"][0]
        assert single.get_state() == batch.get_state(0)
        action = int(policy.choice(np.flatnonzero(info_s["action_mask"])))
        obs_s, r_s, term_s, trunc_s, info_s = single.step(action)
        obs_b, r_b, term_b, trunc_b, info_b = batch.step(np.array([action]))
        assert r_s == r_b[0] and term_s == term_b[0] and trunc_s == trunc_b[0]
        if term_s:
            assert np.array_equal(obs_s, info_b["final_obs"][0])
            assert info_s["score"]["total"] == info_b["final_info"]["score"]["total"][0]
            obs_s, info_s = single.reset()
            games += 1


def test_injected_states_score_like_the_single_env():
    """64 games from the single envs' states: a scoring step gives the same rewards/scores."""
    n = 64
    singles = [ScorecardEnv("penta") for _ in range(n)]
    rng = np.random.default_rng(0)
    states, actions = [], []
    for i, env in enumerate(singles):
        _, info = env.reset(seed=i)
        for _ in range(int(rng.integers(0, 25))):  # walk into the game
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, done, _, info = env.step(a)
            if done:
                _, info = env.reset(seed=1000 + i)
        states.append(env.get_state())
        boxes = np.flatnonzero(info["action_mask"][32:]) + 32
        actions.append(int(rng.choice(boxes)))
    batch = ScorecardVectorEnv(n, "penta")
    obs_b, info_b = batch.reset(seed=0, options={"states": states})
    for i, env in enumerate(singles):
        assert np.array_equal(env.action_masks(), batch.action_masks()[i])
    _, r_b, term_b, _, _ = batch.step(np.array(actions))
    for i, env in enumerate(singles):
        _, r_s, term_s, _, info_s = env.step(actions[i])
        assert r_s == r_b[i] and term_s == term_b[i]
        if not term_s:
            assert env.get_state()["scores"] == batch.get_state(i)["scores"]


def ks_statistic(a, b):
    grid = np.union1d(a, b)
    cdf_a = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    cdf_b = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return np.abs(cdf_a - cdf_b).max()


def test_random_policy_score_distributions_match():
    """1,500 random games on each: the two score distributions agree (two-sample KS)."""
    n_games = 1500
    single = ScorecardEnv("penta")
    rng = np.random.default_rng(1)
    single_totals = []
    for g in range(n_games):
        _, info = single.reset(seed=10_000 + g)
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, done, _, info = single.step(a)
        single_totals.append(info["score"]["total"])
    batch = ScorecardVectorEnv(500, "penta")
    _, info = batch.reset(seed=2)
    batch_totals = []
    while len(batch_totals) < n_games:
        m = info["action_mask"]
        a = (rng.random(m.shape) * m).argmax(axis=1)
        _, _, term, _, info = batch.step(a)
        if term.any():
            batch_totals.extend(info["final_info"]["score"]["total"][term].tolist())
    d = ks_statistic(np.array(single_totals), np.array(batch_totals[:n_games]))
    # critical value of the two-sample KS test at alpha = 0.001 for n = m
    assert d < 1.95 * np.sqrt(2 / n_games)


def test_make_vec_and_autoreset_modes():
    for env_id in dice_env.SCORECARD_IDS:
        v = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point")
        assert isinstance(v.unwrapped, ScorecardVectorEnv)
        assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        obs, info = v.reset(seed=0)
        assert obs.shape == (4, v.single_observation_space.shape[0])
        assert info["action_mask"].shape == (4, v.single_action_space.n)
    nxt = ScorecardVectorEnv(2, "penta", autoreset_mode="NextStep")
    assert nxt.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    nxt.reset(seed=0, options={"states": [
        {"dice": [1, 2, 3, 4, 5], "rolls_left": 0, "scores": [0] * 12 + [None],
         "penta_bonus": 0}, None]})
    _, r, term, _, info = nxt.step(np.array([32 + 12, 0]))
    assert term[0] and not term[1] and r[0] == 0 and info["score"]["total"][0] == 0
    assert info["action_mask"][0].any()  # never an empty mask
    obs, r, term, _, info = nxt.step(np.array([5, 0]))  # action ignored: the game resets
    assert r[0] == 0 and not term[0] and nxt.get_state(0)["scores"] == [None] * 13
    with pytest.raises(ValueError, match="autoreset_mode"):
        ScorecardVectorEnv(2, "penta", autoreset_mode="Sometimes")


def test_illegal_action_in_a_batch_names_the_sub_env_and_moves_nothing():
    v = ScorecardVectorEnv(3, "penta", illegal_action="raise")
    v.reset(seed=0)
    before = [v.get_state(i) for i in range(3)]
    with pytest.raises(IllegalActionError, match=r"sub-env 1: illegal action 31"):
        v.step(np.array([32, 31, 32]))
    assert [v.get_state(i) for i in range(3)] == before
    pen = ScorecardVectorEnv(3, "penta")
    pen.reset(seed=0)
    _, r, _, _, info = pen.step(np.array([32, 31, 32]))
    assert r[1] == -1 and info["illegal_action"].tolist() == [False, True, False]
    with pytest.raises(ValueError, match="sub-env 2"):
        pen.reset(options={"states": [None, None, {"dice": [9] * 5}]})


def test_seeded_batches_are_reproducible():
    a, b = ScorecardVectorEnv(16, "dice-poker"), ScorecardVectorEnv(16, "dice-poker")
    oa, _ = a.reset(seed=5)
    ob, _ = b.reset(seed=5)
    assert np.array_equal(oa, ob)
    acts = np.zeros(16, dtype=int)
    assert np.array_equal(a.step(acts)[0], b.step(acts)[0])


def test_maskable_ppo_trains_on_the_sb3_adapter():
    need("sb3_contrib", "pip install -e '.[train]'")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from dice_env.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env("dice_env/Penta-v0", num_envs=32, seed=0)
    masks = get_action_masks(venv)
    assert masks.shape == (32, 45) and masks.dtype == bool and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=1, seed=0)
    model.learn(32 * 64 * 2)
    obs = venv.reset()
    done_seen = False
    for _ in range(60):
        action, _ = model.predict(obs, action_masks=get_action_masks(venv))
        assert get_action_masks(venv)[np.arange(32), action].all()
        obs, _, dones, infos = venv.step(action)
        for i in np.flatnonzero(dones):
            done_seen = True
            assert infos[i]["terminal_observation"].shape == (45,)
            assert "score" in infos[i] and infos[i]["TimeLimit.truncated"] is False
    assert done_seen
