"""Pieces every family's inspect records share: :class:`Inspection`, the base of what a
family's ``"inspection"`` hook builds; a flat table of decisions (for the habits' example
positions); JSON-safe numbers; a game's title."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["FORMAT", "MAX_SEED", "DecisionTable", "Inspection", "check_seed", "finite",
           "game_title", "top_examples"]

FORMAT = "dice-env-inspect/1"
#: the largest seed accepted (numpy seeds must be non-negative)
MAX_SEED = 2**63 - 1

#: the columns of a :class:`DecisionTable`
COLUMNS = ("seed", "game", "decision", "turn", "kind", "row", "col", "loss")


def finite(x: Any) -> float | None:
    """``x`` as a float, or ``None`` when it is not finite (JSON has no infinities)."""
    x = float(x)
    return x if math.isfinite(x) else None


class DecisionTable:
    """Decisions as flat columns: the seed and game index (within the seed) they belong to,
    their index in that game, the turn, the decision kind, their cell of the habits table
    (``row`` the policy's choice, ``col`` the optimum's; -1 where the table does not count
    it) and the loss charged."""

    def __init__(self) -> None:
        self._parts: dict[str, list[np.ndarray]] = {c: [] for c in COLUMNS}

    def add(self, **columns: np.ndarray) -> None:
        """Append a batch of decisions (every column, same length)."""
        for c in COLUMNS:
            self._parts[c].append(np.asarray(columns[c]))

    def extend(self, other: DecisionTable) -> None:
        """Append all of ``other``'s decisions."""
        for c in COLUMNS:
            self._parts[c].extend(other._parts[c])

    def arrays(self) -> dict[str, np.ndarray]:
        """Each column as one array."""
        return {c: (np.concatenate(p) if p else np.zeros(0, dtype=np.float64 if c == "loss"
                                                           else np.int64))
                for c, p in self._parts.items()}


def top_examples(table: dict[str, np.ndarray], where: np.ndarray, k: int
                 ) -> list[dict[str, Any]]:
    """The ``k`` costliest decisions selected by ``where``: ``{seed, game, decision, turn,
    regret}``, costliest first (ties: the earlier game first)."""
    rows = np.flatnonzero(where)
    order = rows[np.lexsort((table["decision"][rows], table["game"][rows], table["seed"][rows],
                             -table["loss"][rows]))][:k]
    return [{"seed": int(table["seed"][i]), "game": int(table["game"][i]),
             "decision": int(table["decision"][i]), "turn": int(table["turn"][i]),
             "regret": float(table["loss"][i])} for i in order]


def check_seed(seed: Any) -> None:
    """``ValueError`` unless ``seed`` is an integer from 0 to :data:`MAX_SEED`."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) \
            or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed is an integer from 0 to {MAX_SEED}, got {seed!r}")


def game_title(game: Any) -> str:
    """A game's name for people: its family's title when the game is the family's one game
    (``fivethousand`` -> ``5000``), else its name in words (``dice-poker`` -> ``Dice
    Poker``).  ``game`` is a resolved :class:`~agents.games.Game`."""
    if game.name == game.family.name:
        return game.family.title
    return str(game.name).replace("-", " ").replace("_", " ").title()


class Inspection:
    """One game resolved for inspection, with its optimal player: the base of what a game
    family's ``"inspection"`` hook builds (``hook(game, optimal=None)``).

    The shared code (:mod:`agents.evaluation.inspect.games`) asks it for everything that
    differs between families; a family implements :meth:`build_optimal`, :meth:`fields`,
    :meth:`game_records`, :meth:`view_label`, :meth:`charts`, :meth:`habits` and
    :meth:`seed_fragments`.  The optimal player is built on first use (:attr:`optimal`), so
    that the header of a game costs nothing.

    Args:
        game: the resolved :class:`~agents.games.Game`.
        optimal: the game's optimal player (default: built when first needed).
    """

    def __init__(self, game: Any, optimal: Any = None) -> None:
        self.game = game
        self._optimal = optimal

    @property
    def optimal(self) -> Any:
        """The optimal player the records are measured against (built on first use)."""
        if self._optimal is None:
            self._optimal = self.build_optimal()
        return self._optimal

    @property
    def name(self) -> str:
        """The game's name (``penta``, ``fivethousand`` ...)."""
        return self.game.name

    def games_per_seed(self) -> int:
        """Games one seed plays (its family's ``seats_per_seed``: 2 where two players swap
        seats on the same dice)."""
        return int(self.game.family.seats_per_seed)

    def header(self) -> dict[str, Any]:
        """The payload's game-level fields: the shared ones and the family's
        (:meth:`fields`)."""
        return {"format": FORMAT, "game": self.name, "family": self.game.family.name,
                "title": game_title(self.game), "unit": self.game.family.unit,
                "games_per_seed": self.games_per_seed(), **self.fields()}

    def records(self, agent: Any, seed: int, name: str) -> list[dict[str, Any]]:
        """The agent's records of seed ``seed`` (one per game the seed plays)."""
        check_seed(seed)
        return self.game_records(agent, seed, name)

    # -- what each family implements -------------------------------------------------------
    def build_optimal(self) -> Any:
        """The game's optimal player."""
        raise NotImplementedError

    def fields(self) -> dict[str, Any]:
        """The family's fields of the payload: ``value_label``, ``kinds``, ``costly`` (a
        decision losing this much is highlighted), ``position`` (how the page draws a
        decision's position: ``"card"``, a score card, or ``"facts"``, each decision's
        ``facts`` as label / value pairs) and what that drawing reads."""
        raise NotImplementedError

    def game_records(self, agent: Any, seed: int, name: str) -> list[dict[str, Any]]:
        """The records of seed ``seed`` (checked), as :meth:`records`."""
        raise NotImplementedError

    def view_label(self, first: dict[str, Any], k: int) -> str:
        """The title of game ``k`` of a seed, from its first player's record."""
        raise NotImplementedError

    def charts(self, players: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The charts of one game for every player's record of it (see
        :mod:`agents.evaluation.inspect.charts`)."""
        raise NotImplementedError

    def habits(self, agent: Any, seeds: Sequence[int], name: str, examples: int
               ) -> tuple[dict[str, Any], dict[int, Callable[[], list[dict[str, Any]]]]]:
        """The habits table of ``seeds`` (``labels``, ``counts``, ``loss``, ``cells``,
        ``kinds``, ``games``: each game's ``{"seed", "game", "regret", ...}``, ``gap``) and,
        per seed, a function that gives that seed's records (the example games)."""
        raise NotImplementedError

    def seed_fragments(self, agent: Any, seeds: Sequence[int], name: str, examples: int
                       ) -> dict[int, dict[str, Any]]:
        """The habits table of each seed alone, ``{seed: fragment}`` (what :meth:`habits`
        gives for that one seed)."""
        raise NotImplementedError
