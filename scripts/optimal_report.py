#!/usr/bin/env python
"""Solve every scorecard preset, play the optimal agent, and write ``results/optimal.md`` and
``optimal.json`` (``python scripts/optimal_report.py --games 100000 --seed 2024 --quiet``): the
same as ``dice-env optimal-report`` (``dice-env optimal-report --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("optimal_report")
