#!/usr/bin/env python
"""Screenshots of the web app's Play and Inspect pages (docs/web-play.png, ...): the same as
``dice-env web-screenshot`` (``dice-env web-screenshot --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("web-screenshot")
