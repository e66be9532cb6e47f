#!/usr/bin/env python
"""The main job: reproduce the benchmark tables of ``results/`` (``--quick``, the default, into
``results/quick/``; ``--full`` into ``results/``): the same as ``dice-env reproduce``
(``dice-env reproduce --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("reproduce")
