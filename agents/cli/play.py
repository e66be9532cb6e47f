"""``dice-env play``: play a game in the terminal (the same program as ``dice-play``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of the terminal program."""
    from agents.play.terminal.cli import build_parser as play_parser

    return play_parser(prog or "dice-play")


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run the terminal program (:func:`agents.play.terminal.cli.main`); returns the exit status."""
    from agents.play.terminal.cli import main as play

    return play(argv, prog=prog or "dice-play")
