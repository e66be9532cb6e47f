"""Pig as a PettingZoo AEC environment (``env()``, ``raw_env()``), PettingZoo-style module:
``pig_v0.env(num_players=3)``."""

from dice_env.pig.aec import PigAECEnv, env, raw_env

__all__ = ["PigAECEnv", "env", "raw_env"]
