#!/usr/bin/env python
"""Train a learned-value player (no DP tables): the same as
``dice-env train-learned-value`` (``dice-env train-learned-value --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train-learned-value")
