#!/usr/bin/env python
"""Steps per second of the environments with random legal actions (``results/env_speed.md``
and ``.json``): the same as ``dice-env bench-env`` (``dice-env bench-env --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("bench_env")
