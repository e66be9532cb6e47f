"""One scorecard game in plain Python: the fast path of the single env (and, one card per
player, of the AEC env: :mod:`dice_env.scorecard.match.single`).

:func:`~dice_env.scorecard.game.apply_actions` and :func:`~dice_env.scorecard.game.action_mask`
run ``N`` games in numpy arrays; for one game numpy's per-call cost outweighs the game itself,
so :class:`ScorecardGame` keeps one game in Python ints and does the same turn bookkeeping
over the same tables, read once into tuples:

* box points from :class:`~dice_env.scorecard.rules.ScoreTables` (``score``, ``is_upper``,
  ``is_five_kind``); a five-of-a-kind roll -- the only kind the Joker rule and the
  five-of-a-kind bonus concern -- is scored by :func:`~dice_env.scorecard.rules.box_outcomes`
  itself, and the upper bonus by :func:`~dice_env.scorecard.rules.upper_bonus_earned`;
* the legal holds from :data:`~dice_env.dice.CANONICAL_REROLL`;
* the dice from :func:`~dice_env.dice.reroll_one`, which draws what
  :func:`~dice_env.dice.reroll` draws for a batch of one: a seeded game sees the same dice as
  the batched core (``tests/test_single_games.py`` plays both side by side).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dice_env import dice as D
from dice_env.scorecard.game import N_HOLD_ACTIONS, OPEN, ScorecardState
from dice_env.scorecard.rules import (
    FIVE_FIFTY,
    FIVE_OPEN,
    FIVE_ZERO,
    Rules,
    box_outcomes,
    upper_bonus_earned,
)

_NO_HOLDS = (0,) * N_HOLD_ACTIONS
#: every hold but "all five" (the reroll actions without ``canonical_holds``)
_ANY_HOLD = (1,) * (N_HOLD_ACTIONS - 1) + (0,)


@cache
def _tables(rules: Rules) -> tuple:
    """``(score, is_five_kind, is_upper, canonical holds)`` as tuples of ints and bools."""
    t = rules.tables
    return (tuple(tuple(row) for row in t.score.tolist()), tuple(t.is_five_kind.tolist()),
            tuple(t.is_upper.tolist()),
            tuple(tuple(row) for row in D.CANONICAL_REROLL.astype(int).tolist()))


class ScorecardGame:
    """One scorecard game: the state of one row of a :class:`~dice_env.scorecard.game.
    ScorecardState` in Python values, and its transitions.

    Attributes:
        dice: the five sorted faces; ``roll``: their roll index.
        rolls_left: rerolls still allowed this turn.
        scores: points in each box, :data:`~dice_env.scorecard.game.OPEN` (-1) while open.
        upper_total: sum of the upper boxes; ``five_bonus``: five-of-a-kind bonus points.
        row: the game's row in the batch it stands for (what a
            :class:`~dice_env.dice.DiceStream` draws by: 0 for a single env, the seat in a
            match).
    """

    __slots__ = ("rules", "row", "dice", "roll", "rolls_left", "scores", "upper_total",
                 "five_bonus", "_open", "_upper_sum", "_lower_sum", "_score", "_is_five",
                 "_is_upper", "_canonical")

    def __init__(self, rules: Rules, row: int = 0) -> None:
        self.rules = rules
        self.row = int(row)
        self._score, self._is_five, self._is_upper, self._canonical = _tables(rules)
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
        self._sum_sections()

    def _sum_sections(self) -> None:
        """The open boxes and the points in the filled upper and lower boxes (kept up to date
        by :meth:`apply`)."""
        self._open = [s == OPEN for s in self.scores]
        filled = [(s, u) for s, u in zip(self.scores, self._is_upper) if s != OPEN]
        self._upper_sum = sum(s for s, u in filled if u)
        self._lower_sum = sum(s for s, u in filled if not u)

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
        """Whether each box is still open (a new list)."""
        return list(self._open)

    def finished(self) -> bool:
        """Whether every box is filled."""
        return True not in self._open

    def five_state(self) -> int:
        """:data:`~dice_env.scorecard.rules.FIVE_OPEN`, ``FIVE_FIFTY`` or ``FIVE_ZERO``."""
        box = self.scores[self.rules.five_kind_box]
        return FIVE_OPEN if box == OPEN else FIVE_FIFTY if box > 0 else FIVE_ZERO

    def _upper_bonus(self) -> int:
        rules = self.rules
        return rules.upper_bonus if self.upper_total >= rules.upper_bonus_threshold else 0

    def total(self) -> int:
        """The TOTAL so far: every box, the upper bonus and the five-of-a-kind bonuses."""
        return self._upper_sum + self._lower_sum + self._upper_bonus() + self.five_bonus

    def score_breakdown(self) -> dict[str, int]:
        """:meth:`~dice_env.scorecard.game.ScorecardState.score_breakdown` of this card."""
        return {"upper": self._upper_sum, "upper_bonus": self._upper_bonus(),
                "lower": self._lower_sum, "penta_bonus": self.five_bonus,
                "total": self.total()}

    def options(self, roll: int | None = None) -> tuple[list[bool], list[int], int]:
        """:func:`~dice_env.scorecard.rules.box_outcomes` of the current roll (or of ``roll``
        on this card): ``(legal, points, five-of-a-kind bonus)``, points 0 where not legal."""
        if roll is None:
            roll = self.roll
        open_boxes = self._open
        if not self._is_five[roll]:  # no Joker and no bonus: the score table as it is
            return list(open_boxes), [p if o else 0 for p, o in
                                      zip(self._score[roll], open_boxes)], 0
        legal, points, bonus = box_outcomes(self.rules, roll, [open_boxes], self.five_state())
        return legal[0].tolist(), points[0].tolist(), int(bonus[0])

    def action_mask(self, legal: list[bool], canonical_holds: bool = True) -> list[int]:
        """Whether each action is legal (0/1 for the holds, then the ``legal`` boxes of
        :meth:`options` as bools)."""
        if self.rolls_left > 0 and True in legal:
            holds = self._canonical[self.roll] if canonical_holds else _ANY_HOLD
        else:
            holds = _NO_HOLDS
        return [*holds, *legal]

    # -- transitions ---------------------------------------------------------------------
    def clear(self) -> None:
        """An empty card, a full turn of rolls ahead (no throw:
        :func:`~dice_env.scorecard.game.clear_cards`)."""
        self.scores = [OPEN] * self.rules.n_boxes
        self._open = [True] * self.rules.n_boxes
        self.upper_total = self._upper_sum = self._lower_sum = 0
        self.five_bonus = 0
        self.rolls_left = self.rules.rolls_per_turn - 1

    def throw(self, rng, hold: int = 0) -> None:
        """Reroll the dice not held (all five by default)."""
        self.dice, self.roll = D.reroll_one(rng, self.dice, hold, self.row)

    def start(self, rng) -> None:
        """An empty card and the first throw of five dice."""
        self.clear()
        self.throw(rng)

    def apply(self, action: int, rng, points: list[int], bonus: int,
              throw_next_turn: bool = True) -> int:
        """One legal action (legality is the caller's job); ``points`` and ``bonus`` are
        :meth:`options` of the current state.  Returns the reward: everything it earned.

        A reroll keeps the held dice; a score fills the box and, unless the card is full or
        ``throw_next_turn`` is False (a match, where another player throws next), throws the
        next turn's five dice.
        """
        if action < N_HOLD_ACTIONS:
            self.throw(rng, action)
            self.rolls_left -= 1
            return 0
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
        self.five_bonus += bonus
        self.rolls_left = self.rules.rolls_per_turn - 1
        if throw_next_turn and not self.finished():
            self.throw(rng)
        return pts + bonus + earned


def must_scratch(legal: list[bool], points: list[int]) -> bool:
    """:func:`~dice_env.scorecard.game.must_scratch` of one game: a box must be filled but no
    legal box scores above zero."""
    return True in legal and max(points) <= 0


def as_arrays(legal: list[bool], points: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(legal, points)`` of one game as the ``(1, n_boxes)`` arrays of the batched core."""
    return np.array([legal], dtype=bool), np.array([points], dtype=np.int64)
