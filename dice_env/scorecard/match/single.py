"""One multi-player scorecard match in plain Python: the fast path of the PettingZoo AEC env.

What :mod:`dice_env.scorecard.match.core` does for ``N`` matches in numpy arrays, for one match:
one :class:`~dice_env.scorecard.single.ScorecardGame` per seat (its ``row`` is the seat, as in
a batch of one match, so a :class:`~dice_env.dice.DiceStream` deals the same dice) and the
seat to move.  Players take whole turns in seat order; only the card of the player to move
holds live dice; a score passes the dice on and the next seat throws at once, unless the match
is over.
"""

from __future__ import annotations

from dice_env.scorecard.game import N_HOLD_ACTIONS
from dice_env.scorecard.match.core import MatchState
from dice_env.scorecard.rules import Rules
from dice_env.scorecard.single import ScorecardGame


class ScorecardMatch:
    """One match of ``num_players`` players.

    Attributes:
        cards: one :class:`~dice_env.scorecard.single.ScorecardGame` per seat.
        current: the seat to move (0 again once the match is over).
    """

    __slots__ = ("rules", "num_players", "cards", "current")

    def __init__(self, rules: Rules, num_players: int) -> None:
        self.rules = rules
        self.num_players = int(num_players)
        self.cards = [ScorecardGame(rules, row=seat) for seat in range(self.num_players)]
        self.current = 0

    def load(self, state: MatchState, game: int = 0) -> None:
        """Take match ``game`` of a batch."""
        for seat, card in enumerate(self.cards):
            card.load(state.cards, game * self.num_players + seat)
        self.current = int(state.current[game])

    def to_state(self) -> MatchState:
        """The match as a batch of one (a new :class:`~.core.MatchState`)."""
        state = MatchState.empty(self.rules, 1, self.num_players)
        for seat, card in enumerate(self.cards):
            state.cards.put([seat], card.to_state())
        state.current[0] = self.current
        return state

    @property
    def mover(self) -> ScorecardGame:
        """The card of the player to move (the one with the dice on the table)."""
        return self.cards[self.current]

    def finished(self) -> bool:
        """Whether every card is full."""
        return all(card.finished() for card in self.cards)

    def totals(self) -> list[int]:
        """Every seat's TOTAL so far."""
        return [card.total() for card in self.cards]

    def start(self, rng) -> None:
        """Every card empty, seat 0 throws."""
        for card in self.cards:
            card.clear()
        self.current = 0
        self.mover.throw(rng)

    def action_mask(self, legal: list[bool], canonical_holds: bool = True) -> list[int]:
        """The legal actions of the player to move (0/1 per action; all 0 once over), given
        the ``legal`` boxes of the mover's :meth:`~ScorecardGame.options`."""
        if self.finished():
            return [0] * (N_HOLD_ACTIONS + self.rules.n_boxes)
        return self.mover.action_mask(legal, canonical_holds)

    def apply(self, action: int, rng, points: list[int], bonus: int) -> int:
        """One legal action of the player to move (``points``, ``bonus``: the mover's
        :meth:`~ScorecardGame.options`).  A score passes the dice to the next seat, who throws
        unless the match is over.  Returns what the action earned on the mover's card."""
        earned = self.mover.apply(action, rng, points, bonus, throw_next_turn=False)
        if action >= N_HOLD_ACTIONS:
            self.current = (self.current + 1) % self.num_players
            if not self.finished():
                self.mover.throw(rng)
        return earned
