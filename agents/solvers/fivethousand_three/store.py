"""The on-disk cache of the max-n profile of 5000 (:mod:`agents.solvers.cache`):
:func:`load_or_solve_three_player` and its key."""

from __future__ import annotations

import os
import warnings

import numpy as np

from agents.solvers import cache as C
from agents.solvers.fivethousand_three.model import (
    DEFAULT_TOL,
    EVAL_TOL,
    FORMAT_VERSION,
    FREEZE_FROM,
    MAX_LOCAL,
    MAX_SWEEPS,
    N_DICE,
    TIE_TOL,
    build_three_model,
)
from agents.solvers.fivethousand_three.solution import ThreePlayerSolution
from agents.solvers.fivethousand_three.solve import solve_three_player
from agents.solvers.fivethousand_vi.store import _save
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules


def cache_key(rules: FiveThousandRules, num_players: int, tol: float, eval_tol: float,
              max_sweeps: int, max_local: int, freeze_from: int) -> dict:
    """The cache key: solver, format version, rules and every parameter of the procedure."""
    return {"solver": "fivethousand-maxn", "num_players": int(num_players),
            "format_version": FORMAT_VERSION, "rules": rules.knobs(), "tol": float(tol),
            "eval_tol": float(eval_tol), "max_sweeps": int(max_sweeps),
            "max_local": int(max_local), "freeze_from": int(freeze_from), "tie_tol": TIE_TOL,
            "init": "1/P"}


def _stem(rules: FiveThousandRules, num_players: int) -> str:
    return f"fivethousand-{num_players}p-maxn-t{rules.target}-e{rules.entry}"


def _from_arrays(rules, num_players, arrays, meta, path) -> ThreePlayerSolution | None:
    model = build_three_model(rules, num_players)
    try:
        shape = (model.n_states, model.n_slots, N_DICE + 1)
        bits = arrays["policy_bits"]
        if bits.dtype != np.uint8 or bits.size != (int(np.prod(shape)) + 7) // 8:
            return None
        policy = np.unpackbits(bits, count=int(np.prod(shape))).astype(bool).reshape(shape)
        sol = ThreePlayerSolution(rules, num_players, arrays["values"], policy,
                                  arrays["vi_values"], arrays["gain_start"],
                                  arrays["gain_decision"], arrays["visits"],
                                  arrays["frozen"].astype(bool), dict(meta),
                                  source="cache", cache_path=path)
    except (KeyError, ValueError):
        return None
    if not all(np.all(np.isfinite(a)) for a in (sol.values, sol.gain_start, sol.visits)):
        return None
    return sol


def load_or_solve_three_player(rules: FiveThousandRules | dict | str | None = None, *,
                               num_players: int = 3,
                               cache_dir: str | os.PathLike | None = None,
                               use_cache: bool = True, force: bool = False,
                               tol: float = DEFAULT_TOL, eval_tol: float = EVAL_TOL,
                               max_sweeps: int = MAX_SWEEPS, max_local: int = MAX_LOCAL,
                               freeze_from: int = FREEZE_FROM, threads: int | None = None,
                               progress: bool = False) -> ThreePlayerSolution:
    """The shipped profile, from the on-disk cache when a valid table is there.

    ``use_cache=False`` neither reads nor writes; ``force`` solves again and overwrites.  A
    corrupted or foreign cache file is reported with
    :class:`~agents.solvers.cache.CacheCorruptionWarning` and solved again (the 5000 solve
    takes a few minutes on two cores).
    """
    rules = coerce_rules(rules)

    def solve() -> ThreePlayerSolution:
        return solve_three_player(rules, num_players=num_players, tol=tol, eval_tol=eval_tol,
                                  max_sweeps=max_sweeps, max_local=max_local,
                                  freeze_from=freeze_from, threads=threads, progress=progress)

    if not use_cache:
        return solve()
    key = cache_key(rules, num_players, tol, eval_tol, max_sweeps, max_local, freeze_from)
    path = C.cache_path(cache_dir, _stem(rules, num_players), key)
    if not force:
        loaded = C.load_table(path, key)
        if loaded is not None:
            sol = _from_arrays(rules, num_players, *loaded, path)
            if sol is not None:
                return sol
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve()
    arrays = {"values": sol.values, "vi_values": sol.vi_values,
              "policy_bits": np.packbits(sol.policy.ravel()), "gain_start": sol.gain_start,
              "gain_decision": sol.gain_decision, "visits": sol.visits,
              "frozen": sol.frozen.astype(np.uint8)}
    if _save(path, key, arrays, sol.facts):
        sol.cache_path = path
    return sol
