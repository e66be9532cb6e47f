"""One game of 5000 in plain Python: the fast path of the single-agent envs and the AEC env.

:func:`~dice_env.fivethousand.game.step_games` runs ``N`` games through numba kernels; for one
game a kernel call costs more than the game itself, so :class:`FiveThousandGame` keeps one
game in Python ints and lists and calls the turn's own functions of
:mod:`dice_env.fivethousand.rules.turn` (:func:`~.turn.action_mask_into`,
:func:`~.turn.set_aside`, :func:`~.turn.bank`, :func:`~.turn.land`, :func:`~.turn.end_turn`,
:func:`~.turn.decision_events`) as plain Python, over the same tables as tuples
(:func:`~.turn.python_tables`).  Its dice come from the
generator call of every throw (:func:`~.rules.throw_faces` for a batch of one), so a seeded game
sees the same dice as the batched core (``tests/test_single_games.py`` and
``tests/test_fivethousand_turn_differential.py`` play both side by side).
"""

from __future__ import annotations

from dice_env.fivethousand import rules as R
from dice_env.fivethousand.game import FiveThousandState
from dice_env.fivethousand.rules import FiveThousandRules, throw_faces
from dice_env.fivethousand.rules import turn as T
from dice_env.fivethousand.rules.turn import (
    BUST,
    NO_BUST,
    action_mask_into,
    bank,
    decision_events,
    end_turn,
    land,
    set_aside,
)

N_DICE = R.N_DICE
_ROLL_SIZE = tuple(R.ROLL_SIZE.tolist())
_INDEX_BY_CODE, _POINTS_OF_ROLL, _ROLL_DICE = (T.INDEX_BY_CODE_PY, T.POINTS_OF_ROLL_PY,
                                               T.ROLL_DICE_PY)
_NO_BANK = R.NO_BANK


class FiveThousandGame:
    """One game of 5000: a one-row :class:`~dice_env.fivethousand.game.FiveThousandState` in
    Python values, and its transitions (the attributes are those of the state, one game).

    Attributes:
        scores, turns: lists, one entry per seat (updated in place).
        current, turn_total, roll, winner: ints.

    :attr:`dice` is the current roll as faces.
    """

    __slots__ = ("rules", "num_players", "scores", "current", "turn_total", "roll", "turns",
                 "winner", "_points", "_left", "_legal", "_n_legal", "_min_bank", "_bumped")

    def __init__(self, rules: FiveThousandRules, num_players: int) -> None:
        self.rules = rules
        self.num_players = int(num_players)
        t = T.python_tables(rules)
        self._points, self._left, self._legal, self._n_legal = t.points, t.left, t.legal, t.n_legal
        self._min_bank = rules.min_entered_score
        self._bumped = [False] * self.num_players
        self.load(FiveThousandState.empty(1, self.num_players))

    # -- conversions ---------------------------------------------------------------------
    def load(self, state: FiveThousandState, row: int = 0) -> None:
        """Take game ``row`` of a batch (its dice are those of its roll index)."""
        self.scores = [int(x) for x in state.scores[row]]
        self.current = int(state.current[row])
        self.turn_total = int(state.turn_total[row])
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
    @property
    def dice(self) -> tuple[int, ...]:
        """The current roll: five faces, sorted, 0s padding the dice not thrown."""
        return _ROLL_DICE[self.roll]

    def finished(self) -> bool:
        """Whether a player has reached the target."""
        return self.winner >= 0

    def thrown_dice(self) -> list[int]:
        """The faces of the current roll (without the padding)."""
        return list(_ROLL_DICE[self.roll][:_ROLL_SIZE[self.roll]])

    def action_mask(self) -> list[int]:
        """The legal actions of the player to move (0/1 per action; all 0 once the game is
        over): :func:`~.turn.action_mask_into`."""
        mask = [0] * self.rules.n_actions
        if self.winner < 0:
            action_mask_into(mask, self._min_bank, self.scores[self.current],
                               self.turn_total, self.roll, self._points, self._legal,
                               self._n_legal)
        return mask

    # -- transitions ---------------------------------------------------------------------
    def _throw_until_decision(self, rng, n_dice: int) -> tuple[list[int] | None, int]:
        """Throw ``n_dice`` dice, and again while they bust (:func:`~.turn.land`, then
        :func:`~.turn.end_turn`), until the player to move faces a decision.  Returns ``(the
        dice of a roll-on that busted, or None; how many opening throws busted)``."""
        bust_dice = None
        opening_busts = 0
        while n_dice:
            faces = throw_faces(rng, 1)[0].tolist()
            self.roll, bust = land(faces, n_dice, self.turn_total, _INDEX_BY_CODE,
                                     _POINTS_OF_ROLL)
            if bust == NO_BUST:
                break
            self.current, self.turn_total, n_dice = end_turn(self.turns, self.current)
            if bust == BUST:
                bust_dice = self.thrown_dice()
            else:
                opening_busts += 1
        return bust_dice, opening_busts

    def start(self, rng, first_player: int = 0) -> int:
        """A new game: scores 0, ``first_player`` opens with five dice.  Returns the number of
        opening busts before the first decision."""
        p = self.num_players
        self.scores, self.turns = [0] * p, [0] * p
        self.winner, self.turn_total, self.current = -1, 0, int(first_player)
        return self._throw_until_decision(rng, N_DICE)[1]

    def step(self, action: int, rng) -> list[dict]:
        """One legal decision of the player to move (legality is the caller's job): its
        :func:`~.turn.set_aside`, then roll on or :func:`~.turn.bank`, and throw on to the next
        decision.  Returns what happened, as :func:`~dice_env.fivethousand.game.step_events`
        describes a step of the batched core.
        """
        p = self.current
        points, total, throw_n = set_aside(action, self.roll, self.turn_total, self._points,
                                             self._left)
        banked = action & 1 == 1
        if banked:
            outcome, receiver, self.winner, self.current, self.turn_total, throw_n = bank(
                self.rules.target, self.scores, self.turns, self._bumped, p, total)
        else:
            outcome, receiver, self.turn_total = _NO_BANK, -1, total
        bust_dice, opening_busts = self._throw_until_decision(rng, throw_n)
        return decision_events(p, banked, points, total, throw_n, outcome, receiver,
                                 self.scores, self._bumped, bust_dice, opening_busts,
                                 self.winner)
