"""Players of the scorecard family (Penta, Dice Poker, the Yahtzee presets).

* :mod:`agents.scorecard.learned_value` -- a neural value of the turn-start scorecard with an
  exact within-turn expectimax on top (:class:`~agents.scorecard.learned_value.LearnedValueAgent`);
* :mod:`agents.training.learned_value.scorecard` -- its trainer (fitted value iteration).

Nothing heavy is imported here: torch loads with the modules themselves.
"""
