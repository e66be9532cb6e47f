#!/usr/bin/env python
"""The committed PPO recipe across training seeds; exports the median seed: ``dice-env report
recipe-seeds`` (``dice-env report recipe-seeds --help``), whose usage and messages this script
shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("ppo-recipe-seeds")
