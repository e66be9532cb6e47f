"""Trainers of the learned-value players (approximate DP in the spirit of TD-Gammon).

* :mod:`.scorecard` -- per-layer value networks of the scorecard games, fitted backwards over
  the number of filled boxes, then an on-policy refinement (``dice-env train learned-value``);
* :mod:`.fivethousand` -- fitted value iteration of 5000's turn-start win probability;
* :mod:`.files` -- a trained model written atomically beside its learning curve.

The players themselves live with their game: :mod:`agents.scorecard.learned_value`,
:mod:`agents.fivethousand.learned_value`.
"""
