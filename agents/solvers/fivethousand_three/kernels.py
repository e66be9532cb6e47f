"""Numba kernels of the max-n solver of 5000 for ``P`` players (see
:mod:`agents.solvers.fivethousand_three`; ``P`` is 3 there, 2 in the reduction check): the
max-n sweeps.  The kernels that analyse a fixed profile are in :mod:`.profile_kernels`.

No rule of the game is written here: the throws come from the tables of
:mod:`agents.solvers.fivethousand_vi.kernels` (built by :mod:`agents.solvers.fivethousand_vi`),
and what a bank does from the tables :mod:`~agents.solvers.fivethousand_three.model` builds with
:func:`dice_env.fivethousand.rules.resolve_bank`.

Notation.  A turn-start state ``s`` is the flat index of the score indices
``(i_0, ..., i_{P-1})`` in turn order from the mover (``i_0`` the mover's).  ``W[s, p]`` is the
probability that the ``p``-th player in that order (0 = the mover) wins; every vector below is
in the frame of the state's mover.  ``rot[s]`` is the state after a bust (scores unchanged, the
next player moves); a vector ``v`` of that state reads ``(v[P-1], v[0], ..., v[P-2])`` in our
frame (:func:`to_prev`).  Every turn ends with the next player to move, so every transition,
a bank's too, converts that way.

Bank tables: ``bank_ok[i_0, j]`` (the mover may bank ``t = 50 j``) and ``bank_next[s, j]``:
``>= 0`` the state after the bank, ``-1 - w`` when the player ``w`` of our frame reached the
target (``-1`` the banker, ``-2`` the next player through a gift, ...).  A bank whose points
are lost leads to ``rot[s]``, like a bust.  ``j_hi[s]`` is the last slot at which a bank changes
anything; beyond it every bank is lost and the turn is worth a bust.

Affine turns.  Inside a turn every leaf is a bank (a fixed vector read from ``W``) or the loss of
the turn (a bust, a lost bank: the vector ``L`` of ``rot[s]``).  For a fixed policy every
decision's value is therefore ``C + q L`` (a vector ``C``, a probability ``q``), and the mover's
choice at a decision compares ``C[0] + q L[0]`` of banking and of rolling on (ties within
``tie_tol`` bank).  :func:`turn_affine` computes ``(C, q)`` of the turn start; the states of one
rotation cycle ``s, rot[s], rot[rot[s]], ...`` are then solved exactly together
(:func:`solve_cycle`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

N_DICE = 5


@nb.njit(cache=True, nogil=True)
def to_prev(v, out):
    """``out`` = the vector ``v`` of the next mover's frame in the current mover's frame."""
    p = v.shape[0]
    out[0] = v[p - 1]
    for i in range(1, p):
        out[i] = v[i - 1]


@nb.njit(cache=True, nogil=True)
def turn_affine(s, w, rot, bank_ok, bank_next, j_hi, st0, pol, use_pol, pol_out, tie_tol,
                bust_prob, grp_start, grp_prob, opt_start, opt_slot, opt_left,
                dc, dq, bc, bq, lv, c_out):
    """``(C, q)`` of the turn from state ``s``: its value is ``C + q L``.

    Args:
        w: ``(S, P)`` values (bank leaves read them; ``w[rot[s]]`` gives ``L``, which decides
            the mover's choices when ``use_pol`` is false).
        st0: ``(S,)`` the mover's score index of each state.
        pol, use_pol: ``(S, T, 6)`` bool: bank or not at ``(s, j, n)``, used when
            ``use_pol``; otherwise the mover maximises ``C[0] + q L[0]``.
        pol_out: ``(T, 6)`` out: the decisions taken (beyond ``j_hi`` every action is worth
            the same; the tie rule banks where the rules allow it).
        dc, dq: ``(T, 6, P)`` / ``(T, 6)`` scratch: the decisions' ``(C, q)``; ``bc``, ``bq``
            ``(T, P)`` / ``(T,)`` the banks'; ``lv`` ``(P,)`` gets ``L``.
        c_out: ``(P,)`` out: ``C`` of the turn start.

    Returns:
        ``q`` of the turn start.  ``dc``/``dq`` hold every decision's ``(C, q)`` afterwards.
    """
    n_slots = bank_ok.shape[1]
    p = w.shape[1]
    ia = st0[s]
    r = rot[s]
    to_prev(w[r], lv)
    l0 = lv[0]
    for j in range(n_slots):
        if bank_ok[ia, j]:
            nx = bank_next[s, j]
            if nx == r:
                for k in range(p):
                    bc[j, k] = 0.0
                bq[j] = 1.0
            elif nx >= 0:
                bc[j, 0] = w[nx, p - 1]
                for k in range(1, p):
                    bc[j, k] = w[nx, k - 1]
                bq[j] = 0.0
            else:
                for k in range(p):
                    bc[j, k] = 0.0
                bc[j, -1 - nx] = 1.0
                bq[j] = 0.0
    top = min(j_hi, n_slots - 1)
    for j in range(n_slots - 1, top, -1):
        for n in range(N_DICE + 1):
            for k in range(p):
                dc[j, n, k] = 0.0
            dq[j, n] = 1.0
            pol_out[j, n] = bank_ok[ia, j] and n > 0
    for j in range(top, -1, -1):
        pol_out[j, 0] = False
        for n in range(1, N_DICE + 1):
            q = bust_prob[n]
            for k in range(p):
                c_out[k] = 0.0
            for g in range(grp_start[n], grp_start[n + 1]):
                o = opt_start[g]  # literal rules: one option per throw
                j2 = j + opt_slot[o]
                pg = grp_prob[g]
                if j2 >= n_slots:
                    q += pg
                else:
                    n2 = opt_left[o]
                    for k in range(p):
                        c_out[k] += pg * dc[j2, n2, k]
                    q += pg * dq[j2, n2]
            bank = False
            if bank_ok[ia, j]:
                if use_pol:
                    bank = pol[s, j, n]
                else:
                    bank = bc[j, 0] + bq[j] * l0 >= c_out[0] + q * l0 - tie_tol
            pol_out[j, n] = bank
            if bank:
                for k in range(p):
                    dc[j, n, k] = bc[j, k]
                dq[j, n] = bq[j]
            else:
                for k in range(p):
                    dc[j, n, k] = c_out[k]
                dq[j, n] = q
    # the turn start: five dice thrown at turn total 0 (no decision before it)
    q = bust_prob[N_DICE]
    for k in range(p):
        c_out[k] = 0.0
    for g in range(grp_start[N_DICE], grp_start[N_DICE + 1]):
        o = opt_start[g]
        j2 = opt_slot[o]
        pg = grp_prob[g]
        if j2 >= n_slots:
            q += pg
        else:
            n2 = opt_left[o]
            for k in range(p):
                c_out[k] += pg * dc[j2, n2, k]
            q += pg * dq[j2, n2]
    return q


@nb.njit(cache=True, nogil=True)
def solve_cycle(cs, cq, out):
    """Exact values of one rotation cycle from the turns' ``(C, q)``.

    ``cs`` ``(m, P)`` and ``cq`` ``(m,)``: the cycle's states in order (state ``i + 1`` is the
    one after a bust in state ``i``; ``m`` divides ``P``).  ``V_i = C_i + q_i to_prev(V_{i+1})``
    unrolled over ``P`` turns gives ``V_0 (1 - prod q) = sum_k (q_0 ... q_{k-1})
    perm^k(C_k)``; the others follow.  When every turn of the cycle surely passes the dice on
    (``prod q = 1``) the game never ends there and the values are 0.  ``out`` ``(m, P)``.
    """
    m = cs.shape[0]
    p = cs.shape[1]
    acc = np.zeros(p)
    prod = 1.0
    for k in range(p):
        i = k % m
        for x in range(p):
            acc[x] += prod * cs[i, (x - k) % p]
        prod *= cq[i]
    den = 1.0 - prod
    for x in range(p):
        out[0, x] = acc[x] / den if den > 1e-300 else acc[x]
    tmp = np.empty(p)
    for i in range(m - 1, 0, -1):
        nxt = (i + 1) % m
        to_prev(out[nxt], tmp)
        for x in range(p):
            out[i, x] = cs[i, x] + cq[i] * tmp[x]


@nb.njit(cache=True, nogil=True)
def solve_group(g, grp_cyc, cyc_start, cyc_states, w, pol, use_pol, trust_in, local_tol,
                max_local, tie_tol, rot, bank_ok, bank_next, j_hi, st0, bust_prob, grp_start,
                grp_prob, opt_start, opt_slot, opt_left, stats):
    """Solve one group (the states of one multiset of scores) in place, the rest of ``w`` fixed.

    A round computes every state's turn against the current values (the mover's best
    response, or the fixed ``pol``), then solves each rotation cycle exactly; rounds repeat
    until no value moves by more than ``local_tol`` (more than one round is needed when
    banks lead from one cycle of the group to another -- entering onto an equal score).

    Max-n (``use_pol`` false): the decisions of the last round are written to ``pol``.  If the
    group has not settled after ``max_local`` rounds (the best responses keep flipping), the
    profile of the round with the smallest *one-turn deviation gain* -- the most a mover gains
    by best-responding for one turn to that profile's own values -- is restored, values and
    decisions; ties go to the earliest round.  With ``trust_in`` the incoming profile (the
    decisions in ``pol`` with the values in ``w``, kept by the previous sweep) is a candidate
    too, so that a group that never settles keeps its profile from sweep to sweep unless a
    better one turns up (without it, the choice could alternate between sweeps).

    ``stats`` ``(5,)`` out: largest change of the group's values, rounds, 1.0 if it did not
    settle, the deviation gain of the profile kept (max-n, when it did not settle) or of the
    last round's input, 1.0 if a decision of the group changed.
    """
    n_slots = bank_ok.shape[1]
    p = w.shape[1]
    c0 = grp_cyc[g]
    c1 = grp_cyc[g + 1]
    lo = cyc_start[c0]
    ns = cyc_start[c1] - lo
    dc = np.empty((n_slots, N_DICE + 1, p))
    dq = np.empty((n_slots, N_DICE + 1))
    bc = np.empty((n_slots, p))
    bq = np.empty(n_slots)
    lv = np.empty(p)
    cs = np.empty((ns, p))
    cq = np.empty(ns)
    start = np.empty((ns, p))
    newv = np.empty((ns, p))
    pol_cur = np.zeros((ns, n_slots, N_DICE + 1), dtype=np.bool_)
    pol_prev = np.zeros((ns, n_slots, N_DICE + 1), dtype=np.bool_)
    pol_best = np.zeros((ns, n_slots, N_DICE + 1), dtype=np.bool_)
    v_prev = np.empty((ns, p))
    v_best = np.empty((ns, p))
    for i in range(ns):
        s = cyc_states[lo + i]
        for x in range(p):
            start[i, x] = w[s, x]
            v_prev[i, x] = w[s, x]
        pol_prev[i] = pol[s]
    best_gain = np.inf
    settled = False
    rounds = 0
    last_gain = 0.0
    for rnd in range(max_local):
        rounds += 1
        gain = 0.0
        for i in range(ns):
            s = cyc_states[lo + i]
            q = turn_affine(s, w, rot, bank_ok, bank_next, j_hi[s], st0, pol, use_pol,
                            pol_cur[i], tie_tol, bust_prob, grp_start, grp_prob, opt_start,
                            opt_slot, opt_left, dc, dq, bc, bq, lv, cs[i])
            cq[i] = q
            gain = max(gain, cs[i, 0] + q * lv[0] - w[s, 0])
        last_gain = gain
        if not use_pol and (rnd > 0 or trust_in) and gain < best_gain:
            # the previous round's profile (the incoming one in round 0), measured against
            # its own values (now in w)
            best_gain = gain
            pol_best[:] = pol_prev
            v_best[:] = v_prev
        for c in range(c0, c1):
            a = cyc_start[c] - lo
            b = cyc_start[c + 1] - lo
            solve_cycle(cs[a:b], cq[a:b], newv[a:b])
        delta = 0.0
        for i in range(ns):
            s = cyc_states[lo + i]
            for x in range(p):
                delta = max(delta, abs(newv[i, x] - w[s, x]))
                w[s, x] = newv[i, x]
                v_prev[i, x] = newv[i, x]
        pol_prev[:] = pol_cur
        if delta <= local_tol:
            settled = True
            break
    if not use_pol and not settled:
        # one state at a time: each best-responds to the current values, its cycle re-solved
        # at once; settled when a whole pass changes no decision (an equilibrium of the group)
        pol_one = np.empty((n_slots, N_DICE + 1), dtype=np.bool_)
        c_one = np.empty(p)
        for _ in range(max_local):
            rounds += 1
            changed = False
            delta = 0.0
            for i in range(ns):
                s = cyc_states[lo + i]
                q = turn_affine(s, w, rot, bank_ok, bank_next, j_hi[s], st0, pol, False,
                                pol_one, tie_tol, bust_prob, grp_start, grp_prob, opt_start,
                                opt_slot, opt_left, dc, dq, bc, bq, lv, c_one)
                for j in range(n_slots):
                    for n in range(N_DICE + 1):
                        if pol_one[j, n] != pol_cur[i, j, n]:
                            changed = True
                            pol_cur[i, j, n] = pol_one[j, n]
                for x in range(p):
                    cs[i, x] = c_one[x]
                cq[i] = q
                c = c0
                while cyc_start[c + 1] - lo <= i:
                    c += 1
                a = cyc_start[c] - lo
                b = cyc_start[c + 1] - lo
                solve_cycle(cs[a:b], cq[a:b], newv[a:b])
                for y in range(a, b):
                    sy = cyc_states[lo + y]
                    for x in range(p):
                        delta = max(delta, abs(newv[y, x] - w[sy, x]))
                        w[sy, x] = newv[y, x]
            if not changed and delta <= local_tol:
                settled = True
                last_gain = 0.0
                break
    flipped = False
    if not use_pol:
        keep = pol_cur
        if not settled and best_gain < np.inf:
            keep = pol_best
            last_gain = best_gain
            for i in range(ns):
                s = cyc_states[lo + i]
                for x in range(p):
                    w[s, x] = v_best[i, x]
        for i in range(ns):
            s = cyc_states[lo + i]
            for j in range(n_slots):
                for n in range(N_DICE + 1):
                    if pol[s, j, n] != keep[i, j, n]:
                        flipped = True
                        pol[s, j, n] = keep[i, j, n]
    change = 0.0
    for i in range(ns):
        s = cyc_states[lo + i]
        for x in range(p):
            change = max(change, abs(w[s, x] - start[i, x]))
    stats[0] = change
    stats[1] = rounds
    stats[2] = 0.0 if settled else 1.0
    stats[3] = last_gain
    stats[4] = 1.0 if flipped else 0.0


def _sweep(level_start, grp_cyc, cyc_start, cyc_states, w, pol, use_pol, frozen, trust_in,
           local_tol, max_local, tie_tol, rot, bank_ok, bank_next, j_hi, st0, bust_prob,
           grp_start, grp_prob, opt_start, opt_slot, opt_left, stats):
    """One sweep: the levels from the first (highest score sum) to the last; the groups of one
    level do not read each other (checked when the model is built) and may run in parallel.
    The groups with ``frozen[g]`` keep their decisions in ``pol`` (evaluated, not optimised).
    ``stats[g]`` gets :func:`solve_group`'s statistics of group ``g``."""
    for lev in range(level_start.shape[0] - 1):
        for g in nb.prange(level_start[lev], level_start[lev + 1]):
            solve_group(g, grp_cyc, cyc_start, cyc_states, w, pol, use_pol or frozen[g],
                        trust_in, local_tol, max_local, tie_tol, rot, bank_ok, bank_next, j_hi,
                        st0, bust_prob, grp_start, grp_prob, opt_start, opt_slot, opt_left,
                        stats[g])


#: one sweep on one thread
sweep_serial = nb.njit(cache=True)(_sweep)
#: one sweep, the groups of each level spread over numba's threads
sweep_parallel = nb.njit(cache=True, parallel=True)(_sweep)

