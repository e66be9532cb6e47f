#!/usr/bin/env python
"""PPO ablations at a fixed budget, each measured by its exact gap to the optimum: ``dice-env
report ablations`` (``dice-env report ablations --help``), whose usage and messages this script
shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("ablations")
