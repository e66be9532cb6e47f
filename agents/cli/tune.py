"""Ray Tune sweeps of the lean PPO trainer: several seeds and/or a grid of config overrides.

Each trial is one run of ``dice-env train``'s training (the lean trainer, so configs with
``"trainer": "lean"``, such as the committed ``penta`` and ``dice-poker``) in its own run folder
``<runs>/trials/<grid point>/seed<SEED>/``, with the same files as a ``dice-env train`` run:
``checkpoint.pkl``, ``eval.csv`` (the learning curve on the config's fixed evaluation games) and
``final.zip``.  Every checkpoint is also handed to Tune, so that a trial whose worker dies (a
crash, a lost node) is restarted by Tune (``--max-failures``) and continues from its last
checkpoint -- the run folder's, or Tune's copy on another node -- instead of starting over.
Running the same command again continues an interrupted sweep the same way (a finished trial is
not trained again).

``--seeds N`` runs seeds ``--first-seed`` .. ``+N-1`` of every grid point; ``--grid KEY=V1,V2``
(repeatable; the grid is the product of all of them) and ``--set KEY=VALUE`` (every trial) take
``dice-env train``'s override syntax (values are JSON).  The results -- each trial's final
evaluation, timesteps, training and wall-clock seconds, restarts; and per grid point the mean
and range across seeds -- go to ``tune.md``, ``tune_trials.csv`` and ``tune_points.csv`` in
``--out`` (default ``runs/tune/<name>/``, where the trial runs and Tune's own state also live;
the committed ``results/`` only with an explicit ``--out results``, and then the runs stay under
``runs/tune/<name>/``).  Paths are relative to the current directory.

Ray runs locally by default (``--num-cpus``); ``--address auto`` (or ``ray://HOST:10001``) joins
a running cluster, whose every node needs dice-env installed (``pip install "dice-env[train,
ray]"``) and, for restarts on another node, a shared ``--storage``.  Exit status 1 when a trial
did not finish (run the same command again to continue it).

Example:
  dice-env train tune penta --seeds 3 --timesteps 200000 --grid ppo.ent_coef=0.003,0.01
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    at_least,
    between,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_path,
    workers,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env train tune``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("game", help="a config name (penta, dice-poker) with the lean trainer")
    parser.add_argument("--config", type=Path, default=None, help="config file to use instead")
    parser.add_argument("--seeds", type=between(1, 1000), default=3,
                        help="seeds per grid point (default %(default)s)")
    parser.add_argument("--first-seed", type=non_negative_seed, default=0,
                        help="the first seed (default %(default)s)")
    parser.add_argument("--timesteps", type=at_least(1), default=None,
                        help="timesteps per trial (default: the config's), rounded up to whole "
                             "rollouts")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config entry in every trial (as dice-env train; "
                             "repeatable)")
    parser.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2",
                        help="a config entry to sweep (VALUEs are JSON; repeatable: the grid is "
                             "the product)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="where the tables go (default runs/tune/<name>)")
    parser.add_argument("--name", default=None,
                        help="the sweep's name (default: <game>-<hash of the settings>)")
    parser.add_argument("--num-cpus", type=workers(), default=None,
                        help="CPUs of the local Ray (default: all); ignored with --address")
    parser.add_argument("--cpus-per-trial", type=workers(), default=1,
                        help="CPUs (and torch threads) per trial (default %(default)s)")
    parser.add_argument("--max-failures", type=at_least(0), default=3,
                        help="restarts of a trial whose worker fails (default %(default)s)")
    parser.add_argument("--address", default=None,
                        help="join this Ray cluster (e.g. auto, ray://HOST:10001) instead of "
                             "starting a local one")
    parser.add_argument("--storage", default=None,
                        help="Tune's storage (default <runs>/ray); a cluster needs a shared or "
                             "cloud path for restarts on another node")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run the sweep, write and print its tables; returns the exit status (1 when a trial did
    not finish)."""
    from agents.evaluation.reports.tune import to_markdown, write_tables
    from agents.training.ray.tune import (
        INSTALL_HINT,
        SweepSettings,
        default_name,
        plan_trials,
        require_ray,
        run_sweep,
        summarize,
    )

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.name is not None and not re.fullmatch(r"[A-Za-z0-9._-]+", args.name):
        parser.error(f"argument --name: {args.name!r}: use letters, digits, '.', '_' and '-' "
                     "only")
    settings = SweepSettings(args.game, args.config, tuple(args.set), tuple(args.grid),
                             args.seeds, args.first_seed, args.timesteps)
    adhoc = Path("runs") / "tune" / (args.name or default_name(settings))
    out = args.out if args.out is not None else adhoc
    runs = adhoc if out.resolve() == Path("results").resolve() else out
    try:
        trials = plan_trials(settings, runs, args.cpus_per_trial)
    except ValueError as err:
        parser.error(str(err))
    try:
        ray_version = require_ray()
    except ImportError:
        parser.error(f"tune needs Ray: {INSTALL_HINT}")
    make_output_folders(parser, args)
    totals = sorted({t["total"] for t in trials})
    print(f"{len(trials)} trials ({len(trials) // args.seeds} grid points x {args.seeds} seeds) "
          f"of {' / '.join(f'{t:,}' for t in totals)} timesteps; runs in {runs}/trials, tables "
          f"in {out}", flush=True)
    clock = time.perf_counter()
    results = run_sweep(trials, args.storage or str((runs / "ray").resolve()),
                        cpus_per_trial=args.cpus_per_trial, max_failures=args.max_failures,
                        address=args.address, num_cpus=args.num_cpus)
    rows, points = summarize(trials, results)
    config = trials[0]["config"]
    meta = {"command": shlex.join(["dice-env", "train", "tune", *argv]),
            "game": args.game, "trials": len(trials), "seeds": args.seeds,
            "total_timesteps": " / ".join(f"{t:,}" for t in totals), "ray": ray_version,
            "cpus_per_trial": args.cpus_per_trial, "max_failures": args.max_failures,
            "wall_seconds": time.perf_counter() - clock,
            "eval_games": config["eval"]["games"], "eval_seed": config["eval"]["seed"]}
    paths = write_tables(out, rows, points, meta)
    print(to_markdown(rows, points, meta))
    print("wrote " + ", ".join(str(p) for p in paths))
    unfinished = [r for r in rows if r["status"] != "done"]
    if unfinished:
        print(f"{len(unfinished)} of {len(rows)} trials did not finish; run the same command "
              "again to continue them from their checkpoints", file=sys.stderr)
    return 1 if unfinished else 0
