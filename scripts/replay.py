#!/usr/bin/env python
"""Write one game's replay as a self-contained HTML file you can share without a server: ``dice-env
replay`` (``dice-env replay --help``), whose usage and messages this script shows; it stays for
the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("replay")
