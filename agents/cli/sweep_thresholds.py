"""Sweep the threshold bots of 5000 and pick the ``heuristic`` bot.

Every member of a grid of bank thresholds (per dice left) plays two-player games against the
built-in default bot, seat-balanced; the best few are replayed on fresh dice with more games
(so that the winner is not just the luckiest), and the best of those becomes the thresholds of
``agents.make("heuristic", "fivethousand")`` (``agents/fivethousand/bots.py``:
``HEURISTIC_THRESHOLDS``).  Writes ``threshold_sweep.csv`` and ``threshold_sweep.md``: into
``results/`` for the documented full run (every argument at its default), else into
``runs/sweep_thresholds/`` unless ``--out`` says where (paths relative to the current
directory).

Example:
  dice-env report thresholds --games 200 --final-games 2000 --finalists 3
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    at_least,
    command_parser,
    games,
    make_output_folders,
    non_negative_seed,
    output_folder,
    output_path,
)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env report thresholds``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", type=games(2), default=2000, help="games per grid point")
    parser.add_argument("--final-games", type=games(2), default=40_000,
                        help="games per finalist on fresh dice")
    parser.add_argument("--finalists", type=at_least(1), default=6)
    parser.add_argument("--seed", type=non_negative_seed, default=0,
                        help="seed of the grid's dice (the finalists': seed + 1)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the documented full "
                             "run, else runs/sweep_thresholds/)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict:
    """Run the sweep, write its tables; returns the best thresholds and those in use."""
    from agents.evaluation.reports.threshold_sweep import write_sweep
    from agents.evaluation.threshold_sweep import sweep_thresholds
    from agents.fivethousand.bots import HEURISTIC_THRESHOLDS

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    make_output_folders(parser, args)
    out = output_folder(parser, args, Path("runs") / "sweep_thresholds")
    sweep = sweep_thresholds(args.games, args.final_games, args.finalists, args.seed)
    write_sweep(out, sweep)
    best = list(sweep.best["thresholds"])
    summary = {"best_thresholds": best, "win_rate": sweep.best["win_rate"],
               "in_use": list(HEURISTIC_THRESHOLDS)}
    if tuple(best) != tuple(HEURISTIC_THRESHOLDS):
        print(f"note: agents/fivethousand/bots.py HEURISTIC_THRESHOLDS = "
              f"{list(HEURISTIC_THRESHOLDS)}; the sweep's best is {best}")
    print(json.dumps(summary))
    return summary
