#!/usr/bin/env python
"""Solve a game exactly and report its optimal expected score (``--json``: one JSON line per
game): the same as ``dice-env solve`` (``dice-env solve --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("solve")
