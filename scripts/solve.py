"""Solve a game exactly and report its optimal expected score.

Examples::

    python scripts/solve.py penta                 # human-readable summary
    python scripts/solve.py dice-poker --json     # one JSON line per game
    python scripts/solve.py all --force           # re-solve every preset, overwrite the cache
    python scripts/solve.py penta --no-cache      # solve in memory only (timing runs)

The solved table is cached on disk (``--cache-dir``, else ``$DICE_ENV_CACHE``, else the user
cache folder); a later run, and every optimal agent, loads it.

JSON fields: ``game``, ``expected_score``, ``seconds`` (wall time this run spent getting the
table: building the rule tables, loading -- or the first time compiling -- the numba kernels
and the DP; or reading the cache), ``peak_mb`` (peak resident memory of the process),
``source`` (``solved`` / ``cache``), ``cache_path``, ``threads``; after a solve the breakdown
``prepare_seconds``, ``compile_seconds``, ``dp_seconds`` and ``states``; from the cache
``solved_seconds`` (how long the stored solve took) and ``solved_at`` (when: the local time
the cached table was written, by an earlier run); ``wall_seconds`` since the script started
(imports included).
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from datetime import datetime  # noqa: E402
from pathlib import Path  # noqa: E402


def solve_scorecard_game(game: str, args: argparse.Namespace) -> dict:
    """Solve (or load) one scorecard preset; the result record."""
    import numba

    from agents.solvers.cache import peak_memory_mb
    from agents.solvers.scorecard_dp import load_or_solve_scorecard

    if args.threads:
        numba.set_num_threads(args.threads)
    t0 = time.perf_counter()
    sol = load_or_solve_scorecard(game, cache_dir=args.cache_dir, use_cache=not args.no_cache,
                                  force=args.force, progress=args.progress)
    elapsed = time.perf_counter() - t0
    record = {
        "game": game,
        "expected_score": round(sol.expected_score, 6),
        "seconds": round(elapsed, 3),
        "peak_mb": round(peak_memory_mb(), 1),
        "source": sol.source,
        "cache_path": str(sol.cache_path) if sol.cache_path else None,
        "threads": numba.get_num_threads(),
    }
    if sol.source == "cache":
        record["solved_seconds"] = round(sol.seconds, 3)
    else:
        t = sol.timings
        record.update(prepare_seconds=round(t["prepare"], 3),
                      compile_seconds=round(t["compile"], 3),
                      dp_seconds=round(t["layers"], 3), states=t["states"])
    return record


def _scorecard_solvers() -> dict[str, Callable[[str, argparse.Namespace], dict]]:
    from dice_env.scorecard.rules import PRESETS

    return {name: solve_scorecard_game for name in PRESETS}


def solve_fivethousand_game(game: str, args: argparse.Namespace) -> dict:
    """Two-player win probability and solo fewest turns of 5000 (both solves, cached)."""
    from agents.solvers.fivethousand_vi import solve_fivethousand_summary

    return solve_fivethousand_summary(cache_dir=args.cache_dir, force=args.force,
                                      use_cache=not args.no_cache,
                                      threads=args.threads or None, progress=args.progress)


def solvers() -> dict[str, Callable[[str, argparse.Namespace], dict]]:
    """Game name -> solver.  Each game family registers its games here."""
    table = {}
    table.update(_scorecard_solvers())
    table["fivethousand"] = solve_fivethousand_game
    return table


def solved_at(paths: list[str]) -> str | None:
    """When the cached tables at ``paths`` were written (the latest; local time, to the
    minute), or ``None`` if none can be read."""
    times = []
    for path in paths:
        try:
            times.append(Path(path).stat().st_mtime)
        except OSError:
            pass
    return datetime.fromtimestamp(max(times)).isoformat(" ", "minutes") if times else None


def describe(record: dict) -> str:
    """The human-readable lines of one result record."""
    if record["game"] == "fivethousand":
        from agents.solvers.fivethousand_vi import describe_fivethousand

        return describe_fivethousand(record)
    lines = [f"{record['game']}: optimal expected score {record['expected_score']:.4f}"]
    if record["source"] == "cache":
        when = f"on {record['solved_at']}, " if record.get("solved_at") else ""
        lines.append(f"  not solved in this run: loaded in {record['seconds']:.2f} s from the "
                     f"cache, solved earlier ({when}in {record['solved_seconds']:.2f} s; "
                     "--force to solve it again)")
    else:
        lines.append(
            f"  solved now, in {record['seconds']:.2f} s: tables "
            f"{record['prepare_seconds']:.2f} s, numba kernels {record['compile_seconds']:.2f} s, "
            f"DP {record['dp_seconds']:.2f} s over {record['states']:,} states on "
            f"{record['threads']} thread(s)")
    lines.append(f"  peak memory {record['peak_mb']:.0f} MB")
    if record.get("cache_path"):
        lines.append(f"  table: {record['cache_path']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    table = solvers()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"games: {', '.join(sorted(table))}, or 'all'")
    parser.add_argument("game", metavar="GAME", help="the game to solve, or 'all'")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON line per game instead of a summary")
    parser.add_argument("--cache-dir", default=None,
                        help="cache folder (default: $DICE_ENV_CACHE, else the user cache)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the cache (always solves)")
    parser.add_argument("--force", action="store_true",
                        help="solve even if cached, and overwrite the cached table")
    parser.add_argument("--threads", type=int, default=None,
                        help="numba threads, at least 1 (default: all cores)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        parser.error(f"--threads must be at least 1 (leave it out for all cores), got "
                     f"{args.threads}")
    if args.game == "all":
        games = sorted(table)
    elif args.game in table:
        games = [args.game]
    else:
        parser.error(f"unknown game {args.game!r}; choose from {', '.join(sorted(table))} "
                     "or 'all'")
    args.progress = not args.quiet and sys.stderr.isatty()
    for game in games:
        record = table[game](game, args)
        if record["source"] == "cache":
            record["solved_at"] = solved_at(record.get("cache_paths") or [record["cache_path"]])
        record["wall_seconds"] = round(time.perf_counter() - _T_START, 3)
        print(json.dumps(record) if args.json else describe(record), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
