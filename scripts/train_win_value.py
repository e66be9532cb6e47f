#!/usr/bin/env python
"""Train a win-value player: P(win) of a multi-player Penta / Dice Poker match, played by
exact turn expectimax (``agents/training/win_value.py``).

The run writes ``model.pt`` and its learning curve ``model.curve.{csv,json}`` into ``--out``
(default ``runs/win-value-<GAME>-seed<SEED>/``), with a checkpoint ``model.pt.ckpt`` after
every layer: run the same command with ``--resume`` to continue an interrupted run.
``--export PATH`` writes the model and curve at ``PATH`` too (``--export default``:
``results/models/win-value-<GAME>.pt``, where ``agents.make("win-value", GAME)`` finds it).
One model serves every number of players (2 to 6).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli_args import OneLineParser, at_least, hidden_widths  # noqa: E402

GAMES = ("penta", "dice-poker")


def build_parser() -> argparse.ArgumentParser:
    from agents.training.win_value import TrainConfig

    d = TrainConfig()
    p = OneLineParser(prog="train_win_value.py", description=__doc__.splitlines()[0],
                epilog="Output: --out folder (default runs/win-value-<GAME>-seed<SEED>/); "
                       "results/models/ only with --export.")
    p.add_argument("game", choices=GAMES, help="the game")
    p.add_argument("--seed", type=int, default=0, help="seed of the samples and weights")
    p.add_argument("--out", type=Path, default=None,
                   help="run folder (default runs/win-value-<GAME>-seed<SEED>/)")
    p.add_argument("--export", default=None, metavar="PATH",
                   help="also write the model (and its curve) at PATH; 'default' means "
                        "results/models/win-value-<GAME>.pt")
    p.add_argument("--resume", action="store_true",
                   help="continue the run folder's checkpoint (same settings)")
    p.add_argument("--states", type=at_least(100), default=d.states_per_layer,
                   help=f"turn starts sampled and solved per layer (default {d.states_per_layer})")
    p.add_argument("--steps", type=at_least(1), default=d.steps,
                   help=f"Adam steps per layer (default {d.steps})")
    p.add_argument("--hidden", type=hidden_widths, default=d.hidden,
                   help=f"hidden widths of each layer's MLP (default "
                        f"{','.join(map(str, d.hidden))})")
    p.add_argument("--threads", type=at_least(1), default=1,
                   help="torch threads (default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, train, write the outputs; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} exists and is not a folder")
    if args.export not in (None, "default") and Path(args.export).is_dir():
        parser.error(f"--export {args.export} is a folder; give a file path such as "
                     f"results/models/win-value-{args.game}.pt")

    from agents.scorecard.learned_value import rules_of
    from agents.scorecard.win_value import default_model_path
    from agents.training.win_value import TrainConfig, train, write_outputs

    config = TrainConfig(game=args.game, seed=args.seed, hidden=args.hidden,
                         states_per_layer=args.states, steps=args.steps, threads=args.threads,
                         progress=not args.no_progress)
    out = args.out or Path("runs") / f"win-value-{args.game}-seed{args.seed}"
    out.mkdir(parents=True, exist_ok=True)
    model_path = out / "model.pt"
    if not args.resume and Path(f"{model_path}.ckpt").exists():
        parser.error(f"{out} holds a checkpoint; add --resume to continue it, or choose "
                     "another --out")
    try:
        result = train(config, out=model_path, resume=args.resume)
    except KeyboardInterrupt:
        again = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
        if "--resume" not in sys.argv:
            again += " --resume"
        print(f"\ninterrupted; the checkpoint after the last finished layer is kept. Resume "
              f"with:\n  {again}", file=sys.stderr)
        return 130
    except ValueError as exc:
        parser.error(str(exc))
    paths = write_outputs(result, model_path)
    Path(f"{model_path}.ckpt").unlink(missing_ok=True)  # the run is complete: nothing to resume
    print(f"trained in {result.seconds:.0f} s; model {paths['model']}")
    if args.export is not None:
        target = (default_model_path(rules_of(args.game)) if args.export == "default"
                  else Path(args.export))
        exported = write_outputs(result, target)
        print(f"exported to {exported['model']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
