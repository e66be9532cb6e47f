#!/usr/bin/env python
"""Playing to win: the win-value players against score-optimal tables, and 5000 for three and N
players (results/win.md): the same as ``dice-env win-report`` (``dice-env win-report --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("win-report")
