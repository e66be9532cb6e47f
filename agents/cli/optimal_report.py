"""Solve every scorecard preset, play the optimal agent, and write results/optimal.{md,json}.

For each preset the command

1. solves the game in a fresh process (the same as ``dice-env solve GAME --json --force``),
   which gives an honest solve time and peak memory and refreshes the cached table;
2. loads the table into an :class:`agents.scorecard.optimal.OptimalAgent` and plays ``--games``
   games on the batched game core (dice from ``numpy.random.default_rng(--seed)``);
3. times the agent's per-decision queries (``act`` one at a time, ``act_batch`` on a batch);

then solves the Joker readings of the Yahtzee card and writes the section of every other game
family with an ``optimal_report`` hook: 5000 and Pig (``--no-family NAME`` skips one;
``--no-fivethousand`` is ``--no-family fivethousand``).  The simulated mean must agree with the
DP value within sampling error (the ``z`` column).  Both output files are written
atomically.  Only the documented run (``--games 100000 --seed 2024``; progress, threads, cache
and batch options aside) writes ``results/`` by default; any other run writes
``runs/optimal_report/`` (paths relative to the current directory) unless ``--out-dir`` says
where.

Example:
  dice-env report optimal --games 100000 --seed 2024 --quiet
"""

from __future__ import annotations

import argparse
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
    threads,
)

#: the arguments of the run that wrote the committed results/optimal.*
DOCUMENTED_RUN = {"games": 100_000, "seed": 2024}


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env report optimal``."""
    from dice_env.scorecard.rules import PRESETS

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", type=games(2), default=20_000,
                        help="games per preset (default %(default)s)")
    parser.add_argument("--seed", type=non_negative_seed, default=0, help="seed of the dice")
    parser.add_argument("--game", nargs="+", default=list(PRESETS), choices=sorted(PRESETS),
                        help="presets to include (default: all)")
    parser.add_argument("--out-dir", type=output_path, default=None,
                        help="where optimal.md and optimal.json go (default: results/ for the "
                             "documented full run, else runs/optimal_report/)")
    parser.add_argument("--cache-dir", type=output_path, default=None,
                        help="solver cache folder (default: $DICE_ENV_CACHE, else user cache)")
    parser.add_argument("--batch-size", type=at_least(1), default=20_000,
                        help="games simulated side by side")
    parser.add_argument("--query-sample", type=at_least(1), default=2_000,
                        help="decisions timed per preset")
    parser.add_argument("--threads", type=threads, default=0,
                        help="numba threads (default: all)")
    parser.add_argument("--no-variants", action="store_true",
                        help="skip the table of Joker readings on the Yahtzee card")
    parser.add_argument("--no-fivethousand", action="store_true",
                        help="skip the 5000 section (the same as --no-family fivethousand)")
    parser.add_argument("--no-family", action="append", default=[], metavar="NAME",
                        help="skip the section of this game family (repeatable)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Solve, simulate and time every preset, write the report; returns 0."""
    from agents.evaluation.optimal_play import optimal_play_report
    from agents.evaluation.reports.optimal import write_optimal_report

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    make_output_folders(parser, args)
    out = output_folder(parser, args, Path("runs") / "optimal_report", option="out_dir",
                        expected=DOCUMENTED_RUN,
                        ignore=("quiet", "threads", "cache_dir", "batch_size"))
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)
    report = optimal_play_report(
        args.game, args.games, args.seed, "dice-env report optimal " + " ".join(argv),
        cache_dir=args.cache_dir, batch_size=args.batch_size, query_sample=args.query_sample,
        threads=args.threads, variants=not args.no_variants, progress=not args.quiet)
    from agents.families import families

    skip = set(args.no_family) | ({"fivethousand"} if args.no_fivethousand else set())
    unknown = sorted(skip - {f.name for f in families()})
    if unknown:
        parser.error(f"argument --no-family: unknown {', '.join(unknown)}; choose from "
                     f"{', '.join(f.name for f in families())}")
    sections = []
    for family in families():
        if family.has_hook("optimal_report") and family.name not in skip:
            section, report[family.name] = family.hook("optimal_report")(
                args.games, args.seed, cache_dir=args.cache_dir, threads=args.threads or None,
                progress=not args.quiet)
            sections.append(section)
    md, js = write_optimal_report(out, report, sections)
    for r in report["results"]:
        print(f"{r['game']:20s} DP {r['expected_score']:.4f}  sim {r['simulated_mean']:.2f} "
              f"± {r['standard_error']:.2f} (z {r['z']:+.2f})  solve {r['solve']['seconds']:.2f}"
              f" s, {r['solve']['peak_mb']:.0f} MB")
    print(f"wrote {md} and {js}")
    return 0
