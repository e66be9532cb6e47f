#!/usr/bin/env python
"""Load-test the web app over loopback: many games at once through the HTTP API: the same as
``dice-env web-load`` (``dice-env web-load --help``)."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("web-load")
