"""The main job: reproduce the benchmark tables of ``results/``.

``--quick`` (default, a few minutes): solve every game exactly (``dice-env solve all``), then
evaluate every agent on every game with a modest number of games (``dice-env evaluate``);
tables go to ``results/quick/`` so the committed full-size tables stay untouched.  ``--full``:
the same with the full game counts, plus the optimal-play report, the exact-regret report, the
5000 threshold sweep and the environment speed benchmark, written to ``results/``.  Paths are
relative to the current directory (run it from the checkout's root to refresh its tables); a
run with another ``--games`` or ``--seed`` writes ``runs/reproduce-quick/`` (or
``reproduce-full/``) unless ``--out`` says where.

Example:
  dice-env reproduce --quick
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    command_parser,
    games,
    make_output_folders,
    non_negative_seed,
    output_path,
)

QUICK = {"games": 2000, "fivethousand_games": 4000, "out": Path("results") / "quick"}
FULL = {"games": 20000, "fivethousand_games": 40000, "out": Path("results")}


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env reproduce``."""
    parser = command_parser(__doc__, prog)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the quick reproduction (default)")
    mode.add_argument("--full", action="store_true", help="everything, full game counts")
    parser.add_argument("--games", type=games(), default=None,
                        help="override the game count")
    parser.add_argument("--seed", type=non_negative_seed, default=0)
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (made if missing)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict | int:
    """Run the stages; returns the summary (or the exit status of a stage that failed)."""
    from agents.cli import run

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    cfg = dict(FULL if args.full else QUICK)
    if args.games:
        cfg["games"] = cfg["fivethousand_games"] = args.games
    out = args.out or cfg["out"]
    if args.out is None and (args.games or args.seed != 0):  # not the documented runs
        out = Path("runs") / ("reproduce-full" if args.full else "reproduce-quick")
        print(f"--games / --seed changed: writing {out}/ instead of {cfg['out']}/ (pass --out "
              "to choose)", file=sys.stderr)
    make_output_folders(parser, args)
    seed = str(args.seed)
    # (key of the timings, subcommand, title, its arguments)
    stages = [("solve", "solve", "exact solves", ["all", "--quiet"]),
              ("evaluate", "evaluate", f"evaluation ({cfg['games']} scorecard games, "
                           f"{cfg['fivethousand_games']} 5000 games per pairing)",
               ["--games", str(cfg["games"]), "--fivethousand-games",
                str(cfg["fivethousand_games"]), "--seed", seed, "--out", str(out)])]
    if args.full:
        stages += [("optimal_report", "report optimal", "optimal-play report",
                    ["--out-dir", str(out), "--seed", seed]),
                   ("regret_report", "report regret", "exact regret of every player",
                    ["--out", str(out), "--seed", seed]),
                   ("sweep", "report thresholds", "5000 threshold sweep",
                    ["--seed", seed, "--out", str(out)]),
                   ("bench_env", "bench env", "environment speed", ["--out", str(out)])]
    timings = {}
    for key, command, title, command_args in stages:
        print(f"\n== {title} ==", flush=True)
        start = time.perf_counter()
        status = run(command, command_args)
        if status:
            print(f"{prog or 'dice-env reproduce'}: stage {command!r} failed (exit status "
                  f"{status})", file=sys.stderr)
            return status
        timings[key] = time.perf_counter() - start
    summary = {"mode": "full" if args.full else "quick", "out": str(out),
               "seconds": {k: round(v, 1) for k, v in timings.items()}}
    print(f"\nTables written to {out}/ (benchmark.md, benchmark.csv)")
    print(json.dumps(summary))
    return summary
