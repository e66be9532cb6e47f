#!/usr/bin/env python
"""Where every player loses its points: ``results/regret.md``, ``regret.json`` and
``regret.png``, the exact per-decision regret of every registered player: the same as
``dice-env regret-report`` (``dice-env regret-report --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("regret_report")
