"""Train a MaskablePPO agent on a game's batched env; stop any time and ``--resume``.

Hyperparameters come from ``agents/training/ppo/configs/<GAME>.json`` (committed).  A run lives
in ``--run-dir`` (default ``runs/<GAME>-seed<SEED>``, relative to the current directory):
``checkpoint.pkl`` (the whole training state, written atomically between PPO updates),
``eval.csv`` (the learning curve: the policy evaluated on fixed games), ``logs/`` (SB3's CSV and
TensorBoard logs, a new ``logs/segment-<n>/`` for each session) and, once the run reaches its
total, ``final.zip`` (a stopped run has none: its latest weights are in the checkpoint, which
``agents.load(RUN_DIR, GAME)`` plays).

``--resume`` continues exactly where the last checkpoint left off -- the same numbers as an
uninterrupted run -- toward the total the run was started with (unless ``--timesteps`` says
otherwise; a run already at or past that total has nothing to train: it says so, ends there with
its final model -- and ``--export`` -- and exits 0).  Ctrl-C or SIGTERM finishes the current
rollout and update, writes the checkpoint, prints the command that resumes (runnable from the
current directory), and exits 0 (a second Ctrl-C aborts at once, exit status 130, saying what
the last checkpoint is or that there is none yet).  Training runs in whole rollouts
(``num_envs x n_steps`` steps), so a total is rounded up to the next whole rollout.
``--export PATH`` copies the final model of a finished run and its learning curve
(``agents.load(PATH, GAME)`` plays it).

The config's ``"trainer"`` picks the implementation: ``"sb3"`` (default; sb3-contrib's
MaskablePPO) or ``"lean"`` (the same algorithm and network, faster).  Its ``"policy"`` picks the
network: ``"mlp"`` (default) or ``"structured"`` (shared action heads over per-action features:
the configs ``penta-structured``, ``dice-poker-structured``, ``fivethousand-structured``), with
its options in ``policy_kwargs`` (``--set policy_kwargs.action_hidden=[64]``).  Either exports a
MaskablePPO ``.zip``.

The game's family says what the learning curve measures (its ``ppo_evaluation`` hook): the
mean final score of the scorecard games, the seat-balanced win rate against ``eval.opponent``
for 5000 and Pig (with ``"regret": true`` in ``eval``, the exact regret against the optimal
player too).  A config's ``"opponent"`` (one of the game's players: ``heuristic``,
``hold-20`` ...) sits at the other seats of a game played against bots.

Example:
  dice-env train pig --export agents/models/pig.zip
  dice-env train penta-structured --max-minutes 30
  dice-env train penta-structured --resume --export my-penta.zip
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.cli.args import (
    at_least,
    command_parser,
    make_output_folders,
    missing_folders,
    non_negative_seed,
    output_file,
    output_path,
    positive_float,
    threads,
)


def command_renderer(prog: str | None, name: str = "train") -> Callable[[Sequence[object]], str]:
    """How to show the user a command line of ``dice-env NAME`` (``name``: the command's full
    name, such as ``"train stages"``): ``PROG ARGS``, ``prog`` being the name it runs under
    (``dice-env train`` for ``dice-env train GAME``), by default ``dice-env NAME``."""
    words = shlex.split(prog) if prog else ["dice-env", *name.split()]
    return lambda args: shlex.join([*words, *map(str, args)])


def build_parser(prog: str | None = None):
    """The command line of ``dice-env train``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("game", help="a config name: penta, dice-poker, fivethousand, pig, "
                                     "penta-structured, ... (agents/training/ppo/configs/)")
    parser.add_argument("--config", type=Path, default=None, help="config file to use instead")
    parser.add_argument("--seed", type=non_negative_seed, default=0,
                        help="training seed (default %(default)s)")
    parser.add_argument("--timesteps", type=at_least(1), default=None,
                        help="total timesteps of the run (default: the config's, or for "
                             "--resume the total the run was started with); rounded up to "
                             "whole rollouts")
    parser.add_argument("--run-dir", type=output_path, default=None,
                        help="the run folder (default runs/GAME-seedSEED)")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    parser.add_argument("--export", type=output_file, default=None,
                        help="copy the final model here (and its learning curve beside it)")
    parser.add_argument("--init-from", type=Path, default=None,
                        help="start a new run from this model's weights (a curriculum stage)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=threads, default=None, help="torch threads")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--max-minutes", type=positive_float, default=None,
                        help="stop (with a checkpoint) after this long; --resume continues")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config entry, e.g. --set ppo.ent_coef=0.01 --set "
                             "shaping.upper_bonus=1 (VALUE is JSON; repeatable; a resumed run "
                             "keeps the settings it was started with)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict:
    """Train (or resume) one run; prints and returns its summary."""
    from agents.training.ppo.session import TrainOptions, open_session

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    options = TrainOptions(
        game=args.game, seed=args.seed, config=args.config, timesteps=args.timesteps,
        run_dir=args.run_dir, resume=args.resume, export=args.export, init_from=args.init_from,
        device=args.device, threads=args.threads, progress=not args.no_progress,
        max_minutes=args.max_minutes, overrides=tuple(args.set))
    missing = missing_folders(parser, args)  # (the session makes the run folder)
    try:
        session = open_session(options)
    except ValueError as err:
        parser.error(str(err))
    make_output_folders(parser, args, missing)
    summary = session.run(command_renderer(prog), start_args=argv)
    print(json.dumps(summary))
    return summary
