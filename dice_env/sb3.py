"""A Stable-Baselines3 ``VecEnv`` over the package's natively batched Gymnasium vector envs.

SB3 has no adapter from a Gymnasium ``VectorEnv`` (its issue #1745); this is ours.  It needs a
vector env in ``SAME_STEP`` autoreset mode (the one SB3's contract assumes) and answers
``env_method("action_masks")`` from the batch, so sb3-contrib's ``MaskablePPO`` trains on it
directly::

    from dice_env.sb3 import RolloutSizeCheck, make_sb3_vec_env
    venv = make_sb3_vec_env("dice_env/Penta-v0", num_envs=256, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64)
    model.learn(1_000_000, callback=RolloutSizeCheck())

**Mind the rollout size.**  An on-policy model (PPO, MaskablePPO, A2C) collects ``n_steps``
steps *in every sub-env* before each update, and ``learn(total)`` never stops inside a
rollout: one rollout is ``n_steps * num_envs`` env steps, however small ``total`` is.  With
MaskablePPO's default ``n_steps=2048`` and ``num_envs=256``, ``learn(1000)`` runs 524,288
steps (minutes, not a second).  Choose ``n_steps`` with the batch size in mind (the configs
in ``agents/training/ppo/configs`` use 64 to 128 steps per sub-env on 256 to 512 envs).  The adapter
cannot see the model (it is built before it, and SB3 tells an env nothing about ``n_steps``
or ``total_timesteps``), so it cannot warn by itself: pass ``callback=RolloutSizeCheck()`` to
``learn`` (it warns when one rollout is far above the steps asked for) or call
:func:`check_rollout_size` before it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

#: :func:`check_rollout_size` warns when one rollout is more than this many times the steps
#: that ``learn`` was asked for.
ROLLOUT_WARNING_FACTOR = 4.0


class SB3VecEnv(VecEnv):
    """Present a batched Gymnasium ``VectorEnv`` (``SAME_STEP`` autoreset) as an SB3 ``VecEnv``.

    ``step_wait`` returns ``(obs, rewards, dones, infos)`` with, for every finished game,
    ``infos[i]["terminal_observation"]`` and ``infos[i]["TimeLimit.truncated"]``; each info
    dict also carries the game's ``action_mask``.  ``reward_scale`` multiplies the rewards
    (scorecard points are large for a value network).  Seeds given with :meth:`seed` apply to the
    next :meth:`reset` (the first one seeds the whole batch, as the vector env is seeded once).

    A rollout of an on-policy model is ``n_steps * num_envs`` steps: with a large batch, mind
    ``n_steps`` (see the module docstring, :func:`check_rollout_size` and
    :class:`RolloutSizeCheck`).
    """

    def __init__(self, venv: VectorEnv, reward_scale: float = 1.0) -> None:
        mode = venv.metadata.get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise ValueError(f"SB3VecEnv needs a vector env with autoreset_mode SAME_STEP, got "
                             f"{mode}; create it with autoreset_mode='SameStep'")
        self.venv = venv
        self.reward_scale = float(reward_scale)
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_envs, venv.single_observation_space,
                         venv.single_action_space)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        options = self._options[0] or None
        obs, infos = self.venv.reset(seed=seed, options=options)
        self.reset_infos = self._split_infos(infos, np.zeros(self.num_envs, dtype=bool))
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        info_list = self._split_infos(infos, dones)
        if dones.any():
            final_obs = infos["final_obs"]
            for i in np.flatnonzero(dones):
                info_list[i]["terminal_observation"] = final_obs[i]
                info_list[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, (rewards * self.reward_scale).astype(np.float32), dones, info_list

    def _split_infos(self, infos: dict, dones: np.ndarray) -> list[dict]:
        masks = infos["action_mask"]
        out = [{"action_mask": masks[i]} for i in range(self.num_envs)]
        final_info = infos.get("final_info")
        if final_info is not None and "score" in final_info:
            score = final_info["score"]
            for i in np.flatnonzero(final_info["_score"]):
                out[i]["score"] = {k: int(v[i]) for k, v in score.items()
                                   if not k.startswith("_")}
        return out

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool masks of the current states."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


def check_rollout_size(model: Any, total_timesteps: int,
                       factor: float = ROLLOUT_WARNING_FACTOR) -> int:
    """The env steps of one rollout of ``model``; warns when they are far above the request.

    An on-policy model (PPO, MaskablePPO, A2C) collects ``n_steps`` steps in each of its
    ``n_envs`` envs before each update and ``learn`` does not stop inside a rollout, so
    ``learn(total_timesteps)`` takes at least ``n_steps * n_envs`` steps.  A ``UserWarning``
    says so when that is more than ``factor`` times ``total_timesteps``.  Models without
    ``n_steps`` (DQN) collect step by step: their rollout is ``n_envs`` steps and never warns.
    """
    n_envs = int(getattr(model, "n_envs", 1) or 1)
    n_steps = getattr(model, "n_steps", None)
    rollout = n_envs * int(n_steps) if n_steps else n_envs
    if n_steps and rollout > factor * max(int(total_timesteps), 1):
        warnings.warn(f"one rollout of this {type(model).__name__} is n_steps x num_envs = "
                      f"{int(n_steps)} x {n_envs} = {rollout:,} env steps, far above the "
                      f"{int(total_timesteps):,} steps asked for: learn() never stops inside a "
                      "rollout, so it will run all of them; lower n_steps (or num_envs)",
                      UserWarning, stacklevel=2)
    return rollout


class RolloutSizeCheck(BaseCallback):
    """A ``learn`` callback that runs :func:`check_rollout_size` when training starts.

    ``model.learn(total, callback=RolloutSizeCheck())`` warns before the first rollout when
    that rollout alone is far above ``total`` (e.g. MaskablePPO's default ``n_steps=2048`` on
    256 envs for ``learn(1000)``: 524,288 steps).  It never stops training.
    """

    def __init__(self, factor: float = ROLLOUT_WARNING_FACTOR, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.factor = float(factor)

    def _on_training_start(self) -> None:
        # learn()'s local total_timesteps already counts the steps done before (when
        # reset_num_timesteps=False): what is left to run is the difference.
        total = int(self.locals.get("total_timesteps", 0)) - int(self.model.num_timesteps)
        check_rollout_size(self.model, total, self.factor)

    def _on_step(self) -> bool:
        return True


def make_sb3_vec_env(env_id: str, num_envs: int, seed: int | None = None,
                     **kwargs: Any) -> SB3VecEnv:
    """``gymnasium.make_vec`` (the native batched env, SAME_STEP) wrapped for SB3.

    Mind the rollout size of an on-policy model on a large batch: one rollout is
    ``n_steps * num_envs`` steps (see the module docstring; :class:`RolloutSizeCheck` warns).
    """
    venv = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                        autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
    sb3 = SB3VecEnv(venv)
    if seed is not None:
        sb3.seed(seed)
    return sb3
