"""Train a win-value player: P(win) of a multi-player Penta / Dice Poker match, played by exact
turn expectimax (``agents/training/win_value.py``).

The run writes ``model.pt`` and its learning curve ``model.curve.{csv,json}`` into ``--out``
(default ``runs/win-value-<GAME>-seed<SEED>/``, relative to the current directory), with a
checkpoint ``model.pt.ckpt`` after every layer: run the same command with ``--resume`` to
continue an interrupted run (Ctrl-C prints that command).  ``--export PATH`` writes the model
and curve at ``PATH`` too (``--export default``: ``win-value-<GAME>.pt`` in your models folder,
``$DICE_ENV_HOME/models`` or the platform's user data folder).  Play it with
``agents.make("win-value", GAME, model_path=PATH)``; one model serves every number of players
(2 to 6).  The committed models (``agents/models/``) are re-exported by ``dice-env report win``.

Example:
  dice-env train win-value penta --seed 0
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from agents.cli.args import (
    OneLineParser,
    at_least,
    command_parser,
    hidden_widths,
    make_output_folders,
    model_export,
    non_negative_seed,
    output_path,
    threads,
)

GAMES = ("penta", "dice-poker")


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env train win-value``."""
    from agents.training.win_value import TrainConfig

    d = TrainConfig()
    p = command_parser(__doc__, prog)
    p.add_argument("game", choices=GAMES, help="the game")
    p.add_argument("--seed", type=non_negative_seed, default=0,
                   help="seed of the samples and weights (default 0)")
    p.add_argument("--out", type=output_path, default=None,
                   help="run folder (default runs/win-value-<GAME>-seed<SEED>/)")
    p.add_argument("--export", type=model_export, default=None, metavar="PATH",
                   help="also write the model (and its curve) at PATH; 'default' means "
                        "win-value-<GAME>.pt in your models folder")
    p.add_argument("--resume", action="store_true",
                   help="continue the run folder's checkpoint (same settings)")
    p.add_argument("--states", type=at_least(100), default=d.states_per_layer,
                   help=f"turn starts sampled and solved per layer (default {d.states_per_layer})")
    p.add_argument("--steps", type=at_least(1), default=d.steps,
                   help=f"Adam steps per layer (default {d.steps})")
    p.add_argument("--hidden", type=hidden_widths, default=d.hidden,
                   help=f"hidden widths of each layer's MLP (default "
                        f"{','.join(map(str, d.hidden))})")
    p.add_argument("--threads", type=threads, default=1,
                   help="torch threads (default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Parse the arguments, train, write the outputs; returns the exit status (130 when
    interrupted: the checkpoint is kept and the command that resumes it printed)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    from agents.training.learned_value.files import export_path

    export = export_path(args.export, f"win-value-{args.game}")
    if export is not None and export.is_dir():
        parser.error(f"argument --export: {export} is a folder; give a file path such as "
                     f"win-value-{args.game}.pt")

    from agents.training.win_value import (
        TrainConfig,
        checkpoint_path,
        run_folder,
        train_run,
        write_outputs,
    )

    config = TrainConfig(game=args.game, seed=args.seed, hidden=args.hidden,
                         states_per_layer=args.states, steps=args.steps, threads=args.threads,
                         progress=not args.no_progress)
    out = args.out or run_folder(args.game, args.seed)
    if not args.resume and checkpoint_path(out / "model.pt").exists():
        parser.error(f"argument --out: {out} holds a checkpoint; add --resume to continue it, "
                     "or choose another --out")
    if args.resume and not checkpoint_path(out / "model.pt").exists():
        print(f"no checkpoint in {out}: starting a new run", file=sys.stderr)
    make_output_folders(parser, args)
    try:
        result, paths = train_run(config, out, resume=args.resume)
    except KeyboardInterrupt:
        from agents.cli.train import command_renderer

        again = command_renderer(prog, "train win-value")(
            argv + ([] if "--resume" in argv else ["--resume"]))
        print(f"\ninterrupted; the checkpoint after the last finished layer is kept. Resume "
              f"with:\n  {again}", file=sys.stderr)
        return 130
    except ValueError as exc:
        parser.error(str(exc))
    print(f"trained in {result.seconds:.0f} s; model {paths['model']}")
    if export is not None:
        print(f"exported to {write_outputs(result, export)['model']}")
    return 0
