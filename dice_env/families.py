"""Game families as plug-ins: the one registry of the games ``dice_env`` plays.

A *family* is a kind of game with rules of its own (the scorecard games, 5000, Pig).  Each
family registers one :class:`GameFamily` object, in the spirit of ``gymnasium.register``: it
turns names, Gymnasium ids and rule knobs into the family's rules, and it registers the
family's env ids.  Nothing outside a family's folder (``dice_env/<family>/``) knows what the
family's names mean: every caller asks :func:`resolve_game`, the one parser of game names,
which asks each registered family in turn.

A family object is a subclass of :class:`GameFamily` that sets :attr:`~GameFamily.name` and
implements :meth:`~GameFamily.parse`, :meth:`~GameFamily.coerce_rules`,
:meth:`~GameFamily.names` and :meth:`~GameFamily.register_envs`::

    from dice_env.families import register_family
    register_family(MyFamily())

``import dice_env`` registers the built-in families (:data:`BUILT_IN`).  The layers above
(``agents``) extend a family object with their own hooks (players, solver, regret, views);
see ``docs/architecture.md``, "Add a game".
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUILT_IN", "GameFamily", "GameRef", "families", "family", "known_games",
           "register_family", "resolve_game"]

#: The families ``import dice_env`` registers: ``"module:attribute"`` of each family object.
BUILT_IN = (
    "dice_env.scorecard.family:FAMILY",
    "dice_env.fivethousand.family:FAMILY",
    "dice_env.pig.family:FAMILY",
)


@dataclass(frozen=True)
class GameRef:
    """One game as its family resolved it: what every layer above needs to know of it.

    Attributes:
        family: the :class:`GameFamily` the game belongs to.
        spec: the game as it was named, for labels and saved files: a preset name, a
            Gymnasium id, or the rules object given.
        env_id: the single-agent Gymnasium id, or None for rules that are no preset (played
            by an env built from the rules, see :meth:`GameFamily.make_env`).
        name: a label for messages (the preset name, ``"fivethousand"``, ...).
        rules: the family's rules object (a ``Rules``, ``FiveThousandRules``, ``PigRules``).
    """

    family: GameFamily
    spec: Any
    env_id: str | None
    name: str
    rules: Any = field(default=None, repr=False, compare=False)


class GameFamily:
    """What a game family tells ``dice_env``: its names, its rules, its envs.

    Subclasses set :attr:`name` and implement the methods below; the defaults raise.
    """

    #: the family's name (``"scorecard"``, ``"fivethousand"``, ``"pig"``)
    name: str = ""

    def parse(self, game: Any) -> GameRef | None:
        """The :class:`GameRef` that ``game`` (a name, id, rules object ...) stands for in
        this family, or None when the family does not know it."""
        raise NotImplementedError

    def coerce_rules(self, game: Any) -> Any:
        """The family's rules object of ``game`` (a rules object, a dict of knobs, a name of
        this family, or a :class:`GameRef` of this family); ``ValueError`` otherwise."""
        raise NotImplementedError

    def names(self) -> list[str]:
        """Every name and id :meth:`parse` accepts (for messages and ``--help``)."""
        raise NotImplementedError

    def register_envs(self) -> None:
        """Register the family's Gymnasium ids (called once by ``import dice_env``)."""
        raise NotImplementedError

    def make_env(self, ref: GameRef, **kwargs: Any) -> Any:
        """A fresh single-agent env of ``ref`` (``gymnasium.make`` of its id by default)."""
        if ref.env_id is None:
            raise ValueError(f"{ref.name} has no registered env")
        import gymnasium as gym

        return gym.make(ref.env_id, **kwargs)

    def games(self) -> list[str]:
        """The family's games by their canonical names (its presets): one of each kind a
        test, a report or a menu should show."""
        raise NotImplementedError

    def env_ids(self) -> list[str]:
        """The family's registered single-agent Gymnasium ids."""
        return []

    def match_env_ids(self) -> list[str]:
        """The family's registered Gymnasium ids of a match (one agent against bots), where
        the single-agent env is not already one."""
        return []

    def aec_env(self, ref: GameRef, num_players: int = 2, **kwargs: Any) -> Any:
        """The PettingZoo AEC env of ``ref`` for ``num_players`` (wrapped in PettingZoo's
        ``OrderEnforcingWrapper``)."""
        raise ValueError(f"{self.name} has no PettingZoo env")

    def env_variants(self) -> list[tuple[str, str, tuple]]:
        """``(label, env id, sorted kwargs items)`` of every env a model of the family may
        have been trained on (to say which games a model's spaces fit)."""
        return [(env_id, env_id, ()) for env_id in self.env_ids()]

    def __repr__(self) -> str:
        return f"<game family {self.name!r}>"

    def __reduce__(self) -> tuple:  # pickled (to worker processes) as a reference
        return (family, (self.name,))


_FAMILIES: dict[str, GameFamily] = {}


def register_family(obj: GameFamily, overwrite: bool = False) -> GameFamily:
    """Add a family; its envs are registered at once.  Returns the family.

    Re-registering a name needs ``overwrite=True``.
    """
    if not isinstance(obj, GameFamily) or not obj.name:
        raise TypeError(f"a game family is a GameFamily with a name, got {obj!r}")
    if obj.name in _FAMILIES and _FAMILIES[obj.name] is not obj and not overwrite:
        raise ValueError(f"game family {obj.name!r} is already registered; pass "
                         "overwrite=True to replace it")
    _FAMILIES[obj.name] = obj
    obj.register_envs()
    return obj


def register_built_in() -> None:
    """Register the families of :data:`BUILT_IN` (``import dice_env`` calls it)."""
    for entry in BUILT_IN:
        module, _, attr = entry.partition(":")
        obj = getattr(importlib.import_module(module), attr)
        if obj.name not in _FAMILIES:
            register_family(obj)


def families() -> list[GameFamily]:
    """The registered families, in registration order."""
    return list(_FAMILIES.values())


def family(name: str) -> GameFamily:
    """The registered family called ``name`` (``ValueError`` listing them otherwise)."""
    try:
        return _FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown game family {name!r}; known families: "
                         f"{list(_FAMILIES)}") from None


def known_games() -> list[str]:
    """Every game name and id that :func:`resolve_game` accepts (rules objects aside)."""
    return [n for f in _FAMILIES.values() for n in f.names()]


def resolve_game(game: Any) -> GameRef:
    """The :class:`GameRef` that ``game`` names: the one parser of game names.

    ``game`` is a name or Gymnasium id (``"penta"``, ``"dice_env/Pig-v0"``, ``"5000"``), a
    family's rules object, or a :class:`GameRef` (returned as is).  ``ValueError`` listing the
    known games otherwise.
    """
    if isinstance(game, GameRef):
        return game
    for fam in _FAMILIES.values():
        ref = fam.parse(game)
        if ref is not None:
            return ref
    raise ValueError(f"unknown game {game!r}; known games: {known_games()}")
