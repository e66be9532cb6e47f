"""Variants of a game's PPO recipe, trained through every stage and measured by exact gap.

The variants are in ``agents/training/ppo/variants.json``: a game's recipe (its stages in
``stages.json``) with ``--set`` overrides joined to every stage and, with ``steps_scale``, every
stage ending at that fraction of its steps -- the structured policy without the one-reroll
features (``kept-dice``: the purest model-free row), the faster trainer on fewer steps or
fewer epochs (``fast-2-epochs-2048``: the Penta recipe's quality in half its time).  Each
trains from training seed 0, or the variant's ``seed``, in ``RUN_ROOT/<variant>`` (``dice-env
train-stages GAME --variant <variant> --run-root RUN_ROOT/<variant>``; 20 minutes to an hour;
``--max-minutes`` stops it with a checkpoint and the same command resumes it), unless
``--no-train``.  Its final
model is measured like a seed of the recipe (``dice-env report recipe-seeds``): the exact gap on
the selection games (evaluation seed 0) and on the report games (seed 1,000,003), kept next to
the model.  A variant whose run folder is gone keeps the row the table's earlier run measured
(the ``.json`` in the output folder), and is not trained again: the full run trains the
variants the table has no row of.  The table puts each variant below the recipe's own seeds
(``RECIPE``, default ``results/ppo_recipe_seeds.json``) with its training wall-clock and CPU
seconds.

The documented full run, ``dice-env train variants penta`` (every variant, the defaults),
writes ``results/recipe_variants.md`` / ``.json``; any other run, or one that left a variant
unfinished, writes ``runs/recipe-variants/`` unless ``--out`` says otherwise.

Example:
  dice-env train variants penta --variants kept-dice --no-train
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    command_parser,
    make_output_folders,
    output_folder,
    output_path,
    recipe_run_options,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env train variants``."""
    from agents.training.studies.ppo_recipe import EVAL_GAMES

    parser = command_parser(__doc__, prog)
    parser.add_argument("game", nargs="?", default="penta",
                        help="a game with variants in variants.json (default %(default)s)")
    parser.add_argument("--variants", nargs="+", default=None, metavar="NAME",
                        help="which variants (default: all of the game's)")
    recipe_run_options(parser, "variants", EVAL_GAMES, Path("runs") / "variants")
    parser.add_argument("--recipe", type=Path, default=Path("results") / "ppo_recipe_seeds.json",
                        help="the recipe's seed rows (default %(default)s)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the documented run, else "
                             "runs/recipe-variants/)")
    parser.add_argument("--variants-file", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--stages", type=Path, default=None, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> list[dict]:
    """Train and measure the variants, write the table; returns the variants' rows."""
    import json

    from agents.training.ppo.stages import check_stage_configs, load_stages
    from agents.training.studies.recipe_variants import (
        TABLE,
        earlier_rows,
        load_variants,
        run_variants,
        variant_stages,
        variants_file,
        write_table,
    )
    from agents.training.threads import set_torch_threads

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        variants = load_variants(args.variants_file)
    except (OSError, ValueError) as err:
        parser.error(str(err))
    if args.game not in variants:
        parser.error(f"argument game: no variants for {args.game!r} in "
                     f"{args.variants_file or variants_file()}; known: {sorted(variants)}")
    names = args.variants or list(variants[args.game])
    unknown = [n for n in names if n not in variants[args.game]]
    if unknown:
        parser.error(f"argument --variants: unknown variant {unknown[0]!r} of {args.game}; "
                     f"known: {list(variants[args.game])}")
    try:
        stages = load_stages(args.stages)[args.game]
    except (OSError, ValueError, KeyError) as err:
        parser.error(f"the recipe's stages: {err}")
    try:
        recipe = json.loads(args.recipe.read_text()).get(args.game, [])
    except (OSError, ValueError) as err:
        parser.error(f"argument --recipe: cannot read the recipe's seeds ({err}); run dice-env "
                     "report recipe-seeds first")
    if not args.no_train:  # before hours of training, not at the stage that would fail
        try:
            for name in names:
                check_stage_configs(args.game, variant_stages(stages, variants[args.game][name]))
        except ValueError as err:
            parser.error(f"variant {name}: {err}")
    adhoc = Path("runs") / "recipe-variants"
    out = output_folder(parser, args, adhoc, ignore=("max_minutes", "threads", "no_train"))
    make_output_folders(parser, args)
    set_torch_threads(args.threads)
    earlier = earlier_rows(out / f"{TABLE}.json", args.game, variants[args.game], stages,
                           args.eval_games)
    rows, unfinished = run_variants(args.game, names, variants[args.game], stages,
                                    args.run_root, args.eval_games, train=not args.no_train,
                                    max_minutes=args.max_minutes, threads=args.threads,
                                    earlier=earlier)
    if unfinished:
        again = "again without --no-train" if args.no_train else "the same command again"
        print(f"not finished (run {again} to go on): {', '.join(unfinished)}", file=sys.stderr)
        if args.out is None:  # an unfinished table never replaces the committed one
            out = adhoc
    if not rows:
        parser.exit(1, "no variant has finished its recipe: nothing to measure\n")
    out.mkdir(parents=True, exist_ok=True)
    command = " ".join(["dice-env train variants", *argv]).strip()
    print(f"written: {write_table(args.game, rows, recipe, out, command, args.eval_games, stages)}")
    return rows
