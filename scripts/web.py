#!/usr/bin/env python
"""Play Penta, Dice Poker and 5000 in the browser: start the web app (http://127.0.0.1:8000/):
``dice-env web`` (``dice-env web --help``), whose usage and messages this script shows; it stays
for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("web")
