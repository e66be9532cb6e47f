"""The exact regret of every registered player (what ``dice-env report regret`` measures).

For each scorecard game, every player of :data:`AGENTS` measured by
:func:`~agents.evaluation.scorecard_regret.optimality_gap` on the same dice (those of
:data:`DICE_AVERAGED` also with the dice-averaged regret); for 5000, every player of
:data:`FIVE_THOUSAND_AGENTS` by :func:`~agents.evaluation.fivethousand_regret.fivethousand_gap`,
two-player (in win probability against the optimal player) and solo (in expected turns).  The
report is written by :mod:`agents.evaluation.reports.regret`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.evaluation.fivethousand_regret import FiveThousandRegret, fivethousand_gap
from agents.evaluation.scorecard_probes import BonusProbe, bonus_giveaway
from agents.evaluation.scorecard_regret import ScorecardRegret, optimality_gap
from agents.progress import progress_bar, progress_note
from agents.registry import make

GAMES = ["penta", "dice-poker"]
AGENTS = ["random", "greedy", "heuristic", "optimal", "ppo", "learned-value"]
FIVE_THOUSAND_AGENTS = ["random", "threshold", "heuristic", "optimal", "ppo", "learned-value"]
#: players also measured with the dice-averaged regret (the plain one varies most for them)
DICE_AVERAGED = ["greedy"]
SOLO_ID = "dice_env/FiveThousandSolo-v0"


@dataclass
class PlayersRegret:
    """The regret of every player: by scorecard game, 5000 two-player and 5000 solo;
    ``probes``: scorecard game -> player -> its bonus probe (:func:`bonus_giveaway`; games
    whose rules pay no five-of-a-kind bonus have none)."""

    scorecard: dict[str, list[ScorecardRegret]] = field(default_factory=dict)
    probes: dict[str, dict[str, BonusProbe]] = field(default_factory=dict)
    fivethousand: list[FiveThousandRegret] = field(default_factory=list)
    solo: list[FiveThousandRegret] = field(default_factory=list)


def _make(name: str, game: str, note: Callable[[str], object], seed: int) -> Any | None:
    """The player, seeded with ``seed`` (a random player's choices are then the same in every
    run), or ``None`` with a note when it is not available for this game."""
    try:
        agent = make(name, game)
    except (ImportError, FileNotFoundError, ValueError) as err:
        note(f"skipping {name} on {game}: {err}")
        return None
    if callable(getattr(agent, "seed", None)):
        agent.seed(seed)
    return agent


def regret_of_every_player(scorecard_games: Sequence[str] = GAMES, games: int = 2000,
                           fivethousand_games: int = 4000, seed: int = 0,
                           note: Callable[[str], object] = progress_note) -> PlayersRegret:
    """Measure every player (``games`` scorecard games each; ``fivethousand_games`` 5000
    games per mode, 0 leaves 5000 out), each scorecard player also by the bonus probe; each
    result is also said through ``note``."""
    result = PlayersRegret()
    for game in scorecard_games:
        optimal = make("optimal", game)
        rows = result.scorecard[game] = []
        for name in progress_bar(AGENTS, desc=game):
            agent = optimal if name == "optimal" else _make(name, game, note, seed)
            if agent is None:
                continue
            rows.append(optimality_gap(agent, game, games, seed, optimal=optimal, name=name))
            note(rows[-1].format_text())
            probe = bonus_giveaway(agent, game)
            if probe is not None:
                result.probes.setdefault(game, {})[name] = probe
                note(probe.format_text())
            if name in DICE_AVERAGED:
                rows.append(optimality_gap(agent, game, games, seed, optimal=optimal,
                                           dice_averaged=True, name=f"{name} (dice-averaged)"))
                note(rows[-1].format_text())
    if fivethousand_games:
        optimal = make("optimal", "fivethousand")
        for name in progress_bar(FIVE_THOUSAND_AGENTS, desc="5000"):
            agent = optimal if name == "optimal" else _make(name, "fivethousand", note, seed)
            if agent is not None:
                result.fivethousand.append(fivethousand_gap(agent, fivethousand_games, seed,
                                                            optimal=optimal, name=name))
                note(result.fivethousand[-1].format_text())
            agent = optimal if name == "optimal" else _make(name, SOLO_ID, note, seed)
            if agent is not None:
                try:
                    result.solo.append(fivethousand_gap(agent, fivethousand_games, seed,
                                                        mode="solo", optimal=optimal, name=name))
                    note(result.solo[-1].format_text())
                except ValueError as err:  # e.g. a model trained on two-player observations
                    note(f"skipping {name} solo: {err}")
    return result
