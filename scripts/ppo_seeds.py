#!/usr/bin/env python
"""PPO across training seeds at a reduced budget: every seed's exact gap: the same as
``dice-env ppo-seeds`` (``dice-env ppo-seeds --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("ppo-seeds")
