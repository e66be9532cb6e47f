#!/usr/bin/env python
"""Retrain a committed PPO model stage by stage, as it was trained: the same as
``dice-env train-stages`` (``dice-env train-stages --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train-stages")
