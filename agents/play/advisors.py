"""The advisors of a human's game, built once per process and shared by its games.

The optimal players behind the advice are deterministic and read only their solved tables, so
one instance serves every game (the web app runs many games at once).  Building one may load
or, the first time on a machine, solve a table with numba's parallel kernels: builds are
serialised by one lock, so two games never solve at the same time.  Queries of one decision
run serial kernels and need no lock.
"""

from __future__ import annotations

import threading
from typing import Any

from agents.play.seats import load_fivethousand_optimal
from dice_env.scorecard.rules import Rules

#: held while a player or an advisor is built (tables loaded or solved)
BUILD_LOCK = threading.RLock()
_CACHE: dict[tuple, Any] = {}


def _cached(key: tuple, build) -> Any:
    with BUILD_LOCK:
        if key not in _CACHE:
            _CACHE[key] = build()
        return _CACHE[key]


def scorecard_advisor(rules: Rules) -> Any:
    """The expected-score-optimal player of ``rules`` (its ``advise`` gives each option's
    expected final score)."""
    from agents.scorecard.optimal import OptimalAgent

    return _cached(("scorecard", rules), lambda: OptimalAgent(rules))


def win_advisor(rules: Rules, num_players: int) -> Any | None:
    """The win-value player for the P(win) column of a ``num_players`` game, or None where
    it has no model."""
    def build() -> Any | None:
        from agents.scorecard.win_value import WinValueAgent

        try:
            return WinValueAgent(rules, num_players=num_players)
        except (FileNotFoundError, ValueError):
            return None

    return _cached(("win", rules, int(num_players)), build)


def fivethousand_advisor() -> Any | None:
    """The optimal 5000 player (win probability; solo: expected turns), or None if this
    installation has none."""
    return _cached(("fivethousand",), load_fivethousand_optimal)


def load_fivethousand_tables(agent: Any, num_players: int) -> None:
    """Load (the first time on a machine: solve) the table the 5000 advisor ``agent`` reads
    for ``num_players`` players, under the build lock: the solo table alone, the exact
    three-player one for three, the two-player one otherwise."""
    table = {1: "solo", 3: "three_player"}.get(num_players, "two_player")
    with BUILD_LOCK:
        getattr(agent, table, None)
