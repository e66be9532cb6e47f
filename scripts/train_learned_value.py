#!/usr/bin/env python
"""Train a learned-value player (no DP tables): ``dice-env train learned-value`` (``dice-env train
learned-value --help``), whose usage and messages this script shows; it stays for the
reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train-learned-value")
