"""The scorecard family's ``dice-env solve`` records (see :mod:`agents.solvers.records`): a
preset solved by the DP (or loaded from the cache), with its timings, and its lines."""

from __future__ import annotations

import os
import time

__all__ = ["describe_scorecard", "solvable_presets", "solve_scorecard_record"]


def solvable_presets() -> list[str]:
    """Every scorecard preset (each can be solved)."""
    from dice_env.scorecard.rules import PRESETS

    return sorted(PRESETS)


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


def describe_scorecard(record: dict) -> str:
    """The human-readable lines of one scorecard game's record."""
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
