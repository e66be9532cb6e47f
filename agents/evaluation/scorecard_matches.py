"""Seat-balanced head-to-head matches of the multi-player scorecard games, for evaluation.

:func:`play_scorecard_matches` plays many two-player matches side by side on the match core
(:mod:`dice_env.scorecard.match`, what the ``scorecard_v0`` AEC env and the match envs play):
player A opens ``n`` matches and player B the ``n`` others, on the *same dice*.  Every card
draws from a dice stream of its own (:class:`~dice_env.dice.DiceStream`), and in dice pair
``g`` player A's card draws from stream ``2g`` whichever seat it holds, player B's from
``2g + 1``.  So the two seat orders are a paired comparison: a player that only looks at its
own card (every expected-score player: random, greedy, heuristic, optimal, the trained ones)
makes the same decisions in both, and the seat cannot change the outcome; a player that reads
the other card (a win maximiser) may play differently, and :attr:`first_seat` measures what
the seat is worth to it.

Players are asked through ``act_batch`` (one call per step for all the matches where they move)
or ``act``; they see the single-player observation of their own card (``view="card"``, what
``agents.make`` players read) or the match observation of their seat (``view="match"``, see
:mod:`dice_env.scorecard.match.observation`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_env.dice import DiceStream
from dice_env.scorecard.match import (
    MatchState,
    apply_match_actions,
    match_action_mask,
    match_outcome,
    mover_options,
    start_matches,
)
from dice_env.scorecard.match.observation import card_observation, encode_match_observation
from dice_env.scorecard.match.players import OPPONENT_VIEWS
from dice_env.scorecard.rules import Rules, coerce_rules

from .scorecard_games import actions_of

__all__ = ["ScorecardMatches", "matches_from_games", "play_scorecard_matches"]

Z95 = 1.959963984540054


@dataclass
class ScorecardMatches:
    """The outcome of ``2 * pairs`` two-player matches between players A (0) and B (1).

    Attributes:
        totals: ``(2 * pairs, 2)`` final TOTAL of A and of B in each match.
        a_first: ``(2 * pairs,)`` True where A held seat 0 (the first ``pairs`` matches); match
            ``g`` and match ``pairs + g`` are played on the same dice (dice pair ``g``).
    """

    totals: np.ndarray
    a_first: np.ndarray

    @property
    def pairs(self) -> int:
        return len(self.a_first) // 2

    @property
    def outcome(self) -> np.ndarray:
        """``(2 * pairs,)`` A's result: +1 win, 0 tie, -1 loss."""
        return match_outcome(self.totals)[:, 0]

    def _points(self) -> np.ndarray:
        """A's match points per dice pair (win 1, tie 1/2, loss 0; mean of the two orders)."""
        pts = (self.outcome + 1) / 2
        return (pts[:self.pairs] + pts[self.pairs:]) / 2

    def rates(self) -> dict[str, float]:
        """A's win, tie and loss rates over all matches."""
        o = self.outcome
        return {"win": float((o > 0).mean()), "tie": float((o == 0).mean()),
                "loss": float((o < 0).mean())}

    def score(self) -> tuple[float, float]:
        """A's seat-balanced score (win 1, tie 1/2) and the half-width of its 95 % CI (over
        the independent dice pairs)."""
        return _mean_ci(self._points())

    def first_seat(self) -> tuple[float, float]:
        """What seat 0 is worth: the seat-0 player's score minus 1/2, with its 95 % CI half-width.

        Paired over the dice pairs (both orders on the same dice): exactly 0 when neither
        player reads the other's card.
        """
        pts = (self.outcome + 1) / 2
        seat0 = np.where(self.a_first, pts, 1 - pts)
        return _mean_ci((seat0[:self.pairs] + seat0[self.pairs:]) / 2 - 0.5)

    def mean_margin(self) -> tuple[float, float]:
        """A's mean TOTAL minus B's, with its 95 % CI half-width (over the dice pairs)."""
        diff = self.totals[:, 0] - self.totals[:, 1]
        return _mean_ci((diff[:self.pairs] + diff[self.pairs:]) / 2)


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    x = np.asarray(x, dtype=np.float64)
    half = Z95 * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    return float(x.mean()), float(half)


def play_scorecard_matches(players: Sequence[Any], game: str | Rules, pairs: int,
                           seed: int = 0, views: Sequence[str] = ("card", "card"),
                           canonical_holds: bool = True, batch: int = 5_000
                           ) -> ScorecardMatches:
    """Play ``pairs`` dice pairs of two-player matches (``2 * pairs`` matches) between
    ``players = [A, B]`` on ``game`` (a preset name, Gymnasium id or ``Rules``).

    See the module docstring for the seating and the dice.  Matches are played ``batch`` dice
    pairs at a time.  A player that returns an illegal action raises ``ValueError`` naming it.
    """
    if len(players) != 2:
        raise ValueError(f"play_scorecard_matches takes two players, got {len(players)}")
    for v in views:
        if v not in OPPONENT_VIEWS:
            raise ValueError(f"unknown view {v!r}; use one of {list(OPPONENT_VIEWS)}")
    if int(pairs) < 1:
        raise ValueError(f"pairs must be at least 1, got {pairs}")
    rules = coerce_rules(game)
    totals = []
    for start in range(0, int(pairs), int(batch)):
        g = np.arange(start, min(start + int(batch), int(pairs)))
        t = _play_batch(rules, players, list(views), g, seed, canonical_holds)
        totals.append(t)
    per_batch = [(t[:len(t) // 2], t[len(t) // 2:]) for t in totals]
    a_first_totals = np.concatenate([a for a, _ in per_batch])
    b_first_totals = np.concatenate([b for _, b in per_batch])
    firsts = np.concatenate([np.ones(len(a_first_totals), dtype=bool),
                             np.zeros(len(b_first_totals), dtype=bool)])
    return ScorecardMatches(np.concatenate([a_first_totals, b_first_totals]), firsts)


def matches_from_games(totals_a: np.ndarray, totals_b: np.ndarray) -> ScorecardMatches:
    """The matches :func:`play_scorecard_matches` would play between two players that read
    only their own card, from their solitaire games on common random numbers.

    ``totals_a`` / ``totals_b``: each player's final TOTALs of solitaire games ``0 .. 2n-1``
    played with :func:`~agents.evaluation.play_scorecard_games` (game ``i`` on the dice stream
    ``(seed, i)``) with the same seed.  Such a player's card in a match draws the dice of its
    stream and makes the decisions of its solitaire game, whatever the other card does (a
    tested identity, see ``tests/test_scorecard_matches.py``), so dice pair ``g`` is A's game
    ``2g`` against B's game ``2g + 1``, in both seat orders.
    """
    a = np.asarray(totals_a)
    b = np.asarray(totals_b)
    pairs = min(len(a), len(b)) // 2
    if pairs < 1:
        raise ValueError("matches_from_games needs at least two games of each player")
    one = np.stack([a[0:2 * pairs:2], b[1:2 * pairs:2]], axis=1)
    return ScorecardMatches(np.concatenate([one, one]),
                            np.concatenate([np.ones(pairs, dtype=bool),
                                            np.zeros(pairs, dtype=bool)]))


def _play_batch(rules: Rules, players: Sequence[Any], views: list[str], pair_ids: np.ndarray,
                seed: int, canonical_holds: bool) -> np.ndarray:
    """``(2 * len(pair_ids), 2)`` TOTALs of A and B: A first on each dice pair, then B first."""
    n = len(pair_ids)
    a_first = np.concatenate([np.ones(n, dtype=bool), np.zeros(n, dtype=bool)])
    # card row 2m + s: A's stream (2g) at A's seat, B's (2g + 1) at the other
    g2 = np.concatenate([pair_ids, pair_ids]) * 2
    streams = np.where(a_first[:, None], np.stack([g2, g2 + 1], 1), np.stack([g2 + 1, g2], 1))
    dice = DiceStream(seed, streams.ravel())
    state = MatchState.empty(rules, 2 * n, 2)
    start_matches(rules, state, np.ones(2 * n, dtype=bool), dice)
    while True:
        live = np.flatnonzero(~state.finished())
        if not live.size:
            break
        seats = state.current[live]
        player = np.where(a_first[live], seats, 1 - seats)
        legal, points, _ = mover_options(rules, state, live)
        masks = match_action_mask(rules, state, canonical_holds, live, box_legal=legal)
        actions = np.zeros(state.n, dtype=np.int64)
        for k in (0, 1):
            sel = np.flatnonzero(player == k)
            if not sel.size:
                continue
            games = live[sel]
            if views[k] == "card":
                obs = card_observation(rules, state, seats[sel], games, points[sel])
            else:
                obs = encode_match_observation(rules, state, seats[sel], games)
            try:
                actions[games] = actions_of(players[k], obs, masks[sel])
            except ValueError as exc:
                raise ValueError(f"player {'AB'[k]} ({players[k]!r}): {exc}") from None
        active = np.zeros(state.n, dtype=bool)
        active[live] = True
        apply_match_actions(rules, state, actions, dice, active)
    by_seat = state.totals(rules)
    return np.where(a_first[:, None], by_seat, by_seat[:, ::-1])
