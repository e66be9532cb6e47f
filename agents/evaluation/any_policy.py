"""Measuring the policies a user names (``dice-env evaluate --agent SPEC``) on one game.

:func:`evaluate_players` plays them and :func:`regret_of_players` measures their exact
per-decision regret against the optimum; both ask the game's family (its hooks
``evaluate_players`` and ``regret``, see :mod:`agents.families`): a scorecard game on common
random numbers beside the optimal player (paired differences), in expected points; 5000
against each opponent, seat-balanced, in win probability against the optimal player (or in
turns for ``dice_env/FiveThousandSolo-v0``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agents.evaluation.benchmark import Roster
from agents.games import Game


def evaluate_players(players: Mapping[str, Any], game: Game, label: str, games: int, seed: int,
                     opponents: Sequence[str] | None = None, roster: Roster | None = None
                     ) -> list[dict]:
    """Rows of ``players`` (name -> player) on ``game`` (rows labelled ``label``): a scorecard
    game's mean, SD, SEM and paired difference to the optimal player (added when absent); or
    for a game that is won, the seat-balanced win rate against each registered player of
    ``opponents`` (None: the family's own defaults)."""
    return game.family.hook("evaluate_players")(players, game, label, games, seed,
                                                 opponents, roster or Roster(seed))


def regret_of_players(players: Mapping[str, Any], game: Game, games: int, seed: int, *,
                      dice_averaged: bool = False, progress: bool = True) -> Iterator[Any]:
    """The exact regret of each of ``players`` (name -> player) on ``game``, one at a time
    (``dice_averaged``: scorecard games only, see
    :func:`~agents.evaluation.scorecard_regret.optimality_gap`)."""
    regret = game.family.hook("regret")
    for name, agent in players.items():
        yield regret(agent, game, games, seed, name=name, progress=progress,
                     dice_averaged=dice_averaged)
