"""Retrain a committed PPO model stage by stage, as it was trained.

The stages of each game are in ``agents/training/ppo/stages.json``: stage ``i`` runs ``dice-env
train GAME --seed 0 --run-dir RUN_ROOT/GAME-stage<i> --timesteps T_i`` with that stage's config
and ``--set`` overrides, starting (``--init-from``) from stage ``i-1``'s final model.  A stage
whose ``final.zip`` exists is skipped, one with a checkpoint is resumed, so the command continues
across sessions (``--max-minutes`` stops it with a checkpoint).  With ``--export`` the last
stage's model and learning curve are written over the committed ``agents/models/GAME.zip`` of
the checkout in the current directory (an error anywhere else).

``--seed S`` trains the same recipe from another seed (run folders ``GAME-seed<S>-stage<i>``);
the committed model of each game is the median of seeds 0-2 (``dice-env report recipe-seeds
--export`` measures them and copies it).  ``--dry-run`` prints the ``train`` commands instead of
running them.

``--set KEY=VALUE`` trains a variant of the recipe: the override joins every stage's own (and wins
where both set a key: the change holds in every stage), so give the variant its own ``--run-root``;
a variant is never exported over the committed model. ``--steps-scale F`` is another variant: every
stage ends at ``F`` times its total (rounded up to whole rollouts by ``train``). ``--variant NAME``
trains a committed variant of ``agents/training/ppo/variants.json`` (its overrides, steps scale and
training seed; run folders ``runs/variants/NAME``, where ``dice-env train variants`` finds and
measures it), e.g. ``kept-dice``: the recipe without the reroll features.

Example:
  dice-env train stages penta --max-minutes 60
  dice-env train stages penta --variant kept-dice
  dice-env train stages penta --set lean.compile=true --run-root runs/stages-compiled
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_path,
    positive_float,
    threads,
)
from agents.cli.train import command_renderer


def _variant(parser: argparse.ArgumentParser, game: str, name: str) -> dict:
    """The committed variant ``name`` of ``game`` (exit 2 naming the known ones)."""
    from agents.training.studies.recipe_variants import load_variants

    known = load_variants().get(game, {})
    if name not in known:
        parser.error(f"argument --variant: unknown variant {name!r} of {game}; known: "
                     f"{sorted(known) or 'none'}")
    return known[name]


def build_parser(prog: str | None = None):
    """The command line of ``dice-env train stages``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("game", help="a game with stages in agents/training/ppo/stages.json")
    parser.add_argument("--run-root", type=output_path, default=None,
                        help="where the stages' run folders go (default runs/stages; with "
                             "--variant runs/variants/NAME)")
    parser.add_argument("--seed", type=non_negative_seed, default=None,
                        help="training seed (default 0, or the variant's); report recipe-seeds "
                             "measures seeds 0-2 and commits the median")
    parser.add_argument("--variant", default=None, metavar="NAME",
                        help="a committed variant of the recipe (variants.json; dice-env "
                             "recipe-variants measures it)")
    parser.add_argument("--export", action="store_true",
                        help="write the last stage's model over the checkout's committed "
                             "agents/models/GAME.zip")
    parser.add_argument("--max-minutes", type=positive_float, default=None,
                        help="stop (with a checkpoint) after this long; run again to continue")
    parser.add_argument("--threads", type=threads, default=1,
                        help="torch threads (default 1)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a config override for every stage (a variant of the recipe: "
                             "give it its own --run-root); repeatable")
    parser.add_argument("--steps-scale", type=positive_float, default=None, metavar="F",
                        help="a variant with every stage's total times F (e.g. 0.5: half the "
                             "steps; give it its own --run-root)")
    parser.add_argument("--dry-run", action="store_true", help="only print the commands")
    parser.add_argument("--stages", type=Path, default=None, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> list[dict]:
    """Train (or continue) a game's stages; returns the summaries of the runs trained now."""
    from agents.paths import checkout_models_dir
    from agents.training.ppo.session import shown_path
    from agents.training.ppo.stages import (
        check_stage_configs,
        load_stages,
        run_stages,
        scaled,
        stages_file,
        with_overrides,
    )
    from agents.training.studies.recipe_variants import variant_stages

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        all_stages = load_stages(args.stages)
    except (OSError, ValueError) as err:  # JSONDecodeError is a ValueError
        parser.error(str(err))
    if args.game not in all_stages:
        parser.error(f"argument game: no stages for {args.game!r} in "
                     f"{args.stages or stages_file()}; known: {sorted(all_stages)}")
    export = None
    if args.export and (args.set or args.steps_scale or args.variant):
        parser.error("argument --export: a variant (--set, --steps-scale, --variant) is never "
                     "exported over the committed model")
    stages = all_stages[args.game]
    seed, run_root = args.seed, args.run_root
    if args.variant is not None:
        variant = _variant(parser, args.game, args.variant)
        if args.steps_scale and "steps_scale" in variant:
            parser.error("argument --steps-scale: the variant sets its own steps scale")
        stages = variant_stages(stages, variant)
        seed = variant.get("seed", 0) if seed is None else seed
        run_root = Path("runs") / "variants" / args.variant if run_root is None else run_root
    seed = 0 if seed is None else seed
    args.run_root = Path("runs") / "stages" if run_root is None else run_root
    try:
        stages = with_overrides(stages, args.set)
    except ValueError as err:
        parser.error(f"argument --set: {err}")
    if args.steps_scale:
        stages = scaled(stages, args.steps_scale)
    if args.export:
        try:
            export = Path(shown_path(checkout_models_dir() / f"{args.game}.zip"))
        except FileNotFoundError as err:
            parser.error(f"argument --export: {err}")
    try:
        check_stage_configs(args.game, stages)
    except ValueError as err:
        parser.error(str(err))
    if not args.dry_run:
        make_output_folders(parser, args)
    again = shlex.join([*shlex.split(command_renderer(prog, "train stages")([])), *argv])
    return run_stages(args.game, stages, args.run_root, seed=seed,
                      export=export, max_minutes=args.max_minutes, threads=args.threads,
                      dry_run=args.dry_run, command=command_renderer(None), again=again)
