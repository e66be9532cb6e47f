#!/usr/bin/env python
"""Playing to win: the win-value players against score-optimal tables, and 5000 for three and N
players (results/win.md): ``dice-env report win`` (``dice-env report win --help``), whose usage
and messages this script shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("win-report")
