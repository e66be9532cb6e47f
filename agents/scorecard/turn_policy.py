"""One turn of a scorecard game solved exactly for any leaf values, and followed as a policy.

The learned-value player (:mod:`agents.scorecard.learned_value`) values the end of a turn as
*points scored + value of the next turn-start state*: additive, so one number per successor
state is enough.  A player that plays to win values the end of a turn by the **final total it
leads to**, which is not additive: the leaf of scoring roll ``r`` in box ``b`` is
``f(state, successor card, points gained)``.  This module solves a turn for such leaves:

* :func:`turn_leaves` -- every leaf of a batch of turn-start states as a *(successor card,
  gain)* pair, evaluated by a caller's function once per distinct pair (about 120 for a fresh
  Penta card, whatever the roll), the six five-of-a-kind rolls through the Joker rules;
* :func:`solve_turn` -- the exact expectimax of the turn over those leaves (:class:`Turn`:
  keep values per rerolls left and the turn-start value; :meth:`Turn.action_values` in the
  env's action encoding);
* :func:`follow_policy` -- the expectation of other leaf quantities (a second moment, an
  indicator) under the turn's optimal decisions: what the score-optimal player's spread
  (:mod:`agents.scorecard.score_spread`) and the exact last-turn distribution of an opponent
  are built from.

Ties between scoring now and rerolling go to scoring; ties among holds to the lowest hold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from agents.scorecard.learned_value import (
    KEEP_CHILDREN,
    KEEPS_BY_SIZE,
    ROLL_AS_KEEP,
    _slots,
    best_reroll,
)
from dice_env import dice as D
from dice_env.scorecard.rules import Rules, box_outcomes, upper_bonus_earned

__all__ = ["LeafFn", "Turn", "follow_policy", "keep_means", "solve_turn", "turn_leaves"]

N_HOLDS = D.N_HOLDS
#: ``f(rows, open', upper', five', gain) -> (M,)``: the value of ending the turn of state
#: ``rows[i]`` on card ``(open'[i], upper'[i], five'[i])`` having gained ``gain[i]`` points
#: (box points + five-of-a-kind bonus + upper bonus earned).  ``open'`` may be all False.
LeafFn = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

_HOLD_KEEP = D.HOLD_KEEP.astype(np.int64)  # (252, 32)


def keep_means(roll_values: np.ndarray) -> np.ndarray:
    """``(S, 462, ...)`` the mean of ``roll_values`` ``(S, 252, ...)`` over the reroll of each
    keep (one die at a time: a keep is the mean of its six one-die-larger keeps).  Linear, so
    it carries values, moments and probabilities alike."""
    out = np.empty((roll_values.shape[0], D.N_KEEPS) + roll_values.shape[2:],
                   dtype=roll_values.dtype)
    out[:, ROLL_AS_KEEP] = roll_values
    for size in range(D.N_DICE - 1, -1, -1):
        keeps = KEEPS_BY_SIZE[size]
        out[:, keeps] = out[:, KEEP_CHILDREN[keeps]].mean(axis=2)
    return out


@cache
def _pairs(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (box, points) of the rolls that are not five of a kind: ``box (P,)``,
    ``points (P,)``, ``slot (P,)`` and ``pair_index (252, B)``."""
    sl = _slots(rules)
    points = rules.tables.score.astype(np.int64)  # (252, B)
    slot = sl.base + np.where(sl.is_upper, points // sl.face, sl.is_five & (points > 0))
    key = np.arange(rules.n_boxes) * 10_000 + points
    uniq, index = np.unique(key, return_inverse=True)
    box, pts = uniq // 10_000, uniq % 10_000
    pair_slot = np.empty(len(uniq), dtype=np.int64)
    pair_slot[index.ravel()] = slot.ravel()
    return box, pts, pair_slot, index.reshape(points.shape)


def _successors(rules: Rules, open_, upper, five, box, points, slot):
    """Card after scoring ``points`` in ``box`` (successor ``slot``), and the upper bonus."""
    sl = _slots(rules)
    o2 = open_.copy()
    o2[np.arange(len(box)), box] = False
    add = sl.upper_add[slot]
    u2 = np.minimum(upper + add, rules.upper_bonus_threshold)
    f2 = np.where(sl.five_after[slot] >= 0, sl.five_after[slot], five)
    return o2, u2, f2, upper_bonus_earned(rules, upper, add)


def turn_leaves(rules: Rules, open_: np.ndarray, upper: np.ndarray, five: np.ndarray,
                leaf: LeafFn) -> np.ndarray:
    """``(S, 252, B)`` the value of scoring every roll in every box (``-inf`` if not legal) for
    turn-start states ``(open_, upper, five)``, ``leaf`` called once per distinct successor."""
    s, nb = open_.shape
    p_box, p_pts, p_slot, pair_index = _pairs(rules)
    rows, cols = np.nonzero(open_[:, p_box])
    o2, u2, f2, ub = _successors(rules, open_[rows], upper[rows], five[rows], p_box[cols],
                                 p_pts[cols], p_slot[cols])
    per_pair = np.full((s, len(p_box)), -np.inf)
    per_pair[rows, cols] = leaf(rows, o2, u2, f2, p_pts[cols] + ub)
    out = per_pair[:, pair_index]  # (S, 252, B)
    out[~np.broadcast_to(open_[:, None, :], out.shape)] = -np.inf

    five_rolls = np.flatnonzero(rules.tables.is_five_kind)
    n5 = len(five_rolls)
    legal, pts, bonus = box_outcomes(rules, np.tile(five_rolls, s), np.repeat(open_, n5, axis=0),
                                     np.repeat(five, n5))
    r5, b5 = np.nonzero(legal)
    state = r5 // n5
    sl = _slots(rules)
    p = pts[r5, b5]
    slot = sl.base[b5] + np.where(sl.is_upper[b5], p // sl.face[b5], sl.is_five[b5] & (p > 0))
    o2, u2, f2, ub = _successors(rules, open_[state], upper[state], five[state], b5, p, slot)
    v5 = np.full(legal.shape, -np.inf)
    v5[r5, b5] = leaf(state, o2, u2, f2, p + bonus[r5] + ub)
    out[:, five_rolls] = v5.reshape(s, n5, nb)
    return out


@dataclass
class Turn:
    """The exact expectimax of one turn over given leaves, for ``S`` turn-start states.

    Attributes:
        leaves: ``(S, 252, B)`` value of scoring each roll in each box (``-inf``: not legal).
        keep_values: ``keep_values[r]`` ``(S, 462)`` for ``r >= 1``: the value of rerolling to
            each keep with ``r`` rerolls left; ``keep_values[0]`` is None.
        start_value: ``(S,)`` the value before the first throw.
    """

    leaves: np.ndarray
    keep_values: list[np.ndarray | None]
    start_value: np.ndarray

    def action_values(self, rows: np.ndarray, roll: np.ndarray,
                      rolls_left: np.ndarray) -> np.ndarray:
        """``(N, 32 + B)`` the value of every action at decisions ``(rows[i], roll[i],
        rolls_left[i])``: hold ``h`` the keep it rerolls to (``-inf`` with no reroll left and
        for holding all five), ``32 + b`` scoring in box ``b`` (``-inf`` if not legal)."""
        rows, roll, rolls_left = (np.atleast_1d(np.asarray(x, dtype=np.int64))
                                  for x in (rows, roll, rolls_left))
        nb = self.leaves.shape[2]
        out = np.full((len(rows), N_HOLDS + nb), -np.inf)
        out[:, N_HOLDS:] = self.leaves[rows, roll]
        for r in np.unique(rolls_left[rolls_left > 0]):
            sel = np.flatnonzero(rolls_left == r)
            vals = np.take_along_axis(self.keep_values[r][rows[sel]], _HOLD_KEEP[roll[sel]],
                                      axis=1)
            vals[:, D.ALL_HELD] = -np.inf
            out[sel, :N_HOLDS] = vals
        return out


def _best_hold(keep_vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(S, 252)`` best value over the real rerolls of each roll, and the hold reaching it."""
    vals = keep_vals[:, _HOLD_KEEP]  # (S, 252, 32)
    vals[:, :, D.ALL_HELD] = -np.inf
    hold = vals.argmax(axis=2)
    return np.take_along_axis(vals, hold[..., None], axis=2)[..., 0], hold


def solve_turn(leaves: np.ndarray, rolls_per_turn: int = 3) -> Turn:
    """The exact expectimax of one turn over ``leaves`` ``(S, 252, B)`` (see :class:`Turn`)."""
    scored = leaves.max(axis=2)
    roll_vals, keeps = scored, [None]
    for _ in range(1, rolls_per_turn):
        k = keep_means(roll_vals)
        keeps.append(k)
        # best over every sub-keep, the whole roll included: a pass never beats the best of
        # scoring now or a real reroll (the next throw offers no option this one lacks)
        roll_vals = np.maximum(scored, best_reroll(k))
    return Turn(leaves, keeps, keep_means(roll_vals)[:, D.EMPTY_KEEP])


def follow_policy(leaves: np.ndarray, quantities: np.ndarray,
                  rolls_per_turn: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """The turn-start value and the expectation of ``quantities`` ``(S, 252, B, Q)`` (a leaf
    quantity per leaf, e.g. a second moment or an indicator) when the turn is played by the
    decisions that maximise ``leaves`` (ties: score now, then the lowest hold or box).

    Returns ``(start_value (S,), expected quantities (S, Q))``.
    """
    s = len(leaves)
    box = leaves.argmax(axis=2)  # (S, 252)
    scored = np.take_along_axis(leaves, box[..., None], axis=2)[..., 0]
    scored_q = np.take_along_axis(quantities, box[..., None, None], axis=2)[:, :, 0]
    roll_vals, roll_q = scored, scored_q
    rows = np.arange(s)[:, None]
    for _ in range(1, rolls_per_turn):
        k, kq = keep_means(roll_vals), keep_means(roll_q)
        best, hold = _best_hold(k)
        reroll = best > scored
        target = _HOLD_KEEP[np.arange(D.N_ROLLS)[None, :], hold]  # (S, 252) keep index
        roll_vals = np.where(reroll, best, scored)
        roll_q = np.where(reroll[..., None], kq[rows, target], scored_q)
    return keep_means(roll_vals)[:, D.EMPTY_KEEP], keep_means(roll_q)[:, D.EMPTY_KEEP]
