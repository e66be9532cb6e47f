#!/usr/bin/env python
"""Standard Yahtzee, the benchmark of record: ``results/yahtzee.md`` and ``yahtzee.json``:
``dice-env report yahtzee`` (``dice-env report yahtzee --help``), whose usage and messages this
script shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("yahtzee-report")
