"""Measuring the policies a user names (``dice-env evaluate --agent SPEC``) on one game.

:func:`evaluate_players` plays them: a scorecard game on common random numbers beside the
optimal player (paired differences), 5000 against each opponent, seat-balanced.
:func:`regret_of_players` measures their exact per-decision regret against the optimum
(:func:`~agents.evaluation.scorecard_regret.optimality_gap`, or for 5000
:func:`~agents.evaluation.fivethousand_regret.fivethousand_gap`: in win probability against the
optimal player, or in turns for ``dice_env/FiveThousandSolo-v0``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agents.evaluation.benchmark import Roster, fivethousand_row, scorecard_rows
from agents.evaluation.fivethousand_regret import FiveThousandRegret, fivethousand_gap
from agents.evaluation.scorecard_regret import ScorecardRegret, optimality_gap
from agents.games import SCORECARD, Game

#: the 5000 env whose regret is counted in turns (solo), not in win probability
SOLO_ID = "dice_env/FiveThousandSolo-v0"


def evaluate_players(players: Mapping[str, Any], game: Game, label: str, games: int, seed: int,
                     opponents: Sequence[str] = (), roster: Roster | None = None) -> list[dict]:
    """Rows of ``players`` (name -> player) on ``game`` (rows labelled ``label``): a scorecard
    game's mean, SD, SEM and paired difference to the optimal player (added when absent); or
    for 5000 the seat-balanced win rate against each registered player of ``opponents``."""
    roster = roster or Roster(seed)
    if game.family == SCORECARD:
        players = dict(players)
        if "optimal" not in players:  # the reference of the paired differences
            players["optimal"] = roster.make("optimal", game.spec)
        return scorecard_rows(label, players, games, seed, spec=game.spec)[0]
    rows = []
    built = {o: roster.make(o, game) for o in opponents}
    for name, agent in players.items():
        for opp, opponent in built.items():
            if opponent is None:
                continue
            row = fivethousand_row(agent, opponent, games, seed)
            rows.append({"game": "fivethousand", "agent": name, "opponent": opp,
                         "games": games, "win_rate": row["win_rate"], "ci_low": row["ci_low"],
                         "ci_high": row["ci_high"]})
    return rows


def regret_of_players(players: Mapping[str, Any], game: Game, games: int, seed: int, *,
                      dice_averaged: bool = False, progress: bool = True
                      ) -> Iterator[ScorecardRegret | FiveThousandRegret]:
    """The exact regret of each of ``players`` (name -> player) on ``game``, one at a time
    (``dice_averaged``: scorecard games only, see :func:`optimality_gap`)."""
    for name, agent in players.items():
        if game.family == SCORECARD:
            yield optimality_gap(agent, game.spec, games, seed, name=name, progress=progress,
                                 dice_averaged=dice_averaged)
        else:
            yield fivethousand_gap(agent, games, seed, name=name,
                                   mode="solo" if game.env_id == SOLO_ID else "two-player")
