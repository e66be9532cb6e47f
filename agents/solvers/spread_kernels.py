"""Numba kernels of the score spread: the second moment of the points still to come under the
score-optimal policy, one backward pass like the DP's own (:mod:`agents.solvers.scorecard_kernels`).

The DP's values ``V`` fix the policy; these kernels replay each turn of a layer's groups with
those decisions and carry, beside the expected value that picks them, two leaf quantities
averaged over the dice:

* ``E[(g + R')^2] = g^2 + 2 g V' + S'``, the second moment of the points still to come, where
  scoring ``g`` points (box, bonuses, upper bonus earned) leads to the card whose value is
  ``V'`` and second moment ``S'``;
* ``S' - V'^2``, the variance still to come once the turn has been played.

The decisions are exactly those of :func:`agents.scorecard.turn_policy.follow_policy`: the
best box, the lowest box on a tie; a reroll only when it is strictly better than scoring now;
among holds, the lowest hold on a tie.  The work per group is a few times the DP's: the same
loops over rolls and keeps with three numbers per keep instead of one, and a sub-keep lattice
that also keeps which keep holds the best value and whether another keep ties it; only for
a tie does a roll scan its distinct sub-keeps in hold order (:func:`roll_subkeeps`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.solvers.scorecard_kernels import N_KEEPS, N_ROLLS, N_SMALL_KEEPS
from dice_env import dice as D

__all__ = ["roll_subkeeps", "spread_layer"]


def roll_subkeeps() -> tuple[np.ndarray, np.ndarray]:
    """``(252, 31)`` the distinct keeps each roll can reroll to (holding all five excluded), in
    the order of the lowest hold that makes each, and ``(252,)`` how many there are."""
    out = np.full((N_ROLLS, D.N_HOLDS - 1), -1, dtype=np.int64)
    count = np.zeros(N_ROLLS, dtype=np.int64)
    for r in range(N_ROLLS):
        seen = []
        for h in range(D.N_HOLDS):
            k = int(D.HOLD_KEEP[r, h])
            if h != D.ALL_HELD and k not in seen:
                seen.append(k)
        out[r, :len(seen)] = seen
        count[r] = len(seen)
    if out.max() >= N_SMALL_KEEPS:
        raise RuntimeError("a reroll keeps five dice: the keep tables are not as expected")
    return out, count


@nb.njit(cache=True, nogil=True)
def _expect3(M, Q1, Q2, children):
    """The mean over the reroll of every keep of fewer than five dice, for all three arrays
    (summed in order, then divided: numpy's mean, so that near ties fall as in the reference)."""
    nu = M.shape[1]
    for k in range(N_SMALL_KEEPS - 1, -1, -1):
        c0, c1, c2 = children[k, 0], children[k, 1], children[k, 2]
        c3, c4, c5 = children[k, 3], children[k, 4], children[k, 5]
        for j in range(nu):
            M[k, j] = (M[c0, j] + M[c1, j] + M[c2, j] + M[c3, j] + M[c4, j] + M[c5, j]) / 6.0
            Q1[k, j] = (Q1[c0, j] + Q1[c1, j] + Q1[c2, j] + Q1[c3, j] + Q1[c4, j]
                        + Q1[c5, j]) / 6.0
            Q2[k, j] = (Q2[c0, j] + Q2[c1, j] + Q2[c2, j] + Q2[c3, j] + Q2[c4, j]
                        + Q2[c5, j]) / 6.0


@nb.njit(cache=True, nogil=True)
def _best_below(M, parents, n_parents, L, AL, TL):
    """Over the keeps of fewer than five dice, smallest first: ``L[k]`` the best ``M`` of
    ``k`` and every keep below it (one die less, and so on), ``AL[k]`` the keep that has it,
    ``TL[k]`` 1 when two different keeps share it (then the caller breaks the tie)."""
    nu = M.shape[1]
    for k in range(N_SMALL_KEEPS):
        for j in range(nu):
            L[k, j] = M[k, j]
            AL[k, j] = k
            TL[k, j] = 0
        for i in range(n_parents[k]):
            p = parents[k, i]
            for j in range(nu):
                v = L[p, j]
                if v > L[k, j]:
                    L[k, j] = v
                    AL[k, j] = AL[p, j]
                    TL[k, j] = TL[p, j]
                elif v == L[k, j] and (AL[p, j] != AL[k, j] or TL[p, j]):
                    TL[k, j] = 1


@nb.njit(cache=True, nogil=True)
def _group_spread(fs, rest, full, us, V, S, rest_index, n_boxes, five_box, ub_table,
                  five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts, jk_bonus,
                  slot_table, roll_keep, children, parents, n_parents, subkeeps, n_subkeeps,
                  fresh_prob, n_rolls, FM, FS, FU, M, Q1, Q2, SM, SQ1, SQ2, L, AL, TL, best, arg,
                  tie, out_s, out_a):
    """``out_s[j]``, ``out_a[j]``: second moment and variance after the turn, every ``us[j]``."""
    nu = out_s.shape[0]
    t_cap = V.shape[2] - 1
    # the card after scoring box b with slot s: its value, its second moment, the upper
    # bonus earned on the way (rows b * 6 + s, as the DP's F)
    for b in range(n_boxes):
        if (full >> b) & 1:
            continue
        r2 = rest_index[full | (1 << b)]
        if b < 6:
            for c in range(6):
                pts = c * (b + 1)
                row = b * 6 + c
                for j in range(nu):
                    u = us[j]
                    u2 = min(u + pts, t_cap)
                    FM[row, j] = V[fs, r2, u2]
                    FS[row, j] = S[fs, r2, u2]
                    FU[row, j] = ub_table[u, pts]
        else:
            for slot in range(2 if b == five_box else 1):
                f2 = five_after[slot] if b == five_box else fs
                row = b * 6 + slot
                for j in range(nu):
                    FM[row, j] = V[f2, r2, us[j]]
                    FS[row, j] = S[f2, r2, us[j]]
                    FU[row, j] = 0.0
    # scoring each roll now: the best legal box (the lowest on a tie)
    all_bits = (1 << n_boxes) - 1
    open_bits = ~full & all_bits
    for r in range(N_ROLLS):
        s5 = five_slot[r]
        if s5 >= 0:
            legal = jk_legal[fs, rest, s5]
            pts_row = jk_pts[fs, rest, s5]
            bonus = jk_bonus[fs, rest, s5]
        else:
            legal = open_bits
            pts_row = reg_pts[fs, r]
            bonus = reg_bonus[fs, r]
        for j in range(nu):
            best[j] = -np.inf
        for b in range(n_boxes):
            if not (legal >> b) & 1:
                continue
            p = pts_row[b]
            row = b * 6 + slot_table[b, p]
            pf = float(p) + bonus
            for j in range(nu):
                g = pf + FU[row, j]
                m2 = FM[row, j]
                s2 = FS[row, j]
                v = g + m2
                if v > best[j]:
                    best[j] = v
                    SQ1[r, j] = g * g + 2.0 * g * m2 + s2
                    SQ2[r, j] = s2 - m2 * m2
        kr = roll_keep[r]
        for j in range(nu):
            SM[r, j] = best[j]
        for j in range(nu):
            M[kr, j] = SM[r, j]
            Q1[kr, j] = SQ1[r, j]
            Q2[kr, j] = SQ2[r, j]
    # the rerolls: a keep is the mean of its rolls; a roll rerolls to its best keep when that
    # beats scoring now (the lowest hold on a tie)
    for _level in range(1, n_rolls):
        _expect3(M, Q1, Q2, children)
        _best_below(M, parents, n_parents, L, AL, TL)
        for r in range(N_ROLLS):
            kr = roll_keep[r]
            # the best reroll: the best of the parents' down-sets (one die less than the roll)
            for j in range(nu):
                best[j] = -np.inf
                arg[j] = -1
                tie[j] = 0
            for i in range(n_parents[kr]):
                p = parents[kr, i]
                for j in range(nu):
                    v = L[p, j]
                    if v > best[j]:
                        best[j] = v
                        arg[j] = AL[p, j]
                        tie[j] = TL[p, j]
                    elif v == best[j] and (AL[p, j] != arg[j] or TL[p, j]):
                        tie[j] = 1
            for j in range(nu):
                if best[j] > SM[r, j]:
                    k = arg[j]
                    if tie[j]:  # several keeps share the best value: the lowest hold's
                        for i in range(n_subkeeps[r]):
                            k = subkeeps[r, i]
                            if M[k, j] == best[j]:
                                break
                    M[kr, j] = best[j]
                    Q1[kr, j] = Q1[k, j]
                    Q2[kr, j] = Q2[k, j]
                else:
                    M[kr, j] = SM[r, j]
                    Q1[kr, j] = SQ1[r, j]
                    Q2[kr, j] = SQ2[r, j]
    for j in range(nu):
        out_s[j] = 0.0
        out_a[j] = 0.0
    for r in range(N_ROLLS):
        p = fresh_prob[r]
        kr = roll_keep[r]
        for j in range(nu):
            out_s[j] += p * Q1[kr, j]
            out_a[j] += p * Q2[kr, j]


@nb.njit(cache=True, parallel=True)
def spread_layer(g_fs, g_rest, g_full, n_chunks, V, S, A, u_lists, u_counts, rest_index,
                 n_boxes, five_box, ub_table, five_after, reg_pts, reg_bonus, five_slot,
                 jk_legal, jk_pts, jk_bonus, slot_table, roll_keep, children, parents,
                 n_parents, subkeeps, n_subkeeps, fresh_prob, n_rolls):
    """Fill ``S[fs, rest, u]`` (second moment) and ``A[fs, rest, u]`` (variance expected after
    the turn) for every group of one layer, from ``V`` and the later layers of ``S``; the
    groups are dealt round-robin into ``n_chunks`` chunks run in parallel (as
    :func:`agents.solvers.scorecard_kernels.solve_layer`)."""
    n_groups = g_fs.shape[0]
    max_nu = u_lists.shape[1]
    n_rows = n_boxes * 6
    for c in nb.prange(n_chunks):
        f_buf = np.zeros((3, n_rows * max_nu))
        k_buf = np.empty((3, N_KEEPS * max_nu))
        r_buf = np.empty((3, N_ROLLS * max_nu))
        l_buf = np.empty(N_SMALL_KEEPS * max_nu)
        al_buf = np.empty(N_SMALL_KEEPS * max_nu, dtype=np.int64)
        tl_buf = np.empty(N_SMALL_KEEPS * max_nu, dtype=np.uint8)
        best = np.empty(max_nu)
        arg = np.empty(max_nu, dtype=np.int64)
        tie = np.empty(max_nu, dtype=np.uint8)
        out_s = np.empty(max_nu)
        out_a = np.empty(max_nu)
        for g in range(c, n_groups, n_chunks):
            fs = g_fs[g]
            full = g_full[g]
            nu = u_counts[full & 63]
            us = u_lists[full & 63, :nu]
            fr, kk, rr, sk = n_rows * nu, N_KEEPS * nu, N_ROLLS * nu, N_SMALL_KEEPS * nu
            _group_spread(fs, g_rest[g], full, us, V, S, rest_index, n_boxes, five_box,
                          ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal,
                          jk_pts, jk_bonus, slot_table, roll_keep, children, parents,
                          n_parents, subkeeps, n_subkeeps, fresh_prob, n_rolls,
                          f_buf[0, :fr].reshape((n_rows, nu)),
                          f_buf[1, :fr].reshape((n_rows, nu)),
                          f_buf[2, :fr].reshape((n_rows, nu)),
                          k_buf[0, :kk].reshape((N_KEEPS, nu)),
                          k_buf[1, :kk].reshape((N_KEEPS, nu)),
                          k_buf[2, :kk].reshape((N_KEEPS, nu)),
                          r_buf[0, :rr].reshape((N_ROLLS, nu)),
                          r_buf[1, :rr].reshape((N_ROLLS, nu)),
                          r_buf[2, :rr].reshape((N_ROLLS, nu)),
                          l_buf[:sk].reshape((N_SMALL_KEEPS, nu)),
                          al_buf[:sk].reshape((N_SMALL_KEEPS, nu)),
                          tl_buf[:sk].reshape((N_SMALL_KEEPS, nu)),
                          best[:nu], arg[:nu], tie[:nu], out_s[:nu], out_a[:nu])
            for j in range(nu):
                S[fs, g_rest[g], us[j]] = out_s[j]
                A[fs, g_rest[g], us[j]] = out_a[j]
