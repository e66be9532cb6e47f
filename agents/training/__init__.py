"""Trainers: they make the players of the layers below (and may evaluate them while training).

* :mod:`.ppo` -- masked PPO runs (sb3-contrib's MaskablePPO or the lean trainer), their
  configs, stages, checkpoints and reward shaping (``dice-env train``, ``train stages``);
* :mod:`.learned_value` -- the learned-value players' trainers
  (``dice-env train learned-value``);
* :mod:`.studies` -- seed studies and ablations of the trainers (``dice-env report ppo-seeds``,
  ...).

Nothing is imported here: torch loads with the trainers themselves.
"""
