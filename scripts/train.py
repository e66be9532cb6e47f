#!/usr/bin/env python
"""Train a MaskablePPO agent on a game, stop any time and ``--resume``: ``dice-env train``
(``dice-env train ppo --help``), whose usage and messages this script shows; it stays for the
reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train")
