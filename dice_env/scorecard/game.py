"""The scorecard game as pure batched state transitions (no Gymnasium here).

:class:`ScorecardState` holds ``N`` games in numpy arrays; :func:`action_mask` and
:func:`apply_actions` are the transition logic of the batched vector env, the multi-player
match core and the solvers.  The single env and the AEC env play one game at a time in plain
Python (:mod:`dice_env.scorecard.single`, the same bookkeeping over the same tables, for speed);
``tests/test_single_games.py`` holds the two to the same game, die for die.

Actions (``Discrete(32 + n_boxes)``): ``a < 32`` rerolls, holding die ``i`` of the sorted dice
when bit ``i`` of ``a`` is set; ``32 + k`` scores the current roll in box ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from dice_env import dice as D
from dice_env.scorecard.rules import (
    FIVE_FIFTY,
    FIVE_OPEN,
    FIVE_ZERO,
    Rules,
    box_outcomes,
    upper_bonus_earned,
)

N_HOLD_ACTIONS = D.N_HOLDS
OPEN = -1  # marker of an open box in ``ScorecardState.scores``


@dataclass
class ScorecardState:
    """``N`` scorecard games.

    Attributes:
        dice: ``(N, 5)`` int8, sorted ascending.
        roll: ``(N,)`` sorted-roll index of ``dice``.
        rolls_left: ``(N,)`` rerolls still allowed this turn.
        scores: ``(N, n_boxes)`` points in each box, :data:`OPEN` (-1) while open.
        upper_total: ``(N,)`` sum of the upper boxes.
        five_bonus: ``(N,)`` five-of-a-kind (Penta / Poker / Yahtzee) bonus points so far.
    """

    dice: np.ndarray
    roll: np.ndarray
    rolls_left: np.ndarray
    scores: np.ndarray
    upper_total: np.ndarray
    five_bonus: np.ndarray

    @classmethod
    def empty(cls, rules: Rules, n: int) -> ScorecardState:
        dice = np.ones((n, D.N_DICE), dtype=np.int8)
        return cls(
            dice=dice,
            roll=np.zeros(n, dtype=np.int64),
            rolls_left=np.zeros(n, dtype=np.int64),
            scores=np.full((n, rules.n_boxes), OPEN, dtype=np.int64),
            upper_total=np.zeros(n, dtype=np.int64),
            five_bonus=np.zeros(n, dtype=np.int64),
        )

    def copy(self) -> ScorecardState:
        return ScorecardState(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def take(self, rows) -> ScorecardState:
        """The sub-batch of the given rows (a copy)."""
        return ScorecardState(**{f.name: getattr(self, f.name)[rows].copy() for f in fields(self)})

    def put(self, rows, other: ScorecardState) -> None:
        """Overwrite the given rows with ``other``'s games."""
        for f in fields(self):
            getattr(self, f.name)[rows] = getattr(other, f.name)

    @property
    def n(self) -> int:
        return len(self.roll)

    def open_boxes(self) -> np.ndarray:
        return self.scores == OPEN

    def finished(self) -> np.ndarray:
        return (self.scores != OPEN).all(axis=1)

    def five_state(self, rules: Rules) -> np.ndarray:
        box = self.scores[:, rules.five_kind_box]
        return np.where(box == OPEN, FIVE_OPEN, np.where(box > 0, FIVE_FIFTY, FIVE_ZERO))

    def upper_bonus(self, rules: Rules) -> np.ndarray:
        return np.where(self.upper_total >= rules.upper_bonus_threshold, rules.upper_bonus, 0)

    def score_breakdown(self, rules: Rules) -> dict[str, np.ndarray]:
        """``(N,)`` arrays: upper, upper bonus, lower, five-of-a-kind bonus and TOTAL so far."""
        filled = np.where(self.scores == OPEN, 0, self.scores)
        return {
            "upper": filled[:, rules.tables.is_upper].sum(axis=1),
            "upper_bonus": self.upper_bonus(rules),
            "lower": filled[:, rules.tables.is_lower].sum(axis=1),
            "penta_bonus": self.five_bonus,
            "total": self.total(rules),
        }

    def total(self, rules: Rules) -> np.ndarray:
        """The scorecard TOTAL: every box, the upper bonus and the five-of-a-kind bonuses."""
        filled = np.where(self.scores == OPEN, 0, self.scores).sum(axis=1)
        return filled + self.upper_bonus(rules) + self.five_bonus


def roll_dice(state: ScorecardState, rows: np.ndarray, holds: np.ndarray, rng) -> None:
    """Reroll, in place, the games in ``rows`` (bool ``(N,)``) keeping their ``holds``.

    Draws 5 faces per rerolled game from ``rng``, a generator or a
    :class:`~dice_env.dice.DiceStream` (see :func:`dice_env.dice.reroll`).
    """
    idx = np.flatnonzero(rows)
    if len(idx) == 0:
        return
    state.dice[idx], state.roll[idx] = D.reroll(rng, state.dice[idx], holds[idx], idx)


def clear_cards(rules: Rules, state: ScorecardState, rows: np.ndarray) -> None:
    """Empty the scorecards of ``rows`` (bool mask or indices), a full turn of rolls ahead;
    the dice are left as they are (no throw)."""
    state.scores[rows] = OPEN
    state.upper_total[rows] = 0
    state.five_bonus[rows] = 0
    state.rolls_left[rows] = rules.rolls_per_turn - 1


def start_games(rules: Rules, state: ScorecardState, rows: np.ndarray,
                rng: np.random.Generator) -> None:
    """Clear the scorecards of ``rows`` (bool mask) and throw their first roll."""
    clear_cards(rules, state, rows)
    roll_dice(state, rows, np.zeros(state.n, dtype=np.int64), rng)


def box_options(rules: Rules, state: ScorecardState):
    """``box_outcomes`` for the current roll of every game: ``(legal, points, bonus)``."""
    return box_outcomes(rules, state.roll, state.open_boxes(), state.five_state(rules))


def must_scratch(legal: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(N,)`` True where a box must be filled but no legal box scores above zero.

    ``legal`` and ``points`` as :func:`box_options` returns them (points are 0 where illegal).
    """
    return legal.any(axis=1) & ~(points > 0).any(axis=1)


def action_mask(rules: Rules, state: ScorecardState, canonical_holds: bool = True,
                box_legal: np.ndarray | None = None) -> np.ndarray:
    """``(N, 32 + n_boxes)`` bool: the legal actions of every game (all False once finished)."""
    if box_legal is None:
        box_legal = box_options(rules, state)[0]
    mask = np.empty((state.n, N_HOLD_ACTIONS + rules.n_boxes), dtype=bool)
    can_roll = (state.rolls_left > 0) & box_legal.any(axis=1)
    if canonical_holds:
        np.logical_and(D.CANONICAL_REROLL[state.roll], can_roll[:, None],
                       out=mask[:, :N_HOLD_ACTIONS])
    else:
        mask[:, :N_HOLD_ACTIONS] = can_roll[:, None]
        mask[:, D.ALL_HELD] = False
    mask[:, N_HOLD_ACTIONS:] = box_legal
    return mask


def apply_actions(rules: Rules, state: ScorecardState, actions: np.ndarray,
                  rng: np.random.Generator, active: np.ndarray | None = None,
                  options: tuple | None = None, throw_next_turn: bool = True):
    """Advance every game by one (legal) action, in place.

    Rows where ``active`` is False are left alone (finished games).  Legality is the caller's
    job (see :func:`action_mask`).  ``options`` may pass :func:`box_options` of the current
    state when the caller has it already.  A game that scores and goes on throws its next
    turn's first roll here, unless ``throw_next_turn`` is False (the multi-player match, where
    the next turn is another player's: see :mod:`dice_env.scorecard.match`).  Returns
    ``(rewards, box_points, five_bonus, upper_bonus)``, each ``(N,)``: the reward is everything
    the action earned.
    """
    n = state.n
    actions = np.asarray(actions, dtype=np.int64)
    if active is None:
        active = np.ones(n, dtype=bool)
    rerolling = active & (actions < N_HOLD_ACTIONS)
    scoring = active & (actions >= N_HOLD_ACTIONS)

    rewards = np.zeros(n, dtype=np.int64)
    box_pts = np.zeros(n, dtype=np.int64)
    bonus = np.zeros(n, dtype=np.int64)
    ubonus = np.zeros(n, dtype=np.int64)
    if scoring.any():
        rows = np.flatnonzero(scoring)
        box = actions[rows] - N_HOLD_ACTIONS
        if options is None:
            _, points, five_bonus = box_outcomes(
                rules, state.roll[rows], state.open_boxes()[rows], state.five_state(rules)[rows]
            )
        else:
            points, five_bonus = options[1][rows], options[2][rows]
        pts = points[np.arange(len(rows)), box]
        upper_pts = np.where(rules.tables.is_upper[box], pts, 0)
        ub = upper_bonus_earned(rules, state.upper_total[rows], upper_pts)
        state.scores[rows, box] = pts
        state.upper_total[rows] += upper_pts
        state.five_bonus[rows] += five_bonus
        box_pts[rows], bonus[rows], ubonus[rows] = pts, five_bonus, ub
        rewards[rows] = pts + five_bonus + ub
        state.rolls_left[rows] = rules.rolls_per_turn - 1

    # Rerolls keep their holds; games that just scored (and go on) throw all five for the
    # next turn.
    next_turn = scoring & ~state.finished() if throw_next_turn else np.zeros(n, dtype=bool)
    holds = np.where(rerolling, actions, 0)
    roll_dice(state, rerolling | next_turn, holds, rng)
    state.rolls_left = np.where(rerolling, state.rolls_left - 1, state.rolls_left)
    return rewards, box_pts, bonus, ubonus
