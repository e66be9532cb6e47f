#!/usr/bin/env python
"""Retrain a committed PPO model stage by stage, as it was trained: ``dice-env train stages``
(``dice-env train stages --help``), whose usage and messages this script shows; it stays for the
reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train-stages")
