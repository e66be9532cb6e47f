"""The turn of 5000 written once: set aside, bank or roll on, throw, pass the dice.

One game (a *row*) moves from decision to decision through a few scalar functions, the only
place the turn bookkeeping of docs/rules.md is written:

* :func:`action_mask_into` -- the legal actions after a roll: each legal set-aside (every
  scoring die under the literal rules) may roll on, and may bank if :func:`may_bank` (the
  entry, no total ending in 50);
* :func:`set_aside` -- a decision's set-aside joins the turn total; rolling on then throws the
  dice left (five after hot dice), banking calls :func:`bank`: :func:`bank_one` (bumps, gifts
  via :func:`gift_receiver_one`, the exact-target win) and :func:`end_turn` (the next seat
  opens with five dice);
* :func:`land` -- a throw lands: its roll index, and whether it busts, losing the turn total
  and ending the turn (:func:`end_turn`).

They are ``register_jitable``: the same source runs as plain Python over lists and tuples (one
game at a time, :class:`dice_env.fivethousand.single.FiveThousandGame`, where a numba call
would cost more than the game) and compiled by numba inside the row kernels
:func:`mask_rows`, :func:`decide_rows` and :func:`land_rows` over numpy arrays (the batched
core :mod:`dice_env.fivethousand.game` and the vector envs :mod:`dice_env.fivethousand.vector`
call those kernels; :func:`bank_rows` and :func:`gift_receiver_rows` serve :mod:`.bank`).
Those callers only choose between the functions (roll on or :func:`bank`; :func:`end_turn`
after a bust).  ``tests/test_fivethousand_turn_differential.py`` plays random games of every
knob through both and compares them step by step.

Random draws stay outside: every throw is the generator call :func:`~.tables.throw_faces`
(five faces per game whatever the dice thrown; the first ``n`` are thrown), so one game, the
batched core and the vector envs see the same dice from the same seed.  The tables the functions
read are :func:`turn_tables` (numpy, for the kernels) and :func:`python_tables` (the same values
as tuples, for one game); :func:`decision_events` tells what a decision did, as the envs report
it.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import numba
import numpy as np
from numba.extending import register_jitable

from dice_env.fivethousand.rules.knobs import (
    BANKED,
    GIFT_LOST_NO_RECEIVER,
    GIFT_LOST_OVERSHOOT,
    GIFTED,
    N_DICE,
    N_MULTISETS,
    FiveThousandRules,
)
from dice_env.fivethousand.rules.tables import (
    ROLL_DICE,
    ROLL_INDEX_BY_SLOT_CODE,
    ROLL_POINTS,
    ROLL_SCORING_DICE,
    ROLL_SIZE,
    SETASIDE_DICE,
    SETASIDE_POINTS,
    dice_left_after,
)

#: what :func:`land` says of a throw: it scores (a decision), it busts a roll-on (the turn
#: total is lost), or it busts a turn's opening throw (nothing to lose)
NO_BUST, BUST, OPENING_BUST = 0, 1, 2


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------
class TurnTables(NamedTuple):
    """What the turn reads of the roll tables for one action encoding, indexed
    ``[roll][column]`` with ``column = action >> 1`` (one column under the literal rules:
    every scoring die; with ``choose_scoring_dice`` column ``m`` is the set-aside bitmask
    ``m``).  Numpy ``int64`` arrays (:func:`turn_tables`) or tuples (:func:`python_tables`).
    """

    #: the points a column sets aside from the roll
    points: Any
    #: the dice it sets aside
    used: Any
    #: the dice a roll-on then throws (five after hot dice)
    left: Any
    #: the legal columns of each roll, first in each row (``-1`` pads the arrays)
    legal: Any
    #: ``(462,)`` how many columns of each roll are legal (0 for a bust)
    n_legal: Any


@cache
def turn_tables(rules: FiveThousandRules) -> TurnTables:
    """The :class:`TurnTables` of ``rules``' action encoding, as read-only ``int64`` arrays."""
    if rules.choose_scoring_dice:
        points, used = SETASIDE_POINTS, SETASIDE_DICE
        ok = SETASIDE_POINTS >= 0
    else:
        points, used = ROLL_POINTS[:, None], ROLL_SCORING_DICE[:, None]
        ok = ROLL_POINTS[:, None] > 0
    points = points.astype(np.int64)
    used = used.astype(np.int64)
    left = dice_left_after(ROLL_SIZE[:, None].astype(np.int64), used).astype(np.int64)
    n_legal = ok.sum(axis=1).astype(np.int64)
    legal = np.full(ok.shape, -1, dtype=np.int64)
    for r in range(N_MULTISETS):
        cols = np.flatnonzero(ok[r])
        legal[r, :cols.size] = cols
    out = TurnTables(*(np.ascontiguousarray(t) for t in (points, used, left, legal, n_legal)))
    for t in out:
        t.setflags(write=False)
    return out


def _as_tuples(a: np.ndarray) -> tuple:
    """An int array as (nested) tuples of Python ints, equal values sharing one int object:
    a small table in memory, which stays in the cache when one game reads it."""
    shared: dict[int, int] = {}
    flat = tuple(shared.setdefault(v, v) for v in a.ravel().tolist())
    if a.ndim == 1:
        return flat
    width = a.shape[1]
    return tuple(flat[k:k + width] for k in range(0, len(flat), width))


@cache
def python_tables(rules: FiveThousandRules) -> TurnTables:
    """:func:`turn_tables` as tuples (of tuples) of Python ints, for one game in Python."""
    return TurnTables(*(_as_tuples(t) for t in turn_tables(rules)))


#: the roll index of a 5-slot dice array by its base-7 code and the points of each roll, as
#: ``int64`` arrays for the kernels (with :data:`~.tables.ROLL_DICE`) ...
INDEX_BY_CODE = ROLL_INDEX_BY_SLOT_CODE.astype(np.int64)
POINTS_OF_ROLL = ROLL_POINTS.astype(np.int64)
for _t in (INDEX_BY_CODE, POINTS_OF_ROLL):
    _t.setflags(write=False)
#: ... and as tuples for one game in Python, with the sorted, 0-padded dice of each roll
INDEX_BY_CODE_PY = _as_tuples(INDEX_BY_CODE)
POINTS_OF_ROLL_PY = _as_tuples(POINTS_OF_ROLL)
ROLL_DICE_PY = _as_tuples(ROLL_DICE)


# --------------------------------------------------------------------------------------------
# The bank rule, one game (plain Python, and compiled by numba inside the kernels below;
# it lives here, beside them, because numba renews a cached kernel only when its own file
# changes)
# --------------------------------------------------------------------------------------------
@register_jitable
def may_bank(min_bank, score, turn_total):
    """The bank rule on numbers: whether a player holding ``score`` may bank ``turn_total``,
    ``min_bank`` being the rules' :attr:`~.FiveThousandRules.min_entered_score` (the entry).

    Something to bank, no total ending in 50, at least the entry to enter and at least 100
    once entered.  Written once for ints (one game, and compiled by numba in the kernels
    below) and numpy arrays (broadcasting, :func:`~.bank.bank_allowed`).
    """
    need = min_bank - (score > 0) * (min_bank - 100)  # 100 once entered
    return (turn_total >= need) & (turn_total % 100 == 0)


@register_jitable
def gift_receiver_one(scores, banker: int) -> int:
    """:func:`~.bank.gift_receiver` of one game: ``scores`` a sequence of ints (or a numpy
    row); the seat of the lowest entered other player, the first after the banker on a tie,
    -1 if none.  Plain Python; numba compiles the same function for the batches."""
    p = len(scores)
    best = -1
    for k in range(1, p):  # turn order after the banker: the first lowest one keeps the gift
        q = (banker + k) % p
        if scores[q] > 0 and (best < 0 or scores[q] < scores[best]):
            best = q
    return best


@register_jitable
def bank_one(target: int, scores, banker: int, points: int, new_scores, bumped):
    """The bank of ``points`` by ``banker`` in one game: the rule of
    :func:`~.bank.resolve_bank`.

    ``scores`` is read; ``new_scores`` (the scores after the bank; it may be ``scores`` itself,
    updated in place: every entry is read before it is written) and ``bumped`` (bools) are
    written, one entry per seat.  Returns ``(outcome, receiver, winner)`` as in
    :class:`~.bank.BankOutcome`.  Plain Python over sequences (one game: :func:`bank`,
    :func:`~.bank.resolve_bank_one`); numba compiles the same function for the kernels
    (:func:`decide_rows`, :func:`bank_rows`), so the rule is written once.
    """
    p = len(scores)
    for q in range(p):
        new_scores[q] = scores[q]
        bumped[q] = False
    own = scores[banker] + points
    if own <= target:  # the banker takes it; every other player on that score is bumped
        new_scores[banker] = own
        for q in range(p):
            if q != banker and scores[q] == own:
                new_scores[q] = 0
                bumped[q] = True
        return BANKED, -1, banker if own == target else -1
    receiver = gift_receiver_one(scores, banker)  # an overshoot: a gift, which bumps nobody
    if receiver < 0:
        return GIFT_LOST_NO_RECEIVER, -1, -1
    gift = scores[receiver] + points
    if gift > target:
        return GIFT_LOST_OVERSHOOT, receiver, -1
    new_scores[receiver] = gift
    return GIFTED, receiver, receiver if gift == target else -1


# --------------------------------------------------------------------------------------------
# The turn, one game (plain Python, and compiled by numba inside the kernels below)
# --------------------------------------------------------------------------------------------
@register_jitable
def action_mask_into(mask, min_bank: int, score: int, turn_total: int, roll: int, points,
                     legal, n_legal) -> None:
    """Write 1 at the legal actions of the player to move into ``mask`` (all 0 before).

    ``score`` is the player's, ``turn_total`` the points set aside before the roll ``roll``,
    ``min_bank`` the rules' :attr:`~.FiveThousandRules.min_entered_score` (the entry); the
    tables are :class:`TurnTables`'.  A bust has no legal action.
    """
    for k in range(n_legal[roll]):
        c = legal[roll][k]
        mask[2 * c] = 1
        if may_bank(min_bank, score, turn_total + points[roll][c]):
            mask[2 * c + 1] = 1


@register_jitable
def set_aside(action: int, roll: int, turn_total: int, points, left):
    """The set-aside of the decision ``action`` after the roll ``roll``: the dice of column
    ``action >> 1`` of the tables.  Returns ``(points, total, dice_left)``: the points set
    aside, the turn total with them and the dice a roll-on throws next (five after hot dice).
    Rolling on (``action & 1 == 0``) keeps ``total`` as the turn total and throws
    ``dice_left``; banking (``action & 1 == 1``) banks ``total`` (:func:`bank`)."""
    c = action >> 1
    points_set_aside = points[roll][c]
    return points_set_aside, turn_total + points_set_aside, left[roll][c]


@register_jitable
def end_turn(turns, current: int):
    """End ``current``'s turn (a bank or a bust): count it in ``turns`` (one entry per seat,
    updated in place).  Returns ``(seat, turn_total, throw_n)`` of the next player: the next
    seat, turn total 0, five dice to throw."""
    turns[current] += 1
    return (current + 1) % len(turns), 0, N_DICE


@register_jitable
def bank(target: int, scores, turns, bumped, current: int, total: int):
    """``current`` banks the turn total ``total``: :func:`bank_one` on ``scores`` in
    place (``bumped`` gets the players knocked to 0, who lost exactly the banker's new score),
    then :func:`end_turn`.  Returns ``(outcome, receiver, winner, seat, turn_total,
    throw_n)``: the bank's outcome code, gift receiver (-1 if none) and winner (-1 if the game
    goes on), and the next player as :func:`end_turn` gives it (no dice to throw once the
    bank won)."""
    outcome, receiver, winner = bank_one(target, scores, current, total, scores, bumped)
    seat, turn_total, throw_n = end_turn(turns, current)
    return outcome, receiver, winner, seat, turn_total, throw_n if winner < 0 else 0


@register_jitable
def land(faces, n_dice: int, turn_total: int, index_by_code, roll_points):
    """A throw of the first ``n_dice`` of ``faces`` (any order) lands, ``turn_total`` set
    aside before it.

    Returns ``(roll, bust)``: the roll index (``index_by_code`` of the faces' base-7 code) and
    :data:`NO_BUST` when it scores (a decision), else :data:`BUST` (a roll-on: the turn total
    is lost) or :data:`OPENING_BUST` (a turn's first throw, turn total 0); a bust ends the turn
    (:func:`end_turn`).
    """
    code = 0
    w = 1
    for s in range(n_dice):
        code += faces[s] * w
        w *= 7
    roll = index_by_code[code]
    if roll_points[roll] > 0:
        return roll, NO_BUST
    return roll, BUST if turn_total > 0 else OPENING_BUST


# --------------------------------------------------------------------------------------------
# Kernels: the functions above over rows of a batch (the batched core and the vector envs).
# A game's per-seat rows (scores[i], ...) are taken only where they are written: a row view
# made for every game would cost more than the turn itself.
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def mask_rows(min_bank, score, turn_total, roll, points, legal, n_legal,
              out):  # pragma: no cover (compiled)
    """:func:`action_mask_into` of each row ``i`` (``score[i]``, ...) into ``out[i]`` (int8,
    zeros)."""
    for i in range(roll.shape[0]):
        action_mask_into(out[i], min_bank, score[i], turn_total[i], roll[i], points, legal,
                         n_legal)


@numba.njit(cache=True, nogil=True)
def decide_rows(rows, actions, target, points, left, roll, turn_total, current, scores, turns,
                winner, throw_n, points_set_aside, total, outcome, receiver,
                bumped):  # pragma: no cover (compiled)
    """The decision ``actions[j]`` in each row ``rows[j]`` of the state arrays (``roll`` to
    ``winner``, updated in place): :func:`set_aside`, then roll on or :func:`bank`.  Per row
    ``i`` it writes the dice thrown next (``throw_n``) and what the decision did
    (``points_set_aside`` to ``bumped``; ``outcome`` and ``receiver`` of banks only).  Returns
    the rows whose game the decision won."""
    won = np.empty(rows.shape[0], np.int64)
    nw = 0
    for j in range(rows.shape[0]):
        i = rows[j]
        a = actions[j]
        points_set_aside[i], total[i], dice_left = set_aside(a, roll[i], turn_total[i], points,
                                                             left)
        if a & 1 == 0:
            turn_total[i] = total[i]
            throw_n[i] = dice_left
            continue
        outcome[i], receiver[i], w, current[i], turn_total[i], throw_n[i] = bank(
            target, scores[i], turns[i], bumped[i], current[i], total[i])
        if w >= 0:
            winner[i] = w
            won[nw] = i
            nw += 1
    return won[:nw]


@numba.njit(cache=True, nogil=True)
def land_rows(pending, faces, throw_n, dice, roll, current, turn_total, turns, bust_roll,
              opening_busts, index_by_code, roll_points,
              roll_dice):  # pragma: no cover (compiled)
    """Row ``pending[j]`` throws the first ``throw_n`` of ``faces[j]``: :func:`land`, the
    roll's sorted dice into ``dice``, and :func:`end_turn` on a bust.  A bust of a roll-on
    leaves its roll in ``bust_roll``; an opening bust counts in ``opening_busts``.  Returns
    the rows that must throw again (the busts)."""
    again = np.empty(pending.shape[0], np.int64)
    na = 0
    for j in range(pending.shape[0]):
        i = pending[j]
        r, bust = land(faces[j], throw_n[i], turn_total[i], index_by_code, roll_points)
        roll[i] = r
        for s in range(N_DICE):
            dice[i, s] = roll_dice[r, s]
        if bust == NO_BUST:
            throw_n[i] = 0
            continue
        current[i], turn_total[i], throw_n[i] = end_turn(turns[i], current[i])
        if bust == BUST:
            bust_roll[i] = r
        else:
            opening_busts[i] += 1
        again[na] = i
        na += 1
    return again[:na]


@numba.njit(cache=True, nogil=True)
def gift_receiver_rows(scores, banker, out):  # pragma: no cover (compiled)
    """:func:`gift_receiver_one` of each row ``i`` into ``out[i]``."""
    for i in range(scores.shape[0]):
        out[i] = gift_receiver_one(scores[i], banker[i])


@numba.njit(cache=True, nogil=True)
def bank_rows(target, scores, banker, points, banking, new_scores, outcome, receiver, bumped,
              winner):  # pragma: no cover (compiled)
    """:func:`bank_one` of each row ``i`` where ``banking[i]`` (the others keep their scores):
    the batched :func:`~.bank.resolve_bank`."""
    for i in range(scores.shape[0]):
        if banking[i]:
            outcome[i], receiver[i], winner[i] = bank_one(target, scores[i], banker[i],
                                                          points[i], new_scores[i], bumped[i])
        else:
            new_scores[i, :] = scores[i, :]


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------
def decision_events(player: int, banked: bool, points_set_aside: int, total: int,
                    throw_n: int, outcome: int, receiver: int, scores, bumped,
                    bust_dice: list[int] | None, opening_busts: int,
                    winner: int) -> list[dict]:
    """What one decision did, as a list of plain dicts in the order it happened.

    The arguments are Python values: what :func:`set_aside` and :func:`bank` returned
    (``throw_n``: the dice a roll-on threw; ``outcome`` and ``receiver`` are read for banks
    only), ``scores`` after the step and ``bumped`` (one entry per seat), the dice of the
    roll-on's bust (``None`` if it scored), how many opening throws busted after it and the
    winner after the step.  Event types (seats are absolute): ``roll`` (``player``,
    ``set_aside`` points, ``turn_total``, ``dice_thrown``, ``hot_dice``), ``bust``
    (``player``, ``lost``, ``dice``, ``opening``: True for a bust on a turn's first throw),
    ``bank`` (``player``, ``points``, ``score`` after), ``bump`` (``player`` knocked to 0,
    ``by``, ``lost``), ``overshoot`` (``player``, ``points``, ``score``), ``gift`` (``from``,
    ``to``, ``points``, ``score`` of the receiver after), ``gift_lost`` (``from``,
    ``points``, ``reason``: ``"no_receiver"`` or ``"receiver_overshoot"``, ``to``: the
    would-be receiver or None) and ``win`` (``player``).
    """
    p = player
    if banked:
        if outcome == BANKED:
            events = [{"type": "bank", "player": p, "points": total, "score": scores[p]}]
            if True in bumped:
                events += [{"type": "bump", "player": q, "by": p, "lost": scores[p]}
                           for q in range(len(scores)) if bumped[q]]
        else:
            events = [{"type": "overshoot", "player": p, "points": total, "score": scores[p]}]
            if outcome == GIFTED:
                events.append({"type": "gift", "from": p, "to": receiver, "points": total,
                               "score": scores[receiver]})
            else:
                reason = ("no_receiver" if outcome == GIFT_LOST_NO_RECEIVER
                          else "receiver_overshoot")
                events.append({"type": "gift_lost", "from": p, "points": total,
                               "reason": reason, "to": receiver if receiver >= 0 else None})
    else:
        events = [{"type": "roll", "player": p, "set_aside": points_set_aside,
                   "turn_total": total, "dice_thrown": throw_n, "hot_dice": throw_n == N_DICE}]
        if bust_dice is not None:
            events.append({"type": "bust", "player": p, "lost": total, "dice": bust_dice,
                           "opening": False})
    if opening_busts:
        num_players = len(scores)
        events += [{"type": "bust", "player": (p + 1 + i) % num_players, "lost": 0,
                    "dice": None, "opening": True} for i in range(opening_busts)]
    if winner >= 0:
        events.append({"type": "win", "player": winner})
    return events
