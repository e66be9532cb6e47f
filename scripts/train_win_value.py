#!/usr/bin/env python
"""Train a win-value player (P(win) of a multi-player Penta / Dice Poker match): the same as
``dice-env train-win-value`` (``dice-env train-win-value --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train-win-value")
