#!/usr/bin/env python
"""The scaling curve of structured PPO (its exact gap against steps and CPU hours, to 10x the
recipe's steps): the same as ``dice-env scaling`` (``dice-env scaling --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("scaling")
