"""Numba kernels of the scorecard DP (see :mod:`agents.solvers.scorecard_dp` for the model).

Everything here works on plain arrays prepared by ``scorecard_dp``; no rule is encoded here
(box points, legality, bonuses, the upper bonus and the next five state arrive as tables built
with the rules engine).  The kernels process one *group* of states at a time -- one (five
state, filled-box mask) pair -- for all the reachable upper totals ``u`` of that group at
once: the innermost loops run over ``u`` with unit stride and vectorise (SIMD).

Arrays over keeps are 2-D, ``A[k, j]`` = keep ``k`` at the ``j``-th upper total.  Keeps are
numbered as in :mod:`dice_env.dice` (by size: 0 the empty keep, ..., the 252 keeps of five
dice last); rolls map to five-dice keeps through ``roll_keep``.

A turn, for ``R`` throws per turn:

* ``V0[r]`` -- value of scoring roll ``r`` now (best legal box: points + bonuses + the value of
  the next turn's state);
* ``K_L[k]`` -- value of keeping ``k`` with ``L`` throws left: the mean over the six keeps with
  one more die (``KEEP_CHILDREN``), where a five-dice keep is worth ``V_{L-1}``;
* ``V_L[r]`` -- the best ``K_L`` over the sub-keeps of ``r``, built one die at a time: the best
  over a keep's sub-keeps is the best of its own value and its parents' bests (parents: one die
  less).  The five-dice keep itself stands for scoring now (or holding all five, never better
  than the best legal action, so the value is unchanged);
* the state's value: the mean of ``V_{R-1}`` over a fresh throw.
"""

from __future__ import annotations

import numba as nb
import numpy as np

N_KEEPS = 462
N_SMALL_KEEPS = 210  # keeps of 0..4 dice come first
N_ROLLS = 252
N_HOLDS = 32
NEG = -1.0e300


@nb.njit(cache=True, nogil=True)
def _expect_keeps(A, children):
    """``A[k] = mean(A[child(k, f)] for the six faces f)`` for every keep of fewer than 5 dice."""
    nu = A.shape[1]
    sixth = 1.0 / 6.0
    for k in range(N_SMALL_KEEPS - 1, -1, -1):
        c0 = children[k, 0]
        c1 = children[k, 1]
        c2 = children[k, 2]
        c3 = children[k, 3]
        c4 = children[k, 4]
        c5 = children[k, 5]
        for j in range(nu):
            A[k, j] = (A[c0, j] + A[c1, j] + A[c2, j] + A[c3, j] + A[c4, j] + A[c5, j]) * sixth


@nb.njit(cache=True, nogil=True)
def _best_over_subkeeps(A, parents, n_parents):
    """``A[k] = max(A[k], A[p] for the keeps p with one die less)``, smallest keeps first."""
    nu = A.shape[1]
    for k in range(1, N_KEEPS):
        for i in range(n_parents[k]):
            p = parents[k, i]
            for j in range(nu):
                A[k, j] = max(A[k, j], A[p, j])


@nb.njit(cache=True, nogil=True)
def _future_values(fs, full, us, V, rest_index, n_boxes, five_box, ub_table, five_after, F):
    """``F[b * 6 + s, j]``: value after scoring box ``b`` with slot ``s``, points excluded.

    Slot ``s`` (see ``slot_table``) is the number of dice counted for an upper box, whether the
    score is positive for the five-of-a-kind box, 0 for the other boxes.  The upper bonus
    earned by crossing the threshold is included (``ub_table[u, points]``).
    """
    nu = F.shape[1]
    t_cap = V.shape[2] - 1
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
                    F[row, j] = V[fs, r2, min(u + pts, t_cap)] + ub_table[u, pts]
        elif b == five_box:
            z = five_after[0]
            f = five_after[1]
            for j in range(nu):
                F[b * 6, j] = V[z, r2, us[j]]
                F[b * 6 + 1, j] = V[f, r2, us[j]]
        else:
            for j in range(nu):
                F[b * 6, j] = V[fs, r2, us[j]]


@nb.njit(cache=True, nogil=True)
def _score_now(fs, rest, full, n_boxes, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
               jk_bonus, slot_table, roll_keep, F, A):
    """``A[roll_keep[r]] = V0[r]`` for every roll: best legal box, with its bonuses."""
    nu = A.shape[1]
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
        kr = roll_keep[r]
        first = True
        for b in range(n_boxes):
            if not (legal >> b) & 1:
                continue
            p = pts_row[b]
            row = b * 6 + slot_table[b, p]
            pf = float(p) + bonus
            if first:
                for j in range(nu):
                    A[kr, j] = pf + F[row, j]
                first = False
            else:
                for j in range(nu):
                    A[kr, j] = max(A[kr, j], pf + F[row, j])


@nb.njit(cache=True, nogil=True)
def _group_values(fs, rest, full, us, V, rest_index, n_boxes, five_box, ub_table, five_after,
                  reg_pts, reg_bonus, five_slot, jk_legal, jk_pts, jk_bonus, slot_table,
                  roll_keep, children, parents, n_parents, fresh_prob, n_rolls, F, A, out):
    """``out[j]``: expected future score at the start of a turn, for every ``us[j]``."""
    nu = out.shape[0]
    _future_values(fs, full, us, V, rest_index, n_boxes, five_box, ub_table, five_after, F)
    _score_now(fs, rest, full, n_boxes, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
               jk_bonus, slot_table, roll_keep, F, A)
    for _level in range(1, n_rolls):
        _expect_keeps(A, children)
        _best_over_subkeeps(A, parents, n_parents)
    for j in range(nu):
        out[j] = 0.0
    for r in range(N_ROLLS):
        p = fresh_prob[r]
        kr = roll_keep[r]
        for j in range(nu):
            out[j] += p * A[kr, j]


@nb.njit(cache=True, parallel=True)
def solve_layer(g_fs, g_rest, g_full, n_chunks, V, u_lists, u_counts, rest_index, n_boxes,
                five_box, ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal,
                jk_pts, jk_bonus, slot_table, roll_keep, children, parents, n_parents,
                fresh_prob, n_rolls):
    """Fill ``V[fs, rest, u]`` for every group of one layer (all filled one box later).

    The groups are dealt round-robin into ``n_chunks`` chunks run in parallel; each chunk
    allocates its scratch memory once.
    """
    n_groups = g_fs.shape[0]
    max_nu = u_lists.shape[1]
    for c in nb.prange(n_chunks):
        a_buf = np.empty(N_KEEPS * max_nu)
        f_buf = np.empty(n_boxes * 6 * max_nu)
        out_buf = np.empty(max_nu)
        for g in range(c, n_groups, n_chunks):
            fs = g_fs[g]
            rest = g_rest[g]
            full = g_full[g]
            um = full & 63
            nu = u_counts[um]
            us = u_lists[um, :nu]
            A = a_buf[: N_KEEPS * nu].reshape((N_KEEPS, nu))
            F = f_buf[: n_boxes * 6 * nu].reshape((n_boxes * 6, nu))
            out = out_buf[:nu]
            _group_values(fs, rest, full, us, V, rest_index, n_boxes, five_box, ub_table,
                          five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
                          jk_bonus, slot_table, roll_keep, children, parents, n_parents,
                          fresh_prob, n_rolls, F, A, out)
            for j in range(nu):
                V[fs, rest, us[j]] = out[j]


@nb.njit(cache=True, nogil=True)
def _row_action_values(fs, rest, full, u, roll, rolls_left, V, rest_index, n_boxes, five_box,
                       ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
                       jk_bonus, slot_table, roll_keep, children, parents, n_parents,
                       hold_keep, reg_pts_t, reg_row_t, five_rolls, F, A, out):
    """Values of every action of one decision (expected future score, points now included).

    ``out[h]`` for hold ``h`` < 32 (``NEG`` when no reroll is left), ``out[32 + b]`` for
    scoring in box ``b`` (``NEG`` where the rules forbid it).  The scalar twin of
    :func:`_group_values` (one upper total, so no inner loops: several times faster than
    running the vector code with one lane).
    """
    # F[b * 6 + s]: value after scoring box b with slot s, points excluded
    t_cap = V.shape[2] - 1
    open_bits = ~full & ((1 << n_boxes) - 1)
    for b in range(n_boxes):
        if not (open_bits >> b) & 1:
            continue
        r2 = rest_index[full | (1 << b)]
        if b < 6:
            for c in range(6):
                pts = c * (b + 1)
                F[b * 6 + c] = V[fs, r2, min(u + pts, t_cap)] + ub_table[u, pts]
        elif b == five_box:
            F[b * 6] = V[five_after[0], r2, u]
            F[b * 6 + 1] = V[five_after[1], r2, u]
        else:
            F[b * 6] = V[fs, r2, u]
    # scoring the current roll
    s5 = five_slot[roll]
    if s5 >= 0:
        legal = jk_legal[fs, rest, s5]
        pts_row = jk_pts[fs, rest, s5]
        bonus = jk_bonus[fs, rest, s5]
    else:
        legal = open_bits
        pts_row = reg_pts[fs, roll]
        bonus = reg_bonus[fs, roll]
    for b in range(n_boxes):
        if (legal >> b) & 1:
            p = pts_row[b]
            out[N_HOLDS + b] = float(p) + bonus + F[b * 6 + slot_table[b, p]]
        else:
            out[N_HOLDS + b] = NEG
    if rolls_left <= 0:
        for h in range(N_HOLDS):
            out[h] = NEG
        return
    # V0 of every roll, into the five-dice keeps: the rolls that are not five of a kind box by
    # box (simple loops over the rolls), then the five of a kinds through the Joker tables
    for r in range(N_ROLLS):
        A[roll_keep[r]] = NEG
    for b in range(n_boxes):
        if not (open_bits >> b) & 1:
            continue
        pts_b = reg_pts_t[fs, b]
        row_b = reg_row_t[fs, b]
        for r in range(N_ROLLS):
            v = pts_b[r] + F[row_b[r]]
            k = roll_keep[r]
            if v > A[k]:
                A[k] = v
    for r in range(N_ROLLS):
        A[roll_keep[r]] += reg_bonus[fs, r]
    for r in five_rolls:
        s5 = five_slot[r]
        legal = jk_legal[fs, rest, s5]
        pts_row = jk_pts[fs, rest, s5]
        best = NEG
        for b in range(n_boxes):
            if (legal >> b) & 1:
                p = pts_row[b]
                v = p + F[b * 6 + slot_table[b, p]]
                if v > best:
                    best = v
        A[roll_keep[r]] = best + jk_bonus[fs, rest, s5]
    sixth = 1.0 / 6.0
    for level in range(1, rolls_left + 1):
        for k in range(N_SMALL_KEEPS - 1, -1, -1):
            A[k] = (A[children[k, 0]] + A[children[k, 1]] + A[children[k, 2]]
                    + A[children[k, 3]] + A[children[k, 4]] + A[children[k, 5]]) * sixth
        if level < rolls_left:
            for k in range(1, N_KEEPS):
                best = A[k]
                for i in range(n_parents[k]):
                    v = A[parents[k, i]]
                    if v > best:
                        best = v
                A[k] = best
    for h in range(N_HOLDS):
        out[h] = A[hold_keep[roll, h]]


@nb.njit(cache=True, parallel=True)
def action_values(fs, rest, full, u, roll, rolls_left, V, rest_index, n_boxes, five_box,
                  ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
                  jk_bonus, slot_table, roll_keep, children, parents, n_parents, hold_keep,
                  reg_pts_t, reg_row_t, five_rolls, n_chunks, out):
    """``out[i, a]``: value of action ``a`` in decision ``i``; rows dealt to ``n_chunks``."""
    n = fs.shape[0]
    for c in nb.prange(n_chunks):
        F = np.empty(n_boxes * 6)
        A = np.empty(N_KEEPS)
        for i in range(c, n, n_chunks):
            _row_action_values(fs[i], rest[i], full[i], u[i], roll[i], rolls_left[i], V,
                               rest_index, n_boxes, five_box, ub_table, five_after, reg_pts,
                               reg_bonus, five_slot, jk_legal, jk_pts, jk_bonus, slot_table,
                               roll_keep, children, parents, n_parents, hold_keep,
                               reg_pts_t, reg_row_t, five_rolls, F, A, out[i])


@nb.njit(cache=True, nogil=True)
def action_values_serial(fs, rest, full, u, roll, rolls_left, V, rest_index, n_boxes, five_box,
                         ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
                         jk_bonus, slot_table, roll_keep, children, parents, n_parents,
                         hold_keep, reg_pts_t, reg_row_t, five_rolls, out):
    """:func:`action_values` on the calling thread (small batches: no thread-pool wake-up)."""
    F = np.empty(n_boxes * 6)
    A = np.empty(N_KEEPS)
    for i in range(fs.shape[0]):
        _row_action_values(fs[i], rest[i], full[i], u[i], roll[i], rolls_left[i], V,
                           rest_index, n_boxes, five_box, ub_table, five_after, reg_pts,
                           reg_bonus, five_slot, jk_legal, jk_pts, jk_bonus, slot_table,
                           roll_keep, children, parents, n_parents, hold_keep,
                           reg_pts_t, reg_row_t, five_rolls, F, A, out[i])


@nb.njit(cache=True, nogil=True)
def action_values_one(fs, rest, full, u, roll, rolls_left, V, rest_index, n_boxes, five_box,
                      ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
                      jk_bonus, slot_table, roll_keep, children, parents, n_parents, hold_keep,
                      reg_pts_t, reg_row_t, five_rolls, out):
    """:func:`action_values` of a single decision, on the calling thread (no thread pool)."""
    F = np.empty(n_boxes * 6)
    A = np.empty(N_KEEPS)
    _row_action_values(fs, rest, full, u, roll, rolls_left, V, rest_index, n_boxes, five_box,
                       ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts,
                       jk_bonus, slot_table, roll_keep, children, parents, n_parents,
                       hold_keep, reg_pts_t, reg_row_t, five_rolls, F, A, out)
