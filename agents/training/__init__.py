"""Trainers: they make the players of the layers below (and may evaluate them while training).

* :mod:`.ppo` -- masked PPO runs (sb3-contrib's MaskablePPO or the lean trainer), their
  configs, stages, checkpoints and reward shaping (``scripts/train.py``);
* :mod:`.learned_value` -- the learned-value players' trainers
  (``scripts/train_learned_value.py``).

Nothing is imported here: torch loads with the trainers themselves.
"""
