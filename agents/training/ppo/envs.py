"""The training env of a config: the game's natively batched vector env (SAME_STEP autoreset),
its opponents, Stable-Baselines3's wrappers and the optional reward shaping; and a fresh
MaskablePPO model on it, with the config's policy network."""

from __future__ import annotations

from typing import Any

from agents.training.ppo.config import LEAN_PPO_DEFAULTS, policy_name, structured_policy_kwargs

__all__ = ["build_sb3_model", "check_env_kwargs", "make_batched_env", "make_training_env",
           "sb3_policy", "shaped", "shaping_potential"]


def make_batched_env(config: dict, seed: int | None = None):
    """The config's natively batched Gymnasium vector env (SAME_STEP autoreset).  A config's
    ``"opponent"`` (a registered player of its game: 5000's ``heuristic``, Pig's ``hold-20``
    ...) is built with :func:`agents.make` and sits at every other seat
    (``env_kwargs.num_players - 1`` of them, default one)."""
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    from agents.games import resolve
    from agents.registry import make

    kwargs = dict(config.get("env_kwargs", {}))
    if "opponent" in config:
        opponent = make(config["opponent"], resolve(config["env_id"]), seed=seed)
        kwargs["opponents"] = [opponent] * (kwargs.get("num_players", 2) - 1)
    return gym.make_vec(config["env_id"], num_envs=config["num_envs"],
                        vectorization_mode="vector_entry_point",
                        autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)


def check_env_kwargs(config: dict) -> None:
    """``ValueError`` (one line, naming the option) for ``env_kwargs`` the config's env does not
    take: an option of the wrong type (that of the env's default: ``canonical_holds`` is true
    or false) or one the env refuses when built -- a small env of one game, without opponents,
    so nothing is trained or solved -- and for an ``"opponent"`` where the env takes none."""
    import importlib
    import inspect

    import gymnasium as gym

    kwargs = dict(config.get("env_kwargs") or {})
    try:
        entry = gym.spec(config["env_id"]).vector_entry_point
    except gym.error.Error as err:
        raise ValueError(f"env_id {config['env_id']!r}: {err}") from None
    if isinstance(entry, str):
        module, _, name = entry.partition(":")
        entry = getattr(importlib.import_module(module), name)
    params = inspect.signature(entry).parameters
    if "opponent" in config and "opponents" not in params:
        raise ValueError(f"opponent: {config['env_id']} is played alone (its env takes no "
                         "opponents); remove the config's \"opponent\"")
    for name, value in kwargs.items():
        default = params[name].default if name in params else None
        if isinstance(default, (bool, int, float, str)) and not _same_kind(default, value):
            raise ValueError(f"env_kwargs.{name} must be {_kind(default)}, got {value!r}")
    try:
        env = gym.make_vec(config["env_id"], num_envs=1, vectorization_mode="vector_entry_point",
                           **kwargs)
    except (TypeError, ValueError, gym.error.Error) as err:
        raise ValueError(f"env_kwargs: {' '.join(str(err).split())}") from None
    env.close()


def _same_kind(default: bool | int | float | str, value: object) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float)) and (isinstance(default, float)
                                                    or isinstance(value, int))
    return isinstance(value, type(default))


def _kind(default: bool | int | float | str) -> str:
    return {bool: "true or false", int: "an integer", float: "a number",
            str: "a string"}[type(default)]


def make_training_env(config: dict, seed: int):
    """``VecMonitor(SB3VecEnv(batched env))`` for a config (with its opponents, if any)."""
    from stable_baselines3.common.vec_env import VecMonitor

    from dice_env.sb3 import SB3VecEnv

    sb3 = SB3VecEnv(make_batched_env(config, seed), reward_scale=config.get("reward_scale", 1.0))
    sb3.seed(seed)
    return shaped(VecMonitor(sb3), config)


def _shaping_settings(config: dict) -> dict | None:
    shaping = config.get("shaping")
    if not shaping:
        return None
    unknown = sorted(set(shaping) - {"upper_bonus", "scale"})
    if unknown:
        raise ValueError(f"unknown shaping options {unknown}; known: ['upper_bonus', 'scale']")
    from dice_env import SCORECARD_IDS
    from dice_env.scorecard.rules import get_rules

    if config["env_id"] not in SCORECARD_IDS:  # (the shaping reads a scorecard's upper section)
        raise ValueError(f"shaping: the upper-bonus shaping is for the scorecard games' envs "
                         f"({', '.join(sorted(SCORECARD_IDS))}), not {config['env_id']}")
    return {"rules": get_rules(SCORECARD_IDS[config["env_id"]]),
            "weight": float(shaping.get("upper_bonus", 1.0)),
            "scale": float(shaping.get("scale", 6.0))}


def shaped(monitor, config: dict):
    """``monitor`` wrapped in the config's reward shaping, if it has one.

    ``"shaping": {"upper_bonus": w}`` adds ``w`` times the potential-based upper-bonus shaping
    of :mod:`agents.training.ppo.shaping` (the monitor below it still records the true returns).
    """
    settings = _shaping_settings(config)
    if settings is None:
        return monitor
    from agents.training.ppo.shaping import BonusShapingVecEnv

    return BonusShapingVecEnv(monitor, settings["rules"], weight=settings["weight"],
                              reward_scale=config.get("reward_scale", 1.0),
                              scale=settings["scale"])


def shaping_potential(config: dict):
    """``obs -> (N,)`` the config's shaping potential in points (for the lean trainer), or
    None when the config has no shaping."""
    settings = _shaping_settings(config)
    if settings is None:
        return None
    from agents.training.ppo.shaping import bonus_potential

    rules, weight, scale = settings["rules"], settings["weight"], settings["scale"]
    return lambda obs: weight * bonus_potential(rules, obs, scale)


def build_sb3_model(config: dict, seed: int, device: str = "cpu", num_envs: int | None = None):
    """A fresh MaskablePPO model for a config (``num_envs`` overrides the config's)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import LinearSchedule

    if num_envs is not None:
        config = {**config, "num_envs": num_envs}
    policy, policy_kwargs = sb3_policy(config)
    env = make_training_env(config, seed)
    ppo = {k: v for k, v in config["ppo"].items() if k not in LEAN_PPO_DEFAULTS}
    if ppo.pop("learning_rate_schedule", "constant") == "linear":  # decays to 0 at the end
        ppo["learning_rate"] = LinearSchedule(ppo["learning_rate"], 0.0, 1.0)
    return MaskablePPO(policy, env, seed=seed, device=device, verbose=0,
                       policy_kwargs=policy_kwargs, **ppo)


def sb3_policy(config: dict) -> tuple[Any, dict | None]:
    """``(policy, policy_kwargs)`` of MaskablePPO for a config's ``"policy"``: ``"MlpPolicy"``
    with the config's ``policy_kwargs``, or
    :class:`~agents.policies.structured.sb3_policy.StructuredMaskablePolicy` with
    :func:`~.config.structured_policy_kwargs` (the scorecard games or 5000)."""
    if policy_name(config) == "structured":
        from agents.policies.structured.sb3_policy import StructuredMaskablePolicy

        return StructuredMaskablePolicy, structured_policy_kwargs(config)
    return "MlpPolicy", config.get("policy_kwargs")
