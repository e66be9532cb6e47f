"""Pieces shared by the scorecard and 5000 inspect records: a flat table of decisions (for
the habits' example positions) and JSON-safe numbers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["DecisionTable", "finite", "top_examples"]

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
