#!/usr/bin/env python
"""The main job: reproduce the benchmark tables of ``results/`` (``--quick``, the default, into
``results/quick/``; ``--full`` into ``results/``): ``dice-env reproduce`` (``dice-env reproduce
--help``), whose usage and messages this script shows; it stays for the reproduction commands of
older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("reproduce")
