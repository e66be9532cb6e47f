#!/usr/bin/env python
"""Env steps per second of the PPO trainers and policies (results/trainer_speed.md with
``--out results``): the same as ``dice-env bench-trainer`` (``dice-env bench-trainer --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("bench-trainer")
