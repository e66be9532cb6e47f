#!/usr/bin/env python
"""Screenshots of the web app's Play and Inspect pages (docs/web-play.png, ...): ``dice-env report
screenshots`` (``dice-env report screenshots --help``), whose usage and messages this script
shows; it stays for the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("web-screenshot")
