"""5000 as a PettingZoo AEC environment (``env()``, ``raw_env()``), PettingZoo-style module."""

from dice_env.fivethousand.aec import FiveThousandAECEnv, env, raw_env

__all__ = ["FiveThousandAECEnv", "env", "raw_env"]
