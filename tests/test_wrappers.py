"""dice_env.wrappers: the action mask inside Dict observations, single and batched envs."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import VectorWrapper

import dice_env
from dice_env.wrappers import DictMaskObservation, DictMaskVectorObservation, dict_mask

ALL_IDS = [*dice_env.SCORECARD_IDS, *dice_env.SCORECARD_MATCH_IDS, *dice_env.FIVE_THOUSAND_IDS]
MODES = ["SameStep", "NextStep"]
OBS, MASK = "observations", "action_mask"


def make_vec(env_id, num_envs=3, **kwargs):
    return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                        **kwargs)


class RawStep(gym.Wrapper):
    """Remembers what the wrapped env returned, under the wrapper being tested."""

    def reset(self, **kwargs):
        self.last = self.env.reset(**kwargs)
        return self.last

    def step(self, action):
        self.last = self.env.step(action)
        return self.last


class RawVectorStep(VectorWrapper):
    """The same for vector envs; ``strip_final_mask`` drops ``final_info["action_mask"]``."""

    def __init__(self, env, strip_final_mask=False):
        super().__init__(env)
        self.strip_final_mask = strip_final_mask

    def reset(self, **kwargs):
        self.last = self.env.reset(**kwargs)
        return self.last

    def step(self, actions):
        obs, rewards, term, trunc, infos = self.env.step(actions)
        if self.strip_final_mask and "final_info" in infos:
            final_info = {k: v for k, v in infos["final_info"].items()
                          if k not in ("action_mask", "_action_mask")}
            infos = {**infos, "final_info": final_info}
        self.last = obs, rewards, term, trunc, infos
        return self.last


class InfoEdit(gym.Wrapper):
    """Replaces (or with ``mask=None`` removes) ``info["action_mask"]``."""

    def __init__(self, env, mask):
        super().__init__(env)
        self.mask = mask

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        info = {k: v for k, v in info.items() if k != "action_mask"}
        if self.mask is not None:
            info["action_mask"] = self.mask
        return obs, info


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_check_env_on_every_registered_id(env_id):
    env = DictMaskObservation(gym.make(env_id))
    assert isinstance(env.observation_space, gym.spaces.Dict)
    assert env.observation_space[OBS] == env.env.observation_space
    assert env.observation_space[MASK] == gym.spaces.Box(0, 1, (env.action_space.n,), np.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any complaint of the checker fails the test, but
        warnings.filterwarnings("ignore", message=".*different from the unwrapped")  # this one
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_single_env_masks_are_the_info_masks_to_the_end(env_id):
    raw = RawStep(gym.make(env_id))
    env = DictMaskObservation(raw)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=5)
    for _ in range(2):  # two whole episodes of random legal play
        done = False
        while True:
            raw_obs, raw_info = raw.last[0], raw.last[-1]
            assert env.observation_space.contains(obs)
            assert obs[OBS] is raw_obs and info is raw_info  # passed on unchanged
            assert obs[MASK].dtype == np.int8
            assert np.array_equal(obs[MASK], info["action_mask"])
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
            assert np.array_equal(env.action_masks(), env.unwrapped.action_masks())
            if done:
                break
            action = int(rng.choice(np.flatnonzero(obs[MASK])))
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert terminated and not obs[MASK].any()  # our envs: no legal action at the end
        obs, info = env.reset()


@pytest.mark.parametrize("env_id, kwargs", [("dice_env/Penta-v0", {"max_steps": 4}),
                                            ("dice_env/FiveThousandSolo-v0", {"max_turns": 1})])
def test_single_env_truncation_keeps_the_states_mask(env_id, kwargs):
    env = DictMaskObservation(gym.make(env_id, **kwargs))
    obs, info = env.reset(seed=0)
    truncated = False
    while not truncated:
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(obs[MASK])[0]))
        assert not terminated
    assert obs[MASK].any() and np.array_equal(obs[MASK], info["action_mask"])


def test_the_mask_is_a_copy():
    env = DictMaskObservation(gym.make("dice_env/Penta-v0"))
    obs, info = env.reset(seed=0)
    before = env.unwrapped.action_masks()
    obs[MASK][:] = 0
    assert np.array_equal(env.unwrapped.action_masks(), before)
    assert np.array_equal(info["action_mask"], before)


def test_pettingzoo_keys_and_spec_round_trip():
    from dice_env.multi import scorecard_v0

    env = DictMaskObservation(gym.make("dice_env/DicePoker-v0"), observation_key="observation")
    aec = scorecard_v0.env(game="dice-poker", num_players=2)
    aec_space = aec.observation_space(aec.possible_agents[0])
    assert set(env.observation_space) == set(aec_space) == {"observation", "action_mask"}
    assert env.observation_space["action_mask"] == aec_space["action_mask"]
    obs, info = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and env.observation_space.contains(obs)
    again = env.spec.make()  # the wrapper and its keys are recorded in the spec
    assert isinstance(again, DictMaskObservation)
    assert again.observation_space == env.observation_space
    custom = DictMaskObservation(gym.make("dice_env/Penta-v0"), "obs", "legal")
    assert set(custom.reset(seed=0)[0]) == {"obs", "legal"}


CASES = [
    ("dice_env/Penta-v0", {}),
    ("dice_env/Penta-v0", {"max_steps": 6}),  # truncations: the final mask is not empty
    ("dice_env/DicePokerMatch-v0", {}),
    ("dice_env/FiveThousand-v0", {}),
    ("dice_env/FiveThousandSolo-v0", {"max_turns": 2}),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_vector_masks_and_final_observations(env_id, kwargs, mode):
    raw = RawVectorStep(make_vec(env_id, autoreset_mode=mode, **kwargs))
    envs = DictMaskVectorObservation(raw)
    n, n_actions = envs.num_envs, envs.single_action_space.n
    assert envs.single_observation_space == gym.spaces.Dict({
        OBS: raw.single_observation_space, MASK: gym.spaces.Box(0, 1, (n_actions,), np.int8)})
    assert envs.observation_space[OBS] == raw.observation_space
    assert envs.observation_space[MASK].shape == (n, n_actions)
    rng = np.random.default_rng(2)
    obs, infos = envs.reset(seed=3)
    ended = steps = 0
    while ended < 6:
        raw_obs, raw_infos = raw.last[0], raw.last[-1]
        assert envs.observation_space.contains(obs)
        assert obs[OBS] is raw_obs
        assert np.array_equal(obs[MASK], raw_infos["action_mask"])
        assert np.array_equal(infos["action_mask"], raw_infos["action_mask"])
        assert np.array_equal(envs.action_masks(), raw.unwrapped.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs[MASK]])
        obs, _, terminated, truncated, infos = envs.step(actions)
        done = terminated | truncated
        ended += int(done.sum())
        steps += 1
        assert steps < 400
        if mode == "NextStep" or not done.any():
            assert "final_obs" not in infos
            if done.any():  # the env's mask of an ended game: any action resets it
                assert (obs[MASK][done, 0] == 1).all() and not obs[MASK][done, 1:].any()
            continue
        raw_final, raw_final_info = raw.last[-1]["final_obs"], raw.last[-1]["final_info"]
        assert infos["final_info"] is raw_final_info
        assert np.array_equal(infos["_final_obs"], done)
        for i in range(n):
            final = infos["final_obs"][i]
            if not done[i]:
                assert final is None
                continue
            assert envs.single_observation_space.contains(final)
            assert final[OBS] is raw_final[i]
            assert np.array_equal(final[MASK], raw_final_info["action_mask"][i])
            assert final[MASK].any() == bool(truncated[i])  # empty exactly after a termination
    assert ended >= 6


def test_final_mask_is_zeros_when_the_env_gives_none():
    raw = RawVectorStep(make_vec("dice_env/Penta-v0", max_steps=3), strip_final_mask=True)
    envs = DictMaskVectorObservation(raw)
    obs, _ = envs.reset(seed=0)
    for _ in range(3):
        obs, _, terminated, truncated, infos = envs.step(np.argmax(obs[MASK], axis=1))
    assert truncated.all()
    for final, raw_final in zip(infos["final_obs"], raw.last[-1]["final_obs"]):
        assert final[OBS] is raw_final and final[MASK].dtype == np.int8
        assert not final[MASK].any() and envs.single_observation_space.contains(final)


def test_reset_mask_option_and_pettingzoo_keys_on_a_vector_env():
    envs = DictMaskVectorObservation(make_vec("dice_env/FiveThousand-v0", 4),
                                     observation_key="observation")
    obs, infos = envs.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and envs.observation_space.contains(obs)
    obs, infos = envs.reset(options={"reset_mask": np.array([True, False, True, False])})
    assert np.array_equal(obs["action_mask"], infos["action_mask"])


def test_dict_mask_picks_the_wrapper():
    single = dict_mask(gym.make("dice_env/Penta-v0"), observation_key="observation")
    assert type(single) is DictMaskObservation and single.observation_key == "observation"
    batched = dict_mask(make_vec("dice_env/FiveThousandSolo-v0"), mask_key="mask")
    assert type(batched) is DictMaskVectorObservation and batched.mask_key == "mask"
    assert set(batched.single_observation_space) == {OBS, "mask"}
    from dice_env.multi import scorecard_v0

    with pytest.raises(TypeError, match="already return"):
        dict_mask(scorecard_v0.env(game="penta", num_players=2))
    with pytest.raises(TypeError, match="DictMaskVectorObservation"):
        DictMaskObservation(make_vec("dice_env/Penta-v0"))
    with pytest.raises(TypeError, match="DictMaskObservation"):
        DictMaskVectorObservation(gym.make("dice_env/Penta-v0"))


@pytest.mark.parametrize("vector", [False, True])
def test_key_errors(vector):
    def make(**keys):
        if vector:
            return DictMaskVectorObservation(make_vec("dice_env/Penta-v0"), **keys)
        return DictMaskObservation(gym.make("dice_env/Penta-v0"), **keys)

    with pytest.raises(ValueError, match="must differ"):
        make(observation_key="action_mask")
    with pytest.raises(ValueError, match="must differ"):
        make(observation_key="x", mask_key="x")
    with pytest.raises(TypeError, match="non-empty string"):
        make(mask_key="")
    with pytest.raises(TypeError, match="non-empty string"):
        make(observation_key=3)


def test_an_env_without_an_info_mask_fails_at_the_first_reset():
    env = DictMaskObservation(gym.make("CartPole-v1"))  # Discrete(2), but no mask
    with pytest.raises(ValueError, match=r"CartPole-v1.*reset\(\) returned no info\['action_mask'\]"
                                         r".*shape \(2,\)"):
        env.reset(seed=0)
    envs = DictMaskVectorObservation(gym.make_vec("CartPole-v1", num_envs=2,
                                                  vectorization_mode="sync"))
    with pytest.raises(ValueError, match=r"CartPole-v1.*infos\['action_mask'\].*shape \(2, 2\)"):
        envs.reset(seed=0)


@pytest.mark.parametrize("mask, why", [(np.ones(3, np.int8), "shape"),
                                       (np.full(45, 2, np.int64), "other than 0 and 1"),
                                       (np.ones(45, np.float32), "dtype float32"),
                                       (None, "returned no")])
def test_a_bad_info_mask_is_named(mask, why):
    env = DictMaskObservation(InfoEdit(gym.make("dice_env/Penta-v0"), mask))
    with pytest.raises(ValueError, match=why):
        env.reset(seed=0)


def test_a_non_discrete_action_space_is_refused():
    with pytest.raises(TypeError, match="Pendulum-v1.*Discrete action space.*Box"):
        DictMaskObservation(gym.make("Pendulum-v1"))
    with pytest.raises(TypeError, match="Discrete single action space"):
        DictMaskVectorObservation(gym.make_vec("Pendulum-v1", num_envs=2,
                                               vectorization_mode="sync"))


def test_gymnasiums_sync_vector_env_of_our_single_envs():
    """The wrapper is not tied to our batched envs: gymnasium's SyncVectorEnv works too."""
    envs = DictMaskVectorObservation(gym.make_vec(
        "dice_env/FiveThousandSolo-v0", num_envs=2, vectorization_mode="sync", max_turns=2,
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}))
    obs, _ = envs.reset(seed=0)
    finals = 0
    for _ in range(40):
        obs, _, _, _, infos = envs.step(np.argmax(obs[MASK], axis=1))
        assert envs.observation_space.contains(obs)
        for i in np.flatnonzero(infos.get("_final_obs", [])):
            assert envs.single_observation_space.contains(infos["final_obs"][i])
            assert np.array_equal(infos["final_obs"][i][MASK], infos["final_info"][MASK][i])
            finals += 1
    assert finals
