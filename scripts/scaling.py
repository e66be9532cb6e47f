#!/usr/bin/env python
"""The scaling curve of structured PPO (its exact gap against steps and CPU hours, to 10x the
recipe's steps): ``dice-env report scaling`` (``dice-env report scaling --help``), whose usage
and messages this script shows; it stays for the reproduction commands of older results.:
``dice-env report scaling`` (``dice-env report scaling --help``), whose usage and messages this
script shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("scaling")
