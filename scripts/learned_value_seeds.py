#!/usr/bin/env python
"""Learned-value agents across training seeds; exports the median seed: the same as
``dice-env learned-value-seeds`` (``dice-env learned-value-seeds --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("learned-value-seeds")
