"""Pig as a PettingZoo AEC environment, by the name OpenSpiel users look for:
``from dice_env import pig_v0; env = pig_v0.env(num_players=3)`` (the same module as
:mod:`dice_env.multi.pig_v0`)."""

from dice_env.multi.pig_v0 import PigAECEnv, env, raw_env

__all__ = ["PigAECEnv", "env", "raw_env"]
