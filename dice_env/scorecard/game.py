"""The scorecard turn, written once: the batched core and its one-game twin, side by side.

The turn -- reroll the dice not held, or score the roll in an open box (the Joker rule and the
bonuses applied) and throw the next turn's five dice -- exists here in two forms, with no
Gymnasium in either:

* **batched**: :class:`ScorecardState` holds ``N`` games in numpy arrays; :func:`action_mask`
  and :func:`apply_actions` move them all at once (the vector env, the match core of
  :mod:`dice_env.scorecard.match.core`, the solvers and the bots);
* **one game**: :class:`ScorecardGame` keeps one game in Python ints and does the same
  bookkeeping over the same tables, because for a batch of one numpy's per-call cost outweighs
  the game itself (the single env, and one card per player the AEC env).  Each of its methods
  names the batched function it mirrors.

Both read the scores only through :mod:`dice_env.scorecard.rules`
(:func:`~dice_env.scorecard.rules.box_outcomes`,
:func:`~dice_env.scorecard.rules.upper_bonus_earned` and the
:class:`~dice_env.scorecard.rules.ScoreTables`; the upper bonus too), and the legal holds from
one table (:func:`hold_table`); their dice come from :func:`dice_env.dice.reroll` and
:func:`dice_env.dice.reroll_one`, which draw the same faces for a batch of one.
``tests/test_scorecard_turn_differential.py`` plays random games through both forms, for
every preset and rule knob, and compares them step by step.

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

_ANY_HOLD = np.ones((D.N_ROLLS, N_HOLD_ACTIONS), dtype=bool)
_ANY_HOLD[:, D.ALL_HELD] = False
_ANY_HOLD.setflags(write=False)


def hold_table(canonical_holds: bool) -> np.ndarray:
    """``(252, 32)`` bool: the reroll actions of each roll while rerolls are left.

    With ``canonical_holds`` one hold per kept multiset (the leftmost dice of each face,
    :data:`dice_env.dice.CANONICAL_REROLL`), else every hold; never all five dice held.
    """
    return D.CANONICAL_REROLL if canonical_holds else _ANY_HOLD


#: :func:`hold_table` as tuples of 0/1 ints, for :class:`ScorecardGame`.
_HOLD_ROWS = {c: tuple(tuple(row) for row in hold_table(c).astype(int).tolist())
              for c in (True, False)}
_NO_HOLDS = (0,) * N_HOLD_ACTIONS


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
        """``(N,)`` the upper bonus the upper totals have earned."""
        return upper_bonus_earned(rules, np.zeros_like(self.upper_total), self.upper_total)

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
    np.logical_and(hold_table(canonical_holds)[state.roll], can_roll[:, None],
                   out=mask[:, :N_HOLD_ACTIONS])
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


class ScorecardGame:
    """One scorecard game in Python values: one row of a :class:`ScorecardState` and its
    transitions, each method the twin of a batched function of this module.

    Attributes:
        dice: the five sorted faces; ``roll``: their roll index.
        rolls_left: rerolls still allowed this turn.
        scores: points in each box, :data:`OPEN` (-1) while open.
        upper_total: sum of the upper boxes; ``five_bonus``: five-of-a-kind bonus points.
        row: the game's row in the batch it stands for (what a
            :class:`~dice_env.dice.DiceStream` draws by: 0 for a single env, the seat in a
            match).
    """

    __slots__ = ("rules", "row", "dice", "roll", "rolls_left", "scores", "upper_total",
                 "five_bonus", "_open", "_upper_sum", "_lower_sum", "_upper_bonus", "_score",
                 "_is_five", "_is_upper")

    def __init__(self, rules: Rules, row: int = 0) -> None:
        self.rules = rules
        self.row = int(row)
        t = rules.tables
        # the score tables as tuples, read once (indexing numpy per step costs more)
        self._score = tuple(tuple(row) for row in t.score.tolist())
        self._is_five = tuple(t.is_five_kind.tolist())
        self._is_upper = tuple(t.is_upper.tolist())
        self.load(ScorecardState.empty(rules, 1))

    # -- conversions ---------------------------------------------------------------------
    def load(self, state: ScorecardState, row: int = 0) -> None:
        """Take game ``row`` of a batch."""
        self.dice = tuple(int(d) for d in state.dice[row])
        self.roll = int(state.roll[row])
        self.rolls_left = int(state.rolls_left[row])
        self.scores = [int(s) for s in state.scores[row]]
        self.upper_total = int(state.upper_total[row])
        self.five_bonus = int(state.five_bonus[row])
        # what the card keeps up to date as it goes (see apply): the open boxes, the points of
        # the filled upper and lower boxes, the upper bonus earned
        self._open = [s == OPEN for s in self.scores]
        filled = [(s, u) for s, u in zip(self.scores, self._is_upper) if s != OPEN]
        self._upper_sum = sum(s for s, u in filled if u)
        self._lower_sum = sum(s for s, u in filled if not u)
        self._upper_bonus = upper_bonus_earned(self.rules, 0, self.upper_total)

    def to_state(self) -> ScorecardState:
        """The game as a batch of one (a new :class:`ScorecardState`)."""
        state = ScorecardState.empty(self.rules, 1)
        state.dice[0] = self.dice
        state.roll[0] = self.roll
        state.rolls_left[0] = self.rolls_left
        state.scores[0] = self.scores
        state.upper_total[0] = self.upper_total
        state.five_bonus[0] = self.five_bonus
        return state

    # -- queries -------------------------------------------------------------------------
    def open_boxes(self) -> list[bool]:
        """:meth:`ScorecardState.open_boxes` (a new list)."""
        return list(self._open)

    def finished(self) -> bool:
        """:meth:`ScorecardState.finished`: whether every box is filled."""
        return True not in self._open

    def five_state(self) -> int:
        """:meth:`ScorecardState.five_state`: ``FIVE_OPEN``, ``FIVE_FIFTY`` or ``FIVE_ZERO``."""
        box = self.scores[self.rules.five_kind_box]
        return FIVE_OPEN if box == OPEN else FIVE_FIFTY if box > 0 else FIVE_ZERO

    def total(self) -> int:
        """:meth:`ScorecardState.total`: every box, the upper bonus and the five-of-a-kind
        bonuses."""
        return self._upper_sum + self._lower_sum + self._upper_bonus + self.five_bonus

    def score_breakdown(self) -> dict[str, int]:
        """:meth:`ScorecardState.score_breakdown` of this card."""
        return {"upper": self._upper_sum,
                "upper_bonus": self._upper_bonus,
                "lower": self._lower_sum, "penta_bonus": self.five_bonus,
                "total": self.total()}

    def options(self, roll: int | None = None) -> tuple[list[bool], list[int], int]:
        """:func:`box_options` of the current roll (or of ``roll`` on this card):
        ``(legal, points, five-of-a-kind bonus)``, points 0 where not legal."""
        if roll is None:
            roll = self.roll
        open_boxes = self._open
        if not self._is_five[roll]:
            # box_outcomes leaves any other roll as the score table has it: no Joker, no bonus
            return list(open_boxes), [p if o else 0 for p, o in
                                      zip(self._score[roll], open_boxes)], 0
        legal, points, bonus = box_outcomes(self.rules, roll, [open_boxes], self.five_state())
        return legal[0].tolist(), points[0].tolist(), int(bonus[0])

    @staticmethod
    def must_scratch(legal: list[bool], points: list[int]) -> bool:
        """:func:`must_scratch` of one game (``legal``, ``points``: :meth:`options`)."""
        return True in legal and max(points) <= 0

    def action_mask(self, legal: list[bool], canonical_holds: bool = True) -> list[int]:
        """:func:`action_mask` of one game: 0/1 for the holds, then the ``legal`` boxes of
        :meth:`options` as bools."""
        if self.rolls_left > 0 and True in legal:
            return [*_HOLD_ROWS[canonical_holds][self.roll], *legal]
        return [*_NO_HOLDS, *legal]

    # -- transitions ---------------------------------------------------------------------
    def clear(self) -> None:
        """:func:`clear_cards`: an empty card, a full turn of rolls ahead, no throw."""
        self.scores = [OPEN] * self.rules.n_boxes
        self._open = [True] * self.rules.n_boxes
        self.upper_total = self._upper_sum = self._lower_sum = self._upper_bonus = 0
        self.five_bonus = 0
        self.rolls_left = self.rules.rolls_per_turn - 1

    def throw(self, rng, hold: int = 0) -> None:
        """:func:`roll_dice`: reroll the dice not held (all five by default)."""
        self.dice, self.roll = D.reroll_one(rng, self.dice, hold, self.row)

    def start(self, rng) -> None:
        """:func:`start_games`: an empty card and the first throw of five dice."""
        self.clear()
        self.throw(rng)

    def apply(self, action: int, rng, points: list[int], bonus: int,
              throw_next_turn: bool = True) -> tuple[int, int, int, int]:
        """:func:`apply_actions` of one legal action (legality is the caller's job);
        ``points`` and ``bonus``: :meth:`options` of the current state.

        A reroll keeps the held dice; a score fills the box and, unless the card is full or
        ``throw_next_turn`` is False (a match, where another player throws next), throws the
        next turn's five dice.  Returns ``(reward, box_points, five_bonus, upper_bonus)``: the
        reward is everything the action earned.
        """
        if action < N_HOLD_ACTIONS:
            self.throw(rng, action)
            self.rolls_left -= 1
            return 0, 0, 0, 0
        box = action - N_HOLD_ACTIONS
        pts = points[box]
        upper_pts = pts if self._is_upper[box] else 0
        earned = upper_bonus_earned(self.rules, self.upper_total, upper_pts)
        self.scores[box] = pts
        self._open[box] = False
        self.upper_total += upper_pts
        if self._is_upper[box]:
            self._upper_sum += pts
        else:
            self._lower_sum += pts
        self._upper_bonus += earned
        self.five_bonus += bonus
        self.rolls_left = self.rules.rolls_per_turn - 1
        if throw_next_turn and not self.finished():
            self.throw(rng)
        return pts + bonus + earned, pts, bonus, earned
