"""The committed PPO training configs (``agents/training/ppo/configs/<name>.json``) and what
is derived from them: ``--set`` overrides, the rollout size a total is rounded to, and the
policy network a config trains (``"policy"``: ``"mlp"``, SB3's ``MlpPolicy``, by default, or
``"structured"``, :mod:`agents.policies.structured`, for the scorecard games and for 5000)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

__all__ = ["CONFIG_DIR", "POLICIES", "apply_overrides", "load_config", "policy_name",
           "rollout_size", "structured_policy_kwargs", "whole_rollouts"]

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
#: the policy networks a config may name (``"policy"``; default ``"mlp"``)
POLICIES = ("mlp", "structured")
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
