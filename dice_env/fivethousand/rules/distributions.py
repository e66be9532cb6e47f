"""The exact distributions of a throw of 5000, for solvers: :func:`outcome_distribution` (of
``(points, scoring dice)``, literal rules) and :func:`throw_distribution` (per multiset)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numpy as np

from dice_env.fivethousand.rules.knobs import (
    N_DICE,
)
from dice_env.fivethousand.rules.tables import (
    ROLL_POINTS,
    ROLL_SCORING_DICE,
    THROW_PROB,
    dice_left_after,
)


@dataclass(frozen=True)
class OutcomeDistribution:
    """The exact distribution of one throw of ``n_dice`` dice under the literal rules.

    Each entry ``i`` is a distinct outcome: ``points[i]`` (0 = bust), ``scoring_dice[i]``
    (dice set aside, 0 on a bust), ``dice_left[i]`` (dice a roll-on would throw next: 5 on
    hot dice, 0 on a bust) with probability ``prob[i]`` (summing to 1).  The bust, if
    possible, is entry 0.
    """

    n_dice: int
    points: np.ndarray
    scoring_dice: np.ndarray
    dice_left: np.ndarray
    prob: np.ndarray

    @property
    def bust_prob(self) -> float:
        """Probability that the throw scores nothing."""
        return float(self.prob[self.points == 0].sum())


@cache
def outcome_distribution(n_dice: int) -> OutcomeDistribution:
    """Exact distribution of ``(points, scoring dice)`` for ``n_dice`` thrown (bust included).

    What a value-iteration solver over ``(scores, turn total, dice left)`` needs: from a turn
    total ``t`` with ``n`` dice to throw, rolling leads to ``t + points[i]`` with
    ``dice_left[i]`` dice with probability ``prob[i]``, or to a bust (``points == 0``).
    """
    if not 1 <= int(n_dice) <= N_DICE:
        raise ValueError(f"n_dice must be 1..{N_DICE}, got {n_dice}")
    n = int(n_dice)
    rows = np.flatnonzero(THROW_PROB[n] > 0)
    pts = ROLL_POINTS[rows].astype(np.int64)
    k = ROLL_SCORING_DICE[rows].astype(np.int64)
    key = pts * 8 + k
    uniq, inv = np.unique(key, return_inverse=True)
    prob = np.bincount(inv, weights=THROW_PROB[n, rows], minlength=len(uniq))
    points, scoring = uniq // 8, uniq % 8
    left = np.where(points == 0, 0, dice_left_after(n, scoring))
    arrays = [points, scoring, left, prob]
    for arr in arrays:
        arr.setflags(write=False)
    return OutcomeDistribution(n, *arrays)


def throw_distribution(n_dice: int) -> tuple[np.ndarray, np.ndarray]:
    """``(roll indices, probabilities)`` of every multiset of ``n_dice`` dice.

    For ``choose_scoring_dice`` solvers: each roll's options are the rows
    ``SETASIDE_POINTS[roll]`` / ``SETASIDE_DICE[roll]`` (``-1`` = not a legal set-aside).
    """
    if not 0 <= int(n_dice) <= N_DICE:
        raise ValueError(f"n_dice must be 0..{N_DICE}, got {n_dice}")
    rows = np.flatnonzero(THROW_PROB[int(n_dice)] > 0)
    return rows, THROW_PROB[int(n_dice), rows].copy()


def all_rolls(n_dice: int) -> list[tuple[int, ...]]:
    """Every sorted roll of ``n_dice`` dice (for tests and tables)."""
    return list(itertools.combinations_with_replacement(range(1, 7), n_dice))
