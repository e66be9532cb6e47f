"""The multi-player scorecard match (Penta, Dice Poker, ...): the match turn, written once.

The rules (docs/rules.md, section 1.6): every player has a scorecard of their own; players
take whole turns in seat order (seat 0 opens every round); the match ends when every player
has filled every box (13 turns each in Penta, 15 in Dice Poker) and the highest TOTAL wins.

This module adds only *whose turn it is* and *who won* to :mod:`dice_env.scorecard.game`, in
the same two forms side by side:

* **batched** (:class:`MatchState` and the functions): the ``P`` scorecards of match ``g`` are
  the rows ``g * P .. g * P + P - 1`` of one :class:`~dice_env.scorecard.game.ScorecardState`,
  and every roll, mask and score goes through :func:`~dice_env.scorecard.game.action_mask` and
  :func:`~dice_env.scorecard.game.apply_actions` (the match envs, the bots' tables);
* **one match** (:class:`ScorecardMatch`): one :class:`~dice_env.scorecard.game.ScorecardGame`
  per seat, in plain Python (the AEC env's fast path); each method names its batched twin.

Only the card of the player to move holds live dice; the others keep the last roll they
scored.  A turn's first roll is thrown when the turn starts (rows draw from the generator, or
from a :class:`~dice_env.dice.DiceStream` by row -- a :class:`ScorecardMatch` card's ``row`` is
its seat --, so a 2-player match on ``DiceStream(seed, [0, 1])`` replays the two solitaire
games ``DiceStream(seed, [0])`` and ``DiceStream(seed, [1])`` die for die when the decisions
are the same).

**Outcome** (:func:`match_outcome`): ``+1`` to the sole player with the highest TOTAL, ``-1``
to every player below the top, and ``0`` to each of the players who *share* the highest TOTAL
(nobody has the highest total alone, so nobody wins: a draw among them; the others still
lost).  A two-player match stays zero-sum and a tie is worth strictly less than a win and more
than a loss, so a learner is never indifferent between winning and tying.
:func:`score_margin` is the alternative reward: own TOTAL minus the best TOTAL among the
others (positive exactly for a sole winner, 0 for a shared top).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dice_env.scorecard import game as G
from dice_env.scorecard.rules import Rules

MIN_PLAYERS, MAX_PLAYERS = 2, 6


def check_num_players(num_players) -> int:
    """Validate a number of players (an integer from 2 to 6)."""
    if (isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer))
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS):
        raise ValueError(f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                         f"got {num_players!r}")
    return int(num_players)


@dataclass
class MatchState:
    """``N`` matches of ``num_players`` players.

    Attributes:
        cards: ``N * num_players`` scorecards; row ``g * num_players + s`` is seat ``s`` of
            match ``g`` (its dice are live only while ``s`` is to move).
        current: ``(N,)`` the seat to move (0 again once a match is over).
        num_players: players per match.
    """

    cards: G.ScorecardState
    current: np.ndarray
    num_players: int

    @classmethod
    def empty(cls, rules: Rules, n: int, num_players: int) -> MatchState:
        return cls(G.ScorecardState.empty(rules, n * num_players), np.zeros(n, dtype=np.int64),
                   int(num_players))

    @property
    def n(self) -> int:
        return len(self.current)

    def copy(self) -> MatchState:
        return MatchState(self.cards.copy(), self.current.copy(), self.num_players)

    def card_rows(self, games: np.ndarray) -> np.ndarray:
        """``(len(games), P)`` the card rows of the matches ``games`` (indices), seat order."""
        p = self.num_players
        return np.asarray(games, dtype=np.int64)[:, None] * p + np.arange(p)

    def take(self, games: np.ndarray) -> MatchState:
        """The sub-batch of the matches ``games`` (indices; a copy)."""
        games = np.asarray(games, dtype=np.int64)
        return MatchState(self.cards.take(self.card_rows(games).ravel()),
                          self.current[games].copy(), self.num_players)

    def put(self, games: np.ndarray, other: MatchState) -> None:
        """Overwrite the matches ``games`` (indices) with ``other``'s."""
        games = np.asarray(games, dtype=np.int64)
        self.cards.put(self.card_rows(games).ravel(), other.cards)
        self.current[games] = other.current

    def mover_rows(self, games: np.ndarray | None = None) -> np.ndarray:
        """The card row of the player to move in each match (of ``games``, indices)."""
        if games is None:
            games = np.arange(self.n)
        return np.asarray(games, dtype=np.int64) * self.num_players + self.current[games]

    def finished(self) -> np.ndarray:
        """``(N,)`` True where every card is full."""
        return self.cards.finished().reshape(self.n, self.num_players).all(axis=1)

    def totals(self, rules: Rules) -> np.ndarray:
        """``(N, P)`` the TOTAL of every card so far."""
        return self.cards.total(rules).reshape(self.n, self.num_players)

    def filled(self) -> np.ndarray:
        """``(N, P)`` boxes filled on every card."""
        open_count = self.cards.open_boxes().sum(axis=1)
        return (self.cards.scores.shape[1] - open_count).reshape(self.n, self.num_players)

    def score_breakdowns(self, rules: Rules, game: int = 0) -> list[dict[str, int]]:
        """Every player's upper, upper bonus, lower, five-of-a-kind bonus and TOTAL in match
        ``game``, in seat order."""
        rows = self.card_rows(np.array([game]))[0]
        parts = self.cards.score_breakdown(rules)
        return [{k: int(v[r]) for k, v in parts.items()} for r in rows]


def start_matches(rules: Rules, state: MatchState, games: np.ndarray, rng) -> None:
    """New matches in ``games`` (bool ``(N,)``): every card empty, seat 0 throws."""
    games = np.asarray(games, dtype=bool)
    G.clear_cards(rules, state.cards, np.repeat(games, state.num_players))
    state.current[games] = 0
    _throw_for_movers(state, games, rng)


def _throw_for_movers(state: MatchState, games: np.ndarray, rng) -> None:
    """The player to move in each of ``games`` (bool) throws all five dice."""
    rows = np.zeros(state.cards.n, dtype=bool)
    rows[state.mover_rows(np.flatnonzero(games))] = True
    G.roll_dice(state.cards, rows, np.zeros(state.cards.n, dtype=np.int64), rng)


def mover_options(rules: Rules, state: MatchState, games: np.ndarray | None = None):
    """:func:`~dice_env.scorecard.game.box_options` of the players to move:
    ``(legal, points, bonus)``, each ``(len(games), n_boxes)``."""
    return G.box_options(rules, state.cards.take(state.mover_rows(games)))


def match_action_mask(rules: Rules, state: MatchState, canonical_holds: bool = True,
                      games: np.ndarray | None = None,
                      box_legal: np.ndarray | None = None) -> np.ndarray:
    """``(len(games), 32 + n_boxes)`` bool: the legal actions of the players to move (all
    False in a finished match, where seat 0 is to move with a full card).  ``box_legal``: the
    first item of :func:`mover_options`."""
    movers = state.cards.take(state.mover_rows(games))
    return G.action_mask(rules, movers, canonical_holds, box_legal)


def apply_match_actions(rules: Rules, state: MatchState, actions: np.ndarray, rng,
                        active: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One (legal) action of the player to move in every ``active`` match, in place.

    A reroll keeps the player's holds; a score fills the box (through
    :func:`~dice_env.scorecard.game.apply_actions`) and passes the dice to the next seat, who
    throws at once unless the match is over.  Returns ``(points, scored)``, each ``(N,)``: what
    the action earned on the mover's card (bonuses included) and whether it ended a turn.
    """
    n, p = state.n, state.num_players
    actions = np.asarray(actions, dtype=np.int64)
    active = np.ones(n, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    rows = state.mover_rows()
    row_actions = np.zeros(state.cards.n, dtype=np.int64)
    row_actions[rows] = actions
    row_active = np.zeros(state.cards.n, dtype=bool)
    row_active[rows] = active
    points, *_ = G.apply_actions(rules, state.cards, row_actions, rng, row_active,
                                 throw_next_turn=False)
    scored = active & (actions >= G.N_HOLD_ACTIONS)
    state.current[scored] = (state.current[scored] + 1) % p
    _throw_for_movers(state, scored & ~state.finished(), rng)
    return points[rows], scored


def match_outcome(totals: np.ndarray) -> np.ndarray:
    """``(N, P)`` float: +1 to a sole top TOTAL, 0 to each player sharing the top, -1 below."""
    totals = np.asarray(totals)
    top = totals == totals.max(axis=-1, keepdims=True)
    shared = top.sum(axis=-1, keepdims=True) > 1
    return np.where(top, np.where(shared, 0.0, 1.0), -1.0)


def score_margin(totals: np.ndarray) -> np.ndarray:
    """``(N, P)`` float: each player's TOTAL minus the best TOTAL among the others."""
    totals = np.asarray(totals, dtype=np.float64)
    p = totals.shape[-1]
    others = np.where(np.eye(p, dtype=bool), -np.inf, totals[..., None, :])
    return totals - others.max(axis=-1)


def winners(totals: np.ndarray) -> list[int]:
    """The seats holding the highest TOTAL of one match (several when they share it)."""
    totals = np.asarray(totals)
    return np.flatnonzero(totals == totals.max()).tolist()


class ScorecardMatch:
    """One match of ``num_players`` players in Python values: one match of a
    :class:`MatchState` and its transitions.

    Attributes:
        cards: one :class:`~dice_env.scorecard.game.ScorecardGame` per seat (its ``row`` is
            the seat, as in a batch of one match).
        current: the seat to move (0 again once the match is over).
    """

    __slots__ = ("rules", "num_players", "cards", "current")

    def __init__(self, rules: Rules, num_players: int) -> None:
        self.rules = rules
        self.num_players = int(num_players)
        self.cards = [G.ScorecardGame(rules, row=seat) for seat in range(self.num_players)]
        self.current = 0

    def load(self, state: MatchState, game: int = 0) -> None:
        """Take match ``game`` of a batch."""
        for seat, card in enumerate(self.cards):
            card.load(state.cards, game * self.num_players + seat)
        self.current = int(state.current[game])

    def to_state(self) -> MatchState:
        """The match as a batch of one (a new :class:`MatchState`)."""
        state = MatchState.empty(self.rules, 1, self.num_players)
        for seat, card in enumerate(self.cards):
            state.cards.put([seat], card.to_state())
        state.current[0] = self.current
        return state

    @property
    def mover(self) -> G.ScorecardGame:
        """The card of the player to move (the one with the dice on the table)."""
        return self.cards[self.current]

    def finished(self) -> bool:
        """:meth:`MatchState.finished`: whether every card is full."""
        return all(card.finished() for card in self.cards)

    def totals(self) -> list[int]:
        """:meth:`MatchState.totals`: every seat's TOTAL so far."""
        return [card.total() for card in self.cards]

    def start(self, rng) -> None:
        """:func:`start_matches`: every card empty, seat 0 throws."""
        for card in self.cards:
            card.clear()
        self.current = 0
        self.mover.throw(rng)

    def action_mask(self, legal: list[bool], canonical_holds: bool = True) -> list[int]:
        """:func:`match_action_mask`: the legal actions of the player to move (0/1 per action;
        all 0 once over), given the ``legal`` boxes of the mover's
        :meth:`~dice_env.scorecard.game.ScorecardGame.options`."""
        return self.mover.action_mask(legal, canonical_holds)

    def apply(self, action: int, rng, points: list[int],
              bonus: int) -> tuple[int, int, int, int]:
        """:func:`apply_match_actions`: one legal action of the player to move (``points``,
        ``bonus``: the mover's :meth:`~dice_env.scorecard.game.ScorecardGame.options`).  A score
        passes the dice to the next seat, who throws unless the match is over.  Returns what
        the action earned on the mover's card, as
        :meth:`~dice_env.scorecard.game.ScorecardGame.apply` does."""
        earned = self.mover.apply(action, rng, points, bonus, throw_next_turn=False)
        if action >= G.N_HOLD_ACTIONS:
            self.current = (self.current + 1) % self.num_players
            if not self.finished():
                self.mover.throw(rng)
        return earned
