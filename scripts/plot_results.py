#!/usr/bin/env python
"""Plot the learning curves of the committed agents (results/learning_curves.png): the same as
``dice-env plot-results`` (``dice-env plot-results --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("plot-results")
