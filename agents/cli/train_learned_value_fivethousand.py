"""Train the 5000 learned-value player (fitted value iteration): two players, or --players N.

Two players (default): writes ``model.pt`` and ``model.curve.{csv,json}`` under ``--out``
(default ``runs/learned-value-fivethousand-seed<SEED>/``) and, with ``--export PATH``, the same
model and curve at ``PATH``.  ``--players N`` (3 to 6): the N-player network, run folder
``runs/learned-value-fivethousand-<N>p-seed<SEED>/`` with its training checkpoint
``model.ckpt`` (``--resume`` continues it).  ``--export default`` writes
``learned-value-fivethousand.pt`` (N players: ``learned-value-fivethousand-<N>p.pt``) in your
models folder (``$DICE_ENV_HOME/models`` or the platform's user data folder); play it with
``agents.make("learned-value", "fivethousand", model_path=PATH)``.  This is the ``fivethousand``
part of ``dice-env train learned-value``.

Example:
  dice-env train learned-value fivethousand --players 3 --seed 0 --minutes 10
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    OneLineParser,
    at_least,
    between,
    command_parser,
    hidden_widths,
    make_output_folders,
    max_threads,
    model_export,
    non_negative_seed,
    output_path,
    positive_float,
)

#: options of the N-player trainer only
N_ONLY = ("states", "hidden", "resume")


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env train learned-value fivethousand``."""
    from agents.fivethousand.learned_value import MAX_N_PLAYERS
    from agents.training.learned_value.fivethousand import NTrainConfig, TrainConfig

    parser = command_parser(__doc__, prog or "dice-env train learned-value fivethousand")
    parser.add_argument("--players", type=between(2, MAX_N_PLAYERS), default=2,
                        help="players at the table: 2 (default) or 3 to 6 (an N-player model)")
    parser.add_argument("--seed", type=non_negative_seed, default=0,
                        help="seed of the initial weights (and, N players, of the states)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="run folder (default runs/learned-value-fivethousand-seed<seed>/, "
                             "N players runs/learned-value-fivethousand-<N>p-seed<seed>/)")
    parser.add_argument("--export", type=model_export, default=None, metavar="PATH",
                        help="also write the model here (and its curve next to it); 'default' "
                             "means learned-value-fivethousand.pt (N players: "
                             "learned-value-fivethousand-<N>p.pt) in your models folder")
    parser.add_argument("--minutes", type=positive_float, default=None,
                        help="wall-clock budget (default 10; N players 30, counting the time of "
                             "the resumed run)")
    parser.add_argument("--max-iterations", type=at_least(1), default=None,
                        help=f"fixed-point iterations at most (default "
                             f"{TrainConfig.max_iterations}; N players "
                             f"{NTrainConfig.max_iterations})")
    parser.add_argument("--fit-steps", type=at_least(1), default=None,
                        help=f"Adam steps per iteration (default {TrainConfig.fit_steps}; N "
                             f"players {NTrainConfig.fit_steps})")
    parser.add_argument("--final-steps", type=at_least(0), default=None,
                        help=f"steps of the final polishing fit (default "
                             f"{TrainConfig.final_steps}; N players {NTrainConfig.final_steps})")
    parser.add_argument("--states", type=at_least(1), default=None,
                        help=f"N players: states solved per iteration (default "
                             f"{NTrainConfig.states})")
    parser.add_argument("--hidden", type=hidden_widths, default=None,
                        help=f"N players: hidden widths (default "
                             f"{','.join(map(str, NTrainConfig.hidden))})")
    parser.add_argument("--resume", action="store_true",
                        help="N players: continue the run folder's checkpoint (model.ckpt)")
    parser.add_argument("--threads", default=1,
                        type=between(0, max_threads(), "a number of threads",
                                     ", the cores of this machine"),
                        help="torch threads (0: default)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Train a 5000 learned-value model and write it; returns the exit code (2 with a one-line
    message for bad arguments)."""
    from agents.fivethousand.learned_value import MAX_N_PLAYERS, MIN_N_PLAYERS
    from agents.training.learned_value import fivethousand as T
    from agents.training.learned_value.files import export_path

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    n = args.players
    if n != 2 and not MIN_N_PLAYERS <= n <= MAX_N_PLAYERS:
        parser.error(f"argument --players: must be 2 or {MIN_N_PLAYERS} to {MAX_N_PLAYERS}, "
                     f"got {n}")
    given = [name for name in N_ONLY if getattr(args, name) not in (None, False)]
    if n == 2 and given:
        parser.error(f"argument --{given[0]}: an option of the N-player trainer (--players 3 "
                     f"to {MAX_N_PLAYERS})")
    name = "learned-value-fivethousand" + ("" if n == 2 else f"-{n}p")
    out = args.out or Path("runs") / f"{name}-seed{args.seed}"
    export = export_path(args.export, name)
    if export is not None and export.is_dir():
        parser.error(f"argument --export: {export} is a folder; give a file path such as "
                     f"{name}.pt")
    make_output_folders(parser, args)
    defaults = T.TrainConfig() if n == 2 else T.NTrainConfig()
    max_it = defaults.max_iterations if args.max_iterations is None else args.max_iterations
    common = dict(seed=args.seed, max_iterations=max_it,
                  min_iterations=min(defaults.min_iterations, max_it),
                  fit_steps=defaults.fit_steps if args.fit_steps is None else args.fit_steps,
                  final_steps=(defaults.final_steps if args.final_steps is None
                               else args.final_steps),
                  threads=args.threads, progress=not args.no_progress)
    if n == 2:
        result = T.train(T.TrainConfig(minutes=10.0 if args.minutes is None else args.minutes,
                                       **common))
        paths = T.write_outputs(result, out / "model.pt")
        if export is not None:
            paths = T.write_outputs(result, export)
        last = result.curve[-1]
        print(f"trained in {result.seconds:.0f} s, {len(result.curve)} iterations; Bellman "
              f"residual {last['bellman_residual']:.2e}, W(0, 0) = {last['w_start']:.4f}; "
              f"model {paths['model']}")
        return 0
    config = T.NTrainConfig(
        num_players=n, minutes=defaults.minutes if args.minutes is None else args.minutes,
        states=defaults.states if args.states is None else args.states,
        hidden=defaults.hidden if args.hidden is None else args.hidden, **common)
    ckpt = out / "model.ckpt"
    if args.resume and not ckpt.is_file():
        print(f"no checkpoint at {ckpt}: starting a new run", file=sys.stderr)
    result_n = T.train_n(config, checkpoint=ckpt, resume=args.resume)
    paths = T.write_n_outputs(result_n, out / "model.pt")
    if export is not None:
        paths = T.write_n_outputs(result_n, export)
    last = result_n.curve[-1]
    w0 = ", ".join(f"{last[f'w_start_{k}']:.4f}" for k in range(n))
    print(f"trained {n} players in {result_n.seconds:.0f} s, {len(result_n.curve)} iterations; "
          f"Bellman RMS {last['bellman_rms']:.2e}, W(0, ..., 0) = ({w0}); model "
          f"{paths['model']} (resume with --resume --out {out})")
    return 0
