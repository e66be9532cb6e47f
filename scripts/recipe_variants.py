#!/usr/bin/env python
"""Variants of the committed PPO recipe, measured by exact gap: the same as ``dice-env
recipe-variants`` (``dice-env recipe-variants --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("recipe-variants")
