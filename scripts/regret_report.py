#!/usr/bin/env python
"""Where every player loses its points: ``results/regret.md``, ``regret.json`` and ``regret.png``,
the exact per-decision regret of every registered player: ``dice-env report regret`` (``dice-env
report regret --help``), whose usage and messages this script shows; it stays for the
reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("regret_report")
