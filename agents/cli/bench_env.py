"""Steps per second of the environments, random legal actions (mask handling included).

Measures, for each env id: the single env in a Python loop as users get it from
``gymnasium.make`` (its default wrappers included) and without them (``.unwrapped``),
``gymnasium.vector.SyncVectorEnv`` of the single env, and the natively batched env at several
batch sizes; and the PettingZoo AEC envs stepped through ``env.last()`` / ``env.step``.
``CartPole-v1`` is measured alongside as the reference: each env's single-env figure is also
given as a multiple of CartPole's, measured the same way in the same run, the two timed in turn
(CartPole, the env, CartPole, ...) so that a change of load on a shared machine hits both.
Every number of one run is measured in that run (each figure is the best of ``--repeats``
timings).  Each env runs in this one process and thread: the per-core figures divide the steps
by the process's CPU time instead of the wall-clock time (they match the per-process figures on
an idle machine).  Prints a table and one JSON line; writes ``env_speed.md`` and
``env_speed.json`` (atomically) into the output folder: ``results/`` for the documented full
run (every argument at its default), else ``runs/bench_env/`` unless ``--out`` says where
(paths relative to the current directory).

Example:
  dice-env bench env --ids dice_env/Penta-v0 --sizes 64 --repeats 1
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    at_least,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_folder,
    output_path,
)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env bench env``."""
    from agents.evaluation.env_speed import AEC_ENVS, DEFAULT_IDS, DEFAULT_SIZES, REFERENCE_ID

    parser = command_parser(__doc__, prog)
    parser.add_argument("--ids", nargs="*", default=DEFAULT_IDS,
                        help=f"env ids to measure ({REFERENCE_ID}, the reference, is always "
                             "measured)")
    parser.add_argument("--aec", nargs="*", default=list(AEC_ENVS), choices=list(AEC_ENVS),
                        help="PettingZoo AEC envs to measure (" + "; ".join(
                            f"{k}: {v[0]}" for k, v in AEC_ENVS.items()) + ")")
    parser.add_argument("--sizes", nargs="+", type=at_least(1), default=DEFAULT_SIZES,
                        help="batch sizes of the batched env")
    parser.add_argument("--steps", type=at_least(1), default=400_000,
                        help="env steps per batched measurement")
    parser.add_argument("--single-steps", type=at_least(1), default=5_000,
                        help="steps per single-env, AEC and SyncVectorEnv measurement")
    parser.add_argument("--repeats", type=at_least(1), default=3,
                        help="timings per figure (best kept)")
    parser.add_argument("--seed", type=non_negative_seed, default=0)
    parser.add_argument("--out", type=output_path, default=None,
                        help="folder of env_speed.md / env_speed.json (default: results/ for "
                             "the documented full run, runs/bench_env/ otherwise; '' is the "
                             "current folder)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict:
    """Measure the envs, write the report; returns the results."""
    from agents.evaluation.env_speed import known_ids, measure_env_speed, unknown_ids
    from agents.evaluation.reports.env_speed import write_env_speed

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    unknown = unknown_ids(args.ids)
    if unknown:
        parser.error(f"argument --ids: unknown env id {', '.join(map(repr, unknown))} (known: "
                     f"{', '.join(known_ids())}, or any other registered Gymnasium id)")
    make_output_folders(parser, args)
    out = output_folder(parser, args, Path("runs") / "bench_env")
    results = measure_env_speed(args.ids, args.aec, args.sizes, args.steps, args.single_steps,
                                args.repeats, args.seed)
    write_env_speed(out, results)
    print(json.dumps(results))
    return results
