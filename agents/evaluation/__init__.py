"""Evaluating players: batched games, head-to-head matches, and the exact gap to the optimum.

* :mod:`.scorecard_games` -- many scorecard games side by side on the pure game core
  (:func:`play_scorecard_games`, :func:`run_scorecard_games` with a per-decision hook);
* :mod:`.scorecard_regret` -- :func:`optimality_gap`: each decision charged the optimal value
  it gives up, summed into an unbiased, low-variance estimate of the gap to the optimum and
  decomposed by decision kind, turn and box;
* :mod:`.scorecard_matches` -- seat-balanced two-player scorecard matches on the match core
  (:func:`play_scorecard_matches`), or derived from solitaire games (:func:`matches_from_games`);
* :mod:`.fivethousand_matches` -- seat-balanced 5000 matches;
* :mod:`.fivethousand_regret` -- the same regret idea for 5000, in win probability (two
  players, against the optimal opponent) or in expected turns (solo);
* :mod:`.inspect` -- one game of an agent decision by decision (every legal option with
  its exact value, the chosen, the best, the regret), two agents on the same dice, and the
  costliest habits over many games, read off the regret tools' traces (the inspect view and
  ``dice-env replay``);
* :mod:`.benchmark`, :mod:`.any_policy`, :mod:`.players_regret`, :mod:`.optimal_play`,
  :mod:`.threshold_sweep`, :mod:`.env_speed` -- what ``dice-env evaluate``, ``report regret``,
  ``report optimal``, ``report thresholds`` and ``bench env`` measure; :mod:`.reports` writes
  their tables.
"""

from agents.evaluation.fivethousand_regret import FiveThousandRegret, fivethousand_gap
from agents.evaluation.scorecard_games import (
    ScorecardGames,
    play_scorecard_games,
    run_scorecard_games,
    scorecard_observations,
)
from agents.evaluation.scorecard_matches import (
    ScorecardMatches,
    matches_from_games,
    play_scorecard_matches,
)
from agents.evaluation.scorecard_regret import ScorecardRegret, optimality_gap

__all__ = ["FiveThousandRegret", "ScorecardGames", "ScorecardMatches", "ScorecardRegret",
           "fivethousand_gap", "matches_from_games", "optimality_gap", "play_scorecard_games",
           "play_scorecard_matches", "run_scorecard_games", "scorecard_observations"]
