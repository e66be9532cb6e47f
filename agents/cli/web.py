"""``dice-env web``: serve the web page (the same program as ``dice-web``)."""

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
