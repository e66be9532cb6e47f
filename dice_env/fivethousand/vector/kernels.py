"""The numba kernels of the batched 5000 envs (:mod:`dice_env.fivethousand.vector`) that are
plumbing of the envs, not rules: new games, final records, the rows to play, the player to move,
the first illegal opponent action and the observation layout of
:mod:`~dice_env.fivethousand.observation`.  The turn itself (set aside, bank, throw, pass the
dice on) is :mod:`dice_env.fivethousand.rules.turn`'s kernels, the batched core's too.
"""

from __future__ import annotations

import numba
import numpy as np

from dice_env.fivethousand import rules as R

N_DICE = R.N_DICE


@numba.njit(cache=True, nogil=True)
def init_kernel(rows, scores, turns, winner, turn_total, current, throw_n, fresh, steps,
                 needs_reset):  # pragma: no cover
    """Blank games in ``rows``: scores and turns 0, seat 0 to throw five dice."""
    for j in range(rows.shape[0]):
        i = rows[j]
        scores[i, :] = 0
        turns[i, :] = 0
        winner[i] = -1
        turn_total[i] = 0
        current[i] = 0
        throw_n[i] = N_DICE
        fresh[i] = True
        steps[i] = 0
        needs_reset[i] = False


@numba.njit(cache=True, nogil=True)
def record_kernel(rows, seat, scores, turns, winner, f_scores, f_seat, f_turns, f_winner,
            f_done):  # pragma: no cover
    """Copy the final scores, seat, agent's turns and winner of the games of ``rows``."""
    for j in range(rows.shape[0]):
        i = rows[j]
        f_scores[i, :] = scores[i, :]
        f_seat[i] = seat[i]
        f_turns[i] = turns[i, seat[i]]
        f_winner[i] = winner[i]
        f_done[i] = True


@numba.njit(cache=True, nogil=True)
def select_kernel(rows, throw_n, winner, current, seat, opponents):  # pragma: no cover
    """The rows that must throw (``opponents=False``: ``throw_n > 0``) or whose game waits
    for an opponent (``opponents=True``: not over, and a seat other than the agent's to move)."""
    out = np.empty(rows.shape[0], np.int64)
    n = 0
    for j in range(rows.shape[0]):
        i = rows[j]
        if (winner[i] < 0 and current[i] != seat[i]) if opponents else throw_n[i] > 0:
            out[n] = i
            n += 1
    return out[:n]


@numba.njit(cache=True, nogil=True)
def to_move_kernel(rows, scores, current, turn_total, roll):  # pragma: no cover
    """``(seat, its score, turn total, roll)`` of the player to move in each row."""
    k = rows.shape[0]
    seat = np.empty(k, np.int64)
    score = np.empty(k, np.int64)
    tt = np.empty(k, np.int64)
    r = np.empty(k, np.int64)
    for j in range(k):
        i = rows[j]
        seat[j] = current[i]
        score[j] = scores[i, current[i]]
        tt[j] = turn_total[i]
        r[j] = roll[i]
    return seat, score, tt, r


@numba.njit(cache=True, nogil=True)
def first_illegal_kernel(actions, mask):  # pragma: no cover
    """The first row whose action the mask forbids (or is out of range), -1 if none."""
    for j in range(actions.shape[0]):
        a = actions[j]
        if a < 0 or a >= mask.shape[1] or not mask[j, a]:
            return j
    return -1


@numba.njit(cache=True, nogil=True)
def encode_kernel(rows, seats, scores, current, turn_total, roll, winner, turns, can_bank, features,
            roll_points, target, max_turns, out, scatter):  # pragma: no cover
    """:func:`~dice_env.fivethousand.observation.encode_observation` of ``rows`` from
    ``seats`` into ``out`` (the roll entries come from its roll-feature table): row ``j`` of
    ``out``, or row ``rows[j]`` with ``scatter``."""
    p = scores.shape[1]
    b = 3 * p
    for jj in range(rows.shape[0]):
        i = rows[jj]
        s = seats[jj]
        j = i if scatter else jj
        for q in range(p):
            v = scores[i, (s + q) % p]
            out[j, q] = min(v / target, 1.0)
            out[j, p + q] = 1.0 if v > 0 else 0.0
            out[j, 2 * p + q] = 0.0
        if winner[i] < 0:
            c = current[i]
            out[j, 2 * p + (c - s) % p] = 1.0
            r = roll[i]
            for t in range(13):
                out[j, b + t] = features[r, t]
            tt = turn_total[i]
            total = tt + roll_points[r]
            out[j, b] = min(tt / target, 1.0)
            out[j, b + 2] = min(total / target, 1.0)
            out[j, b + 11] = 1.0 if can_bank[jj] else 0.0
            out[j, b + 12] = 1.0 if scores[i, c] + total > target else 0.0
        else:
            for t in range(13):
                out[j, b + t] = 0.0
        out[j, b + 13] = min(turns[i, s] / max_turns, 1.0) if max_turns > 0 else 0.0
