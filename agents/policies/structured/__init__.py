"""A policy built for the scorecard games' action space (issue 28): shared action heads over
per-action features read off the rules' tables.

* :mod:`.features` -- per-hold and per-box features from ``dice_env``'s tables (the keeps, the
  reroll probabilities, the score table), decoded from the observation;
* :mod:`.network` -- the torch network (state trunk, one hold head shared by the 32 holds, one
  box head shared by the boxes, a value MLP) and the lean trainer's actor-critic over it;
* :mod:`.sb3_policy` -- the same network as an sb3-contrib ``MaskableActorCriticPolicy``, so
  MaskablePPO trains it and a saved ``.zip`` loads (``agents.load``) like any MaskablePPO model.

Model-free: no DP values, no distillation, no search at play time.  Nothing is imported here:
torch and stable-baselines3 load with the submodules.
"""

#: the module prefix a saved model's policy class has (how a model file is recognised)
MODULE_PREFIX = "agents.policies.structured."
