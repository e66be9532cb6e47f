"""``dice-env web``: serve the web page (the same program as ``dice-web``): play Penta, Dice
Poker and 5000 in the browser, alone or against up to five bots, with the optimal advisor, and
inspect agents' games.

The server binds 127.0.0.1 unless ``--host`` says otherwise.  Long work (solving the tables
the advisor and the optimal bots read, inspections) runs in worker processes (``--workers``)
and the page shows its progress; ``--prepare`` solves every table ahead of time and exits.
Needs the ``web`` extra.

Example:
  dice-env web --port 8080 --agent mine=runs/my_dqn.zip
  dice-env web --prepare
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The web app's command line."""
    from agents.play.web.server import build_parser as web_parser

    return web_parser(prog or "dice-web")


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run the web app until Ctrl-C (:func:`agents.play.web.server.main`)."""
    from agents.play.web.server import main as serve

    return serve(argv, prog=prog or "dice-web")
