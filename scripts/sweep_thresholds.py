#!/usr/bin/env python
"""Sweep the threshold bots of 5000 and pick the ``heuristic`` bot (``results/threshold_sweep.md``
and ``.csv``): the same as ``dice-env sweep-thresholds`` (``dice-env sweep-thresholds --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("sweep_thresholds")
