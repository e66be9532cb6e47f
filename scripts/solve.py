#!/usr/bin/env python
"""Solve a game exactly and report its optimal expected score (``--json``: one JSON line per game):
``dice-env solve`` (``dice-env solve --help``), whose usage and messages this script shows; it
stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("solve")
