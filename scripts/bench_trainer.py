#!/usr/bin/env python
"""Env steps per second of the PPO trainers and policies (results/trainer_speed.md with ``--out
results``): ``dice-env bench trainer`` (``dice-env bench trainer --help``), whose usage and
messages this script shows; it stays for the reproduction commands of older results.: ``dice-env
bench trainer`` (``dice-env bench trainer --help``), whose usage and messages this script shows;
it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("bench-trainer")
