"""Train a learned-value player (a turn-start value network played by exact turn expectimax).

Scorecard games (penta, dice-poker, the yahtzee presets) train by fitted value iteration
backwards over the number of filled boxes (``agents/training/learned_value/scorecard.py``); the
run writes ``model.pt`` and its learning curve ``model.curve.{csv,json}`` into ``--out``
(default ``runs/learned-value-<GAME>-seed<SEED>/``), and ``--export PATH`` writes the same model
and curve at ``PATH`` too (``--export default``: ``learned-value-<GAME>.pt`` in your models
folder, ``$DICE_ENV_HOME/models`` or the platform's user data folder).  Play it with
``agents.make("learned-value", GAME, model_path=PATH)``.  ``fivethousand`` takes its own
options (``dice-env train learned-value fivethousand --help``).

Example:
  dice-env train learned-value penta --seed 0 --minutes 5 --export default
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    OneLineParser,
    at_least,
    command_parser,
    hidden_widths,
    make_output_folders,
    model_export,
    non_negative_seed,
    output_path,
    positive_float,
    threads,
)
from dice_env.scorecard.rules import PRESETS

#: every scorecard preset
SCORECARD_GAMES = tuple(PRESETS)
FIVE_THOUSAND = "fivethousand"


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env train learned-value`` (scorecard games)."""
    from agents.training.learned_value.scorecard import TrainConfig

    d = TrainConfig()
    p = command_parser(__doc__, prog)
    p.add_argument("game", help=f"one of {', '.join(SCORECARD_GAMES + (FIVE_THOUSAND,))} "
                                "(fivethousand takes its own options: fivethousand --help)")
    p.add_argument("--seed", type=non_negative_seed, default=0,
                   help="seed of the states, games and weights")
    p.add_argument("--out", type=output_path, default=None,
                   help="run folder (default runs/learned-value-<GAME>-seed<SEED>/)")
    p.add_argument("--export", type=model_export, default=None, metavar="PATH",
                   help="also write the model (and its curve) at PATH; 'default' means "
                        "learned-value-<GAME>.pt in your models folder")
    p.add_argument("--minutes", type=positive_float, default=10.0,
                   help="wall-clock budget: refinement passes that would not fit are skipped "
                        "(the backward sweep always completes; default 10)")
    p.add_argument("--states", type=at_least(1), default=d.states_per_layer,
                   help=f"states sampled per layer (default {d.states_per_layer})")
    p.add_argument("--steps", type=at_least(1), default=d.steps,
                   help=f"Adam steps per layer in the backward sweep (default {d.steps})")
    p.add_argument("--refine-passes", type=at_least(0), default=d.refine_passes,
                   help=f"on-policy refinement passes (default {d.refine_passes})")
    p.add_argument("--refine-games", type=at_least(0), default=d.refine_games,
                   help=f"games per refinement pass (default {d.refine_games})")
    p.add_argument("--refine-steps", type=at_least(0), default=d.refine_steps,
                   help=f"Adam steps per layer in a refinement pass (default {d.refine_steps})")
    p.add_argument("--hidden", type=hidden_widths, default=d.hidden,
                   help=f"hidden widths of each layer's MLP (default "
                        f"{','.join(map(str, d.hidden))})")
    p.add_argument("--threads", type=threads, default=d.threads,
                   help=f"torch threads (default {d.threads}: fastest for these small nets)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Parse the arguments, train, write the outputs; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == FIVE_THOUSAND:
        from agents.cli.train_learned_value_fivethousand import main as fivethousand_main

        return fivethousand_main(argv[1:], prog=f"{prog or 'dice-env train learned-value'} "
                                                f"{FIVE_THOUSAND}")
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.game not in SCORECARD_GAMES:
        parser.error(f"argument game: unknown game {args.game!r}; choose from "
                     f"{', '.join(SCORECARD_GAMES + (FIVE_THOUSAND,))}")
    if args.refine_passes and not (args.refine_games and args.refine_steps):
        parser.error("refinement passes need --refine-games and --refine-steps above 0")
    from agents.training.learned_value.files import export_path

    export = export_path(args.export, f"learned-value-{args.game}")
    if export is not None and export.is_dir():
        parser.error(f"argument --export: {export} is a folder; give a file path such as "
                     f"learned-value-{args.game}.pt")

    from agents.training.learned_value.scorecard import TrainConfig, train, write_outputs

    config = TrainConfig(game=args.game, seed=args.seed, hidden=args.hidden,
                         states_per_layer=args.states, steps=args.steps,
                         refine_passes=args.refine_passes, refine_games=args.refine_games,
                         refine_steps=args.refine_steps, max_minutes=args.minutes,
                         threads=args.threads, progress=not args.no_progress)
    make_output_folders(parser, args)
    out = args.out or Path("runs") / f"learned-value-{args.game}-seed{args.seed}"
    result = train(config)
    paths = write_outputs(result, out / "model.pt")
    if export is not None:
        paths = write_outputs(result, export)
    games = [r for r in result.curve if r["layer"] == "all"]
    score = (f"; self-play {games[-1]['mean_score']:.2f} ± {games[-1]['score_se']:.2f} "
             f"over {games[-1]['games']} games" if games else "")
    print(f"trained {args.game} in {result.seconds:.0f} s, "
          f"{result.curve[-1]['states_solved']:,} turn states solved{score}; "
          f"model {paths['model']}")
    return 0
