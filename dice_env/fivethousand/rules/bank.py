"""The bank rule of 5000: when a bank is allowed (:func:`bank_allowed`), who receives an
overshoot gift (:func:`gift_receiver`) and what a bank does (:func:`resolve_bank`): written once
for one game (:func:`bank_one`, :func:`gift_receiver_one`), compiled by numba for batches."""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba.extending import register_jitable

from dice_env.fivethousand.rules.knobs import (
    BANKED,
    GIFT_LOST_NO_RECEIVER,
    GIFT_LOST_OVERSHOOT,
    GIFTED,
    NO_BANK,
    FiveThousandRules,
)


def bank_allowed(rules: FiveThousandRules, score, turn_total) -> np.ndarray:
    """Whether a player holding ``score`` may bank ``turn_total`` (broadcasting arrays).

    Something to bank, no total ending in 50, at least ``entry`` to enter and at least 100
    once entered.  A bank that would overshoot the target is allowed (it gifts, see
    :func:`resolve_bank`).  Two Python ints (one game) give a ``bool``.
    """
    if not (isinstance(score, int) and isinstance(turn_total, int)):
        score, turn_total = np.asarray(score), np.asarray(turn_total)
    entry = max(rules.entry, 100)
    need = entry - (score > 0) * (entry - 100)  # 100 once entered
    return (turn_total >= need) & (turn_total % 100 == 0)


def bank_refusal(rules: FiveThousandRules, score: int, turn_total: int) -> str | None:
    """Why a bank of ``turn_total`` is not allowed (``None`` if it is), in words."""
    score, tt = int(score), int(turn_total)
    if tt <= 0:
        return "there is nothing to bank"
    if tt % 100:
        return f"a turn total of {tt} ends in 50; roll on to round it up"
    if score == 0 and tt < rules.entry:
        return f"entering needs {rules.entry} in one turn (turn total {tt})"
    if tt < 100:
        return "a bank needs at least 100"
    return None


@register_jitable
def gift_receiver_one(scores, banker: int) -> int:
    """:func:`gift_receiver` of one game: ``scores`` a sequence of ints (or a numpy row).

    Plain Python; numba compiles the same function for the batched :func:`gift_receiver`.
    """
    p = len(scores)
    best = -1
    for k in range(1, p):  # turn order after the banker: the first lowest one keeps the gift
        q = (banker + k) % p
        if scores[q] > 0 and (best < 0 or scores[q] < scores[best]):
            best = q
    return best


@numba.njit(cache=True, nogil=True)
def _gift_receiver_rows(scores, banker, out):  # pragma: no cover (compiled)
    for i in range(scores.shape[0]):
        out[i] = gift_receiver_one(scores[i], banker[i])


def gift_receiver(rules: FiveThousandRules, scores, banker) -> np.ndarray:
    """Who receives an overshooting bank's points: ``(N,)`` seats, ``-1`` if nobody.

    The *other* player with the lowest score among the entered ones (score > 0, so at least
    ``entry``); ties go to the first such player after the banker in turn order.
    """
    scores = np.ascontiguousarray(np.atleast_2d(np.asarray(scores, dtype=np.int64)))
    banker = np.ascontiguousarray(np.broadcast_to(np.asarray(banker, dtype=np.int64),
                                                  (len(scores),)))
    out = np.empty(len(scores), dtype=np.int64)
    _gift_receiver_rows(scores, banker, out)
    return out


@dataclass
class BankOutcome:
    """What a bank did, per game (arrays over the batch).

    Attributes:
        scores: ``(N, P)`` the scores after the bank.
        outcome: ``(N,)`` :data:`BANKED`, :data:`GIFTED`, :data:`GIFT_LOST_NO_RECEIVER` or
            :data:`GIFT_LOST_OVERSHOOT` (:data:`NO_BANK` for rows that did not bank).
        receiver: ``(N,)`` the seat that received (or would have received) an overshoot gift,
            ``-1`` if none.
        bumped: ``(N, P)`` bool, the players whose score was knocked back to 0.
        bumped_from: ``(N, P)`` the scores those players lost (0 elsewhere).
        winner: ``(N,)`` the seat that reached the target exactly, ``-1`` if none.
    """

    scores: np.ndarray
    outcome: np.ndarray
    receiver: np.ndarray
    bumped: np.ndarray
    bumped_from: np.ndarray
    winner: np.ndarray


@register_jitable
def bank_one(target: int, scores, banker: int, points: int, new_scores, bumped):
    """The bank of ``points`` by ``banker`` in one game: the rule of :func:`resolve_bank`.

    ``scores`` is read; ``new_scores`` (the scores after the bank) and ``bumped`` (bools) are
    written, one entry per seat.  Returns ``(outcome, receiver, winner)`` as in
    :class:`BankOutcome`.  Plain Python over sequences (the single envs' fast path,
    :func:`resolve_bank_one`); numba compiles the same function for the batched
    :func:`resolve_bank`, so the rule is written once.
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


def resolve_bank_one(rules: FiveThousandRules, scores: list[int], banker: int,
                     points: int) -> tuple[list[int], int, int, list[bool], int]:
    """:func:`resolve_bank` of one game in Python values: ``(scores after, outcome, receiver,
    bumped, winner)`` (see :class:`BankOutcome`); ``scores`` is not changed."""
    new_scores = list(scores)
    bumped = [False] * len(scores)
    outcome, receiver, winner = bank_one(rules.target, scores, banker, points, new_scores,
                                         bumped)
    return new_scores, outcome, receiver, bumped, winner


@numba.njit(cache=True, nogil=True)
def _resolve_rows(target, scores, banker, points, banking, new_scores, outcome, receiver,
                  bumped, winner):  # pragma: no cover (compiled)
    for i in range(scores.shape[0]):
        if banking[i]:
            outcome[i], receiver[i], winner[i] = bank_one(target, scores[i], banker[i],
                                                          points[i], new_scores[i], bumped[i])
        else:
            new_scores[i, :] = scores[i, :]


def resolve_bank(rules: FiveThousandRules, scores, banker, points, banking=None) -> BankOutcome:
    """Apply banks of ``points`` by ``banker`` to ``scores`` (pure: returns new arrays).

    * The new score ``s + points`` at most ``target``: the banker takes it; every other player
      whose score equals it is *bumped* to 0; exactly ``target`` wins.
    * Above ``target`` (overshoot): the banker's score does not change; the points go to
      :func:`gift_receiver`; the gift is lost if nobody qualifies or if it would take its
      receiver above ``target``; a gift reaching ``target`` exactly wins for the receiver; a
      gift bumps nobody.

    Legality (:func:`bank_allowed`) is the caller's job.  ``banking`` (``(N,)`` bool) selects
    the rows that bank; other rows are returned unchanged.  Each row is :func:`bank_one`.
    """
    scores = np.ascontiguousarray(np.atleast_2d(np.asarray(scores, dtype=np.int64)))
    n, p = scores.shape

    def rows(values, dtype):
        return np.ascontiguousarray(np.broadcast_to(np.asarray(values, dtype=dtype), (n,)))

    banker, points = rows(banker, np.int64), rows(points, np.int64)
    banking = np.ones(n, dtype=bool) if banking is None else rows(banking, bool)
    new = np.empty_like(scores)
    outcome = np.full(n, NO_BANK, dtype=np.int64)
    receiver = np.full(n, -1, dtype=np.int64)
    bumped = np.zeros((n, p), dtype=bool)
    winner = np.full(n, -1, dtype=np.int64)
    _resolve_rows(rules.target, scores, banker, points, banking, new, outcome, receiver, bumped,
                  winner)
    return BankOutcome(new, outcome, receiver, bumped, np.where(bumped, scores, 0), winner)
