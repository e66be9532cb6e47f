"""Env steps per second of the PPO trainers and policies: MaskablePPO (SB3) and the lean one,
with the MLP policy and the structured one.

Each run trains a game's committed config (``agents/training/ppo/configs/<GAME>.json`` for the
MLP policy, ``<GAME>-structured.json`` for the structured policy of
:mod:`agents.policies.structured`; ``--num-envs`` and ``--threads`` applied to all), one rollout
plus one update per iteration.  After a warm-up iteration each run is timed for
``--iterations`` iterations, in alternating rounds (sb3, lean, lean structured, sb3, ...), and
the best round of each counts: all are measured in the same run, so the ratios are fair on a
shared, noisy machine even though the absolute rates are not.  "Per core" divides by the torch
threads; "cost / lean MLP" is the time per env step against the lean trainer's MLP policy (the
issue-28 budget for the structured policy: at most 1.5).  The share of the time spent in the
rollout (env steps plus forward passes) says whether the learner is the bottleneck.

``--profile`` adds, per game, where a lean iteration's time goes for each policy (microseconds
per env step in the env, the forward passes, the backward passes, the optimizer, the structured
policy's features) and, with ``--profile-ops N``, torch's profiler table of one update's top
``N`` operators.

Prints a table and one JSON line; ``--out DIR`` also writes ``trainer_speed.md`` / ``.json``
there (the documented full run is ``--out results``, from the checkout).

Example:
  dice-env bench trainer --games penta --iterations 1 --rounds 1
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Sequence

from agents.cli.args import (
    at_least,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_path,
    threads,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env bench trainer``."""
    from agents.training.bench import DEFAULT_RUNS, GAMES, RUNS

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", nargs="+", default=GAMES, choices=GAMES)
    parser.add_argument("--runs", nargs="+", default=DEFAULT_RUNS, choices=list(RUNS),
                        help="trainer-policy pairs to time (default: %(default)s)")
    parser.add_argument("--iterations", type=at_least(1), default=3,
                        help="timed iterations per round (default %(default)s)")
    parser.add_argument("--rounds", type=at_least(1), default=2,
                        help="alternating rounds per trainer (default %(default)s)")
    parser.add_argument("--num-envs", type=at_least(1), default=512,
                        help="batched envs of every run (default %(default)s)")
    parser.add_argument("--threads", type=threads, default=2,
                        help="torch threads (default %(default)s)")
    parser.add_argument("--seed", type=non_negative_seed, default=0,
                        help="training seed (default %(default)s)")
    parser.add_argument("--profile", action="store_true",
                        help="also profile one lean iteration of each policy by phase")
    parser.add_argument("--profile-ops", type=at_least(0), default=0, metavar="N",
                        help="with --profile: print torch's profiler table of one update's top N "
                             "operators")
    parser.add_argument("--roofline", action="store_true",
                        help="also measure the roofline of each lean structured run: FLOPs per "
                             "env step, the machine's matmul speed at the trainer's shapes in "
                             "float32 and bfloat16, each phase's efficiency")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--out", type=output_path, default=None,
                        help="write trainer_speed.md/.json here (documented: results)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> list[dict]:
    """Time the runs, print the table and a JSON line (and write them with ``--out``); returns
    the table's rows."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    make_output_folders(parser, args)
    import torch

    from agents.evaluation.reports.trainer_speed import (
        profile_markdown,
        roofline_markdown,
        to_markdown,
        write_report,
    )
    from agents.training.bench import measure, profile, roofline_of
    from agents.training.ppo.profiling import PHASES

    torch.set_num_threads(args.threads)
    rows = measure(args.games, args.runs, iterations=args.iterations, rounds=args.rounds,
                   num_envs=args.num_envs, threads=args.threads, seed=args.seed,
                   progress=not args.no_progress)
    profiles = {game: profile(game, args.runs, args.num_envs, args.seed, args.profile_ops)
                for game in args.games} if args.profile else {}
    meta = {"command": " ".join(["dice-env bench trainer", *argv]),
            "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
                       f"{torch.get_num_threads()} torch threads",
            "threads": args.threads, "num_envs": args.num_envs, "rounds": args.rounds,
            "iterations": args.iterations}
    rooflines = {game: roofline_of(game, args.runs, args.num_envs, args.seed, args.iterations)
                 for game in args.games} if args.roofline else {}
    text = to_markdown(rows, meta) + ("\n" + profile_markdown(profiles, PHASES)
                                      if profiles else "") \
        + ("\n" + roofline_markdown(rooflines) if rooflines else "")
    print(text)
    print(json.dumps({"rows": rows, "profiles": profiles, "rooflines": rooflines}))
    if args.out:
        write_report(args.out, text, rows, profiles, meta, rooflines)
    return rows
