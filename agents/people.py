"""Who sits at a table: the one check of the people's names, the numbering of repeated names
and the check of a bot's chosen action, shared by every game's model (:mod:`agents.play.seats`
and the sessions of the scorecard games and 5000, :mod:`agents.pig.session` for Pig, which
sits below the play layer and so reads them here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["MAX_NAME", "YOU", "bot_action", "check_people", "unique_names"]

#: the name of the one person of a game nobody named (the screens then say "you")
YOU = "you"
#: the longest name a person may give
MAX_NAME = 24


def unique_names(names: Sequence[str]) -> list[str]:
    """``names`` with a number added to each repeat (``heuristic``, ``heuristic 2``)."""
    out: list[str] = []
    for name in names:
        candidate, i = name, 2
        while candidate in out:
            candidate, i = f"{name} {i}", i + 1
        out.append(candidate)
    return out


def check_people(people: Sequence[str] | None) -> list[str]:
    """The names of the people at the screen, checked: none given is one person, ``you``.

    Each name is trimmed (inner runs of spaces become one); ``ValueError`` with a readable
    message for a name that is empty, longer than :data:`MAX_NAME` characters or holds a
    control character, and for two people of the same name (case aside).
    """
    if people is None or len(people) == 0:
        return [YOU]
    out: list[str] = []
    for raw in people:
        if not isinstance(raw, str):
            raise ValueError(f"a person's name must be text, got {type(raw).__name__}")
        name = " ".join(raw.split())
        if not name:
            raise ValueError("a person's name is empty")
        if len(name) > MAX_NAME:
            raise ValueError(f"the name {name[:MAX_NAME]!r}... is longer than {MAX_NAME} "
                             "characters")
        if not name.isprintable():
            raise ValueError(f"the name {name!r} holds a character that cannot be shown")
        if name.casefold() in (o.casefold() for o in out):
            raise ValueError(f"two people are called {name!r}: give each a name of their own")
        out.append(name)
    return out


def bot_action(name: str, action: Any, mask: Sequence) -> int:
    """The action a bot called ``name`` chose, as an index its ``mask`` allows;
    ``RuntimeError`` naming the bot and the action otherwise (a bot's bug, not a person's
    move)."""
    try:
        a = int(action)
    except (TypeError, ValueError, OverflowError):
        raise RuntimeError(f"{name} chose the illegal action {action!r}") from None
    if not 0 <= a < len(mask) or not mask[a]:
        raise RuntimeError(f"{name} chose the illegal action {a}")
    return a
