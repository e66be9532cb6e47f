#!/usr/bin/env python
"""Load-test the web app over loopback: many games at once through the HTTP API: ``dice-env bench
web`` (``dice-env bench web --help``), whose usage and messages this script shows; it stays for
the reproduction commands of older results."""
from agents.cli import script_main

if __name__ == "__main__":
    script_main("web-load")
