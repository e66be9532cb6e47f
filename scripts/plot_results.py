#!/usr/bin/env python
"""Plot the learning curves of the committed agents (results/learning_curves.png): ``dice-env
report plots`` (``dice-env report plots --help``), whose usage and messages this script shows;
it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("plot-results")
