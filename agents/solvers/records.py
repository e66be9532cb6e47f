"""The records of ``dice-env solve``: a game solved (or loaded from the cache), with its timings.

:func:`solve_record` returns the JSON record of one game (the line ``dice-env solve GAME --json``
prints, less ``wall_seconds``, which the command adds), :func:`describe` its human-readable
lines.  Every scorecard preset and ``"fivethousand"`` can be solved (:func:`solvable_games`).

Record fields: ``game``, ``expected_score``, ``seconds`` (wall time spent getting the table:
building the rule tables, loading -- or the first time compiling -- the numba kernels and the
DP; or reading the cache), ``peak_mb`` (peak resident memory of the process), ``source``
(``solved`` / ``cache``), ``cache_path``, ``threads``; after a solve the breakdown
``prepare_seconds``, ``compile_seconds``, ``dp_seconds`` and ``states``; from the cache
``solved_seconds`` (how long the stored solve took) and ``solved_at`` (when: the local time the
cached table was written).  5000's record is :func:`~agents.solvers.fivethousand_vi.
solve_fivethousand_summary`'s.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

FIVE_THOUSAND = "fivethousand"


def solve_scorecard_record(game: str, *, cache_dir: str | os.PathLike | None = None,
                           use_cache: bool = True, force: bool = False,
                           threads: int | None = None, progress: bool = False) -> dict:
    """Solve (or load) one scorecard preset; its record (see the module docstring)."""
    import numba

    from agents.solvers.cache import peak_memory_mb
    from agents.solvers.scorecard_dp import load_or_solve_scorecard

    if threads:
        numba.set_num_threads(threads)
    t0 = time.perf_counter()
    sol = load_or_solve_scorecard(game, cache_dir=cache_dir, use_cache=use_cache, force=force,
                                  progress=progress)
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


def solve_fivethousand_record(game: str = FIVE_THOUSAND, *,
                              cache_dir: str | os.PathLike | None = None, use_cache: bool = True,
                              force: bool = False, threads: int | None = None,
                              progress: bool = False) -> dict:
    """Two-player win probability and solo fewest turns of 5000 (both solves, cached)."""
    from agents.solvers.fivethousand_vi import solve_fivethousand_summary

    return solve_fivethousand_summary(cache_dir=cache_dir, force=force, use_cache=use_cache,
                                      threads=threads or None, progress=progress)


def solvers() -> dict[str, Callable[..., dict]]:
    """Game name -> the function returning its record.  Each game family adds its games."""
    from dice_env.scorecard.rules import PRESETS

    table: dict[str, Callable[..., dict]] = {name: solve_scorecard_record for name in PRESETS}
    table[FIVE_THOUSAND] = solve_fivethousand_record
    return table


def solvable_games() -> list[str]:
    """The names :func:`solve_record` takes, sorted."""
    return sorted(solvers())


def solve_record(game: str, *, cache_dir: str | os.PathLike | None = None,
                 use_cache: bool = True, force: bool = False, threads: int | None = None,
                 progress: bool = False) -> dict:
    """Solve (or load from the cache) ``game`` (one of :func:`solvable_games`); its record,
    with ``solved_at`` when it came from the cache.

    Raises:
        KeyError: a game that is not solvable.
    """
    record = solvers()[game](game, cache_dir=cache_dir, use_cache=use_cache, force=force,
                             threads=threads, progress=progress)
    if record["source"] == "cache":
        record["solved_at"] = solved_at(record.get("cache_paths") or [record["cache_path"]])
    return record


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
    """The human-readable lines of one record."""
    if record["game"] == FIVE_THOUSAND:
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
