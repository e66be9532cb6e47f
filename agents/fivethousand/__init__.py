"""Players of 5000 (two or more players).

* :mod:`.bots` -- ``threshold`` and the tuned ``heuristic``;
* :mod:`.optimal` -- ``optimal``: the exact win-probability player and advisor (two players;
  solo: fewest expected turns);
* :mod:`.learned_value` -- ``learned-value``: a learned turn-start win probability
  ``W(my score, opponent's score)`` (a small torch MLP), played through an exact within-turn
  solve with ``W`` at the leaves (trained by :mod:`agents.training.learned_value.fivethousand`;
  it never reads the solver's tables).

Scorecard players never import these (an import-linter contract).  Nothing is imported here,
so ``import agents.fivethousand`` stays cheap (no torch).
"""
