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
among holds, the lowest hold on a tie.  The lowest hold does not depend on the roll: of two
keeps, the one with fewer dice of the highest face where their counts differ is made by the
lower hold of every roll that has both (the sorted dice put higher faces at higher bits).  So
the kernels number the keeps of fewer than five dice in that order (:func:`hold_ordered`), and
"the best value, then the lowest number" is one total order: the sub-keep lattice keeps, beside
the best value, the keep that has it, with no tie to resolve later.  The work per lane is then
about four times the DP's: the same loops over rolls and keeps, with three numbers per keep
instead of one in the mean over the dice, and a keep number beside the value in the lattice.
The turn's first roll goes straight into the mean over the fresh dice, with nothing stored.

The one shortcut the DP does not take: the upper totals ``u`` from which the open upper boxes
can no longer reach the bonus threshold (``u`` plus five of each open face short of it) lead to
the same play and the same tables bit for bit (no bonus is earned on the way, and no total is
capped), so a group computes one of them and copies its result to the others
(:func:`lost_totals_merge` checks that the bonus table allows it).  About a third of the lanes
are such totals in Penta and Dice Poker.  The lanes are padded to whole vectors
(:data:`_LANE_PAD`).  The whole spread takes about 2.6 to 2.8 times the DP's solve
(``dice-env bench tables``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.solvers.scorecard_kernels import N_KEEPS, N_ROLLS, N_SMALL_KEEPS
from dice_env import dice as D

__all__ = ["hold_ordered", "lost_totals_merge", "spread_layer"]


def hold_order() -> np.ndarray:
    """``(462,)`` the number of each keep in hold order: the keeps of fewer than five dice
    sorted by their face counts read from face 6 down (the lowest hold first), the rolls
    after them unchanged.  Checked against every roll's holds."""
    counts = D.KEEP_COUNTS[:N_SMALL_KEEPS, ::-1].tolist()
    order = sorted(range(N_SMALL_KEEPS), key=lambda k: counts[k])
    number = np.arange(N_KEEPS, dtype=np.int64)
    number[order] = np.arange(N_SMALL_KEEPS)
    for r in range(N_ROLLS):
        seen: list[int] = []  # the roll's distinct keeps, by the lowest hold that makes each
        for h in range(D.N_HOLDS - 1):  # all five held is no reroll
            k = int(number[D.HOLD_KEEP[r, h]])
            if k not in seen:
                seen.append(k)
        if seen != sorted(seen) or seen[-1] >= N_SMALL_KEEPS:
            raise RuntimeError(f"roll {r}: the keep tables are not in hold order as expected")
    return number


def hold_ordered(children: np.ndarray, parents: np.ndarray, n_parents: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The DP's keep tables (``children``, ``parents``, ``n_parents``) with the keeps renumbered
    by :func:`hold_order`; the rolls keep their numbers, and every parent still comes before
    its children (a keep with one more die has a higher number in hold order too)."""
    number = hold_order()

    def renumber(table: np.ndarray) -> np.ndarray:
        out = np.empty_like(table)
        out[number] = np.where(table >= 0, number[np.maximum(table, 0)], -1)
        return out

    n_out = np.empty_like(n_parents)
    n_out[number] = n_parents
    return renumber(children), renumber(parents), n_out


def lost_totals_merge(ub_table: np.ndarray) -> bool:
    """Whether every upper total short of the bonus threshold (the last row of ``ub_table``,
    the capped total) earns nothing until it reaches the threshold: then the totals that can
    no longer reach it are one lane of :func:`spread_layer`."""
    cap = ub_table.shape[0] - 1
    short = np.arange(cap + 1)[:, None] + np.arange(ub_table.shape[1])[None, :] < cap
    return bool(np.all(ub_table[short] == 0.0))


#: lanes are padded to a multiple of this (copies of the last, thrown away): about 5 % faster
#: than a scalar tail on the loops over lanes
_LANE_PAD = 4


@nb.njit(cache=True, nogil=True)
def _expect(A, children):
    """``A[k]``, for every keep of fewer than five dice, the mean over the reroll: the sum of
    its six children in order, then divided (numpy's mean, so that near ties fall as in the
    reference)."""
    nu = A.shape[1]
    for k in range(N_SMALL_KEEPS - 1, -1, -1):
        c0, c1, c2 = children[k, 0], children[k, 1], children[k, 2]
        c3, c4, c5 = children[k, 3], children[k, 4], children[k, 5]
        for j in range(nu):
            A[k, j] = (A[c0, j] + A[c1, j] + A[c2, j] + A[c3, j] + A[c4, j] + A[c5, j]) / 6.0


@nb.njit(cache=True, nogil=True)
def _best_keeps(M, K, parents, n_parents):
    """Over the keeps of fewer than five dice, smallest first: ``M[k]`` becomes the best value
    of ``k`` and every keep below it (one die less, and so on), ``K[k]`` the lowest-numbered
    keep that has it (the keeps are numbered in hold order)."""
    nu = M.shape[1]
    for j in range(nu):
        K[0, j] = 0
    for k in range(1, N_SMALL_KEEPS):
        for j in range(nu):
            K[k, j] = k
        for i in range(n_parents[k]):
            p = parents[k, i]
            for j in range(nu):
                v = M[p, j]
                a = M[k, j]
                kp = K[p, j]
                ka = K[k, j]
                take = (v > a) | ((v == a) & (kp < ka))
                M[k, j] = v if take else a
                K[k, j] = kp if take else ka


@nb.njit(cache=True, nogil=True)
def _group_spread(fs, rest, full, us, V, S, rest_index, n_boxes, five_box, ub_table,
                  five_after, reg_pts, reg_bonus, five_slot, jk_legal, jk_pts, jk_bonus,
                  slot_table, roll_keep, children, parents, n_parents, fresh_prob, n_rolls,
                  FM, FS, FU, M, Q1, Q2, SM, SQ1, SQ2, K, best, bg, brow, out_s, out_a):
    """``out_s[j]``, ``out_a[j]``: second moment and variance after the turn, every ``us[j]``
    (the keep tables numbered in hold order, :func:`hold_ordered`)."""
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
            bg[j] = 0.0
            brow[j] = 0
        for b in range(n_boxes):
            if not (legal >> b) & 1:
                continue
            p = pts_row[b]
            row = b * 6 + slot_table[b, p]
            pf = float(p) + bonus
            for j in range(nu):
                g = pf + FU[row, j]
                v = g + FM[row, j]
                take = v > best[j]
                best[j] = v if take else best[j]
                bg[j] = g if take else bg[j]
                brow[j] = row if take else brow[j]
        kr = roll_keep[r]
        for j in range(nu):
            g = bg[j]
            m2 = FM[brow[j], j]
            s2 = FS[brow[j], j]
            SM[r, j] = best[j]
            SQ1[r, j] = g * g + 2.0 * g * m2 + s2
            SQ2[r, j] = s2 - m2 * m2
            M[kr, j] = SM[r, j]
            Q1[kr, j] = SQ1[r, j]
            Q2[kr, j] = SQ2[r, j]
    # the rerolls: a keep is the mean of its rolls; a roll rerolls to its best keep when that
    # beats scoring now (the lowest hold on a tie)
    for j in range(nu):
        out_s[j] = 0.0
        out_a[j] = 0.0
    for _level in range(1, n_rolls):
        _expect(M, children)  # one array per loop: three in one loop do not vectorise
        _expect(Q1, children)
        _expect(Q2, children)
        _best_keeps(M, K, parents, n_parents)
        for r in range(N_ROLLS):
            kr = roll_keep[r]
            for j in range(nu):
                best[j] = SM[r, j]
                brow[j] = -1
            for i in range(n_parents[kr]):
                p = parents[kr, i]
                for j in range(nu):
                    v = M[p, j]
                    a = best[j]
                    kp = K[p, j]
                    ka = brow[j]
                    take = (v > a) | ((v == a) & (kp < ka))  # never ties with scoring (-1)
                    best[j] = v if take else a
                    brow[j] = kp if take else ka
            if _level == n_rolls - 1:  # the turn's first roll: straight into the mean
                pr = fresh_prob[r]
                for j in range(nu):
                    k = brow[j]
                    if k >= 0:
                        out_s[j] += pr * Q1[k, j]
                        out_a[j] += pr * Q2[k, j]
                    else:
                        out_s[j] += pr * SQ1[r, j]
                        out_a[j] += pr * SQ2[r, j]
                continue
            for j in range(nu):
                k = brow[j]
                M[kr, j] = best[j]
                if k >= 0:
                    Q1[kr, j] = Q1[k, j]
                    Q2[kr, j] = Q2[k, j]
                else:
                    Q1[kr, j] = SQ1[r, j]
                    Q2[kr, j] = SQ2[r, j]
    if n_rolls == 1:
        for r in range(N_ROLLS):
            p = fresh_prob[r]
            for j in range(nu):
                out_s[j] += p * SQ1[r, j]
                out_a[j] += p * SQ2[r, j]


@nb.njit(cache=True, parallel=True)
def spread_layer(g_fs, g_rest, g_full, n_chunks, V, S, A, u_lists, u_counts, rest_index,
                 n_boxes, five_box, ub_table, five_after, reg_pts, reg_bonus, five_slot,
                 jk_legal, jk_pts, jk_bonus, slot_table, roll_keep, children, parents,
                 n_parents, fresh_prob, n_rolls, merge_lost):
    """Fill ``S[fs, rest, u]`` (second moment) and ``A[fs, rest, u]`` (variance expected after
    the turn) for every group of one layer, from ``V`` and the later layers of ``S``; the keep
    tables numbered in hold order (:func:`hold_ordered`).  The groups are dealt round-robin
    into ``n_chunks`` chunks run in parallel (as
    :func:`agents.solvers.scorecard_kernels.solve_layer`).  With ``merge_lost``
    (:func:`lost_totals_merge`), the upper totals that can no longer reach the bonus are
    computed once per group."""
    n_groups = g_fs.shape[0]
    max_nu = u_lists.shape[1] + _LANE_PAD
    n_rows = n_boxes * 6
    t_cap = V.shape[2] - 1
    for c in nb.prange(n_chunks):
        f_buf = np.zeros((3, n_rows * max_nu))
        k_buf = np.empty((3, N_KEEPS * max_nu))
        r_buf = np.empty((3, N_ROLLS * max_nu))
        arg_buf = np.empty(N_SMALL_KEEPS * max_nu, dtype=np.int64)
        best = np.empty(max_nu)
        bg = np.empty(max_nu)
        brow = np.empty(max_nu, dtype=np.int64)
        out_s = np.empty(max_nu)
        out_a = np.empty(max_nu)
        lanes = np.empty(max_nu, dtype=np.int64)
        lane_of = np.empty(max_nu, dtype=np.int64)
        for g in range(c, n_groups, n_chunks):
            fs = g_fs[g]
            full = g_full[g]
            n_u = u_counts[full & 63]
            room = 0  # the most the open upper boxes can still add
            for b in range(6):
                if not (full >> b) & 1:
                    room += 5 * (b + 1)
            nu = 0  # the lanes computed: the totals that can still reach, and one that cannot
            lost = -1
            for j in range(n_u):
                u = u_lists[full & 63, j]
                if merge_lost and u + room < t_cap:
                    if lost < 0:
                        lost = nu
                        lanes[nu] = u
                        nu += 1
                    lane_of[j] = lost
                else:
                    lanes[nu] = u
                    lane_of[j] = nu
                    nu += 1
            while nu % _LANE_PAD:  # whole vectors: the loops over lanes have no scalar tail
                lanes[nu] = lanes[nu - 1]
                nu += 1
            us = lanes[:nu]
            fr, kk, rr, sk = n_rows * nu, N_KEEPS * nu, N_ROLLS * nu, N_SMALL_KEEPS * nu
            _group_spread(fs, g_rest[g], full, us, V, S, rest_index, n_boxes, five_box,
                          ub_table, five_after, reg_pts, reg_bonus, five_slot, jk_legal,
                          jk_pts, jk_bonus, slot_table, roll_keep, children, parents,
                          n_parents, fresh_prob, n_rolls,
                          f_buf[0, :fr].reshape((n_rows, nu)),
                          f_buf[1, :fr].reshape((n_rows, nu)),
                          f_buf[2, :fr].reshape((n_rows, nu)),
                          k_buf[0, :kk].reshape((N_KEEPS, nu)),
                          k_buf[1, :kk].reshape((N_KEEPS, nu)),
                          k_buf[2, :kk].reshape((N_KEEPS, nu)),
                          r_buf[0, :rr].reshape((N_ROLLS, nu)),
                          r_buf[1, :rr].reshape((N_ROLLS, nu)),
                          r_buf[2, :rr].reshape((N_ROLLS, nu)),
                          arg_buf[:sk].reshape((N_SMALL_KEEPS, nu)),
                          best[:nu], bg[:nu], brow[:nu], out_s[:nu], out_a[:nu])
            for j in range(n_u):
                u = u_lists[full & 63, j]
                S[fs, g_rest[g], u] = out_s[lane_of[j]]
                A[fs, g_rest[g], u] = out_a[lane_of[j]]
