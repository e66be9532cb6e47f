"""Action masks inside ``Dict`` observations, for libraries that expect them there.

Every env of this package reports its legal actions in ``info["action_mask"]`` (int8, 1 =
legal) and through ``action_masks()`` (bool), the sb3-contrib way.  RLlib, Tianshou, TorchRL
and PettingZoo's classic envs expect the mask inside the observation instead.  The wrappers
here turn any of our envs into one whose observation is

``Dict({observation_key: <the env's observation space>, mask_key: Box(0, 1, (n_actions,), int8)})``

with ``observation_key="observations"`` and ``mask_key="action_mask"`` by default (RLlib's
convention); ``observation_key="observation"`` gives PettingZoo's.

* :class:`DictMaskObservation` wraps a single :class:`gymnasium.Env` (``gym.make(id)``);
* :class:`DictMaskVectorObservation` wraps a :class:`gymnasium.vector.VectorEnv`, such as the
  natively batched ``gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``;
* :func:`dict_mask` picks the right one.

What the wrappers promise:

* The mask in an observation is the ``info["action_mask"]`` that the env returned from the
  same ``reset()`` / ``step()`` call (copied, as int8).  The info is passed on unchanged, its
  ``action_mask`` included, and ``action_masks()`` still works through the wrapper (the bool
  form of the mask of the last observation).
* At the end of an episode the mask is whatever the env reports.  Our single envs report all
  zeros on termination (no action is legal in a finished game) and the state's ordinary mask on
  truncation.  The batched envs under ``NEXT_STEP`` autoreset report, for a sub-env that just
  ended, a mask with only action 0 set (any action resets it, and the mask stays non-empty);
  under ``SAME_STEP`` the row already belongs to the next episode, so observation and mask
  are the new episode's.
* Under ``SAME_STEP`` autoreset each non-``None`` entry of ``infos["final_obs"]`` (the last
  observation of a sub-env that just ended) becomes ``{observation_key: final obs, mask_key:
  final mask}``, an element of ``single_observation_space``.  The final mask is
  ``infos["final_info"]["action_mask"]`` of that row (our envs: zeros after a termination, the
  ordinary mask after a truncation) or all zeros when the env gives none.
  ``infos["final_info"]`` is left as it is.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

__all__ = [
    "DEFAULT_MASK_KEY",
    "DEFAULT_OBSERVATION_KEY",
    "DictMaskObservation",
    "DictMaskVectorObservation",
    "dict_mask",
]

#: The default key of the original observation (RLlib's; PettingZoo uses ``"observation"``).
DEFAULT_OBSERVATION_KEY = "observations"
#: The default key of the mask (RLlib's and PettingZoo's).
DEFAULT_MASK_KEY = "action_mask"
#: Where our envs put the mask in their info.
INFO_MASK_KEY = "action_mask"


def _check_keys(observation_key: str, mask_key: str) -> None:
    for name, key in (("observation_key", observation_key), ("mask_key", mask_key)):
        if not isinstance(key, str) or not key:
            raise TypeError(f"{name} must be a non-empty string, got {key!r}")
    if observation_key == mask_key:
        raise ValueError(f"observation_key and mask_key must differ, both are {mask_key!r}")


def _env_name(env: Any) -> str:
    spec = getattr(env, "spec", None)
    env_id = getattr(spec, "id", None)
    unwrapped = getattr(env, "unwrapped", env)
    return f"{env_id} ({type(unwrapped).__name__})" if env_id else type(unwrapped).__name__


def _n_actions(action_space: gym.Space, env: Any, which: str) -> int:
    if not isinstance(action_space, spaces.Discrete):
        raise TypeError(f"{_env_name(env)}: an action mask needs a Discrete {which}, got "
                        f"{action_space}")
    return int(action_space.n)


def _mask_space(n_actions: int) -> spaces.Box:
    return spaces.Box(0, 1, (n_actions,), dtype=np.int8)


def _read_mask(info: dict, shape: tuple[int, ...], env: Any, call: str) -> np.ndarray:
    """``info["action_mask"]`` as a fresh int8 array of ``shape``, or a ``ValueError``."""
    where = "infos" if len(shape) == 2 else "info"
    what = (f"an array of shape {shape}: 1 (or True) for each legal action, 0 for the others, "
            f"returned by every reset() and step()")
    mask = info.get(INFO_MASK_KEY) if isinstance(info, dict) else None
    if mask is None:
        raise ValueError(f"{_env_name(env)}: {call}() returned no {where}[{INFO_MASK_KEY!r}]; "
                         f"the Dict-mask wrappers read the action mask from there and expect "
                         f"{what}")
    mask = np.asarray(mask)
    if mask.shape != shape or not (mask.dtype == bool or np.issubdtype(mask.dtype, np.integer)):
        raise ValueError(f"{_env_name(env)}: {call}() returned {where}[{INFO_MASK_KEY!r}] of "
                         f"shape {mask.shape} and dtype {mask.dtype}; expected {what}")
    if mask.dtype != bool and mask.size and (mask.min() < 0 or mask.max() > 1):
        raise ValueError(f"{_env_name(env)}: {call}() returned {where}[{INFO_MASK_KEY!r}] with "
                         f"entries other than 0 and 1; expected {what}")
    return mask.astype(np.int8)  # a copy: the env may reuse its own array


class DictMaskObservation(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A single env whose observation is a ``Dict`` holding the env's observation and mask.

    ``observation_space`` is ``Dict({observation_key: env.observation_space, mask_key:
    Box(0, 1, (n,), int8)})`` for ``action_space = Discrete(n)``.  ``reset()`` and ``step()``
    return ``{observation_key: obs, mask_key: info["action_mask"]}`` (the mask copied as int8)
    and pass ``info`` on unchanged, its ``action_mask`` included.  :meth:`action_masks` (for
    sb3-contrib) returns the bool form of the last observation's mask.  At the end of an
    episode the mask is the env's: all zeros after a termination of our envs, the state's
    ordinary mask after a truncation.

    Example::

        env = DictMaskObservation(gym.make("dice_env/Penta-v0"))
        obs, info = env.reset(seed=0)
        action = env.action_space.sample(mask=obs["action_mask"])

    Args:
        env: the env to wrap; its action space must be ``Discrete`` and every ``reset()`` and
            ``step()`` must put the mask in ``info["action_mask"]``.
        observation_key: the key of the env's observation (``"observation"`` for PettingZoo's
            convention).
        mask_key: the key of the mask.

    Raises:
        TypeError: the action space is not ``Discrete``, or a key is not a non-empty string.
        ValueError: the two keys are equal; or (at ``reset()`` / ``step()``) the env returned
            no ``info["action_mask"]`` of shape ``(n,)`` with 0/1 entries.
    """

    def __init__(self, env: gym.Env, observation_key: str = DEFAULT_OBSERVATION_KEY,
                 mask_key: str = DEFAULT_MASK_KEY) -> None:
        if isinstance(env, VectorEnv):
            raise TypeError(f"{_env_name(env)} is a VectorEnv: wrap it with "
                            f"DictMaskVectorObservation (or use dict_mask)")
        if not isinstance(env, gym.Env):
            raise TypeError(f"DictMaskObservation needs a gymnasium Env, got "
                            f"{type(env).__name__}")
        _check_keys(observation_key, mask_key)
        gym.utils.RecordConstructorArgs.__init__(self, observation_key=observation_key,
                                                 mask_key=mask_key)
        gym.Wrapper.__init__(self, env)
        self.observation_key = observation_key
        self.mask_key = mask_key
        self.n_actions = _n_actions(env.action_space, env, "action space")
        self.observation_space = spaces.Dict({observation_key: env.observation_space,
                                              mask_key: _mask_space(self.n_actions)})
        self._mask: np.ndarray | None = None

    def _wrap(self, obs: Any, info: dict, call: str) -> dict[str, Any]:
        mask = _read_mask(info, (self.n_actions,), self.env, call)
        self._mask = mask
        parts = {self.observation_key: obs, self.mask_key: mask}
        return {key: parts[key] for key in self.observation_space.spaces}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the env; the observation is ``{observation_key: obs, mask_key: mask}``."""
        obs, info = self.env.reset(seed=seed, options=options)
        return self._wrap(obs, info, "reset"), info

    def step(self, action: Any) -> tuple[dict[str, Any], Any, bool, bool, dict[str, Any]]:
        """Step the env; the observation is ``{observation_key: obs, mask_key: mask}``."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._wrap(obs, info, "step"), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions: that of the last observation (sb3-contrib's hook).

        Before the first ``reset()`` it asks the env's own ``action_masks()`` if it has one."""
        if self._mask is not None:
            return self._mask.astype(bool)
        try:
            inner = self.env.get_wrapper_attr("action_masks")
        except AttributeError:
            inner = None
        if inner is None:
            raise RuntimeError("action_masks() called before reset(); call reset() first")
        return np.asarray(inner(), dtype=bool)


class DictMaskVectorObservation(VectorWrapper):
    """A vector env whose observations are ``Dict``\\ s holding the env's observations and masks.

    ``single_observation_space`` is ``Dict({observation_key: env.single_observation_space,
    mask_key: Box(0, 1, (n,), int8)})`` for ``single_action_space = Discrete(n)``;
    ``observation_space`` is its batch (a ``Dict`` of ``(num_envs, ...)`` arrays).  ``reset()``
    and ``step()`` return ``{observation_key: obs, mask_key: infos["action_mask"]}`` (the
    ``(num_envs, n)`` mask copied as int8); ``infos`` keeps its ``action_mask``.
    :meth:`action_masks` returns the bool form of the last masks.

    Autoreset: with ``SAME_STEP`` (the default of our batched envs, what Stable-Baselines3
    uses) a sub-env that just ended already shows the next episode's first observation and
    mask, and each non-``None`` entry of ``infos["final_obs"]`` is replaced by the dict
    ``{observation_key: final obs, mask_key: final mask}`` (an element of
    ``single_observation_space``), the final mask being that row of
    ``infos["final_info"]["action_mask"]`` (our envs: zeros after a termination, the state's
    mask after a truncation), or zeros when the env gives none.  With ``NEXT_STEP`` the row of
    a sub-env that just ended holds its last observation and the mask the env reports there
    (ours: only action 0, as any action resets it).

    Example::

        envs = DictMaskVectorObservation(gym.make_vec(
            "dice_env/Penta-v0", num_envs=64, vectorization_mode="vector_entry_point"))
        obs, infos = envs.reset(seed=0)   # obs["observations"]: (64, 45), obs["action_mask"]

    Args:
        env: the vector env to wrap; its ``single_action_space`` must be ``Discrete`` and every
            ``reset()`` and ``step()`` must put a ``(num_envs, n)`` mask in
            ``infos["action_mask"]``.
        observation_key: the key of the env's observations.
        mask_key: the key of the masks.

    Raises:
        TypeError: ``env`` is not a ``VectorEnv``, the single action space is not
            ``Discrete``, or a key is not a non-empty string.
        ValueError: the two keys are equal; or (at ``reset()`` / ``step()``) the env returned no
            ``infos["action_mask"]`` of shape ``(num_envs, n)`` with 0/1 entries.
    """

    def __init__(self, env: VectorEnv, observation_key: str = DEFAULT_OBSERVATION_KEY,
                 mask_key: str = DEFAULT_MASK_KEY) -> None:
        if not isinstance(env, VectorEnv):
            raise TypeError(f"{_env_name(env)} is not a gymnasium VectorEnv: wrap a single env "
                            f"with DictMaskObservation (or use dict_mask)")
        _check_keys(observation_key, mask_key)
        super().__init__(env)
        self.observation_key = observation_key
        self.mask_key = mask_key
        self.n_actions = _n_actions(env.single_action_space, env, "single action space")
        self.single_observation_space = spaces.Dict({
            observation_key: env.single_observation_space,
            mask_key: _mask_space(self.n_actions)})
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._masks: np.ndarray | None = None

    def _wrap(self, obs: Any, infos: dict, call: str) -> dict[str, Any]:
        masks = _read_mask(infos, (self.num_envs, self.n_actions), self.env, call)
        self._masks = masks
        parts = {self.observation_key: obs, self.mask_key: masks}
        return {key: parts[key] for key in self.single_observation_space.spaces}

    def _final_observations(self, infos: dict) -> dict:
        """``infos`` with each entry of ``final_obs`` in the dict form (a shallow copy)."""
        final_obs = infos.get("final_obs")
        if final_obs is None:
            return infos
        rows = infos.get("_final_obs")
        if rows is None:
            rows = [o is not None for o in final_obs]
        final_info = infos.get("final_info")
        masks = final_info.get(INFO_MASK_KEY) if isinstance(final_info, dict) else None
        have = None
        if masks is not None:
            masks = np.asarray(masks)
            have = np.asarray(final_info.get(f"_{INFO_MASK_KEY}", np.ones(self.num_envs, bool)),
                              dtype=bool)
        converted = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(np.asarray(rows, dtype=bool)).tolist():
            if final_obs[i] is None:
                continue
            if masks is not None and have[i]:
                mask = np.asarray(masks[i]).astype(np.int8)
            else:
                mask = np.zeros(self.n_actions, dtype=np.int8)
            parts = {self.observation_key: final_obs[i], self.mask_key: mask}
            converted[i] = {key: parts[key] for key in self.single_observation_space.spaces}
        return {**infos, "final_obs": converted}

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the env; the observations are ``{observation_key: obs, mask_key: masks}``."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._wrap(obs, infos, "reset"), infos

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        """Step the env; observations as in :meth:`reset`, ``final_obs`` converted."""
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        wrapped = self._wrap(obs, infos, "step")
        return wrapped, rewards, terminated, truncated, self._final_observations(infos)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n)`` bool masks of the last observations (sb3-contrib's hook)."""
        if self._masks is None:
            raise RuntimeError("action_masks() called before reset(); call reset() first")
        return self._masks.astype(bool)


def dict_mask(env: gym.Env | VectorEnv, *, observation_key: str = DEFAULT_OBSERVATION_KEY,
              mask_key: str = DEFAULT_MASK_KEY) -> DictMaskObservation | DictMaskVectorObservation:
    """Wrap ``env`` so that its observations are ``Dict``\\ s with the action mask inside.

    A :class:`gymnasium.vector.VectorEnv` gets a :class:`DictMaskVectorObservation`, a
    :class:`gymnasium.Env` a :class:`DictMaskObservation`; the keyword arguments are theirs.
    Anything else (e.g. a PettingZoo AEC env, whose observations already are such dicts) is a
    ``TypeError``.
    """
    if isinstance(env, VectorEnv):
        return DictMaskVectorObservation(env, observation_key=observation_key, mask_key=mask_key)
    if isinstance(env, gym.Env):
        return DictMaskObservation(env, observation_key=observation_key, mask_key=mask_key)
    raise TypeError(f"dict_mask needs a gymnasium Env or VectorEnv, got {type(env).__name__} "
                    f"(PettingZoo AEC envs already return {{'observation', 'action_mask'}} "
                    f"dicts)")
