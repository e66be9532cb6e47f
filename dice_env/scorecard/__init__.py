"""Scorecard games (Penta, Dice Poker, Yahtzee presets): rules, game transitions, envs."""

from dice_env.scorecard.rules import PRESETS, Rules, get_rules

__all__ = ["PRESETS", "Rules", "get_rules"]
