"""Players of 5000 (two or more players).

* :mod:`.learned_value` -- :class:`~.learned_value.LearnedValueAgent`: a learned turn-start
  win probability ``W(my score, opponent's score)`` (a small torch MLP), played through an exact
  within-turn solve with ``W`` at the leaves;
* :mod:`.value_training` -- its trainer (fitted value iteration; ``main`` is the CLI).

Nothing is imported here, so ``import agents.fivethousand`` stays cheap (no torch).
"""
