"""Running the kernels of the 5000 solver: the value-iteration sweeps of two players
(:func:`_run_vi`, optimal or against fixed policies), the tables of every decision of a turn
(:func:`_turn_tables`, :func:`_solo_tables`), the solo policy iteration (:func:`_solo_values`)
and :func:`warm_up_kernels` (compile or load them all on a tiny game)."""

from __future__ import annotations

import time
import warnings

import numba
import numpy as np

from agents.solvers.fivethousand_vi import kernels as K
from agents.solvers.fivethousand_vi.model import N_DICE, FiveThousandModel, build_model
from dice_env.fivethousand.rules import FiveThousandRules

_NO_POLICY = np.zeros((1, 1, 1, 1), dtype=np.bool_)


def _turn_tables(model: FiveThousandModel, w_mover: np.ndarray, w_next: np.ndarray,
                 policy: np.ndarray | None):
    k, t = model.n_scores, model.n_slots
    roll = np.empty((k, k, t + 1, N_DICE + 1))
    bank = np.empty((k, k, t + 1))
    start = np.empty((k, k))
    pol = _NO_POLICY if policy is None else policy
    K.all_turn_tables(w_mover, w_next, pol, policy is not None, model.j_hi, model.bank_ok,
                      model.bank_next, *model.throw_tables(), roll, bank, start)
    return (roll, bank), start


def _set_threads(threads: int | None) -> int:
    old = numba.get_num_threads()
    if threads:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    return old


def warm_up_kernels() -> float:
    """Compile (or load from numba's cache) every kernel on a tiny game; seconds spent."""
    t0 = time.perf_counter()
    model = build_model(FiveThousandRules(target=200, entry=100))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for parallel in (False, True):
            _run_vi(model, np.full((model.n_scores,) * 2, 0.5), None, None, 1e-3, 1, 10,
                    parallel=parallel)
    _turn_tables(model, np.zeros((model.n_scores,) * 2), np.zeros((model.n_scores,) * 2), None)
    _solo_values(model, 1e-3)
    f = np.zeros(model.n_scores)
    _solo_tables(model, f)
    dec = np.zeros((model.n_slots, N_DICE + 1))
    K.single_turn(np.zeros(model.n_slots), model.bank_ok[0], *model.throw_tables()[1:],
                  dec, dec.copy())
    return time.perf_counter() - t0


def _run_vi(model: FiveThousandModel, w_a: np.ndarray, w_b: np.ndarray | None,
            policies: tuple[np.ndarray | None, np.ndarray | None] | None, tol: float,
            max_sweeps: int, max_local: int, local_tol: float | None = None,
            parallel: bool = False, progress: bool = False) -> dict:
    """Sweeps of value iteration in place; returns the sweep statistics.

    Each pair is iterated in place until it moves by at most ``local_tol``; by default a
    thousandth of the previous sweep's largest change (``1e-4`` in the first sweep), never
    below ``tol / 10``: early sweeps do not polish pairs whose inputs are still moving.
    """
    symmetric = w_b is None
    w_b = w_a if w_b is None else w_b
    pol_a, pol_b = policies if policies is not None else (None, None)
    floor = tol / 10.0
    local = max(1e-4, floor) if local_tol is None else local_tol
    sweep = K.sweep_parallel if parallel else K.sweep_serial
    n_pairs = len(model.pairs_a)
    changes = []
    rounds = 0
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(desc=f"5000 value iteration (target {model.rules.target})", unit="sweep",
                   leave=False)
    converged = False
    try:
        for _ in range(max_sweeps):
            ch = np.zeros(n_pairs)
            it = np.zeros(n_pairs, dtype=np.int64)
            sweep(model.level_start, model.pairs_a, model.pairs_b, w_a, w_b,
                  _NO_POLICY if pol_a is None else pol_a, _NO_POLICY if pol_b is None else pol_b,
                  pol_a is not None, pol_b is not None, symmetric, local, max_local,
                  model.j_hi, model.bank_ok, model.bank_next, *model.throw_tables(), ch, it)
            biggest = float(ch.max())
            rounds += int(it.sum())
            changes.append(biggest)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(change=f"{biggest:.2e}")
            if biggest <= tol:
                converged = True
                break
            if local_tol is None:
                local = max(floor, 1e-3 * biggest)
    finally:
        if bar is not None:
            bar.close()
    if not converged:
        warnings.warn(f"value iteration did not converge to {tol:g} in {max_sweeps} sweeps "
                      f"(last change {changes[-1]:.3g})", RuntimeWarning, stacklevel=3)
    return {"sweeps": len(changes), "sweep_changes": changes, "pair_rounds": rounds,
            "converged": converged}


def _solo_values(model: FiveThousandModel, tol: float) -> tuple[np.ndarray, np.ndarray]:
    f = np.zeros(model.n_scores)
    steps = np.zeros(model.n_scores, dtype=np.int64)
    order = np.arange(model.n_scores - 1, -1, -1, dtype=np.int64)
    x0 = 1e6
    K.solve_solo(order, f, x0, tol * 1e-3, 200, model.solo_j_hi, model.bank_ok,
                 model.solo_next, *model.throw_tables(), steps)
    if np.any(steps >= 200) or not np.all(np.isfinite(f)):
        raise RuntimeError("solo policy iteration did not converge")
    return f, steps


def _solo_tables(model: FiveThousandModel, f: np.ndarray):
    k, t = model.n_scores, model.n_slots
    roll = np.empty((k, t + 1, N_DICE + 1))
    bank = np.empty((k, t + 1))
    start = np.empty(k)
    K.all_solo_tables(f, model.solo_j_hi, model.bank_ok, model.solo_next,
                      *model.throw_tables(), roll, bank, start)
    return (roll, bank), start

