#!/usr/bin/env python
"""Write one game's replay as a self-contained HTML file you can share without a server
(``python scripts/replay.py --agent ppo --game penta --seed 3 --out replay.html``): the same as
``dice-env replay`` (``dice-env replay --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("replay")
