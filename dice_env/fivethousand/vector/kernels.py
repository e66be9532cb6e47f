"""The tables and numba kernels of the batched 5000 envs (:mod:`dice_env.fivethousand.vector`).

:func:`action_tables` reads the points and dice left of every action's set-aside off the
rules' tables; the kernels do the turn bookkeeping of
:func:`~dice_env.fivethousand.game.step_games` (set the dice aside, bank, throw, pass the dice
on) and the observation layout of :mod:`~dice_env.fivethousand.observation` over index arrays
of the rows that move, because an opponent's turn is a dozen small rounds per step and numpy's
per-call cost would dominate them.  The tests hold them to ``game.py`` and ``single.py`` die
for die.
"""

from __future__ import annotations

import numba
import numpy as np

from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules

N_DICE = R.N_DICE


# --------------------------------------------------------------------------------------------
# Tables of the actions (built from the rules' tables and functions, read by the kernels)
# --------------------------------------------------------------------------------------------
def action_tables(rules: FiveThousandRules) -> tuple[np.ndarray, np.ndarray]:
    """``(points, dice_left)``, each ``(462, n_actions // 2)`` int64, indexed by
    ``[roll, action >> 1]``: the points an action sets aside from the roll and the dice a
    roll-on then throws (five after hot dice).  Under the literal rules there is one column
    (every scoring die); with ``choose_scoring_dice`` column ``m`` is the set-aside bitmask
    ``m`` (entries of illegal set-asides are never read: the mask forbids them)."""
    if rules.choose_scoring_dice:
        points = R.SETASIDE_POINTS.astype(np.int64)
        left = R.dice_left_after(R.ROLL_SIZE[:, None].astype(np.int64),
                                 R.SETASIDE_DICE.astype(np.int64))
    else:
        points = R.ROLL_POINTS.astype(np.int64)[:, None]
        left = R.dice_left_after(R.ROLL_SIZE.astype(np.int64),
                                 R.ROLL_SCORING_DICE.astype(np.int64))[:, None]
    return np.ascontiguousarray(points), np.ascontiguousarray(left.astype(np.int64))


INDEX_BY_CODE = R.ROLL_INDEX_BY_SLOT_CODE.astype(np.int64)
ROLL_POINTS_I64 = R.ROLL_POINTS.astype(np.int64)


# --------------------------------------------------------------------------------------------
# Kernels: the bookkeeping of game.step_games over index arrays of rows
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def set_aside_kernel(rows, actions, roll, turn_total, points, left, throw_n):  # pragma: no cover
    """Add each action's set-aside to the turn total; return the rows that bank.

    Rows that roll on get ``throw_n`` = the dice they throw next; banking rows get 0."""
    banks = np.empty(rows.shape[0], np.int64)
    nb = 0
    for j in range(rows.shape[0]):
        i = rows[j]
        a = actions[j]
        r = roll[i]
        turn_total[i] += points[r, a >> 1]
        if a & 1:
            banks[nb] = i
            nb += 1
            throw_n[i] = 0
        else:
            throw_n[i] = left[r, a >> 1]
    return banks[:nb]


@numba.njit(cache=True, nogil=True)
def apply_banks_kernel(banks, new_scores, winners, scores, winner, current, turns, turn_total,
                 throw_n):  # pragma: no cover
    """Write the resolved banks back and end those turns; the next seat throws five dice
    unless the bank won the game.  Returns the rows whose game the bank ended."""
    p = scores.shape[1]
    won = np.empty(banks.shape[0], np.int64)
    nw = 0
    for j in range(banks.shape[0]):
        i = banks[j]
        for q in range(p):
            scores[i, q] = new_scores[j, q]
        winner[i] = winners[j]
        c = current[i]
        turns[i, c] += 1
        current[i] = (c + 1) % p
        turn_total[i] = 0
        if winners[j] < 0:
            throw_n[i] = N_DICE
        else:
            throw_n[i] = 0
            won[nw] = i
            nw += 1
    return won[:nw]


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
def land_throws_kernel(pending, faces, throw_n, dice, roll, current, turns, turn_total,
                 index_by_code, roll_points):  # pragma: no cover
    """Row ``pending[j]`` throws the first ``throw_n`` of ``faces[j]``: store the sorted,
    0-padded dice and the roll index; a bust ends the turn and the next seat opens with five
    dice.  Returns the rows that must throw again (the busts)."""
    p = turns.shape[1]
    again = np.empty(pending.shape[0], np.int64)
    na = 0
    buf = np.zeros(N_DICE, np.int64)
    for j in range(pending.shape[0]):
        i = pending[j]
        n = throw_n[i]
        for s in range(n):  # insertion sort of the dice thrown
            v = np.int64(faces[j, s])
            t = s
            while t > 0 and buf[t - 1] > v:
                buf[t] = buf[t - 1]
                t -= 1
            buf[t] = v
        code = 0
        w = 1
        for s in range(N_DICE):
            d = buf[s] if s < n else 0
            dice[i, s] = np.int8(d)
            code += d * w
            w *= 7
        r = index_by_code[code]
        roll[i] = r
        if roll_points[r] == 0:
            c = current[i]
            turns[i, c] += 1
            current[i] = (c + 1) % p
            turn_total[i] = 0
            throw_n[i] = N_DICE
            again[na] = i
            na += 1
        else:
            throw_n[i] = 0
    return again[:na]


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
