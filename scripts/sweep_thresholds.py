#!/usr/bin/env python
"""Sweep the threshold bots of 5000 and pick the ``heuristic`` bot (``results/threshold_sweep.md``
and ``.csv``): ``dice-env report thresholds`` (``dice-env report thresholds --help``), whose
usage and messages this script shows; it stays for the reproduction commands of older results.:
``dice-env report thresholds`` (``dice-env report thresholds --help``), whose usage and messages
this script shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("sweep_thresholds")
