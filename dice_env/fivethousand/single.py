"""One game of 5000 in plain Python: the fast path of the single-agent envs and the AEC env.

:func:`~dice_env.fivethousand.game.step_games` runs ``N`` games in numpy arrays; for one game
numpy's per-call cost outweighs the game itself, so :class:`FiveThousandGame` keeps one game
in Python ints and does the same turn bookkeeping (set aside, bank or roll on, pass the dice
after a bank or a bust) over the rules' own tables and functions:

* the points and dice of each set-aside from :data:`~.rules.ROLL_POINTS`,
  :data:`~.rules.ROLL_SCORING_DICE`, :data:`~.rules.SETASIDE_POINTS` and
  :data:`~.rules.SETASIDE_DICE`, the dice a roll-on throws from :func:`~.rules.dice_left_after`
  (all read once into tuples);
* bank legality from :func:`~.rules.bank_allowed` and bank resolution (bumps, gifts, the win)
  from :func:`~.rules.resolve_bank_one`, the very function the batched
  :func:`~.rules.resolve_bank` applies to each row;
* the dice from the generator call of :func:`~.rules.throw_dice` for a batch of one, so a
  seeded game sees the same dice as the batched core (``tests/test_single_games.py`` plays
  both side by side, events and observations included).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dice_env import dice as D
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.game import FiveThousandState
from dice_env.fivethousand.rules import FiveThousandRules

N_DICE = R.N_DICE
#: the roll index of each sorted tuple of 0 to 5 faces
_ROLL_OF_FACES = {D.keep_dice(k): k for k in range(R.N_MULTISETS)}
_ROLL_POINTS = tuple(R.ROLL_POINTS.tolist())
_ROLL_SIZE = tuple(R.ROLL_SIZE.tolist())


@cache
def _action_tables(rules: FiveThousandRules) -> tuple:
    """``(points, dice set aside, dice left, legal set-asides)`` of each roll: the first three
    indexed ``[roll][action >> 1]`` (one column under the literal rules), the last the legal
    set-aside bitmasks of each roll (``choose_scoring_dice``)."""
    if rules.choose_scoring_dice:
        points, used = R.SETASIDE_POINTS, R.SETASIDE_DICE
    else:
        points, used = R.ROLL_POINTS[:, None], R.ROLL_SCORING_DICE[:, None]
    left = R.dice_left_after(R.ROLL_SIZE[:, None].astype(np.int64), used.astype(np.int64))
    legal = tuple(tuple(np.flatnonzero(row >= 0).tolist()) for row in R.SETASIDE_POINTS)
    return (tuple(map(tuple, points.tolist())), tuple(map(tuple, used.tolist())),
            tuple(map(tuple, left.tolist())), legal)


def throw_one(rng, n_dice: int) -> tuple[tuple[int, ...], int]:
    """:func:`~.rules.throw_dice` for one game: ``(sorted dice padded with 0s, roll index)``
    from the same generator call (five faces drawn, the first ``n_dice`` thrown)."""
    faces = rng.integers(1, D.N_FACES + 1, size=(1, N_DICE), dtype=np.int8)[0].tolist()
    thrown = sorted(faces[:n_dice])
    return tuple(thrown) + (0,) * (N_DICE - n_dice), _ROLL_OF_FACES[tuple(thrown)]


class FiveThousandGame:
    """One game of 5000: a one-row :class:`~dice_env.fivethousand.game.FiveThousandState` in
    Python values, and its transitions (the attributes are those of the state, one game).

    Attributes:
        scores, turns: lists, one entry per seat.
        current, turn_total, roll, winner: ints.
        dice: the current roll, five faces sorted with 0s padding the dice not thrown.
    """

    __slots__ = ("rules", "num_players", "scores", "current", "turn_total", "dice", "roll",
                 "turns", "winner", "_points", "_used", "_left", "_legal")

    def __init__(self, rules: FiveThousandRules, num_players: int) -> None:
        self.rules = rules
        self.num_players = int(num_players)
        self._points, self._used, self._left, self._legal = _action_tables(rules)
        self.load(FiveThousandState.empty(1, self.num_players))

    # -- conversions ---------------------------------------------------------------------
    def load(self, state: FiveThousandState, row: int = 0) -> None:
        """Take game ``row`` of a batch."""
        self.scores = [int(x) for x in state.scores[row]]
        self.current = int(state.current[row])
        self.turn_total = int(state.turn_total[row])
        self.dice = tuple(int(d) for d in state.dice[row])
        self.roll = int(state.roll[row])
        self.turns = [int(x) for x in state.turns[row]]
        self.winner = int(state.winner[row])

    def to_state(self) -> FiveThousandState:
        """The game as a batch of one (a new :class:`FiveThousandState`)."""
        state = FiveThousandState.empty(1, self.num_players)
        state.scores[0] = self.scores
        state.current[0] = self.current
        state.turn_total[0] = self.turn_total
        state.dice[0] = self.dice
        state.roll[0] = self.roll
        state.turns[0] = self.turns
        state.winner[0] = self.winner
        return state

    # -- queries -------------------------------------------------------------------------
    def finished(self) -> bool:
        """Whether a player has reached the target."""
        return self.winner >= 0

    def thrown_dice(self) -> list[int]:
        """The faces of the current roll (without the padding)."""
        return list(self.dice[:_ROLL_SIZE[self.roll]])

    def action_mask(self) -> list[int]:
        """:func:`~.rules.legal_action_mask` of the player to move (0/1 per action; all 0
        once the game is over)."""
        rules = self.rules
        if self.winner >= 0:
            return [0] * rules.n_actions
        score, tt, roll = self.scores[self.current], self.turn_total, self.roll
        if not rules.choose_scoring_dice:
            pts = _ROLL_POINTS[roll]
            if pts <= 0:
                return [0, 0]
            return [1, 1 if R.bank_allowed(rules, score, tt + pts) else 0]
        mask = [0] * R.N_ACTIONS_CHOOSE
        points = self._points[roll]
        for m in self._legal[roll]:
            mask[2 * m] = 1
            if R.bank_allowed(rules, score, tt + points[m]):
                mask[2 * m + 1] = 1
        return mask

    # -- transitions ---------------------------------------------------------------------
    def _end_turn(self) -> None:
        self.turns[self.current] += 1
        self.current = (self.current + 1) % self.num_players
        self.turn_total = 0

    def _throw_until_decision(self, rng, n_dice: int, opening: bool):
        """Throw until the player to move faces a decision (see ``game._throw_until_decision``).
        Returns ``(bust dice of a first, non-opening throw that busted, or None; how many
        opening throws busted)``."""
        bust_dice = None
        opening_busts = 0
        while True:
            self.dice, self.roll = throw_one(rng, n_dice)
            if _ROLL_POINTS[self.roll] > 0:
                return bust_dice, opening_busts
            if opening:
                opening_busts += 1
            else:
                bust_dice = self.thrown_dice()
            self._end_turn()
            n_dice, opening = N_DICE, True

    def start(self, rng, first_player: int = 0) -> int:
        """A new game: scores 0, ``first_player`` opens with five dice.  Returns the number of
        opening busts before the first decision."""
        p = self.num_players
        self.scores, self.turns = [0] * p, [0] * p
        self.winner, self.turn_total, self.current = -1, 0, int(first_player)
        return self._throw_until_decision(rng, N_DICE, True)[1]

    def step(self, action: int, rng) -> list[dict]:
        """One legal decision of the player to move (legality is the caller's job), then throw
        on to the next decision.  Returns what happened, as
        :func:`~dice_env.fivethousand.game.step_events` describes a step of the batched core.
        """
        p = self.current
        column = action >> 1 if self.rules.choose_scoring_dice else 0
        roll = self.roll
        pts = self._points[roll][column]
        total = self.turn_total + pts
        self.turn_total = total
        events: list[dict] = []
        opening_busts = 0
        if action & 1:
            scores, outcome, receiver, bumped, winner = R.resolve_bank_one(
                self.rules, self.scores, p, total)
            if outcome == R.BANKED:
                events.append({"type": "bank", "player": p, "points": total,
                               "score": scores[p]})
                events.extend({"type": "bump", "player": q, "by": p, "lost": self.scores[q]}
                              for q in range(self.num_players) if bumped[q])
            else:
                events.append({"type": "overshoot", "player": p, "points": total,
                               "score": scores[p]})
                if outcome == R.GIFTED:
                    events.append({"type": "gift", "from": p, "to": receiver, "points": total,
                                   "score": scores[receiver]})
                else:
                    reason = ("no_receiver" if outcome == R.GIFT_LOST_NO_RECEIVER
                              else "receiver_overshoot")
                    events.append({"type": "gift_lost", "from": p, "points": total,
                                   "reason": reason, "to": receiver if receiver >= 0 else None})
            self.scores = scores
            self.winner = winner
            self._end_turn()
            if winner < 0:
                opening_busts = self._throw_until_decision(rng, N_DICE, True)[1]
        else:
            n_next = self._left[roll][column]
            events.append({"type": "roll", "player": p, "set_aside": pts, "turn_total": total,
                           "dice_thrown": n_next,
                           "hot_dice": self._used[roll][column] == _ROLL_SIZE[roll]})
            bust_dice, opening_busts = self._throw_until_decision(rng, n_next, False)
            if bust_dice is not None:
                events.append({"type": "bust", "player": p, "lost": total, "dice": bust_dice,
                               "opening": False})
        events.extend({"type": "bust", "player": (p + 1 + i) % self.num_players, "lost": 0,
                       "dice": None, "opening": True} for i in range(opening_busts))
        if self.winner >= 0:
            events.append({"type": "win", "player": self.winner})
        return events
