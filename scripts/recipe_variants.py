#!/usr/bin/env python
"""Variants of the committed PPO recipe, measured by exact gap: ``dice-env train variants``
(``dice-env train variants --help``), whose usage and messages this script shows; it stays for
the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("recipe-variants")
