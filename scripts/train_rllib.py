#!/usr/bin/env python
"""Train RLlib's PPO with action masking on a game's env, timed against our lean trainer:
``dice-env train rllib`` (``dice-env train rllib --help``), whose usage and messages this script
shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train-rllib")
