"""Train RLlib's PPO with action masking on a game's env, and time it against our lean trainer.

RLlib's new API stack on the game's single Gymnasium env (the training config
``agents/training/ppo/configs/<GAME>.json``: ``env_id``, ``env_kwargs``, the 5000
``opponent``), created with ``illegal_action="raise"`` (an illegal action stops the run) and
with the masks in a ``Dict`` observation; the policy is RLlib's example
``ActionMaskingTorchRLModule`` with the config's network and PPO settings
(:mod:`agents.training.ray.rllib` says how they map).  The config's reward shaping is not
applied.

Every iteration samples ``--train-batch`` env steps (default: the config's rollout, ``num_envs x
n_steps``) with ``--num-env-runners`` runners (0: in this process) of ``--envs-per-runner``
envs each, then updates.  At the end (scorecard games) the deterministic policy plays the
config's fixed evaluation games, as ``dice-env train`` evaluates; ``--lean-iterations``
iterations of our lean trainer (as ``dice-env bench trainer`` times it) run in the same process
for the steps/s comparison.  Writes ``rllib.md`` / ``.json`` / ``.csv`` (per iteration) and
RLlib's checkpoint ``checkpoint/`` to ``--out`` (default ``runs/rllib/<GAME>``, relative to the
current directory).  ``--address auto`` uses a running Ray cluster.  Needs the ``ray`` extra.

Example:
  dice-env train rllib penta --timesteps 200000
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    at_least,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_path,
    threads,
    workers,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env train rllib``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("game", help="a config name: penta, dice-poker, fivethousand")
    parser.add_argument("--config", type=Path, default=None, help="config file to use instead")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config entry (as dice-env train; repeatable)")
    parser.add_argument("--seed", type=non_negative_seed, default=0,
                        help="seed of RLlib and the envs (default %(default)s)")
    parser.add_argument("--timesteps", type=at_least(1), default=200_000,
                        help="train until this many env steps are sampled (default "
                             "%(default)s)")
    parser.add_argument("--train-batch", type=at_least(1), default=None,
                        help="env steps per iteration (default: the config's num_envs x n_steps)")
    parser.add_argument("--num-env-runners", type=workers(0), default=0,
                        help="RLlib env runners (0: sample in this process; default "
                             "%(default)s)")
    parser.add_argument("--envs-per-runner", type=at_least(1), default=64,
                        help="envs per env runner (default %(default)s)")
    parser.add_argument("--threads", type=threads, default=None,
                        help="torch threads (default: torch's)")
    parser.add_argument("--lean-iterations", type=at_least(0), default=2,
                        help="timed iterations of our lean trainer for the comparison (0: "
                             "skip; default %(default)s)")
    parser.add_argument("--num-cpus", type=workers(), default=None,
                        help="CPUs of the local Ray (default: all); ignored with --address")
    parser.add_argument("--address", default=None, help="join this Ray cluster (e.g. auto)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default runs/rllib/<GAME>)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict:
    """Train, evaluate, time, write the report; returns the run's summary."""
    from agents.evaluation.reports.rllib import to_markdown, write_report
    from agents.training.ppo.session import checked_config
    from agents.training.ray.rllib import (
        INSTALL_HINT,
        RLlibSettings,
        ppo_config,
        require_rllib,
        train_and_time,
    )

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        config = checked_config(args.game, args.config, args.set)
        config.setdefault("game", args.game)
    except ValueError as err:
        parser.error(str(err))
    settings = RLlibSettings(seed=args.seed, timesteps=args.timesteps,
                             train_batch=args.train_batch,
                             num_env_runners=args.num_env_runners,
                             envs_per_runner=args.envs_per_runner, address=args.address,
                             num_cpus=args.num_cpus)
    try:
        require_rllib()
    except ImportError:
        parser.error(f"train-rllib needs Ray with RLlib: {INSTALL_HINT}")
    try:
        algo_config = ppo_config(args.game, config, settings)
    except ImportError as err:
        parser.error(f"RLlib does not import ({err}): {INSTALL_HINT}")
    except (KeyError, TypeError, ValueError) as err:
        parser.error(f"config: {err}")
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    make_output_folders(parser, args)
    out = args.out or Path("runs") / "rllib" / args.game
    summary, rows = train_and_time(
        args.game, config, settings, algo_config, out / "checkpoint",
        lean_iterations=args.lean_iterations,
        command=shlex.join(["dice-env", "train", "rllib", *argv]))
    write_report(out, summary, rows)
    print(to_markdown(summary))
    print(f"wrote {out}/rllib.md, rllib.json, rllib.csv and checkpoint/")
    return summary
