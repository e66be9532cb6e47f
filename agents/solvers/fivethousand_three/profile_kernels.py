"""Numba kernels that analyse a fixed profile of the ``P``-player max-n solver of 5000: one-turn
deviation gains, where each turn ends (transitions), the tables of one state, the occupancy of
a game, the forward Bellman check and the chain's reach (notation: :mod:`.kernels`)."""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.solvers.fivethousand_three.kernels import N_DICE, turn_affine


@nb.njit(cache=True, parallel=True)
def deviation_gains(w, pol, tie_tol, rot, bank_ok, bank_next, j_hi, st0, bust_prob, grp_start,
                    grp_prob, opt_start, opt_slot, opt_left, start_value, gain_start,
                    gain_decision, flips):
    """Against the values ``w`` of the fixed policy ``pol``, for every state ``s``:

    * ``start_value[s]`` ``(P,)``: the policy's turn value recomputed (a Bellman check);
    * ``gain_start[s]``: the most the mover gains by playing the whole turn as a best response
      (every decision of the turn free, the values of the following turns fixed);
    * ``gain_decision[s]``: the largest such gain at any one decision of the turn
      (``max_(j, n)`` of the best response's value there minus the policy's);
    * ``flips[s]``: decisions where the best response differs from the policy by more than
      ``tie_tol``.
    """
    n_states = w.shape[0]
    n_slots = bank_ok.shape[1]
    p = w.shape[1]
    for s in nb.prange(n_states):
        dc = np.empty((n_slots, N_DICE + 1, p))
        dq = np.empty((n_slots, N_DICE + 1))
        bc = np.empty((n_slots, p))
        bq = np.empty(n_slots)
        lv = np.empty(p)
        c = np.empty(p)
        pol_out = np.empty((n_slots, N_DICE + 1), dtype=np.bool_)
        q = turn_affine(s, w, rot, bank_ok, bank_next, j_hi[s], st0, pol, True, pol_out,
                        tie_tol, bust_prob, grp_start, grp_prob, opt_start, opt_slot,
                        opt_left, dc, dq, bc, bq, lv, c)
        for x in range(p):
            start_value[s, x] = c[x] + q * lv[x]
        l0 = lv[0]
        # the mover's best response, scalar (own component), against the same leaves
        br = np.empty((n_slots, N_DICE + 1))
        top = min(j_hi[s], n_slots - 1)
        ia = st0[s]
        for j in range(n_slots - 1, top, -1):
            for n in range(N_DICE + 1):
                br[j, n] = l0
        worst = 0.0
        nflip = 0
        for j in range(top, -1, -1):
            for n in range(1, N_DICE + 1):
                v = bust_prob[n] * l0
                for g in range(grp_start[n], grp_start[n + 1]):
                    o = opt_start[g]
                    j2 = j + opt_slot[o]
                    v += grp_prob[g] * (l0 if j2 >= n_slots else br[j2, opt_left[o]])
                if bank_ok[ia, j]:
                    bv = bc[j, 0] + bq[j] * l0
                    if bv > v:
                        v = bv
                br[j, n] = v
                mine = dc[j, n, 0] + dq[j, n] * l0
                if v - mine > worst:
                    worst = v - mine
                if v - mine > tie_tol:
                    nflip += 1
        v = bust_prob[N_DICE] * l0
        for g in range(grp_start[N_DICE], grp_start[N_DICE + 1]):
            o = opt_start[g]
            j2 = opt_slot[o]
            v += grp_prob[g] * (l0 if j2 >= n_slots else br[j2, opt_left[o]])
        gain_start[s] = v - start_value[s, 0]
        gain_decision[s] = worst
        flips[s] = nflip


@nb.njit(cache=True, parallel=True)
def transitions(pol, rot, bank_ok, bank_next, j_hi, st0, bust_prob, grp_start, grp_prob,
                opt_start, opt_slot, opt_left, nxt_out, prob_out):
    """Where the turn from each state ends under the fixed policy ``pol``.

    ``nxt_out[s, j]`` / ``prob_out[s, j]`` ``(S, T + 1)``: for ``j < T`` the bank at slot ``j``
    (its ``bank_next`` code: a state, or ``-1 - w`` a win) and its probability; entry ``T``:
    the turn lost (a bust, or any total past ``j_hi``), leading to ``rot[s]``.
    """
    n_states = pol.shape[0]
    n_slots = bank_ok.shape[1]
    for s in nb.prange(n_states):
        reach = np.zeros((n_slots, N_DICE + 1))
        lose = bust_prob[N_DICE]
        for g in range(grp_start[N_DICE], grp_start[N_DICE + 1]):
            o = opt_start[g]
            j2 = opt_slot[o]
            if j2 >= n_slots:
                lose += grp_prob[g]
            else:
                reach[j2, opt_left[o]] += grp_prob[g]
        top = min(j_hi[s], n_slots - 1)
        ia = st0[s]
        for j in range(n_slots):
            nxt_out[s, j] = rot[s]
            prob_out[s, j] = 0.0
        for j in range(n_slots):
            for n in range(1, N_DICE + 1):
                m = reach[j, n]
                if m == 0.0:
                    continue
                if j > top:
                    lose += m
                elif bank_ok[ia, j] and pol[s, j, n]:
                    prob_out[s, j] += m
                    nxt_out[s, j] = bank_next[s, j]
                else:
                    lose += m * bust_prob[n]
                    for g in range(grp_start[n], grp_start[n + 1]):
                        o = opt_start[g]
                        j2 = j + opt_slot[o]
                        if j2 >= n_slots:
                            lose += m * grp_prob[g]
                        else:
                            reach[j2, opt_left[o]] += m * grp_prob[g]
        nxt_out[s, n_slots] = rot[s]
        prob_out[s, n_slots] = lose


@nb.njit(cache=True)
def state_tables(s, w, pol, tie_tol, rot, bank_ok, bank_next, j_hi, st0, bust_prob, grp_start,
                 grp_prob, opt_start, opt_slot, opt_left, roll_out, bank_out):
    """The value vectors of every decision of state ``s`` under the fixed policy ``pol``:
    ``roll_out[j, n]`` ``(T + 1, 6, P)`` of rolling ``n`` dice on at slot ``j``, ``bank_out[j]``
    ``(T + 1, P)`` of banking there (NaN where not allowed); slot ``T``: any total past the
    target (worth a bust).  Returns the turn-start value's mover component."""
    n_slots = bank_ok.shape[1]
    p = w.shape[1]
    dc = np.empty((n_slots, N_DICE + 1, p))
    dq = np.empty((n_slots, N_DICE + 1))
    bc = np.empty((n_slots, p))
    bq = np.empty(n_slots)
    lv = np.empty(p)
    c = np.empty(p)
    pol_out = np.empty((n_slots, N_DICE + 1), dtype=np.bool_)
    q = turn_affine(s, w, rot, bank_ok, bank_next, j_hi[s], st0, pol, True, pol_out, tie_tol,
                    bust_prob, grp_start, grp_prob, opt_start, opt_slot, opt_left, dc, dq, bc,
                    bq, lv, c)
    top = min(j_hi[s], n_slots - 1)
    ia = st0[s]
    for j in range(n_slots):
        for n in range(N_DICE + 1):
            if n == 0:
                for x in range(p):
                    roll_out[j, n, x] = np.nan
                continue
            if j > top:
                for x in range(p):
                    roll_out[j, n, x] = lv[x]
                continue
            # rolling on from (j, n): the throw, then the policy's decisions
            qq = bust_prob[n]
            for x in range(p):
                roll_out[j, n, x] = 0.0
            for g in range(grp_start[n], grp_start[n + 1]):
                o = opt_start[g]
                j2 = j + opt_slot[o]
                pg = grp_prob[g]
                if j2 >= n_slots:
                    qq += pg
                else:
                    for x in range(p):
                        roll_out[j, n, x] += pg * dc[j2, opt_left[o], x]
                    qq += pg * dq[j2, opt_left[o]]
            for x in range(p):
                roll_out[j, n, x] += qq * lv[x]
        for x in range(p):
            if bank_ok[ia, j]:
                bank_out[j, x] = lv[x] if j > top else bc[j, x] + bq[j] * lv[x]
            else:
                bank_out[j, x] = np.nan
    for x in range(p):
        bank_out[n_slots, x] = lv[x]
        for n in range(N_DICE + 1):
            roll_out[n_slots, n, x] = lv[x] if n > 0 else np.nan
    return c[0] + q * lv[0]


@nb.njit(cache=True)
def occupancy(nxt, prob, start, tol, max_turns, visits, per_turn):
    """Expected visits of every turn-start state from ``start`` under the transitions of
    :func:`transitions`: ``visits = e_start + P^T visits``, summed turn by turn until the
    probability that the game is still running drops to ``tol`` (or ``max_turns`` turns).
    ``per_turn[t]`` gets that probability before turn ``t``.  Returns the turns summed."""
    n_states = nxt.shape[0]
    width = nxt.shape[1]
    d = np.zeros(n_states)
    d2 = np.zeros(n_states)
    d[start] = 1.0
    turns = 0
    for t in range(max_turns):
        alive = 0.0
        for s in range(n_states):
            alive += d[s]
        per_turn[t] = alive
        turns = t + 1
        if alive <= tol:
            break
        for s in range(n_states):
            visits[s] += d[s]
            d2[s] = 0.0
        for s in range(n_states):
            m = d[s]
            if m == 0.0:
                continue
            for j in range(width):
                x = nxt[s, j]
                if x >= 0 and prob[s, j] > 0.0:
                    d2[x] += m * prob[s, j]
        for s in range(n_states):
            d[s] = d2[s]
    return turns


@nb.njit(cache=True, parallel=True)
def forward_values(w, nxt, prob, out):
    """``out[s]`` = the policy's value of ``s`` from its turn's end distribution
    (:func:`transitions`) and ``w`` at the next turns: an independent Bellman check."""
    n_states = nxt.shape[0]
    width = nxt.shape[1]
    p = w.shape[1]
    for s in nb.prange(n_states):
        for x in range(p):
            out[s, x] = 0.0
        for j in range(width):
            pr = prob[s, j]
            if pr == 0.0:
                continue
            y = nxt[s, j]
            if y >= 0:
                out[s, 0] += pr * w[y, p - 1]
                for x in range(1, p):
                    out[s, x] += pr * w[y, x - 1]
            else:
                out[s, -1 - y] += pr


@nb.njit(cache=True, parallel=True)
def ends_within(nxt, prob, u, out):
    """``out[s]`` = the probability that the game ends during the turn from ``s`` or within
    the turns ``u`` counts after it: ``sum_j prob[s, j] * (1 if a win else u[next])``."""
    n_states = nxt.shape[0]
    width = nxt.shape[1]
    for s in nb.prange(n_states):
        v = 0.0
        for j in range(width):
            pr = prob[s, j]
            if pr == 0.0:
                continue
            y = nxt[s, j]
            v += pr * (1.0 if y < 0 else u[y])
        out[s] = v
