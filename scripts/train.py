#!/usr/bin/env python
"""Train a MaskablePPO agent on a game, stop any time and ``--resume``: the same as
``dice-env train`` (``dice-env train --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("train")
