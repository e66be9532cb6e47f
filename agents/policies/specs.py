"""What :func:`agents.load` does with a spec that is not a registered name or a run folder.

:func:`load_policy` tells the kinds of spec apart -- a model ``.zip`` (optionally
``"algo:path.zip"``), ``"module:attr"`` / ``"path/to/file.py:attr"``, or an object -- and hands
each to its loader (:mod:`.sb3_models`, :mod:`.user_code`).  A spec that is none of them gets a
message listing what would have worked.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.games import Game
from agents.policies.sb3_models import ALGORITHMS, KNOWN_PREFIXES, SB3Agent, normalise_algorithm
from agents.policies.user_code import agent_from_module_attr, build_agent, looks_like_path

__all__ = ["SB3_OPTIONS", "load_policy", "sb3_options"]

#: the options a model file (or a run folder) takes
SB3_OPTIONS = ("algorithm", "deterministic", "seed", "device", "env_kwargs")


def load_policy(spec: Any, game: Game, registered: Sequence[str], options: dict) -> Any:
    """The player ``spec`` stands for (see :func:`agents.load`); ``registered`` (the game's
    registered player names) only goes into messages."""
    if isinstance(spec, os.PathLike):
        spec_path = Path(spec)
        if not spec_path.exists():
            raise _not_found(str(spec))
        return _load_file(spec_path, game, options)
    if not isinstance(spec, str):
        return build_agent(spec, game, options, f"{spec!r:.60}")
    text = spec.strip()
    if not text:
        raise ValueError(f"empty player spec; expected a registered player name {list(registered)}"
                         ", the path of a model .zip, or 'module:attr'")
    if os.path.isfile(text):
        return _load_file(Path(text), game, options)
    head, sep, tail = text.partition(":")
    if sep and head.strip().lower().replace("-", "").replace("_", "") in ALGORITHMS:
        if "algorithm" in options:
            raise ValueError(f"{spec!r} names the algorithm; do not pass algorithm= too")
        if not os.path.exists(tail):
            raise _not_found(tail)
        return SB3Agent(game, tail, algorithm=head, **sb3_options(options))
    looks_like_file = tail.lower().endswith(".zip") or looks_like_path(tail)
    if sep and len(head) > 1 and head.isidentifier() and looks_like_file:
        normalise_algorithm(head)  # raises: unknown algorithm prefix, listing the known ones
    if sep:
        return agent_from_module_attr(text, game, options)
    if text.lower().endswith(".py"):
        raise FileNotFoundError(f"no such Python file: {text!r}; a Python file also needs the "
                                "attribute to load: 'path/to/my_bot.py:MyBot'")
    if text.lower().endswith(".zip") or looks_like_path(text):
        raise _not_found(text)
    raise ValueError(f"unknown player {spec!r} for {game.family} game {game.name!r}: it is not "
                     f"a registered player {list(registered)}, not an existing file, and not "
                     "'module:attr'; expected one of those (e.g. 'heuristic', "
                     "'models/my_model.zip', 'my_bots:MyBot', 'path/to/my_bot.py:MyBot')")


def sb3_options(options: dict) -> dict:
    """``options`` if a model file takes them all, else ``ValueError`` listing those it takes."""
    bad = sorted(set(options) - set(SB3_OPTIONS))
    if bad:
        raise ValueError(f"unknown options {bad} for a stable-baselines3 model; it accepts: "
                         f"{list(SB3_OPTIONS)}")
    return options


def _not_found(spec: str) -> FileNotFoundError:
    return FileNotFoundError(f"no such model file: {spec!r} does not exist (working directory "
                             f"{os.getcwd()}); expected the path of a stable-baselines3 model "
                             f".zip, optionally prefixed with its algorithm ({KNOWN_PREFIXES})")


def _load_file(path: Path, game: Game, options: dict) -> Any:
    """An existing file: a model zip (a ``.py`` file needs ``:attr``)."""
    if path.suffix == ".py":
        raise ValueError(f"{path} is a Python file: name the agent in it too, "
                         f"'{path}:MyBot' (a class, agent object, factory or policy function)")
    return SB3Agent(game, path, **sb3_options(options))
