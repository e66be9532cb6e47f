#!/usr/bin/env python
"""PPO across training seeds at a reduced budget: every seed's exact gap: ``dice-env report
ppo-seeds`` (``dice-env report ppo-seeds --help``), whose usage and messages this script shows;
it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("ppo-seeds")
