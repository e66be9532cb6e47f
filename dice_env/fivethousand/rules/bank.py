"""The bank rule of 5000 for batches and in words: when a bank is allowed
(:func:`bank_allowed`, and why not: :func:`bank_refusal`), who receives an overshoot gift
(:func:`gift_receiver`) and what a bank does (:func:`resolve_bank`, :func:`resolve_bank_one`).
The rule itself is written once, for one game, in :mod:`.turn` (:func:`~.turn.may_bank`,
:func:`~.turn.gift_receiver_one`, :func:`~.turn.bank_one`): plain Python for one game, compiled
by numba (with the turn's kernels, in that one module, so that numba's on-disk cache of them is
renewed whenever the rule changes) for the batches here."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dice_env.fivethousand.rules.knobs import NO_BANK, FiveThousandRules
from dice_env.fivethousand.rules.turn import (
    bank_one,
    bank_rows,
    gift_receiver_rows,
    may_bank,
)


def bank_allowed(rules: FiveThousandRules, score, turn_total) -> np.ndarray:
    """Whether a player holding ``score`` may bank ``turn_total`` (broadcasting arrays).

    Something to bank, no total ending in 50, at least ``entry`` to enter and at least 100
    once entered (:func:`~.turn.may_bank`).  A bank that would overshoot the target is allowed (it
    gifts, see :func:`resolve_bank`).  Two Python ints (one game) give a ``bool``.
    """
    if not (isinstance(score, int) and isinstance(turn_total, int)):
        score, turn_total = np.asarray(score), np.asarray(turn_total)
    return may_bank(rules.min_entered_score, score, turn_total)


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


def gift_receiver(rules: FiveThousandRules, scores, banker) -> np.ndarray:
    """Who receives an overshooting bank's points: ``(N,)`` seats, ``-1`` if nobody.

    The *other* player with the lowest score among the entered ones (score > 0, so at least
    ``entry``); ties go to the first such player after the banker in turn order.
    """
    scores = np.ascontiguousarray(np.atleast_2d(np.asarray(scores, dtype=np.int64)))
    banker = np.ascontiguousarray(np.broadcast_to(np.asarray(banker, dtype=np.int64),
                                                  (len(scores),)))
    out = np.empty(len(scores), dtype=np.int64)
    gift_receiver_rows(scores, banker, out)
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


def resolve_bank_one(rules: FiveThousandRules, scores: list[int], banker: int,
                     points: int) -> tuple[list[int], int, int, list[bool], int]:
    """:func:`resolve_bank` of one game in Python values: ``(scores after, outcome, receiver,
    bumped, winner)`` (see :class:`BankOutcome`); ``scores`` is not changed."""
    new_scores = list(scores)
    bumped = [False] * len(scores)
    outcome, receiver, winner = bank_one(rules.target, scores, banker, points, new_scores,
                                         bumped)
    return new_scores, outcome, receiver, bumped, winner


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
    bank_rows(rules.target, scores, banker, points, banking, new, outcome, receiver, bumped,
              winner)
    return BankOutcome(new, outcome, receiver, bumped, np.where(bumped, scores, 0), winner)
