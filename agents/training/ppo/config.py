"""The committed PPO training configs (``agents/training/ppo/configs/<name>.json``) and what
is derived from them: ``--set`` overrides, the rollout size a total is rounded to, and the
policy network a config trains (``"policy"``: ``"mlp"``, SB3's ``MlpPolicy``, by default, or
``"structured"``, :mod:`agents.policies.structured`, for the scorecard games and for 5000)."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from agents.paths import package_data

__all__ = ["CONFIG_DIR", "POLICIES", "SCHEMA", "TRAINERS", "Entry", "apply_overrides",
           "check_config", "check_players", "check_policy_kwargs", "config_family",
           "known_entries", "load_config", "override_args",
           "policy_name", "rollout_size", "structured_policy_kwargs", "whole_rollouts"]

CONFIG_DIR = package_data("training", "ppo", "configs")
#: the policy networks a config may name (``"policy"``; default ``"mlp"``)
POLICIES = ("mlp", "structured")
#: the trainers a config may name (``"trainer"``; default ``"sb3"``)
TRAINERS = ("sb3", "lean")
#: the lean trainer's PPO settings that SB3's PPO does not have
#: (:mod:`agents.training.ppo.lean`'s doc), off by default; a config of the SB3 trainer may not
#: set them
LEAN_PPO_DEFAULTS = {"normalize_value": False, "aux_value_coef": 0.0,
                     "ent_coef_schedule": "constant"}
#: the entropy coefficient's schedules (``ppo.ent_coef_schedule``, lean trainer): constant, or
#: scaled as the learning rate is (decaying to 0 with it under the linear schedule)
ENT_COEF_SCHEDULES = ("constant", "learning-rate")
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


def override_args(settings: Mapping[str, Any]) -> list[str]:
    """``settings`` (key -> value) as ``--set`` overrides, ``"key=value"`` with the value as
    JSON: what :func:`apply_overrides` reads back to the same values."""
    return [f"{key}={json.dumps(value)}" for key, value in settings.items()]


def parse_override(item: str, example: str = "ppo.ent_coef=0.01") -> tuple[str, Any]:
    """``(key, value)`` of a ``"a.b=value"`` override (``value`` parsed as JSON, else kept as
    a string); ``ValueError`` giving ``example`` for one that is not ``key=value``."""
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise ValueError(f"override {item!r} should look like key=value, e.g. {example}")
    try:
        return key, json.loads(raw)
    except json.JSONDecodeError:
        return key, raw


def apply_overrides(config: dict, overrides: list[str]) -> dict:
    """A copy of ``config`` with ``"a.b=value"`` overrides applied (:func:`parse_override`).
    ``ValueError`` for a malformed override."""
    config = copy.deepcopy(config)
    for item in overrides:
        key, value = parse_override(item)
        *path, last = key.split(".")
        node = config
        for part in path:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"override {item!r}: {part!r} is not a section of the config")
        node[last] = value
    return config


class Entry(NamedTuple):
    """What one config entry must be: ``what`` says it (``"an integer of at least 1"``), ``ok``
    checks a value parsed from JSON."""

    what: str
    ok: Callable[[Any], bool]


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:  # an integer is fine where a number is asked for
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def _integer(low: int) -> Entry:
    return Entry(f"an integer of at least {low}", lambda v: _is_integer(v) and v >= low)


def _number(what: str, ok: Callable[[float], bool]) -> Entry:
    return Entry(what, lambda v: _is_number(v) and ok(v))


def _one_of(choices: Sequence[str]) -> Entry:
    return Entry(f"one of {list(choices)}", lambda v: isinstance(v, str) and v in choices)


def _sizes_ok(value: Any) -> bool:
    return isinstance(value, list) and all(_is_integer(w) and w >= 1 for w in value)


def _net_arch_ok(value: Any) -> bool:
    if isinstance(value, dict):
        return set(value) == {"pi", "vf"} and all(_sizes_ok(v) for v in value.values())
    return _sizes_ok(value)


def _family_ok(value: Any) -> bool:
    from agents.families import names

    return isinstance(value, str) and value in names()


def _env_id_ok(value: Any) -> bool:
    from agents.families import families

    return isinstance(value, str) and any(value in f.env_ids() for f in families())


_POSITIVE = _number("a positive number", lambda v: v > 0)
_NON_NEGATIVE = _number("a number of at least 0", lambda v: v >= 0)
_SECTION = Entry("a section ({...})", lambda v: isinstance(v, dict))
_SECTION_OR_NULL = Entry("a section ({...}) or null", lambda v: v is None or isinstance(v, dict))
_SIZES = Entry("a list of positive integers such as [64, 64]", _sizes_ok)
#: (which players a game has is checked with the config's env_id: :func:`check_players`)
_PLAYER = Entry("a player's name (heuristic, optimal, hold-20, ...)",
                lambda v: isinstance(v, str) and v != "")

#: every entry a config may hold (``section.name`` inside a section), with what it must be.
#: ``env_kwargs`` holds the env's own options, which the env checks
#: (:func:`agents.training.ppo.envs.check_env_kwargs`); ``policy_kwargs`` those of the
#: config's policy network (:func:`check_policy_kwargs`).  Names starting with ``_`` are notes.
SCHEMA: dict[str, Entry] = {
    "game": Entry("a game name such as \"penta\"", lambda v: isinstance(v, str) and v != ""),
    "env_id": Entry("a dice_env id such as \"dice_env/Penta-v0\"", _env_id_ok),
    "family": Entry("a game family's name (scorecard, fivethousand, pig or one registered)",
                    _family_ok),
    "trainer": _one_of(TRAINERS),
    "policy": _one_of(POLICIES),
    "opponent": _PLAYER,
    # imitation, a diagnostic (lean trainer): the player whose action in each state the policy
    # learns instead of PPO's objective (agents.training.ppo.lean); not model-free
    "teacher": _PLAYER,
    "num_envs": _integer(1),
    "total_timesteps": _integer(1),
    "checkpoint_every_timesteps": _integer(1),
    # the steps at which the run keeps its model as snapshot-<T>.zip (each once, at the first
    # update boundary at or past T: agents.training.ppo.runs.take_snapshots)
    "snapshots_at": Entry("a list of positive integers (timesteps), such as [1000000, 3000000]",
                          lambda v: isinstance(v, list)
                          and all(_is_integer(t) and t >= 1 for t in v)),
    "reward_scale": _POSITIVE,
    "env_kwargs": _SECTION,
    "policy_kwargs": _SECTION_OR_NULL,
    "shaping": _SECTION_OR_NULL,
    "shaping.upper_bonus": _NON_NEGATIVE,
    "shaping.scale": _POSITIVE,
    "ppo": _SECTION,
    "ppo.learning_rate": _POSITIVE,
    "ppo.learning_rate_schedule": _one_of(SCHEDULES),
    "ppo.n_steps": _integer(1),
    # (SB3 normalizes each minibatch's advantages: it refuses a minibatch of one)
    "ppo.batch_size": _integer(2),
    "ppo.n_epochs": _integer(1),
    "ppo.gamma": _number("a number above 0 and at most 1", lambda v: 0 < v <= 1),
    "ppo.gae_lambda": _number("a number from 0 to 1", lambda v: 0 <= v <= 1),
    "ppo.ent_coef": _NON_NEGATIVE,
    "ppo.ent_coef_schedule": _one_of(ENT_COEF_SCHEDULES),
    "ppo.vf_coef": _NON_NEGATIVE,
    "ppo.clip_range": _POSITIVE,
    "ppo.max_grad_norm": _POSITIVE,
    "ppo.normalize_value": Entry("true or false", lambda v: isinstance(v, bool)),
    "ppo.aux_value_coef": _NON_NEGATIVE,
    "lean": _SECTION,
    "lean.reuse_features": Entry("true or false", lambda v: isinstance(v, bool)),
    "lean.matmul_dtype": _one_of(("float32", "bfloat16")),
    "lean.compile": Entry("true or false", lambda v: isinstance(v, bool)),
    "lean.sorted_minibatches": Entry("true or false", lambda v: isinstance(v, bool)),
    "eval": _SECTION,
    "eval.every_timesteps": _integer(1),
    "eval.games": _integer(1),
    "eval.seed": _integer(0),
    "eval.opponent": _PLAYER,
    "eval.regret": Entry("true or false", lambda v: isinstance(v, bool)),
}
#: the sections whose entries are listed in :data:`SCHEMA`
_CLOSED_SECTIONS = ("shaping", "ppo", "lean", "eval")


def known_entries(section: str = "") -> list[str]:
    """The entries :data:`SCHEMA` lists at the top level (``section=""``) or in ``section``."""
    prefix = f"{section}." if section else ""
    return [k[len(prefix):] for k in SCHEMA
            if k.startswith(prefix) and "." not in k[len(prefix):]]


def check_config(config: dict) -> None:
    """``ValueError`` naming the entry (``ppo.learning_rate must be a positive number, got
    'abc'``) for an entry :data:`SCHEMA` does not know (naming those it knows), a value of the
    wrong type or out of its range, an ``env_id`` of another ``family``, or ``policy_kwargs``
    the policy network does not take; entries a config does not set are left to the trainer's
    defaults.  The env's own options (``env_kwargs``) are checked by building the env:
    :func:`agents.training.ppo.envs.check_env_kwargs`."""
    for key in ("ppo", "eval"):
        if not isinstance(config.get(key), dict):
            raise ValueError(f"{key} must be a section ({{...}}), got {config.get(key)!r}")
    entries = [(k, v) for k, v in config.items() if not k.startswith("_")]
    for section in _CLOSED_SECTIONS:
        if isinstance(config.get(section), dict):
            entries += [(f"{section}.{k}", v) for k, v in config[section].items()
                        if not k.startswith("_")]
    for key, value in entries:
        entry = SCHEMA.get(key)
        if entry is None:
            section, _, name = key.rpartition(".")
            where = f" in {section}" if section else ""
            raise ValueError(f"unknown config entry {key!r}; known{where}: "
                             f"{known_entries(section)}")
        if not entry.ok(value):
            raise ValueError(f"{key} must be {entry.what}, got {value!r}")
    if "env_id" in config:
        from agents.games import resolve

        actual = resolve(config["env_id"]).family
        family = config.get("family", actual.name)
        if actual.name != family:
            raise ValueError(f"env_id {config['env_id']} is not a game of family {family!r} "
                             f"(set \"family\" to \"{actual.name}\")")
        check_players(config, actual)
    if config.get("trainer", "sb3") != "lean":
        if config.get("teacher") is not None:
            raise ValueError("teacher needs the lean trainer (set \"trainer\": \"lean\")")
        for name, off in LEAN_PPO_DEFAULTS.items():
            if config["ppo"].get(name, off) != off:
                raise ValueError(f"ppo.{name} needs the lean trainer (set \"trainer\": "
                                 "\"lean\"); SB3's PPO has no such setting")
    policy_name(config)
    check_policy_kwargs(config)


def check_players(config: dict, family: Any) -> None:
    """``ValueError`` for an ``opponent``, ``eval.opponent`` or ``teacher`` that is no player
    of the config's game (``family``, the :class:`~agents.families.AgentFamily` of its
    ``env_id``), for ``eval.regret`` where the game has no exact regret, and for a game its
    family cannot evaluate during training (no ``ppo_evaluation`` hook)."""
    if not family.has_hook("ppo_evaluation"):
        raise ValueError(f"env_id {config['env_id']}: {family.title} cannot be evaluated while "
                         "training (its family has no 'ppo_evaluation' hook)")
    players = sorted(family.players)
    for key, value in (("opponent", config.get("opponent")),
                       ("eval.opponent", (config.get("eval") or {}).get("opponent")),
                       ("teacher", config.get("teacher"))):
        if value is not None and value not in family.players:
            raise ValueError(f"{key} must be a player of {family.title} ({', '.join(players)}), "
                             f"got {value!r}")
    if (config.get("eval") or {}).get("regret") and not family.has_hook("regret"):
        raise ValueError(f"eval.regret: {family.title} has no exact regret")


def config_family(config: dict) -> str:
    """The name of the game family a config trains: its ``"family"`` entry if it has one (which
    :func:`check_config` checks against ``env_id``), else the family of its ``env_id``."""
    if "family" in config:
        return config["family"]
    from agents.games import resolve

    return resolve(config["env_id"]).family.name


def check_policy_kwargs(config: dict) -> None:
    """``ValueError`` for ``policy_kwargs`` the config's policy network does not take: the MLP
    takes ``net_arch`` (``[64, 64]`` or ``{"pi": [...], "vf": [...]}``); the structured policy
    the options of :func:`agents.policies.structured.network.defaults_of` its family, each of
    the type of its default."""
    options = config.get("policy_kwargs") or {}
    if policy_name(config) == "mlp":
        unknown = sorted(set(options) - {"net_arch"})
        if unknown:
            raise ValueError(f"unknown config entry policy_kwargs.{unknown[0]}; the MLP policy "
                             "takes only net_arch")
        if "net_arch" in options and not _net_arch_ok(options["net_arch"]):
            raise ValueError("policy_kwargs.net_arch must be hidden sizes such as [64, 64] or "
                             f"{{\"pi\": [64, 64], \"vf\": [64, 64]}}, got {options['net_arch']!r}")
        return
    from agents.policies.structured.network import defaults_of

    defaults = defaults_of(config_family(config))
    for name, value in options.items():
        if name not in defaults:
            raise ValueError(f"unknown config entry policy_kwargs.{name}; the structured "
                             f"policy takes {sorted(defaults)}")
        entry = _like(defaults[name])
        if not entry.ok(value):
            raise ValueError(f"policy_kwargs.{name} must be {entry.what}, got {value!r}")


def _like(default: Any) -> Entry:
    """What a value replacing ``default`` must be: of its type (a number for a float)."""
    if isinstance(default, bool):
        return Entry("true or false", lambda v: isinstance(v, bool))
    if isinstance(default, int):
        return Entry("an integer", _is_integer)
    if isinstance(default, float):
        return Entry("a number", _is_number)
    if isinstance(default, str):
        return Entry("a string", lambda v: isinstance(v, str))
    if isinstance(default, list):
        return _SIZES if all(_is_integer(w) for w in default) else \
            Entry("a list", lambda v: isinstance(v, list))
    return Entry("a value", lambda v: True)


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
        from agents.families import families  # (no torch imported)

        family = config_family(config)
        known = [f.name for f in families() if f.has_hook("structured_heads")]
        if family not in known:
            raise ValueError(f"the structured policy is built for the families "
                             f"{known}, not {family!r}")
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
    from agents.families import family as family_named
    from agents.policies.structured.network import defaults_of

    family = config_family(config)
    defaults = defaults_of(family)
    options = dict(config.get("policy_kwargs") or {})
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise ValueError(f"unknown policy_kwargs {unknown} of the structured policy "
                         f"({family}); known: {sorted(defaults)}")
    ids = family_named(family).env_ids()
    if config["env_id"] not in ids:
        from agents.games import resolve

        raise ValueError(f"the structured policy of family {family!r} plays {sorted(ids)}, not "
                         f"{config['env_id']} (one of {resolve(config['env_id']).family.title})")
    env_kwargs = config.get("env_kwargs", {})
    rule_kwargs = {k: v for k, v in env_kwargs.items() if k not in _ENV_OPTIONS}
    rules = family_named(family).hook("structured_rules")(config["env_id"], rule_kwargs)
    return {**options, "rules": rules, "family": family}
