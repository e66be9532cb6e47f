"""A policy built for the games' action spaces (issue 28): shared action heads over per-action
features read off the rules' tables -- the scorecard games' holds and boxes, and 5000's
set-asides with their bank or roll-on.

* :mod:`.features` -- per-hold and per-box features from ``dice_env``'s tables (the keeps, the
  reroll probabilities, the score table), decoded from the observation;
* :mod:`.network` -- the torch network (state trunk, one hold head shared by the 32 holds, one
  box head shared by the boxes, a value MLP) and the lean trainer's actor-critic over it (for
  either family: ``family="scorecard"`` or ``"fivethousand"``);
* :mod:`.fivethousand_features` / :mod:`.fivethousand_network` -- 5000's counterparts: per-action
  features from the rules' tables (what the set-aside adds, what a bank does to the scores,
  what the next throw risks) and one action head shared by every action;
* :mod:`.sb3_policy` -- the same networks as an sb3-contrib ``MaskableActorCriticPolicy``, so
  MaskablePPO trains them and a saved ``.zip`` loads (``agents.load``) like any MaskablePPO model.

Model-free: no DP values, no distillation, no search at play time.  Nothing is imported here:
torch and stable-baselines3 load with the submodules.
"""

#: the module prefix a saved model's policy class has (how a model file is recognised)
MODULE_PREFIX = "agents.policies.structured."
