"""Opponents given by name: ``opponents=["heuristic", "optimal"]`` in the match envs.

``dice_env`` holds no players of its own beyond the random / threshold defaults, and it must
never import :mod:`agents` (the layers run rules -> envs -> agents -> scripts).  So a name is
turned into a player by a *player factory* found at run time:

* the factories registered with :func:`register_player_factory` (most recent first), then
* those published under the Python entry-point group ``dice_env.players``
  (``importlib.metadata.entry_points(group="dice_env.players")``); this project publishes
  ``agents = "agents:make"`` in ``pyproject.toml``, so with ``dice-env`` installed every
  :func:`agents.make` name works (``"random"``, ``"heuristic"``, ``"optimal"``, ...).

A factory is called as ``factory(name, game)`` and returns a player (an object with
``act(observation, action_mask)``, or a plain callable).  ``game`` is the scorecard preset name
(``"penta"``, ``"dice-poker"``, ...) or ``"fivethousand"``; for rules that are no preset (rule
knobs changed) it is the env's rules object itself (:class:`~dice_env.scorecard.rules.Rules` or
:class:`~dice_env.fivethousand.rules.FiveThousandRules`), so that no factory builds a player
for the wrong game.  A factory raises ``ValueError`` for a name it does not know; the next
factory is then asked.  When none builds the player, :func:`player_from_name` raises a
one-line ``ValueError`` saying what each factory answered and how to pass players instead.

Nothing here runs at ``import dice_env``: the entry points are only loaded when a name is
first looked up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any

#: The entry-point group searched for player factories.
ENTRY_POINT_GROUP = "dice_env.players"

PlayerFactory = Callable[[str, Any], Any]

_registered: list[PlayerFactory] = []
_entry_points: list | None = None  # the group's EntryPoints, listed on first use
_loaded: dict[str, PlayerFactory] = {}  # entry point value -> its loaded factory


def register_player_factory(factory: PlayerFactory) -> PlayerFactory:
    """Add ``factory(name, game) -> player``, asked before the entry points and the factories
    registered earlier.  Returns ``factory`` (so it works as a decorator); registering the same
    factory again does nothing."""
    if not callable(factory):
        raise TypeError(f"a player factory must be callable as factory(name, game), got "
                        f"{factory!r}")
    if factory not in _registered:
        _registered.insert(0, factory)
    return factory


def unregister_player_factory(factory: PlayerFactory) -> None:
    """Remove a factory added with :func:`register_player_factory` (no error if absent)."""
    if factory in _registered:
        _registered.remove(factory)


def _group() -> list:
    global _entry_points
    if _entry_points is None:
        _entry_points = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)
    return _entry_points


def _factories() -> list[tuple[str, Callable[[], PlayerFactory]]]:
    """``(label, get)`` of every factory in the order they are asked; ``get()`` returns the
    factory (importing the module behind an entry point the first time)."""
    out: list[tuple[str, Callable[[], PlayerFactory]]] = [
        (getattr(f, "__qualname__", repr(f)), lambda f=f: f) for f in _registered]
    for ep in _group():
        def get(ep=ep) -> PlayerFactory:
            if ep.value not in _loaded:
                _loaded[ep.value] = ep.load()
            return _loaded[ep.value]
        out.append((ep.value, get))
    return out


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _example_game(game: Any) -> str:
    return game if isinstance(game, str) else getattr(game, "name", "fivethousand")


def _refusal(what: str, name: str, game: Any, answers: list[str]) -> ValueError:
    if answers:
        why = f"no player named {name!r} for game {game!r} ({'; '.join(answers)})"
    else:
        why = (f"no player named {name!r} for game {game!r}: no player factory is registered "
               f"(entry-point group {ENTRY_POINT_GROUP!r}: install this project with "
               f"pip install -e ., or see dice_env.player_names.register_player_factory)")
    example = name if not answers else "heuristic"
    return ValueError(f"{what}: {why}; pass players instead, e.g. "
                      f"opponents=[agents.make({example!r}, {_example_game(game)!r})]")


def player_from_name(name: str, game: Any, what: str | None = None) -> Any:
    """The player ``name`` for ``game`` from the first factory that knows it.

    ``what`` names the option in the error message (default ``opponents=[name]``).  Raises a
    one-line ``ValueError`` (no chained traceback) when no factory builds it: every factory
    raised ``ValueError`` (or could not be imported), or there is none.  Any other error of a
    factory (e.g. an ``ImportError`` for a player whose extra is not installed) propagates.
    """
    what = what if what is not None else f"opponents={[name]!r}"
    answers = []
    for label, get in _factories():
        try:
            factory = get()
        except ImportError as e:  # a published factory that cannot be imported here
            answers.append(f"{label}: cannot be imported ({type(e).__name__}: {_one_line(e)})")
            continue
        try:
            return factory(name, game)
        except ValueError as e:
            answers.append(f"{label}: {_one_line(e)}")
    raise _refusal(what, name, game, answers) from None


def resolve_opponents(opponents: Any, game: Any) -> Any:
    """``opponents`` with every name replaced by the player :func:`player_from_name` builds.

    A single name becomes one player (shared by every opponent seat, like one player object);
    in a sequence, names and players may be mixed, and the same name gives the same player
    object (asked once per round for all its seats by the batched envs).  Anything that is not
    a name is returned as is (``None``, one player, a sequence without names).
    """
    if isinstance(opponents, str):
        return player_from_name(opponents, game, what=f"opponents={opponents!r}")
    if not isinstance(opponents, Sequence) or not any(isinstance(o, str) for o in opponents):
        return opponents
    built: dict[str, Any] = {}
    out = []
    for o in opponents:
        if isinstance(o, str):
            if o not in built:
                built[o] = player_from_name(o, game, what=f"opponents={list(opponents)!r}")
            o = built[o]
        out.append(o)
    return out
