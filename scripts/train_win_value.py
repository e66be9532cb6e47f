#!/usr/bin/env python
"""Train a win-value player (P(win) of a multi-player Penta / Dice Poker match): ``dice-env train
win-value`` (``dice-env train win-value --help``), whose usage and messages this script shows;
it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train-win-value")
