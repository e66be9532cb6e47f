"""The registry of named players: :func:`make`, :func:`register`, :func:`available`.

Each game family maps player names to ``"module:Class"`` entries, imported on first use (so a
heavy player -- the DP ``optimal`` agent, ``ppo`` -- costs nothing until asked for).  The
front door :mod:`agents` re-exports these; code inside ``agents`` that builds players by name
(training opponents, the terminal program's bots) imports them from here, so nothing inside
the package imports the front door.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from agents.families import families
from agents.families import family as family_named
from agents.games import Game, resolve

__all__ = ["available", "check_options", "make", "register", "signature_of"]


def available(game: Any | None = None) -> dict[str, list[str]] | list[str]:
    """The registered player names: of one game, or ``{family: names}`` for all."""
    if game is None:
        return {f.name: sorted(f.players) for f in families()}
    return sorted(resolve(game).family.players)


def register(name: str, family: str, entry_point: str, overwrite: bool = False) -> None:
    """Register a player: ``entry_point`` is ``"module:Class"``, imported on first use.

    The class is called as ``Class(game, **options)`` with the resolved
    :class:`~agents.games.Game` (see :func:`make`).  Re-registering a name with another entry
    point needs ``overwrite=True``.
    """
    players = family_named(family).players
    module_name, sep, attr = entry_point.partition(":")
    if not (module_name and sep and attr):
        raise ValueError(f"entry_point must look like 'package.module:Class', got {entry_point!r}")
    current = players.get(name)
    if current is not None and current != entry_point and not overwrite:
        raise ValueError(f"player {name!r} is already registered for {family} as "
                         f"{current!r}; pass overwrite=True to replace it")
    players[name] = entry_point


def _load(entry_point: str):
    module_name, _, attr = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise ImportError(f"the player module {module_name!r} (entry {entry_point!r}) is "
                              "not available yet") from exc
        raise
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"{module_name!r} has no {attr!r} (entry {entry_point!r})") from None


def make(name: str, game: Any = "penta", **options: Any) -> Any:
    """Build the player ``name`` for ``game``.

    Args:
        name: a registered player (``random``, ``greedy``, ``heuristic``, ``optimal`` for the
            scorecard games; ``random``, ``threshold``, ``heuristic`` for 5000; see
            :func:`available`).
        game: a scorecard preset name (``"penta"``, ``"dice-poker"``, ``"yahtzee-official"``,
            ...), a Gymnasium id (``"dice_env/Penta-v0"``, ``"dice_env/FiveThousand-v0"``, ...),
            a :class:`~dice_env.scorecard.rules.Rules`, or ``"fivethousand"``.
        **options: passed to the player's constructor (e.g. ``seed=0``).

    Returns:
        The player, built as ``Class(game, **options)`` where ``game`` is the resolved
        :class:`~agents.games.Game` (``game.rules`` its rules, ``game.spec`` the name given).

    Raises:
        ValueError: unknown game, unknown player for that game, or options the player does not
            take -- the message lists what exists.
        ImportError: the player is registered but its module is not available.
    """
    resolved = resolve(game)
    entries = resolved.family.players
    if name not in entries:
        raise ValueError(f"unknown player {name!r} for {resolved.family.name} game "
                         f"{_label(game)!r}; known players: {sorted(entries)}")
    cls = _load(entries[name])
    check_options(signature_of(cls), options, 1, f"player {name!r}")
    return cls(resolved, **options)


def _label(game: Any) -> str:
    return game.name if isinstance(game, Game) else game


def signature_of(obj: Any) -> inspect.Signature | None:
    """``inspect.signature(obj)``, or None where it has none that can be inspected."""
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def check_options(sig: inspect.Signature | None, options: dict, skip: int, origin: str) -> None:
    """``ValueError`` for ``options`` a callable with signature ``sig`` cannot take as keywords
    (its first ``skip`` parameters are given positionally); nothing to check without ``sig``."""
    if sig is None or not options:
        return
    params = list(sig.parameters.values())
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    accepted = [p.name for p in params[skip:]
                if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              inspect.Parameter.KEYWORD_ONLY)]
    bad = sorted(set(options) - set(accepted))
    if bad:
        raise ValueError(f"unknown options {bad} for {origin}; it accepts: {accepted}")
