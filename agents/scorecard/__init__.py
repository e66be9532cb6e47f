"""Players of the scorecard family (Penta, Dice Poker, the Yahtzee presets).

* :mod:`.heuristic` -- ``greedy`` and ``heuristic`` (and the apps' computer choice);
* :mod:`.optimal` -- ``optimal``: the exact expected-score DP player and advisor;
* :mod:`.learned_value` -- ``learned-value``: a neural value of the turn-start scorecard with
  an exact within-turn expectimax on top (trained by
  :mod:`agents.training.learned_value.scorecard`; it never reads the DP tables);
* :mod:`.choice` -- the best legal action of a table of action values.

Players of 5000 never import these (an import-linter contract).  Nothing heavy is imported
here: torch and the solver load with the modules themselves.
"""
