"""The JSON record of both 5000 games solved (:func:`solve_fivethousand_summary`, what
``dice-env solve fivethousand`` prints) and its human-readable lines
(:func:`describe_fivethousand`)."""

from __future__ import annotations

import os
import time

import numba

from agents.solvers.cache import peak_memory_mb
from agents.solvers.fivethousand_vi.model import build_model
from agents.solvers.fivethousand_vi.store import load_or_solve_solo, load_or_solve_two_player
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules


def solve_fivethousand_summary(cache_dir: str | os.PathLike | None = None, force: bool = False,
                               *, use_cache: bool = True,
                               rules: FiveThousandRules | dict | None = None,
                               threads: int | None = None, progress: bool = False) -> dict:
    """Solve (or load) both 5000 games; the JSON record of ``dice-env solve fivethousand``.

    Fields: ``game`` (``"fivethousand"``), ``first_player_win_probability``,
    ``expected_turns_solo``, ``seconds`` (wall time this call spent getting both tables:
    building the rule tables, loading or compiling the kernels, solving -- or reading the
    cache), ``peak_mb`` (peak resident memory of the process), ``source`` (``solved`` /
    ``cache``, ``mixed`` if one of each), ``threads``, ``sweeps`` and ``residual`` of the
    two-player value iteration, ``tol``, ``solo_residual``, ``two_player_seconds`` /
    ``solo_seconds`` (this call) and ``solved_seconds`` (the stored solve times when loaded),
    ``states`` (turn-start states), ``decision_states``, ``cache_paths``, ``rules``; after
    a solve the breakdown ``model_seconds``, ``compile_seconds``, ``vi_seconds``.  The two
    values are rounded to 10 decimals (the value iteration is converged to ``tol`` = 1e-9;
    its error is about 1e-10).
    """
    rules = coerce_rules(rules)
    t0 = time.perf_counter()
    two = load_or_solve_two_player(rules, cache_dir=cache_dir, use_cache=use_cache,
                                   force=force, threads=threads, progress=progress)
    t1 = time.perf_counter()
    solo = load_or_solve_solo(rules, cache_dir=cache_dir, use_cache=use_cache, force=force)
    t2 = time.perf_counter()
    model = build_model(rules)
    sources = {two.source, solo.source}
    record = {
        "game": "fivethousand",
        "first_player_win_probability": round(two.first_player_win_probability, 10),
        "expected_turns_solo": round(solo.expected_turns, 10),
        "seconds": round(t2 - t0, 3),
        "peak_mb": round(peak_memory_mb(), 1),
        "source": sources.pop() if len(sources) == 1 else "mixed",
        "threads": numba.get_num_threads() if not threads else int(threads),
        "sweeps": two.sweeps,
        "tol": two.tol,
        "residual": two.residual,
        "solo_residual": solo.residual,
        "two_player_seconds": round(t1 - t0, 3),
        "solo_seconds": round(t2 - t1, 3),
        "states": model.n_states,
        "decision_states": model.n_decision_states,
        "cache_paths": [str(p) for p in (two.cache_path, solo.cache_path) if p is not None],
        "rules": rules.knobs(),
    }
    if two.source == "cache" or solo.source == "cache":
        record["solved_seconds"] = round(two.seconds + solo.seconds, 3)
    if two.source == "solved":
        record.update(model_seconds=round(two.timings["model"], 3),
                      compile_seconds=round(two.timings["compile"], 3),
                      vi_seconds=round(two.timings["sweeps"], 3))
    return record


def describe_fivethousand(record: dict) -> str:
    """The human-readable lines of a :func:`solve_fivethousand_summary` record."""
    lines = [
        f"{record['game']}: first player wins {record['first_player_win_probability']:.10f} "
        f"under optimal play; solo needs {record['expected_turns_solo']:.10f} turns on average",
    ]
    if record["source"] == "cache":
        when = f"on {record['solved_at']}, " if record.get("solved_at") else ""
        lines.append(f"  not solved in this run: loaded in {record['seconds']:.2f} s from the "
                     f"cache, solved earlier ({when}in "
                     f"{record.get('solved_seconds', float('nan')):.2f} s; --force to solve it "
                     "again)")
    else:
        extra = ""
        if "vi_seconds" in record:
            extra = (f": tables {record['model_seconds']:.2f} s, numba kernels "
                     f"{record['compile_seconds']:.2f} s, value iteration "
                     f"{record['vi_seconds']:.2f} s")
        lines.append(f"  solved now, in {record['seconds']:.2f} s{extra}; {record['sweeps']} "
                     f"sweeps to {record['tol']:g} (residual {record['residual']:.1e}) over "
                     f"{record['states']:,} states / {record['decision_states']:,} decisions "
                     f"on {record['threads']} thread(s)")
    lines.append(f"  peak memory {record['peak_mb']:.0f} MB")
    for path in record.get("cache_paths", []):
        lines.append(f"  table: {path}")
    return "\n".join(lines)


def solvable_games() -> list[str]:
    """The name ``dice-env solve`` takes for 5000 (both its games are solved at once)."""
    return ["fivethousand"]


def solve_record(game: str = "fivethousand", *, cache_dir: str | os.PathLike | None = None,
                 use_cache: bool = True, force: bool = False, threads: int | None = None,
                 progress: bool = False) -> dict:
    """Two-player win probability and solo fewest turns of 5000 (both solves, cached): the
    5000 family's ``solve_record`` hook."""
    return solve_fivethousand_summary(cache_dir=cache_dir, force=force, use_cache=use_cache,
                                      threads=threads or None, progress=progress)
