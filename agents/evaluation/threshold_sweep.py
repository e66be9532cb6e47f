"""The threshold bots of 5000, swept (what ``dice-env report thresholds`` runs).

Every member of a grid of bank thresholds (per dice left, :data:`GRID`) plays two-player games
against the built-in default bot, seat-balanced; the best few are replayed on fresh dice with
more games (so that the winner is not just the luckiest), and the best of those is the
``heuristic`` bot (``agents/fivethousand/bots.py``: ``HEURISTIC_THRESHOLDS``).  The tables
are written by :mod:`agents.evaluation.reports.threshold_sweep`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.fivethousand.bots import ThresholdAgent
from agents.progress import progress_bar
from dice_env.fivethousand.bots import ThresholdBot

GRID = {
    "t12": [100, 200, 300, 400],             # 1 or 2 dice left
    "t3": [100, 150, 200, 250, 300, 400],
    "t4": [300, 400, 500, 700, 950],
    "t5": [500, 1000, 1500, 3550],            # five dice (after hot dice)
}


def win_rate_against_default(thresholds: Sequence[int], games: int,
                             seed: int) -> tuple[float, float]:
    """Seat-balanced win rate (and its standard error) of the threshold bot ``thresholds``
    (1..5 dice left) against the default bot."""
    result = play_fivethousand_matches([ThresholdAgent(thresholds=thresholds), ThresholdBot()],
                                       games, seed=seed)
    p = result.win_rate(0)
    return p, float(np.sqrt(p * (1 - p) / games))


def grid_thresholds() -> list[tuple[int, ...]]:
    """Every member of :data:`GRID`, as thresholds for 1..5 dice left."""
    return [(t12, t12, t3, t4, t5) for t12, t3, t4, t5 in itertools.product(*GRID.values())]


@dataclass
class Sweep:
    """The grid (best first, seed ``seed``) and the finalists replayed (best first, seed
    ``seed + 1``): rows ``{"thresholds", "win_rate", "sem", "stage"}``."""

    grid: list[dict]
    finals: list[dict]
    games: int
    final_games: int
    finalists: int
    seed: int

    @property
    def best(self) -> dict:
        """The best finalist."""
        return self.finals[0]


def sweep_thresholds(games: int = 2000, final_games: int = 40_000, finalists: int = 6,
                     seed: int = 0) -> Sweep:
    """Play the grid (``games`` each, seed ``seed``), then replay the best ``finalists`` on
    fresh dice (``final_games`` each, seed ``seed + 1``)."""
    rows = []
    for thresholds in progress_bar(grid_thresholds(), desc="grid"):
        p, se = win_rate_against_default(thresholds, games, seed)
        rows.append({"thresholds": thresholds, "win_rate": p, "sem": se, "stage": "grid"})
    rows.sort(key=lambda r: -r["win_rate"])
    finals = []
    for r in progress_bar(rows[:finalists], desc="finalists"):
        p, se = win_rate_against_default(r["thresholds"], final_games, seed + 1)
        finals.append({"thresholds": r["thresholds"], "win_rate": p, "sem": se,
                       "stage": "final"})
    finals.sort(key=lambda r: -r["win_rate"])
    return Sweep(rows, finals, games, final_games, finalists, seed)
