#!/usr/bin/env python
"""Ray Tune sweeps of the lean PPO trainer (seeds and a grid of config overrides): the same as
``dice-env tune`` (``dice-env tune --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("tune")
