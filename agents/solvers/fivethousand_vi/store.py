"""The on-disk cache of the 5000 solver's tables (:mod:`agents.solvers.cache`):
:func:`load_or_solve_two_player`, :func:`load_or_solve_solo` and their keys."""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

import numpy as np

from agents.solvers import cache as C
from agents.solvers.fivethousand_vi.model import DEFAULT_TOL, FORMAT_VERSION, build_model
from agents.solvers.fivethousand_vi.solo import SoloSolution, solve_solo
from agents.solvers.fivethousand_vi.two_player import TwoPlayerSolution, solve_two_player
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules


def cache_key(rules: FiveThousandRules, kind: str, tol: float) -> dict:
    """The cache key of a 5000 table: solver kind, format version, rule knobs, tolerance."""
    return {"solver": f"fivethousand-vi-{kind}", "format_version": FORMAT_VERSION,
            "rules": rules.knobs(), "tol": float(tol)}


def _stem(rules: FiveThousandRules, kind: str) -> str:
    return f"fivethousand-{kind}-t{rules.target}-e{rules.entry}" + (
        "-choose" if rules.choose_scoring_dice else "")


def _save(path: Path, key: dict, arrays: dict, meta: dict) -> bool:
    try:
        C.save_table(path, key, arrays, meta)
        return True
    except OSError as exc:
        warnings.warn(f"could not write the solver cache {path}: {exc}", RuntimeWarning,
                      stacklevel=3)
        return False


def load_or_solve_two_player(rules: FiveThousandRules | dict | str | None = None, *,
                             cache_dir: str | os.PathLike | None = None,
                             use_cache: bool = True, force: bool = False,
                             tol: float = DEFAULT_TOL, threads: int | None = None,
                             progress: bool = False) -> TwoPlayerSolution:
    """The two-player solution, from the on-disk cache when a valid table is there.

    ``use_cache=False`` neither reads nor writes; ``force`` solves again and overwrites.  A
    corrupted or foreign cache file is reported with
    :class:`~agents.solvers.cache.CacheCorruptionWarning` and replaced.
    """
    rules = coerce_rules(rules)
    if not use_cache:
        return solve_two_player(rules, tol=tol, threads=threads, progress=progress)
    key = cache_key(rules, "2p", tol)
    path = C.cache_path(cache_dir, _stem(rules, "2p"), key)
    k = build_model(rules).n_scores
    if not force:
        t0 = time.perf_counter()
        loaded = C.load_table(path, key)
        if loaded is not None:
            arrays, meta = loaded
            win = arrays.get("win")
            if win is not None and win.shape == (k, k) and np.all(np.isfinite(win)):
                sol = TwoPlayerSolution(rules, win, sweeps=int(meta.get("sweeps", 0)), tol=tol,
                                        residual=float(meta.get("residual", float("nan"))),
                                        seconds=float(meta.get("seconds", 0.0)),
                                        source="cache", cache_path=path,
                                        timings={"load": time.perf_counter() - t0,
                                                 **meta.get("timings", {})})
                return sol
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve_two_player(rules, tol=tol, threads=threads, progress=progress)
    meta = {"first_player_win_probability": sol.first_player_win_probability,
            "sweeps": sol.sweeps, "residual": sol.residual, "seconds": sol.seconds,
            "timings": {k_: v for k_, v in sol.timings.items() if k_ != "sweep_changes"}}
    if _save(path, key, {"win": sol.win}, meta):
        sol.cache_path = path
    return sol


def load_or_solve_solo(rules: FiveThousandRules | dict | str | None = None, *,
                       cache_dir: str | os.PathLike | None = None, use_cache: bool = True,
                       force: bool = False, tol: float = DEFAULT_TOL) -> SoloSolution:
    """The solo solution, from the on-disk cache when a valid table is there (as
    :func:`load_or_solve_two_player`)."""
    rules = coerce_rules(rules)
    if not use_cache:
        return solve_solo(rules, tol=tol)
    key = cache_key(rules, "solo", tol)
    path = C.cache_path(cache_dir, _stem(rules, "solo"), key)
    k = build_model(rules).n_scores
    if not force:
        t0 = time.perf_counter()
        loaded = C.load_table(path, key)
        if loaded is not None:
            arrays, meta = loaded
            turns = arrays.get("turns")
            if turns is not None and turns.shape == (k,) and np.all(np.isfinite(turns)):
                return SoloSolution(rules, turns, newton_steps=arrays.get("newton_steps"),
                                    tol=tol, residual=float(meta.get("residual", float("nan"))),
                                    seconds=float(meta.get("seconds", 0.0)), source="cache",
                                    cache_path=path,
                                    timings={"load": time.perf_counter() - t0,
                                             **meta.get("timings", {})})
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve_solo(rules, tol=tol)
    meta = {"expected_turns": sol.expected_turns, "residual": sol.residual,
            "seconds": sol.seconds, "timings": sol.timings}
    if _save(path, key, {"turns": sol.turns, "newton_steps": sol.newton_steps}, meta):
        sol.cache_path = path
    return sol

