"""The compiled backward induction of the ``N``-player turn solve
(:func:`~agents.fivethousand.learned_value.n_turns.solve_n_turns`)."""

from __future__ import annotations

import numba
import numpy as np

from dice_env.fivethousand import rules as R

N_DICE_K = R.N_DICE


@numba.njit(cache=True, nogil=True)
def solve_n_kernel(bust_val, bank_val, th_start, th_dj, th_left, th_prob, th_bust, tie_tol,
                    start_out, pol_out, roll_out, bank_out, tables):  # pragma: no cover
    """Backward induction over the turn total of each row (see :func:`solve_n_turns`)."""
    n_rows, n_slots, p = bank_val.shape
    best = np.empty((n_slots + 1, N_DICE_K + 1, p))
    r = np.empty(p)
    for i in range(n_rows):
        for n in range(1, N_DICE_K + 1):
            best[n_slots, n, :] = bust_val[i]
            pol_out[i, n_slots, n] = True   # past the target every action is worth a bust
            if tables:
                roll_out[i, n_slots, n] = bust_val[i, 0]
        if tables:
            bank_out[i, n_slots] = bust_val[i, 0]
        for j in range(n_slots - 1, -1, -1):
            bv = bank_val[i, j, 0]
            can_bank = bv == bv  # not NaN
            for n in range(1, N_DICE_K + 1):
                for q in range(p):
                    r[q] = th_bust[n] * bust_val[i, q]
                for o in range(th_start[n], th_start[n + 1]):
                    j2 = min(j + th_dj[o], n_slots)
                    pr = th_prob[o]
                    lf = th_left[o]
                    for q in range(p):
                        r[q] += pr * best[j2, lf, q]
                if can_bank and bv >= r[0] - tie_tol:
                    best[j, n, :] = bank_val[i, j]
                    pol_out[i, j, n] = True
                else:
                    best[j, n, :] = r
                    pol_out[i, j, n] = False
                if tables:
                    roll_out[i, j, n] = r[0]
                if j == 0 and n == N_DICE_K:
                    start_out[i, :] = r
            if tables:
                bank_out[i, j] = bv

