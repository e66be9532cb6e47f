#!/usr/bin/env python
"""Ray Tune sweeps of the lean PPO trainer (seeds and a grid of config overrides): ``dice-env train
tune`` (``dice-env train tune --help``), whose usage and messages this script shows; it stays
for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("tune")
