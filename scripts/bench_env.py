#!/usr/bin/env python
"""Steps per second of the environments with random legal actions (``results/env_speed.md`` and
``.json``): ``dice-env bench env`` (``dice-env bench env --help``), whose usage and messages
this script shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("bench_env")
