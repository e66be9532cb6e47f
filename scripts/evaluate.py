#!/usr/bin/env python
"""Evaluate agents on the games: the benchmark tables of ``results/`` (``python
scripts/evaluate.py --games 10000 --seed 0``), or any policy's exact gap to the optimum
(``--agent SPEC --regret``): the same as ``dice-env evaluate`` (``dice-env evaluate --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("evaluate")
