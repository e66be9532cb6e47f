"""Solving the max-n profile of 5000 (:func:`solve_three_player`, steps 1-4 of
:mod:`agents.solvers.fivethousand_three`): the sweeps of the max-n iteration and of the exact
evaluation (:func:`_run_sweeps`), and :func:`warm_up_kernels`."""

from __future__ import annotations

import hashlib
import time

import numba
import numpy as np

from agents.solvers.fivethousand_three import kernels as KS
from agents.solvers.fivethousand_three import profile_kernels as K3
from agents.solvers.fivethousand_three.analysis import (
    _group_states,
    analyse_profile,
    profile_transitions,
    turns_to_end,
)
from agents.solvers.fivethousand_three.model import (
    CYCLE_MAX,
    DEFAULT_TOL,
    EVAL_TOL,
    FREEZE_FROM,
    MAX_LOCAL,
    MAX_SWEEPS,
    N_DICE,
    TIE_TOL,
    ThreeModel,
    build_three_model,
)
from agents.solvers.fivethousand_three.solution import ThreePlayerSolution
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules


def _run_sweeps(model: ThreeModel, w: np.ndarray, pol: np.ndarray, use_pol: bool, tol: float,
                max_sweeps: int, max_local: int, parallel: bool, progress: bool, what: str,
                freeze_from: int | None = None) -> dict:
    """Sweeps in place until no value moves by more than ``tol``; the statistics.

    The local tolerance of a group is a thousandth of the previous sweep's largest change
    (1e-4 in the first sweep), never below ``tol / 10``, as in the 2-player solver.  Max-n
    (``use_pol`` false): from sweep ``freeze_from`` on (counted from 1), groups are *frozen*
    -- their decisions kept, their values evaluated -- from the next sweep on: a group that did
    not settle in the sweep, and, when the decisions of the whole table are those of
    ``k`` sweeps before (``2 <= k <= CYCLE_MAX``), every group whose decisions changed in
    those ``k`` sweeps."""
    sweep = KS.sweep_parallel if parallel else KS.sweep_serial
    floor = tol / 10.0
    local = max(1e-4, floor)
    stats = np.zeros((model.n_groups, 5))
    frozen = np.zeros(model.n_groups, dtype=np.bool_)
    frozen_at = np.zeros(model.n_groups, dtype=np.int64)
    changes, unsettled, rounds, flipped = [], [], [], []
    history: list[tuple[bytes, np.ndarray]] = []  # (decisions digest, groups flipped)
    cycles: list[dict] = []
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(desc=f"5000 {model.num_players}-player {what}", unit="sweep",
                           leave=False)
    converged = False
    try:
        for n in range(1, max_sweeps + 1):
            sweep(model.level_start, model.grp_cyc, model.cyc_start, model.cyc_states, w, pol,
                  use_pol, frozen, n > 1, local, max_local, TIE_TOL, *model.kernel_tables(),
                  stats)
            biggest = float(stats[:, 0].max())
            changes.append(biggest)
            stuck = (stats[:, 2] > 0) & ~frozen
            unsettled.append(int(stuck.sum()))
            rounds.append(int(stats[:, 1].sum()))
            flipped.append(int(np.sum(stats[:, 4] > 0)))
            if bar is not None:
                bar.update(1)
                bar.set_postfix(change=f"{biggest:.2e}", unsettled=unsettled[-1],
                                frozen=int(frozen.sum()))
            if biggest <= tol and not stuck.any():
                converged = True
                break
            if not use_pol and freeze_from is not None:
                digest = hashlib.blake2b(pol.view(np.uint8), digest_size=16).digest()
                history.append((digest, stats[:, 4] > 0))
                history = history[-(CYCLE_MAX + 1):]
                new = stuck.copy() if n >= freeze_from else np.zeros_like(stuck)
                repeat = len(history) > 1 and history[-2][0] != digest  # changed, and ...
                for k in range(2, len(history)):
                    if repeat and n >= freeze_from and history[-1 - k][0] == digest:
                        moved = np.logical_or.reduce([h[1] for h in history[-k:]]) & ~frozen
                        cycles.append({"sweep": n, "period": k, "groups": int(moved.sum())})
                        new |= moved
                        break
                frozen_at[new & ~frozen] = n
                frozen |= new
            local = max(floor, 1e-3 * biggest)
    finally:
        if bar is not None:
            bar.close()
    return {"sweeps": len(changes), "sweep_changes": changes, "unsettled_per_sweep": unsettled,
            "groups_flipped_per_sweep": flipped, "rounds_per_sweep": rounds,
            "converged": converged, "last_stats": stats.copy(), "frozen": frozen,
            "frozen_at": frozen_at, "decision_cycles": cycles}


def warm_up_kernels() -> float:
    """Compile (or load from numba's cache) the max-n kernels on a tiny game; seconds."""
    t0 = time.perf_counter()
    m = build_three_model(FiveThousandRules(target=300, entry=100), 3)
    w = np.full((m.n_states, 3), 1 / 3)
    pol = np.zeros((m.n_states, m.n_slots, N_DICE + 1), dtype=np.bool_)
    for parallel in (False, True):
        for use_pol in (False, True):
            _run_sweeps(m, w, pol, use_pol, 1e-3, 2, 2, parallel, False, "warm-up", 1)
    gains = np.empty(m.n_states)
    K3.deviation_gains(w, pol, TIE_TOL, *m.kernel_tables(), np.empty_like(w), gains,
                       gains.copy(), np.empty(m.n_states, np.int64))
    nxt = np.empty((m.n_states, m.n_slots + 1), np.int64)
    prob = np.empty((m.n_states, m.n_slots + 1))
    K3.transitions(pol, *m.kernel_tables(), nxt, prob)
    K3.occupancy(nxt, prob, 0, 1e-3, 2, np.zeros(m.n_states), np.zeros(2))
    K3.forward_values(w, nxt, prob, np.empty_like(w))
    K3.state_tables(0, w, pol, TIE_TOL, *m.kernel_tables(),
                    np.empty((m.n_slots + 1, N_DICE + 1, 3)), np.empty((m.n_slots + 1, 3)))
    return time.perf_counter() - t0


def solve_three_player(rules: FiveThousandRules | dict | str | None = None, *,
                       num_players: int = 3, tol: float = DEFAULT_TOL,
                       eval_tol: float = EVAL_TOL, max_sweeps: int = MAX_SWEEPS,
                       max_local: int = MAX_LOCAL, freeze_from: int = FREEZE_FROM,
                       threads: int | None = None, parallel: bool | None = None,
                       progress: bool = False) -> ThreePlayerSolution:
    """Compute the shipped max-n profile now (module doc, steps 1-4), without the cache.

    Args:
        rules: the game (default 5000; literal rules only).
        num_players: 3 (or 2: the reduction to the two-player game).
        tol, max_sweeps, max_local, freeze_from: the max-n iteration (module doc, step 1).
        eval_tol: the exact evaluation's stop.
        threads: numba threads (default: all); ``parallel``: spread the groups of a level over
            them (default: when more than one thread).  The results do not depend on either.
        progress: tqdm bars over the sweeps.

    ``facts`` of the solution: ``seat_win_probabilities`` (from 0-0-0, seat 0 opens) and
    ``sum_at_start``; ``vi`` (sweeps, converged, the largest change, the unsettled free
    groups, the groups whose decisions changed and the rounds of each sweep);
    ``vi_seat_values`` (the iteration's values at 0-0-0); ``policy_cycled`` (some group was
    frozen, or the iteration did not converge); ``frozen_groups``, ``frozen_state_count``,
    ``frozen_states`` (the scores of the states of each frozen group, mover first) and
    ``frozen_at_sweep``; ``unsettled_groups`` (in the last sweep, frozen ones included);
    ``evaluation`` (sweeps, converged); the :func:`analyse_profile` facts; the sizes;
    ``seconds`` (the whole call) and ``timings``.  ``vi["decision_cycles"]`` lists the
    cycles of the whole table's decisions that were found (sweep, period, groups frozen).
    """
    rules = coerce_rules(rules)
    t0 = time.perf_counter()
    model = build_three_model(rules, num_players)
    t1 = time.perf_counter()
    compile_s = warm_up_kernels()
    old = numba.get_num_threads()
    if threads:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        if parallel is None:
            parallel = numba.get_num_threads() > 1
        threads_used = numba.get_num_threads()
        p = model.num_players
        t2 = time.perf_counter()
        w = np.full((model.n_states, p), 1.0 / p)
        pol = np.zeros((model.n_states, model.n_slots, N_DICE + 1), dtype=np.bool_)
        vi = _run_sweeps(model, w, pol, False, tol, max_sweeps, max_local, parallel, progress,
                         "max-n iteration", freeze_from)
        t3 = time.perf_counter()
        trans = profile_transitions(model, pol)
        ends = turns_to_end(*trans)
        # absorbing: the fixed point is unique, start from the iteration's values; otherwise
        # from 0, whose limit is the least fixed point (the probabilities)
        values = w.copy() if ends is not None else np.zeros_like(w)
        ev = _run_sweeps(model, values, pol, True, eval_tol, 10 * max_sweeps, 1000, parallel,
                         progress, "policy evaluation")
        ev["start"] = "max-n values" if ends is not None else "zero"
        ev["turns_to_end"] = ends
        t4 = time.perf_counter()
        analysis = analyse_profile(model, values, pol, transitions=trans)
        del trans
        t5 = time.perf_counter()
    finally:
        numba.set_num_threads(old)
    last = vi.pop("last_stats")
    frozen = np.flatnonzero(vi.pop("frozen"))
    frozen_at = vi.pop("frozen_at")
    for key in ("last_stats", "frozen", "frozen_at", "decision_cycles"):
        ev.pop(key)
    unsettled = np.flatnonzero(last[:, 2] > 0)  # frozen groups included
    facts = {
        "num_players": p,
        "rules": rules.knobs(),
        "seat_win_probabilities": [float(x) for x in values[0]],
        "sum_at_start": float(values[0].sum()),
        "vi": vi,
        "vi_seat_values": [float(x) for x in w[0]],
        "policy_cycled": bool(frozen.size > 0 or unsettled.size > 0 or not vi["converged"]),
        "frozen_groups": int(frozen.size),
        "frozen_states": _group_states(model, frozen),
        "frozen_at_sweep": [int(x) for x in frozen_at[frozen]],
        "frozen_state_count": int(np.isin(model.group_of, frozen).sum()),
        "unsettled_groups": int(unsettled.size),
        "evaluation": ev,
        **analysis["facts"],
        "states": model.n_states,
        "groups": model.n_groups,
        "decision_states": model.n_states * model.n_slots * N_DICE,
        "tol": tol, "eval_tol": eval_tol, "max_sweeps": max_sweeps, "max_local": max_local,
        "threads": threads_used, "parallel": bool(parallel),
    }
    facts["seconds"] = time.perf_counter() - t0
    facts["timings"] = {"model": t1 - t0, "compile": compile_s, "max_n": t3 - t2,
                        "evaluation": t4 - t3, "analysis": t5 - t4}
    return ThreePlayerSolution(rules, p, values, pol, w, analysis["gain_start"],
                               analysis["gain_decision"], analysis["visits"],
                               np.isin(model.group_of, frozen), facts)

