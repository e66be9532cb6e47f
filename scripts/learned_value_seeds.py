#!/usr/bin/env python
"""Learned-value agents across training seeds; exports the median seed: ``dice-env report
learned-value-seeds`` (``dice-env report learned-value-seeds --help``), whose usage and messages
this script shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("learned-value-seeds")
