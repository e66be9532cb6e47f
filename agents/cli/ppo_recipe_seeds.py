"""The committed PPO models' whole recipe across training seeds: measure, commit the median.

The recipe of each game is its stages in ``agents/training/ppo/stages.json`` (any game there:
``--games yahtzee-official``); training seed ``S`` of it is ``dice-env train stages GAME --seed
S`` (run folders ``runs/stages/GAME[-seed<S>]-stage<i>``), hours per seed.  This command trains
the seeds whose last stage has no ``final.zip`` yet (unless ``--no-train``; ``--max-minutes``
stops a seed with a checkpoint, and the same command resumes it), then measures every seed's
final model by its exact gap to the optimum -- scorecard games: exact per-decision regret
(``optimality_gap``, ``--eval-games`` games), in points; 5000: win probability against the
optimal player (``fivethousand_gap``, seat-balanced, twice as many games) -- the same
measurements as ``dice-env evaluate --agent MODEL --regret``, on two disjoint sets of games:
the **selection games** (evaluation seed 0), which choose the median seed, and the **report
games** (evaluation seed 1,000,003), which every published figure of the committed model comes
from.  A measurement is kept next to the model (``recipe_seed.json``, tied to the model's
bytes) and not repeated.

The table (every seed on both sets, the training wall-clock from its learning curve, mean and
range) goes to ``ppo_recipe_seeds.md`` / ``.json``.  A seed whose run folder is gone keeps the
row the table's earlier run measured (the ``.json`` in the output folder); when it is a game's
median seed, the committed ``agents/models/GAME.zip`` (the same bytes) is measured on the report
games in its place.  With ``--export`` the **median** seed's model (never the best) and its
learning curve are copied to ``GAME.zip`` / ``GAME.eval.csv``: for the documented run,
``dice-env report recipe-seeds --export`` (which writes ``results/``), over the committed models
in ``agents/models/`` of the checkout in the current directory (an error anywhere else); for other
runs into ``models/`` of the output folder.  A run with other games, seeds or evaluation size,
without ``--export``, or one that left a seed unfinished, writes ``runs/ppo-recipe-seeds/``
unless ``--out`` says otherwise.

Example:
  dice-env report recipe-seeds --games yahtzee-official --no-train
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    OneLineParser,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_folder,
    output_path,
    recipe_run_options,
)


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env report recipe-seeds``."""
    from agents.training.studies.ppo_recipe import EVAL_GAMES, GAMES, SEEDS

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", nargs="+", default=GAMES, metavar="GAME",
                        help=f"games with stages in stages.json (default: all of {GAMES})")
    parser.add_argument("--seeds", nargs="+", type=non_negative_seed, default=SEEDS,
                        help="training seeds (default %(default)s)")
    recipe_run_options(parser, "seeds", EVAL_GAMES, Path("runs") / "stages")
    parser.add_argument("--export", action="store_true",
                        help="copy each game's median seed: the documented run over the "
                             "checkout's agents/models/, others to OUT/models/")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the documented run, else "
                             "runs/ppo-recipe-seeds/)")
    parser.add_argument("--keep", type=output_path, default=None,
                        help="where each finished seed's model, learning curve and measurement "
                             "are kept for later sessions (default: the checkout's "
                             "agents/models/seeds/ with the default --run-root, else nowhere)")
    parser.add_argument("--stages", type=Path, default=None, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict[str, list[dict]]:
    """Train and measure every seed, export the median, write the table; returns its rows."""
    from agents.paths import checkout_models_dir, committed_model
    from agents.training.ppo.stages import check_stage_configs, load_stages, stages_file
    from agents.training.studies.ppo_recipe import (
        KEPT_FOLDER,
        TABLE,
        earlier_rows,
        export_median,
        recipe_digest,
        run_recipe_seeds,
        write_table,
    )
    from agents.training.threads import set_torch_threads

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        stages = load_stages(args.stages)
    except (OSError, ValueError) as err:
        parser.error(str(err))
    missing = [g for g in args.games if g not in stages]
    if missing:
        parser.error(f"argument --games: no stages for {missing[0]!r} in "
                     f"{args.stages or stages_file()}")
    if not args.no_train:  # before hours of training, not at the stage that would fail
        try:
            for game in args.games:
                check_stage_configs(game, stages[game])
        except ValueError as err:
            parser.error(str(err))
    adhoc = Path("runs") / "ppo-recipe-seeds"
    out = output_folder(parser, args, adhoc, expected={"export": True},
                        ignore=("max_minutes", "threads", "no_train", "keep"))
    documented = args.out is None and out != adhoc
    if args.export and documented:
        try:  # before hours of training: the documented run re-exports into the checkout
            checkout_models_dir()
        except FileNotFoundError as err:
            parser.error(f"argument --export: {err}")
    make_output_folders(parser, args)
    set_torch_threads(args.threads)  # the measurements' batches too: one thread is fastest
    earlier = earlier_rows(out / f"{TABLE}.json", stages, args.eval_games)
    committed = {g: committed_model(f"{g}.zip") for g in args.games}
    kept = args.keep
    if kept is None and args.run_root == Path("runs") / "stages":
        try:  # the recipe's own seeds: kept in the checkout, so later sessions find them
            kept = checkout_models_dir() / KEPT_FOLDER
        except FileNotFoundError:
            kept = None
    rows, unfinished = run_recipe_seeds(args.games, args.seeds, stages, args.run_root,
                                        args.eval_games, train=not args.no_train,
                                        max_minutes=args.max_minutes, threads=args.threads,
                                        earlier=earlier, committed=committed, kept=kept)
    if unfinished:
        print("not finished (run this again without --no-train, or dice-env train stages GAME "
              "--seed S): " + ", ".join(f"{g} seed {s}" for g, seeds in unfinished.items()
                                 for s in seeds), file=sys.stderr)
        if args.out is None:  # an unfinished table never replaces the committed one
            out, documented = adhoc, False
    if not rows:
        parser.exit(1, "no seed has finished its recipe: nothing to measure\n")
    if args.export:  # only a game whose every seed has finished
        models = checkout_models_dir() if documented else out / "models"
        for game, rs in rows.items():
            if game not in unfinished:
                export_median(game, rs, len(stages[game]), args.run_root, models,
                              committed[game], kept, recipe_digest(stages[game]))
    command = " ".join(["dice-env report recipe-seeds", *argv]).strip()
    print(f"written: {write_table(rows, out, command, args.eval_games, stages)}")
    return rows
