"""Learned-value agents across training seeds: train, measure, commit the median seed.

For each game, the runs ``runs/learned-value-<GAME>-seed<S>/model.pt`` (trained as ``dice-env
train learned-value GAME --seed S`` trains them, unless ``--no-train`` and the run exists) are
measured by their exact gap to the optimum (scorecard games: ``optimality_gap``,
``--eval-games`` games, seed 0, in points; 5000: ``fivethousand_gap`` against the optimal
player, in win probability).  The table (every seed, mean and range) goes to
``learned_value.md`` / ``.json``.  With ``--export`` the **median** seed's model (never the
best) and its learning curve are copied to ``learned-value-<GAME>.pt``: for the documented run,
``dice-env report learned-value-seeds --export`` (which writes ``results/``), over the committed
models in ``agents/models/`` of the checkout in the current directory (an error anywhere else); for
other runs into ``models/`` of the output folder.  Other runs write
``runs/learned-value-seeds/`` unless ``--out`` says otherwise.

Example:
  dice-env report learned-value-seeds --games penta --seeds 0 --eval-games 200
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    command_parser,
    games,
    make_output_folders,
    non_negative_seed,
    output_folder,
    output_path,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env report learned-value-seeds``."""
    from agents.training.studies.learned_value_seeds import GAMES

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", nargs="+", default=GAMES, choices=GAMES, metavar="GAME",
                        help=f"games (default: all of {GAMES})")
    parser.add_argument("--seeds", nargs="+", type=non_negative_seed, default=[0, 1, 2],
                        help="training seeds (default %(default)s)")
    parser.add_argument("--eval-games", type=games(2), default=2000,
                        help="games of the regret evaluation (default %(default)s; 5000: twice)")
    parser.add_argument("--no-train", action="store_true",
                        help="only measure the runs that exist")
    parser.add_argument("--export", action="store_true",
                        help="copy each game's median seed: the documented run over the "
                             "checkout's agents/models/, others to OUT/models/")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the documented run, else "
                             "runs/learned-value-seeds/)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict[str, list[dict]]:
    """Train and measure every seed, export the median, write the table; returns its rows."""
    from agents.paths import checkout_models_dir
    from agents.training.studies.learned_value_seeds import export_median, run_seeds, write_table

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    adhoc = Path("runs") / "learned-value-seeds"
    out = output_folder(parser, args, adhoc, expected={"export": True}, ignore=("no_train",))
    models = out / "models"
    if args.export and args.out is None and out != adhoc:  # the documented run
        try:
            models = checkout_models_dir()
        except FileNotFoundError as err:
            parser.error(f"argument --export: {err}")
    make_output_folders(parser, args)
    rows = run_seeds(args.games, args.seeds, args.eval_games, train=not args.no_train)
    if args.export:
        for game, rs in rows.items():
            export_median(game, rs, models)
    command = " ".join(["dice-env report learned-value-seeds", *argv]).strip()
    print(f"written: {write_table(rows, out, command, args.eval_games)}")
    return rows
