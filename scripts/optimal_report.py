#!/usr/bin/env python
"""Solve every scorecard preset, play the optimal agent, and write ``results/optimal.md`` and
``optimal.json``: ``dice-env report optimal`` (``dice-env report optimal --help``), whose usage
and messages this script shows; it stays for the reproduction commands of older results.:
``dice-env report optimal`` (``dice-env report optimal --help``), whose usage and messages this
script shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("optimal_report")
