#!/usr/bin/env python
"""PPO ablations at a fixed budget, each measured by its exact gap to the optimum: the same as
``dice-env ablations`` (``dice-env ablations --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("ablations")
