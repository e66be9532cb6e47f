#!/usr/bin/env python
"""The committed PPO recipe across training seeds; exports the median seed: the same as
``dice-env ppo-recipe-seeds`` (``dice-env ppo-recipe-seeds --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("ppo-recipe-seeds")
