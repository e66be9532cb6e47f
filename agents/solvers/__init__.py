"""Exact solvers of the games and the on-disk cache of their tables.

* :mod:`agents.solvers.scorecard_dp` -- expected-score DP of the scorecard games
  (:func:`solve_scorecard`, :func:`load_or_solve_scorecard`, :class:`ScorecardSolution`);
* :mod:`agents.solvers.fivethousand_vi` -- two-player and solo 5000 (value iteration);
  :mod:`agents.solvers.fivethousand_three` -- three-player 5000 (a max-n profile);
* :mod:`agents.solvers.cache` -- keyed, checksummed, atomically written table files.
"""
