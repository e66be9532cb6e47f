"""Players made from what a user brings: model files, run folders' models, and user code.

* :mod:`.sb3_models` -- :class:`~.sb3_models.SB3Agent`: a stable-baselines3 / sb3-contrib model
  (MaskablePPO, PPO, A2C, DQN), its spaces checked against the game, always legal actions;
* :mod:`.committed` -- :class:`~.committed.PPOAgent`, the ``ppo`` player: the committed model of
  its game in ``results/models/``;
* :mod:`.user_code` -- agent classes, objects, factories and plain policy functions, directly or
  from ``"module:attr"`` / ``"path/to/file.py:attr"``;
* :mod:`.specs` -- :func:`~.specs.load_policy`: which of those a spec is (what
  :func:`agents.load` calls);
* :mod:`.structured` -- the structured policy of the scorecard games and of 5000 (shared action
  heads over per-action features from the rules' tables): a MaskablePPO policy class, so its
  model files load like any other.

Nothing heavy is imported here: torch and stable-baselines3 load with a model.
"""
