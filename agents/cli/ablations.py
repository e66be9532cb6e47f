"""PPO ablations at a fixed budget, each measured by its exact gap to the optimum.

Every variant is the game's committed config (``agents/training/ppo/configs/<GAME>.json``) with
a few overrides (``dice-env train --set``), trained for ``--timesteps`` from the same seed, then
evaluated with the exact per-decision regret (``agents.evaluation.optimality_gap``, 2,000
games, seed 0): the gap to the optimum with its 95 % CI, where it is lost, the upper-bonus
rate, the wall-clock time and the trainer's env steps per second.  Runs live in
``runs/ablations/<GAME>/<VARIANT>-seed<SEED>-<digest>/``; a variant already trained is only
evaluated again, one that was stopped is resumed, so the command can be run across sessions.

The documented run (``dice-env report ablations penta``, the default budget) writes
``results/ablations.md`` and ``.json``; other runs write ``runs/ablations/<GAME>/``.  A run of
some ``--variants`` keeps the earlier table's rows of the others while they are still valid
(same base config, overrides, budget and seed), so a new lever costs one training run.
``--variants`` with no name trains nothing and writes the table again from the earlier one's
rows, with what ``dice-env train variants`` measured through the full recipe
(``recipe_variants.json`` beside it).

Example:
  dice-env report ablations penta --variants baseline structured-linear --seeds 0 1 2
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    at_least,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_path,
    positive_float,
    threads,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env report ablations``."""
    from agents.training.studies.ablations import DEFAULT_TIMESTEPS, VARIANTS

    parser = command_parser(__doc__, prog)
    parser.add_argument("game", nargs="?", default="penta",
                        help="a game with a PPO config (default %(default)s)")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), metavar="NAME",
                        help=f"which variants (default: all of {list(VARIANTS)})")
    parser.add_argument("--timesteps", type=at_least(1), default=DEFAULT_TIMESTEPS,
                        help="training budget of every variant (default %(default)s)")
    parser.add_argument("--seed", type=non_negative_seed, default=0,
                        help="training seed of the table's rows (default %(default)s)")
    parser.add_argument("--seeds", type=non_negative_seed, nargs="+", default=None,
                        metavar="SEED",
                        help="train and measure these seeds of every variant; the first is the "
                             "table's, all fill its 'every seed' column")
    parser.add_argument("--threads", type=threads, default=1,
                        help="torch threads (default 1)")
    parser.add_argument("--max-minutes", type=positive_float, default=None,
                        help="stop each run after this long (a later call resumes it)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the documented run, else "
                             "runs/ablations/GAME/)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> list[dict]:
    """Train and measure the variants, write the table; returns its rows."""
    from agents.training.ppo import CONFIG_DIR
    from agents.training.studies.ablations import (
        DEFAULT_TIMESTEPS,
        VARIANTS,
        run_ablations,
        write_table,
    )

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.variants) - set(VARIANTS))
    if unknown:
        parser.error(f"argument --variants: unknown variants {unknown}; known: "
                     f"{list(VARIANTS)}")
    if not (CONFIG_DIR / f"{args.game}.json").exists():
        parser.error(f"argument game: no PPO config for {args.game!r}; configs exist for "
                     f"{sorted(p.stem for p in CONFIG_DIR.glob('*.json'))}")
    make_output_folders(parser, args)
    seeds = list(dict.fromkeys(args.seeds)) if args.seeds else [args.seed]
    root = Path("runs") / "ablations" / args.game
    documented = args.timesteps == DEFAULT_TIMESTEPS and seeds[0] == 0
    out = args.out or (Path("results") if documented else root)
    rows = run_ablations(args.game, args.variants, args.timesteps, seeds, root,
                         args.max_minutes, args.threads)
    if rows or not args.variants:  # no variants: the table again from its earlier rows
        command = " ".join(["dice-env report ablations", *argv]).strip()
        print(f"written: {write_table(args.game, rows, out, root, command)}")
    return rows
