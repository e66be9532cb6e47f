"""The scorecard games (Penta, Dice Poker, Yahtzee presets) as a PettingZoo AEC environment
(``env()``, ``raw_env()``), PettingZoo-style module: ``scorecard_v0.env(game="penta",
num_players=3)``."""

from dice_env.scorecard.aec import ScorecardAECEnv, env, raw_env

__all__ = ["ScorecardAECEnv", "env", "raw_env"]
