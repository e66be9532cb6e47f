"""The scorecard family's evaluation hooks (see :mod:`agents.families`): a user's players
measured beside the optimal player on common random numbers, and their exact regret."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.evaluation.benchmark import Roster, scorecard_rows
from agents.evaluation.scorecard_regret import ScorecardRegret, optimality_gap


def evaluate_players(players: Mapping[str, Any], game: Any, label: str, games: int, seed: int,
                     opponents: Sequence[str] = (), roster: Roster | None = None) -> list[dict]:
    """Mean, SD, SEM and paired difference to the optimal player (added when absent) of each
    of ``players`` (``opponents`` are not used: a scorecard game is played alone)."""
    roster = roster or Roster(seed)
    players = dict(players)
    if "optimal" not in players:  # the reference of the paired differences
        players["optimal"] = roster.make("optimal", game)
    return scorecard_rows(label, players, games, seed, spec=game.spec)[0]


def regret_of(agent: Any, game: Any, games: int, seed: int, *, name: str | None = None,
              progress: bool = True, dice_averaged: bool = False, paired: bool = True
              ) -> ScorecardRegret:
    """The exact regret of ``agent`` in expected points
    (:func:`~agents.evaluation.scorecard_regret.optimality_gap`; ``paired``: the optimal
    player also plays the same dice)."""
    return optimality_gap(agent, game.spec, games, seed, name=name, progress=progress,
                          dice_averaged=dice_averaged, paired=paired)
