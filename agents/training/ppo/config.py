"""The committed PPO training configs (``agents/training/ppo/configs/<name>.json``) and what
is derived from them: ``--set`` overrides and the rollout size a total is rounded to."""

from __future__ import annotations

import copy
import json
from pathlib import Path

__all__ = ["CONFIG_DIR", "apply_overrides", "load_config", "rollout_size", "whole_rollouts"]

CONFIG_DIR = Path(__file__).resolve().parent / "configs"


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


def rollout_size(config: dict) -> int:
    """Steps in one rollout of a config: ``num_envs x ppo.n_steps`` (SB3's default 2048)."""
    return int(config["num_envs"]) * int(config["ppo"].get("n_steps", 2048))


def whole_rollouts(config: dict, timesteps: int) -> int:
    """``timesteps`` rounded up to whole rollouts of ``config``: the total a run trains."""
    rollout = rollout_size(config)
    return -(-int(timesteps) // rollout) * rollout
