"""PPO across training seeds at a reduced budget: every seed's exact gap, mean and range.

Each seed trains the config of the game's committed model (a file of
``agents/training/ppo/configs/``) for the game's reduced budget with ``dice-env train``, then
the final model is measured by its exact gap to the optimum: scorecard games by
``optimality_gap`` (points of expected final score, ``--eval-games`` games, seed 0), 5000 by
``fivethousand_gap`` against the optimal player (win probability, twice as many games).  The
spread across seeds says how much of a difference between two configs at this budget is luck
of the seed.  Runs live in ``runs/ppo-seeds/<GAME>/ppo-seed<S>-<config digest>/``; a finished
seed is only measured again, a stopped one is resumed, so the command can be run across sessions
(``--max-minutes``).

The documented run (``dice-env report ppo-seeds``, the default games, seeds and budgets) writes
``results/ppo_seeds.md`` and ``.json``; other runs write ``runs/ppo-seeds/`` unless ``--out``
says otherwise.

Example:
  dice-env report ppo-seeds --games penta --seeds 0 1 --timesteps 500000
"""

from __future__ import annotations

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
    positive_float,
    threads,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env report ppo-seeds``."""
    from agents.training.studies.ppo_seeds import BUDGETS, EVAL_GAMES, GAMES, SEEDS

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", nargs="*", default=GAMES, choices=GAMES, metavar="GAME",
                        help=f"games (default: all of {GAMES})")
    parser.add_argument("--seeds", nargs="+", type=non_negative_seed, default=SEEDS)
    parser.add_argument("--timesteps", type=at_least(1), default=None,
                        help=f"budget of every seed (default per game: {BUDGETS})")
    parser.add_argument("--eval-games", type=games(2), default=EVAL_GAMES,
                        help="games of the regret evaluation (default %(default)s; 5000: twice)")
    parser.add_argument("--max-minutes", type=positive_float, default=None,
                        help="stop each run after this long (a later call resumes it)")
    parser.add_argument("--threads", type=threads, default=None,
                        help="torch threads per run")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the documented run, else "
                             "runs/ppo-seeds/)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict[str, list[dict]]:
    """Train and measure every seed, write the table; returns its rows by game."""
    from agents.training.studies.ppo_seeds import run_seeds, write_table

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    root = Path("runs") / "ppo-seeds"
    make_output_folders(parser, args)
    out = output_folder(parser, args, root, ignore=("max_minutes", "threads"))
    rows, stopped = run_seeds(args.games, args.seeds, args.timesteps, args.eval_games, root,
                              args.max_minutes, args.threads)
    if stopped and args.out is None:  # an unfinished table never replaces the committed one
        out = root
    command = " ".join(["dice-env report ppo-seeds", *argv]).strip()
    print(f"written: {write_table(rows, out, command, args.eval_games)}")
    return rows
