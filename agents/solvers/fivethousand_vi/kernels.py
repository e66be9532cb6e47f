"""Numba kernels of the 5000 value iteration (see :mod:`agents.solvers.fivethousand_vi`).

No rule of the game is written here: what a bank does (bumps, gifts, wins), when it is
allowed, and what a throw of ``n`` dice can score arrive as tables built by
:mod:`~agents.solvers.fivethousand_vi.model` from :mod:`dice_env.fivethousand.rules`.

Notation.  Scores are *indices* into the model's score grid (0, entry, entry + 100, ...,
target - 100).  Turn totals are *slots* ``j`` (``t = 50 j``, ``0 <= j < T``, ``T - 1`` the
target).  A state at the start of a turn is ``(ia, ib)``: the mover holds score ``ia``, the
opponent ``ib``.  Inside a turn, after a throw that scored, the mover decides at ``(j, n)``:
turn total ``t = 50 j`` (this throw included) and ``n`` dice to throw if rolling on (5 after hot
dice).

Throw tables (compressed rows): for ``n`` dice, the *groups* ``grp_start[n] .. grp_start[n+1]``
are the distinct scoring throws with their probability ``grp_prob[g]``; each group offers the
*options* ``opt_start[g] .. opt_start[g+1]`` (``opt_slot[o]`` points / 50 set aside,
``opt_left[o]`` dice thrown next).  Under the literal rules every group has one option; with
``choose_scoring_dice`` a group is one multiset and its options are the legal set-asides.
``bust_prob[n]`` is the chance that ``n`` dice score nothing.

Bank tables: ``bank_ok[ia, j]`` (the mover may bank ``t``), and ``bank_next[ia, ib, j]`` what the
bank leads to: ``>= 0`` the flat index ``ib' * K + ia'`` of the next state, seen from the
opponent who moves next; ``WIN`` (the mover reached the target) or ``LOSS`` (a gift took the
opponent to the target).  ``j_hi[ia, ib]`` is the last slot at which a bank changes anything:
beyond it every bank is lost (the overshoot gift too), so the turn is worth the same as a bust.
"""

from __future__ import annotations

import numba as nb
import numpy as np

#: ``bank_next`` codes
WIN = -1
LOSS = -2
N_DICE = 5


@nb.njit(cache=True, nogil=True)
def turn_values(ia, ib, w_next, j_hi, policy, use_policy, bank_ok, bank_next, bust_prob,
                grp_start, grp_prob, opt_start, opt_slot, opt_left, dec, roll, bank):
    """Win probability of the mover's turn from ``(ia, ib)``; fills the decision tables.

    Args:
        w_next: ``(K * K,)`` the win probabilities of the player who moves *next* (the
            opponent), at the start of their turn, flat ``[their score, our score]``.
        policy, use_policy: ``(K, K, T, 6)`` bool, bank or not at ``(ia, ib, j, n)``, used when
            ``use_policy`` (evaluating a fixed player); otherwise the mover maximises.
        dec, roll: ``(T, 6)`` scratch/out: the value of decision ``(j, n)`` and of rolling on.
        bank: ``(T,)`` out: the value of banking at ``j`` (NaN where not allowed).

    Returns:
        The value at the start of the turn (five dice to throw, turn total 0).
    """
    k = bank_ok.shape[0]
    n_slots = dec.shape[0]
    lose_turn = 1.0 - w_next[ib * k + ia]  # a bust: the opponent moves, scores unchanged
    for j in range(n_slots):
        if bank_ok[ia, j]:
            nx = bank_next[ia, ib, j]
            if nx >= 0:
                bank[j] = 1.0 - w_next[nx]
            elif nx == WIN:
                bank[j] = 1.0
            else:
                bank[j] = 0.0
        else:
            bank[j] = np.nan
    top = min(j_hi, n_slots - 1)
    for j in range(n_slots - 1, top, -1):
        for n in range(N_DICE + 1):
            dec[j, n] = lose_turn
            roll[j, n] = lose_turn
    for j in range(top, -1, -1):
        for n in range(1, N_DICE + 1):
            v = bust_prob[n] * lose_turn
            for g in range(grp_start[n], grp_start[n + 1]):
                best = -1.0
                for o in range(opt_start[g], opt_start[g + 1]):
                    j2 = j + opt_slot[o]
                    d = lose_turn if j2 >= n_slots else dec[j2, opt_left[o]]
                    if d > best:
                        best = d
                v += grp_prob[g] * best
            roll[j, n] = v
            d = v
            if bank_ok[ia, j]:
                if use_policy:
                    if policy[ia, ib, j, n]:
                        d = bank[j]
                elif bank[j] > v:
                    d = bank[j]
            dec[j, n] = d
    return roll[0, N_DICE]


def _sweep(level_start, pairs_a, pairs_b, w_a, w_b, pol_a, pol_b, use_pol_a, use_pol_b,
           symmetric, tol_local, max_local, j_hi, bank_ok, bank_next, bust_prob, grp_start,
           grp_prob, opt_start, opt_slot, opt_left, changes, iterations):
    """One sweep: every level from the first (highest score sum) to the last.

    Level ``l`` holds the pairs ``level_start[l] .. level_start[l + 1]`` of ``pairs_a`` /
    ``pairs_b``; a pair ``{ia, ib}`` holds the states ``(ia, ib)`` and ``(ib, ia)``.  Within a
    level the pairs do not read each other (the model checks it), so they may run in parallel
    (:func:`sweep_parallel`).  Each pair is iterated in place (Gauss-Seidel) until no value
    moves by more than ``tol_local`` (at most ``max_local`` rounds), the rest of the table
    held fixed.

    ``w_a[i, j]`` is the win probability of player A moving at (A's score i, B's score j);
    ``w_b`` the same for player B.  With ``symmetric`` (both players optimal: ``w_a is w_b``)
    only ``w_a`` is updated.  ``changes[p]`` gets the largest move of pair ``p`` in this
    sweep, ``iterations[p]`` its rounds.
    """
    k = w_a.shape[0]
    n_slots = bank_ok.shape[1]
    flat_a = w_a.reshape(k * k)
    flat_b = w_b.reshape(k * k)
    for lev in range(level_start.shape[0] - 1):
        for p in nb.prange(level_start[lev], level_start[lev + 1]):
            dec = np.empty((n_slots, N_DICE + 1))
            roll = np.empty((n_slots, N_DICE + 1))
            bank = np.empty(n_slots)
            ia = pairs_a[p]
            ib = pairs_b[p]
            start0 = w_a[ia, ib]
            start1 = w_a[ib, ia]
            start2 = w_b[ia, ib]
            start3 = w_b[ib, ia]
            rounds = 0
            for _ in range(max_local):
                rounds += 1
                delta = 0.0
                for side in range(4):
                    if symmetric and side >= 2:
                        break
                    if ia == ib and (side == 1 or side == 3):
                        continue
                    x = ia
                    y = ib
                    if side == 1 or side == 3:
                        x = ib
                        y = ia
                    if side < 2:  # player A moves, B moves next
                        v = turn_values(x, y, flat_b, j_hi[x, y], pol_a, use_pol_a, bank_ok,
                                        bank_next, bust_prob, grp_start, grp_prob, opt_start,
                                        opt_slot, opt_left, dec, roll, bank)
                        old = w_a[x, y]
                        w_a[x, y] = v
                    else:
                        v = turn_values(x, y, flat_a, j_hi[x, y], pol_b, use_pol_b, bank_ok,
                                        bank_next, bust_prob, grp_start, grp_prob, opt_start,
                                        opt_slot, opt_left, dec, roll, bank)
                        old = w_b[x, y]
                        w_b[x, y] = v
                    delta = max(delta, abs(v - old))
                if delta <= tol_local:
                    break
            ch = max(abs(w_a[ia, ib] - start0), abs(w_a[ib, ia] - start1))
            if not symmetric:
                ch = max(ch, max(abs(w_b[ia, ib] - start2), abs(w_b[ib, ia] - start3)))
            changes[p] = ch
            iterations[p] = rounds


#: one sweep on one thread
sweep_serial = nb.njit(cache=True)(_sweep)
#: one sweep, the pairs of each level spread over numba's threads (a barrier per level: on a
#: loaded machine the barriers can cost more than the parallel work saves)
sweep_parallel = nb.njit(cache=True, parallel=True)(_sweep)


@nb.njit(cache=True, parallel=True)
def all_turn_tables(w_mover, w_next, pol, use_pol, j_hi, bank_ok, bank_next, bust_prob,
                    grp_start, grp_prob, opt_start, opt_slot, opt_left, roll_out, bank_out,
                    start_out):
    """For every state ``(ia, ib)``: the roll-on values ``roll_out[ia, ib, j, n]``, the bank
    values ``bank_out[ia, ib, j]`` and the turn-start value ``start_out[ia, ib]`` (a Jacobi
    application of the Bellman operator: ``start_out - w_mover`` is the residual).

    ``roll_out`` / ``bank_out`` have one slot more than the tables (``T``): the value of any
    turn total beyond the target (that of a bust).
    """
    k = bank_ok.shape[0]
    n_slots = bank_ok.shape[1]
    flat = w_next.reshape(k * k)
    for s in nb.prange(k * k):
        ia = s // k
        ib = s % k
        dec = np.empty((n_slots, N_DICE + 1))
        roll = np.empty((n_slots, N_DICE + 1))
        bank = np.empty(n_slots)
        start_out[ia, ib] = turn_values(ia, ib, flat, j_hi[ia, ib], pol, use_pol, bank_ok,
                                        bank_next, bust_prob, grp_start, grp_prob, opt_start,
                                        opt_slot, opt_left, dec, roll, bank)
        lose_turn = 1.0 - flat[ib * k + ia]
        for j in range(n_slots):
            bank_out[ia, ib, j] = bank[j]
            for n in range(N_DICE + 1):
                roll_out[ia, ib, j, n] = roll[j, n] if n > 0 else np.nan
        for n in range(N_DICE + 1):
            roll_out[ia, ib, n_slots, n] = lose_turn if n > 0 else np.nan
        bank_out[ia, ib, n_slots] = lose_turn


# ------------------------------------------------------------------------------------------
# Solo: expected turns, minimised
# ------------------------------------------------------------------------------------------
@nb.njit(cache=True, nogil=True)
def solo_turn(ia, f, x, j_hi, bank_ok, bank_next, bust_prob, grp_start, grp_prob, opt_start,
              opt_slot, opt_left, dc, ds, rc, rs, bc, bs):
    """Expected turns still to play (this one included) from the start of a turn at score
    ``ia``, as an affine function ``c + s * x`` of ``x`` = that same value (a bust, or a lost
    bank, starts the turn over at the same score); the policy minimises at the given ``x``.

    ``f[i]`` holds the solved values of higher scores (``bank_next[ia, 0, j]`` is the index
    of the score after a bank, ``ia`` itself when the points are lost, ``WIN`` at the target).
    ``dc, ds, rc, rs`` ``(T, 6)`` and ``bc, bs`` ``(T,)``: the decision, roll-on and bank
    values as ``(c, s)`` pairs.  Returns ``(c, s)`` of the turn start.
    """
    n_slots = dc.shape[0]
    for j in range(n_slots):
        if bank_ok[ia, j]:
            nx = bank_next[ia, 0, j]
            if nx == WIN:
                bc[j] = 1.0
                bs[j] = 0.0
            elif nx == ia:
                bc[j] = 1.0
                bs[j] = 1.0
            else:
                bc[j] = 1.0 + f[nx]
                bs[j] = 0.0
        else:
            bc[j] = np.nan
            bs[j] = np.nan
    top = min(j_hi, n_slots - 1)
    for j in range(n_slots - 1, top, -1):
        for n in range(N_DICE + 1):
            dc[j, n] = 1.0
            ds[j, n] = 1.0
            rc[j, n] = 1.0
            rs[j, n] = 1.0
    for j in range(top, -1, -1):
        for n in range(1, N_DICE + 1):
            c = bust_prob[n]
            s = bust_prob[n]
            for g in range(grp_start[n], grp_start[n + 1]):
                best = np.inf
                bcv = 0.0
                bsv = 0.0
                for o in range(opt_start[g], opt_start[g + 1]):
                    j2 = j + opt_slot[o]
                    if j2 >= n_slots:
                        oc = 1.0
                        os_ = 1.0
                    else:
                        oc = dc[j2, opt_left[o]]
                        os_ = ds[j2, opt_left[o]]
                    val = oc + os_ * x
                    if val < best:
                        best = val
                        bcv = oc
                        bsv = os_
                c += grp_prob[g] * bcv
                s += grp_prob[g] * bsv
            rc[j, n] = c
            rs[j, n] = s
            if bank_ok[ia, j] and bc[j] + bs[j] * x < c + s * x:
                dc[j, n] = bc[j]
                ds[j, n] = bs[j]
            else:
                dc[j, n] = c
                ds[j, n] = s
    return rc[0, N_DICE], rs[0, N_DICE]


@nb.njit(cache=True)
def solve_solo(order, f, x0, tol, max_newton, j_hi, bank_ok, bank_next, bust_prob, grp_start,
               grp_prob, opt_start, opt_slot, opt_left, newton_steps):
    """Fill ``f[ia]`` for the scores in ``order`` (highest first), each by policy iteration.

    For one score the turn is worth ``g(x) = min over policies of (c + s x)``, concave and
    increasing with slopes below 1; Newton's step ``x <- c / (1 - s)`` on the policy that is
    best at ``x`` lands on or above the fixed point and then decreases to it, exactly once the
    policy repeats.  ``x0`` (large) starts every score with a policy that makes progress.
    ``newton_steps[ia]`` gets the steps taken.
    """
    n_slots = bank_ok.shape[1]
    dc = np.empty((n_slots, N_DICE + 1))
    ds = np.empty((n_slots, N_DICE + 1))
    rc = np.empty((n_slots, N_DICE + 1))
    rs = np.empty((n_slots, N_DICE + 1))
    bc = np.empty(n_slots)
    bs = np.empty(n_slots)
    for ia in order:
        x = x0
        steps = 0
        for _ in range(max_newton):
            steps += 1
            c, s = solo_turn(ia, f, x, j_hi[ia, 0], bank_ok, bank_next, bust_prob, grp_start,
                             grp_prob, opt_start, opt_slot, opt_left, dc, ds, rc, rs, bc, bs)
            if s >= 1.0 - 1e-15:  # no progress possible at this x: look further out
                x = 2.0 * x
                continue
            new = c / (1.0 - s)
            done = abs(new - x) <= tol * max(1.0, abs(new))
            x = new
            if done:
                break
        f[ia] = x
        newton_steps[ia] = steps


@nb.njit(cache=True, parallel=True)
def all_solo_tables(f, j_hi, bank_ok, bank_next, bust_prob, grp_start, grp_prob, opt_start,
                    opt_slot, opt_left, roll_out, bank_out, start_out):
    """Expected turns (this one included) of rolling on / banking at every ``(ia, j, n)``,
    and the turn-start values recomputed from ``f`` (a Bellman check); one extra slot ``T``
    for turn totals beyond the target (as a bust)."""
    k = bank_ok.shape[0]
    n_slots = bank_ok.shape[1]
    for ia in nb.prange(k):
        dc = np.empty((n_slots, N_DICE + 1))
        ds = np.empty((n_slots, N_DICE + 1))
        rc = np.empty((n_slots, N_DICE + 1))
        rs = np.empty((n_slots, N_DICE + 1))
        bc = np.empty(n_slots)
        bs = np.empty(n_slots)
        x = f[ia]
        c, s = solo_turn(ia, f, x, j_hi[ia, 0], bank_ok, bank_next, bust_prob, grp_start,
                         grp_prob, opt_start, opt_slot, opt_left, dc, ds, rc, rs, bc, bs)
        start_out[ia] = c + s * x
        for j in range(n_slots):
            bank_out[ia, j] = bc[j] + bs[j] * x
            for n in range(N_DICE + 1):
                roll_out[ia, j, n] = rc[j, n] + rs[j, n] * x if n > 0 else np.nan
        for n in range(N_DICE + 1):
            roll_out[ia, n_slots, n] = 1.0 + x if n > 0 else np.nan
        bank_out[ia, n_slots] = 1.0 + x


# ------------------------------------------------------------------------------------------
# One turn on its own
# ------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def single_turn(reward, bank_ok, grp_start, grp_prob, opt_start, opt_slot, opt_left, dec, roll):
    """The best expected reward of one turn: banking at slot ``j`` earns ``reward[j]`` (where
    ``bank_ok[j]``), a bust 0, a turn total past the last slot 0.  Fills ``dec`` and ``roll``
    ``(T, 6)`` and returns the value of a fresh turn (five dice, turn total 0)."""
    n_slots = dec.shape[0]
    for j in range(n_slots - 1, -1, -1):
        for n in range(1, N_DICE + 1):
            v = 0.0
            for g in range(grp_start[n], grp_start[n + 1]):
                best = 0.0
                for o in range(opt_start[g], opt_start[g + 1]):
                    j2 = j + opt_slot[o]
                    if j2 < n_slots and dec[j2, opt_left[o]] > best:
                        best = dec[j2, opt_left[o]]
                v += grp_prob[g] * best
            roll[j, n] = v
            dec[j, n] = max(v, reward[j]) if bank_ok[j] else v
    return roll[0, N_DICE]
