"""Playing to win: the win-value players against score-optimal tables, and 5000 for three.

1. **Seeds** (``--seeds``, default 0 1 2): each game's win-value runs
   ``runs/win-value-<GAME>-seed<S>/model.pt`` (trained as ``dice-env train win-value`` trains
   them when missing, unless ``--no-train``) are measured by their paired gain over the
   score-optimal player in two-player matches (``--seed-sets`` dice sets); the **median** seed
   (never the best) is exported with its learning curve to ``win-value-<GAME>.pt``: by a run
   writing ``results/`` over the committed models in ``agents/models/`` of the checkout in the
   current directory (an error anywhere else), by other runs into ``models/`` of the output
   folder (``--no-export``: neither).
2. **Tables**: that player (else the committed one) against score-optimal opponents at tables
   of ``--players`` (default 2 and 4), in every seat on common dice: its win share with a 95 %
   CI over dice sets, the paired difference to a score-optimal player in its place on the same
   dice (share and TOTAL), win / tie / loss, and what each seat is worth.
3. **5000 for three**: the exact three-player solution's values, its distance from an
   equilibrium and its win share against two heuristic bots.
4. **5000 for N players, learned value**: the committed N-player learned-value models
   (``--fivethousand-players``, default 3 and 4) against the exact three-player profile, N - 1
   heuristic bots and N - 1 two-player optima that play the leader, each beside the old leader
   approximation.

Writes ``win.md``, ``win.json``, ``win_leads.png`` (win share against the lead at the start of
a turn, win-value and score-optimal) and ``win_curves.png`` (learning curves), merged with what
an earlier run wrote there for the games and table sizes this one did not measure.  The
documented full run, ``dice-env report win`` from the checkout, writes ``results/``; any other
run writes ``runs/win-report/`` unless ``--out`` says where.  ``--quick`` is a small smoke run.

Example:
  dice-env report win --quick --games penta --players 2 --fivethousand-n-matches 0
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    OneLineParser,
    at_least,
    command_parser,
    games,
    make_output_folders,
    non_negative_seed,
    output_folder,
    output_path,
    workers,
)


def table_size(text: str) -> int:
    """An argparse ``type``: a number of players at a table, 2 to 6."""
    value = at_least(2)(text)
    if value > 6:
        raise argparse.ArgumentTypeError(f"takes 2 to 6 players, got {value}")
    return value


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env report win``."""
    from agents.training.studies.win import GAMES, QUICK_SETS

    p = command_parser(__doc__, prog)
    p.add_argument("--games", nargs="+", choices=GAMES, default=GAMES, help="scorecard games")
    p.add_argument("--players", nargs="+", type=table_size, default=[2, 4],
                   help="table sizes, 2 to 6 (default 2 4)")
    p.add_argument("--sets", type=games(), default=None,
                   help="dice sets per table (default: 60000 for 2 players, 8000 for 3-4, "
                        "5000 for 5-6)")
    p.add_argument("--seeds", nargs="+", type=non_negative_seed, default=[0, 1, 2],
                   help="training seeds (default 0 1 2)")
    p.add_argument("--seed-sets", type=games(2), default=4_000,
                   help="two-player dice sets measuring each seed (default 4000)")
    p.add_argument("--no-train", action="store_true", help="measure only the runs that exist")
    p.add_argument("--no-seeds", action="store_true",
                   help="skip the seeds: measure the committed models as they are")
    p.add_argument("--only-fivethousand", action="store_true",
                   help="only the three-player 5000 section (keeps the scorecard rows)")
    p.add_argument("--no-export", action="store_true",
                   help="do not export the median seed's model")
    p.add_argument("--fivethousand-matches", type=games(0), default=20_000,
                   help="3-player 5000 matches against two heuristic bots (0: skip 5000)")
    p.add_argument("--fivethousand-players", nargs="+", type=at_least(2), default=[3, 4],
                   help="table sizes of the N-player learned-value 5000 section (default 3 4; "
                        "a size without a committed model is listed as such)")
    p.add_argument("--fivethousand-n-matches", type=games(0), default=12_000,
                   help="5000 matches of each N-player learned-value series (0: skip it)")
    p.add_argument("--seed", type=non_negative_seed, default=0,
                   help="dice seed of the evaluation (default 0)")
    p.add_argument("--quick", action="store_true",
                   help=f"a smoke run: {QUICK_SETS} dice sets, the committed models, no seeds")
    p.add_argument("--jobs", type=workers(), default=1,
                   help="worker processes sharing each table's dice sets (default 1; the "
                        "results do not depend on it)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--out", type=output_path, default=None,
                   help="output folder (default results/ for the documented full run, else "
                        "runs/win-report/)")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict:
    """Measure, write the report; returns it (what ``win.json`` holds)."""
    from agents.paths import checkout_models_dir
    from agents.training.studies.win import WinStudy, run_study, save

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    out = output_folder(parser, args, Path("runs") / "win-report",
                        ignore=("no_progress", "jobs"))
    study = WinStudy(games=tuple(args.games), players=tuple(args.players), sets=args.sets,
                     seeds=tuple(args.seeds), seed_sets=args.seed_sets, train=not args.no_train,
                     measure_seeds=not args.no_seeds, only_fivethousand=args.only_fivethousand,
                     fivethousand_matches=args.fivethousand_matches,
                     fivethousand_players=tuple(args.fivethousand_players),
                     fivethousand_n_matches=args.fivethousand_n_matches, seed=args.seed,
                     quick=args.quick, jobs=args.jobs, progress=not args.no_progress)
    models = None
    if not (args.no_export or args.quick or args.no_seeds or args.only_fivethousand):
        models = out / "models"
        if out.resolve() == Path("results").resolve():  # re-export the committed models
            try:
                models = checkout_models_dir()
            except FileNotFoundError as err:
                parser.error(f"argument --out: {err} (or pass --no-export)")
    make_output_folders(parser, args)
    command = " ".join(["dice-env report win", *argv])
    report = save(run_study(study, command, models), out, merge=not args.quick)
    print(f"written: {out / 'win.md'}")
    return report
