#!/usr/bin/env python
"""The main job: reproduce the benchmark tables of ``results/``.

``--quick`` (default, a few minutes): solve every scorecard preset exactly (and 5000 when its
solver is installed), then evaluate every agent on every game with a modest number of games;
tables go to ``results/quick/`` so the committed full-size tables stay untouched.
``--full``: the same with the full game counts, plus the optimal-play report, the exact-regret
report, the 5000 threshold sweep and the environment speed benchmark, written to ``results/``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_env  # noqa: E402
import evaluate  # noqa: E402
import optimal_report  # noqa: E402
import regret_report  # noqa: E402
import solve  # noqa: E402
import sweep_thresholds  # noqa: E402
from _cli_args import at_least  # noqa: E402

QUICK = {"games": 2000, "fivethousand_games": 4000, "out": ROOT / "results" / "quick"}
FULL = {"games": 20000, "fivethousand_games": 40000, "out": ROOT / "results"}


def stage(name: str):
    print(f"\n== {name} ==", flush=True)
    return time.perf_counter()


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the quick reproduction (default)")
    mode.add_argument("--full", action="store_true", help="everything, full game counts")
    parser.add_argument("--games", type=at_least(1), default=None,
                        help="override the game count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="output folder")
    args = parser.parse_args(argv)
    cfg = dict(FULL if args.full else QUICK)
    if args.games:
        cfg["games"] = cfg["fivethousand_games"] = args.games
    out = args.out or cfg["out"]
    if args.out is None and (args.games or args.seed != 0):  # not the documented runs
        out = ROOT / "runs" / ("reproduce-full" if args.full else "reproduce-quick")
        print(f"--games / --seed changed: writing {out}/ instead of {cfg['out']}/ (pass --out "
              "to choose)", file=sys.stderr)
    timings = {}

    t = stage("exact solves")
    solve.main(["all", "--quiet"])
    timings["solve"] = time.perf_counter() - t

    t = stage(f"evaluation ({cfg['games']} scorecard games, {cfg['fivethousand_games']} "
              "5000 games per pairing)")
    evaluate.main(["--games", str(cfg["games"]), "--fivethousand-games",
                   str(cfg["fivethousand_games"]), "--seed", str(args.seed), "--out", str(out)])
    timings["evaluate"] = time.perf_counter() - t

    if args.full:
        t = stage("optimal-play report")
        optimal_report.main(["--out-dir", str(out), "--seed", str(args.seed)])
        timings["optimal_report"] = time.perf_counter() - t
        t = stage("exact regret of every player")
        regret_report.main(["--out", str(out), "--seed", str(args.seed)])
        timings["regret_report"] = time.perf_counter() - t
        t = stage("5000 threshold sweep")
        sweep_thresholds.main(["--seed", str(args.seed), "--out", str(out)])
        timings["sweep"] = time.perf_counter() - t
        t = stage("environment speed")
        bench_env.main(["--out", str(out)])
        timings["bench_env"] = time.perf_counter() - t

    summary = {"mode": "full" if args.full else "quick", "out": str(out),
               "seconds": {k: round(v, 1) for k, v in timings.items()}}
    print(f"\nTables written to {out}/ (benchmark.md, benchmark.csv)")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
