#!/usr/bin/env python
"""Evaluate agents on the games: the benchmark tables of ``results/``, or any policy's exact gap to
the optimum (``--agent SPEC --regret``): ``dice-env evaluate`` (``dice-env evaluate --help``),
whose usage and messages this script shows; it stays for the reproduction commands of older
results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("evaluate")
