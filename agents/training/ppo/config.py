"""The committed PPO training configs (``agents/training/ppo/configs/<name>.json``) and what
is derived from them: ``--set`` overrides, the rollout size a total is rounded to, and the
policy network a config trains (``"policy"``: ``"mlp"``, SB3's ``MlpPolicy``, by default, or
``"structured"``, :mod:`agents.policies.structured`, for the scorecard games and for 5000)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

from agents.paths import package_data

__all__ = ["CONFIG_DIR", "POLICIES", "TRAINERS", "apply_overrides", "check_config", "load_config",
           "policy_name", "rollout_size", "structured_policy_kwargs", "whole_rollouts"]

CONFIG_DIR = package_data("training", "ppo", "configs")
#: the policy networks a config may name (``"policy"``; default ``"mlp"``)
POLICIES = ("mlp", "structured")
#: the trainers a config may name (``"trainer"``; default ``"sb3"``)
TRAINERS = ("sb3", "lean")
#: the learning-rate schedules (``ppo.learning_rate_schedule``; default ``"constant"``)
SCHEDULES = ("constant", "linear")
#: the scorecard env options that are not rule knobs
_ENV_OPTIONS = {"render_mode", "canonical_holds", "illegal_action", "illegal_penalty",
                "max_steps", "autoreset_mode", "observation"}


def load_config(game: str, path: str | Path | None = None) -> dict:
    """The training config of ``game``: ``agents/training/ppo/configs/<game>.json``, or
    ``path``."""
    path = Path(path) if path is not None else CONFIG_DIR / f"{game}.json"
    if not path.exists():
        known = sorted(p.stem for p in CONFIG_DIR.glob("*.json"))
        raise ValueError(f"no training config {path}; configs exist for {known}")
    config = json.loads(path.read_text())
    for key in ("env_id", "num_envs", "total_timesteps", "ppo", "eval"):
        if key not in config:
            raise ValueError(f"config {path} misses {key!r}")
    config.setdefault("game", game)
    return config


def apply_overrides(config: dict, overrides: list[str]) -> dict:
    """A copy of ``config`` with ``"a.b=value"`` overrides applied (``value`` parsed as JSON,
    else kept as a string).  ``ValueError`` for a malformed override."""
    config = copy.deepcopy(config)
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"override {item!r} should look like key=value, e.g. "
                             "ppo.ent_coef=0.01")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        *path, last = key.split(".")
        node = config
        for part in path:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"override {item!r}: {part!r} is not a section of the config")
        node[last] = value
    return config


#: entry -> (what it must be, its check) of the numbers a config may set
_INTEGER = "an integer of at least 1"
_NUMBERS: dict[str, tuple[str, Callable[[float], bool]]] = {
    "num_envs": (_INTEGER, lambda v: v >= 1),
    "total_timesteps": (_INTEGER, lambda v: v >= 1),
    "checkpoint_every_timesteps": (_INTEGER, lambda v: v >= 1),
    "reward_scale": ("a positive number", lambda v: v > 0),
    "ppo.n_steps": (_INTEGER, lambda v: v >= 1),
    "ppo.batch_size": (_INTEGER, lambda v: v >= 1),
    "ppo.n_epochs": (_INTEGER, lambda v: v >= 1),
    "ppo.learning_rate": ("a positive number", lambda v: v > 0),
    "ppo.gamma": ("a number from 0 to 1", lambda v: 0 <= v <= 1),
    "ppo.gae_lambda": ("a number from 0 to 1", lambda v: 0 <= v <= 1),
    "ppo.ent_coef": ("a number of at least 0", lambda v: v >= 0),
    "ppo.vf_coef": ("a number of at least 0", lambda v: v >= 0),
    "ppo.clip_range": ("a positive number", lambda v: v > 0),
    "ppo.max_grad_norm": ("a positive number", lambda v: v > 0),
    "eval.every_timesteps": (_INTEGER, lambda v: v >= 1),
    "eval.games": (_INTEGER, lambda v: v >= 1),
    "eval.seed": ("an integer of at least 0", lambda v: v >= 0),
}


def check_config(config: dict) -> None:
    """``ValueError`` naming the entry (``ppo.learning_rate must be a positive number, got
    'abc'``) when a config's numbers, trainer, schedule or policy cannot train; entries it does
    not set are left to the trainer's defaults."""
    for key in ("ppo", "eval"):
        if not isinstance(config.get(key), dict):
            raise ValueError(f"{key} must be a section ({{...}}), got {config.get(key)!r}")
    for key, (what, ok) in _NUMBERS.items():
        section, _, name = key.rpartition(".")
        node = config[section] if section else config
        if name not in node:
            continue
        value = node[name]
        integer = what.startswith("an integer")
        kind = int if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind) or not ok(value):
            raise ValueError(f"{key} must be {what}, got {value!r}")
    trainer = config.get("trainer", "sb3")
    if trainer not in TRAINERS:
        raise ValueError(f"trainer must be one of {list(TRAINERS)}, got {trainer!r}")
    schedule = config["ppo"].get("learning_rate_schedule", "constant")
    if schedule not in SCHEDULES:
        raise ValueError(f"ppo.learning_rate_schedule must be one of {list(SCHEDULES)}, got "
                         f"{schedule!r}")
    policy_name(config)


def rollout_size(config: dict) -> int:
    """Steps in one rollout of a config: ``num_envs x ppo.n_steps`` (SB3's default 2048)."""
    return int(config["num_envs"]) * int(config["ppo"].get("n_steps", 2048))


def whole_rollouts(config: dict, timesteps: int) -> int:
    """``timesteps`` rounded up to whole rollouts of ``config``: the total a run trains."""
    rollout = rollout_size(config)
    return -(-int(timesteps) // rollout) * rollout


def policy_name(config: dict) -> str:
    """The policy network of a config: ``"mlp"`` (SB3's ``MlpPolicy``; the default) or
    ``"structured"`` (:mod:`agents.policies.structured`: the scorecard games' hold and box
    heads, or 5000's action head).  ``ValueError`` for another name, or the structured policy
    of a family that has none."""
    name = config.get("policy", "mlp")
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; known: {list(POLICIES)}")
    if name == "structured":
        from agents.policies.structured import FAMILIES  # (no torch imported)

        family = config.get("family", "scorecard")
        if family not in FAMILIES:
            raise ValueError(f"the structured policy is built for the families "
                             f"{list(FAMILIES)}, not {family!r}")
    return name


def structured_policy_kwargs(config: dict) -> dict:
    """The keyword arguments of the structured policy of a config: its ``policy_kwargs`` (the
    network's options, :func:`agents.policies.structured.network.defaults_of` the config's
    ``family``), the game's rules and, for 5000, ``family="fivethousand"``.

    The rules of a scorecard game are the preset name of ``env_id`` or, with rule overrides in
    ``env_kwargs``, the rules' knobs; those of 5000 are ``"fivethousand"`` or, with knobs
    (``target``, ``entry``, ``choose_scoring_dice``, ``rules``) in ``env_kwargs``, their
    knobs.  ``ValueError`` for an unknown option or an ``env_id`` of another family.
    """
    from agents.policies.structured.network import defaults_of
    from dice_env import FIVE_THOUSAND_IDS, SCORECARD_IDS

    family = config.get("family", "scorecard")
    defaults = defaults_of(family)
    options = dict(config.get("policy_kwargs") or {})
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise ValueError(f"unknown policy_kwargs {unknown} of the structured policy "
                         f"({family}); known: {sorted(defaults)}")
    ids = FIVE_THOUSAND_IDS if family == "fivethousand" else SCORECARD_IDS
    if config["env_id"] not in ids:
        raise ValueError(f"the structured policy of family {family!r} plays {sorted(ids)}, not "
                         f"{config['env_id']} (the scorecard games are {sorted(SCORECARD_IDS)}, "
                         f"5000 is {sorted(FIVE_THOUSAND_IDS)})")
    env_kwargs = config.get("env_kwargs", {})
    if family == "fivethousand":
        from dice_env.fivethousand.base import make_rules

        knobs = {k: env_kwargs.get(k) for k in ("target", "entry", "choose_scoring_dice")}
        rules = make_rules(env_kwargs.get("rules"), **knobs)
        spec = "fivethousand" if rules == type(rules)() else rules.knobs()
        return {**options, "rules": spec, "family": family}
    from dice_env.scorecard.rules import get_rules

    preset = SCORECARD_IDS[config["env_id"]]
    overrides = {k: v for k, v in env_kwargs.items() if k not in _ENV_OPTIONS}
    rules = get_rules(preset, **overrides).knobs() if overrides else preset
    return {**options, "rules": rules}
