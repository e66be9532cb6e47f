"""5000's evaluation hooks (see :mod:`agents.families`): a user's players against opponents,
seat-balanced, and their exact regret against the optimal player."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.evaluation.benchmark import FIVE_THOUSAND_OPPONENTS, Roster, fivethousand_row
from agents.evaluation.fivethousand_regret import FiveThousandRegret, fivethousand_gap

#: the 5000 env whose regret is counted in turns (solo), not in win probability
SOLO_ID = "dice_env/FiveThousandSolo-v0"


def evaluate_players(players: Mapping[str, Any], game: Any, label: str, games: int, seed: int,
                     opponents: Sequence[str] | None = None, roster: Roster | None = None
                     ) -> list[dict]:
    """The seat-balanced win rate of each of ``players`` against each registered player of
    ``opponents`` (default: :data:`~agents.evaluation.benchmark.FIVE_THOUSAND_OPPONENTS`;
    rows labelled ``"fivethousand"``)."""
    roster = roster or Roster(seed)
    opponents = FIVE_THOUSAND_OPPONENTS if opponents is None else opponents
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


def regret_of(agent: Any, game: Any, games: int, seed: int, *, name: str | None = None,
              progress: bool = True, dice_averaged: bool = False, paired: bool = True
              ) -> FiveThousandRegret:
    """The exact regret of ``agent``: in win probability against the optimal player, or in
    turns for ``dice_env/FiveThousandSolo-v0`` (``dice_averaged`` and ``paired`` are for the
    scorecard games only)."""
    return fivethousand_gap(agent, games, seed, name=name,
                            mode="solo" if game.env_id == SOLO_ID else "two-player")
