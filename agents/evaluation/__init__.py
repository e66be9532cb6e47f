"""Evaluating players: batched games, head-to-head matches, and the exact gap to the optimum.

* :mod:`.scorecard_games` -- many scorecard games side by side on the pure game core
  (:func:`play_scorecard_games`, :func:`run_scorecard_games` with a per-decision hook);
* :mod:`.scorecard_regret` -- :func:`optimality_gap`: each decision charged the optimal value
  it gives up, summed into an unbiased, low-variance estimate of the gap to the optimum and
  decomposed by decision kind, turn and box;
* :mod:`.fivethousand_matches` -- seat-balanced 5000 matches;
* :mod:`.fivethousand_regret` -- the same regret idea for 5000, in win probability (two
  players, against the optimal opponent) or in expected turns (solo).
"""

from agents.evaluation.fivethousand_regret import FiveThousandRegret, fivethousand_gap
from agents.evaluation.scorecard_games import (
    ScorecardGames,
    play_scorecard_games,
    run_scorecard_games,
    scorecard_observations,
)
from agents.evaluation.scorecard_regret import ScorecardRegret, optimality_gap

__all__ = ["FiveThousandRegret", "ScorecardGames", "ScorecardRegret", "fivethousand_gap",
           "optimality_gap", "play_scorecard_games", "run_scorecard_games",
           "scorecard_observations"]
