#!/usr/bin/env python
"""Standard Yahtzee, the benchmark of record: ``results/yahtzee.md`` and ``yahtzee.json``: the
same as ``dice-env yahtzee-report`` (``dice-env yahtzee-report --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("yahtzee-report")
