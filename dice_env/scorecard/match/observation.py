"""The observation vector of the multi-player scorecard envs, seen from one seat.

Layout (float32, every entry in ``[0, 1]``), for ``P`` players, a scorecard of ``B`` boxes and
``S = observation_size(rules)`` (the single-player observation, 45 for Penta, 49 for Dice
Poker):

=========================  ========== =======================================================
slice                      size       meaning
=========================  ========== =======================================================
``card``                   S          the single-player observation
                                      (:mod:`dice_env.scorecard.observation`) of the
                                      observer's own card with the dice on the table (the
                                      roll and rerolls left of the player to move; what each
                                      of the observer's boxes would score with that roll)
``to_move``                1          1 when the observer is to move
``own_total``              1          the observer's TOTAL, capped at ``TOTAL_SCALE``,
                                      ``/ TOTAL_SCALE`` (1000)
``opponents``              (P-1)(5+B) one block per other player, in seat order after the
                                      observer (the next player first), each:
  ``total``                1          their TOTAL, capped, ``/ TOTAL_SCALE``
  ``upper_progress``       1          their upper total, capped at the bonus threshold,
                                      ``/ threshold``
  ``five_state``           3          one-hot: their five-of-a-kind box open / 50 / 0
  ``open``                 B          1 for each of their open boxes
=========================  ========== =======================================================

Penta with 2 players: 65 entries (``45 + 2 + 18``); Dice Poker with 2 players: 71.

The block of an opponent is everything of their card that matters for the rest of the match:
the points they have, the boxes they can still fill, how far their upper bonus is and whether
they can still earn a five-of-a-kind bonus (the scores of single boxes add nothing more).
``obs[:S]`` is a single-player observation, so any player of ``dice_env/Penta-v0`` (the
``agents`` bots, the optimal DP player) can act from the first ``S`` entries when it is to move.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dice_env.scorecard.game import OPEN, ScorecardGame
from dice_env.scorecard.match.core import MatchState
from dice_env.scorecard.observation import (
    _one_game_tables,
    encode_observation,
    observation_size,
    observation_values_one,
)
from dice_env.scorecard.rules import Rules, box_outcomes

#: Totals are divided by this (and capped at it) in the observation.
TOTAL_SCALE = 1000.0
_EYE3 = np.eye(3, dtype=np.float32)


def opponent_block_size(rules: Rules) -> int:
    """Entries per opponent: total, upper progress, five-of-a-kind state (3), open boxes."""
    return 5 + rules.n_boxes


@cache
def match_observation_slices(rules: Rules, num_players: int) -> dict[str, slice]:
    """Name -> slice of each part of the match observation (``opponents`` holds the blocks)."""
    s = observation_size(rules)
    end = s + 2 + (num_players - 1) * opponent_block_size(rules)
    return {"card": slice(0, s), "to_move": slice(s, s + 1), "own_total": slice(s + 1, s + 2),
            "opponents": slice(s + 2, end)}


def match_observation_size(rules: Rules, num_players: int) -> int:
    return match_observation_slices(rules, num_players)["opponents"].stop


def _games(state: MatchState, games: np.ndarray | None) -> np.ndarray:
    return np.arange(state.n) if games is None else np.asarray(games, dtype=np.int64)


def card_observation(rules: Rules, state: MatchState, seats: np.ndarray,
                     games: np.ndarray | None = None,
                     mover_points: np.ndarray | None = None) -> np.ndarray:
    """``(len(games), S)`` the single-player observation of seat ``seats[i]``'s card in match
    ``games[i]``, with the dice on the table (see the module docstring).

    ``mover_points``: the ``points`` of :func:`~dice_env.scorecard.match.core.mover_options` for
    ``games``, when the caller has them (used where the observer is the player to move).
    """
    games = _games(state, games)
    seats = np.asarray(seats, dtype=np.int64)
    c, p = state.cards, state.num_players
    own = games * p + seats
    mover = state.mover_rows(games)
    open_boxes = c.scores[own] == OPEN
    five = c.five_state(rules)[own]
    need = np.ones(len(games), dtype=bool)
    if mover_points is not None:
        need = seats != state.current[games]
        points = np.array(mover_points, dtype=np.int64, copy=True)
    else:
        points = np.empty(open_boxes.shape, dtype=np.int64)
    if need.any():
        points[need] = box_outcomes(rules, c.roll[mover[need]], open_boxes[need], five[need])[1]
    return encode_observation(rules, c.dice[mover], c.roll[mover], c.rolls_left[mover],
                              open_boxes, points, c.upper_total[own], five)


def encode_match_observation(rules: Rules, state: MatchState, seats: np.ndarray,
                             games: np.ndarray | None = None,
                             mover_points: np.ndarray | None = None) -> np.ndarray:
    """``(len(games), match_observation_size)`` float32: match ``games[i]`` seen from seat
    ``seats[i]`` (the layout of the module docstring; ``mover_points`` as in
    :func:`card_observation`)."""
    games = _games(state, games)
    seats = np.asarray(seats, dtype=np.int64)
    p, b = state.num_players, rules.n_boxes
    sl = match_observation_slices(rules, p)
    obs = np.empty((len(games), sl["opponents"].stop), dtype=np.float32)
    obs[:, sl["card"]] = card_observation(rules, state, seats, games, mover_points)
    obs[:, sl["to_move"].start] = (seats == state.current[games]) & ~state.finished()[games]
    totals = np.minimum(state.totals(rules)[games], TOTAL_SCALE) / TOTAL_SCALE
    obs[:, sl["own_total"].start] = totals[np.arange(len(games)), seats]

    others = (seats[:, None] + np.arange(1, p)) % p                      # (k, P-1) seats
    rows = games[:, None] * p + others                                   # (k, P-1) card rows
    c = state.cards
    threshold = rules.upper_bonus_threshold
    blocks = obs[:, sl["opponents"]].reshape(len(games), p - 1, opponent_block_size(rules))
    blocks[..., 0] = np.take_along_axis(totals, others, axis=1)
    blocks[..., 1] = np.minimum(c.upper_total[rows], threshold) / threshold
    blocks[..., 2:5] = _EYE3[c.five_state(rules)[rows]]
    blocks[..., 5:5 + b] = c.scores[rows] == OPEN
    obs[:, sl["opponents"]] = blocks.reshape(len(games), -1)
    return obs


def encode_match_observation_one(rules: Rules, cards: list[ScorecardGame], current: int,
                                 seat: int, mover_points: list[int] | None = None) -> np.ndarray:
    """:func:`encode_match_observation` of one match given as Python values, from ``seat``:
    ``cards`` the :class:`~dice_env.scorecard.game.ScorecardGame` of every seat, ``current``
    the seat to move; ``mover_points`` the points of the mover's options when the caller has
    them.  ``(match_observation_size,)`` float32, equal to it bit for bit."""
    p = len(cards)
    mover, own = cards[current], cards[seat]
    if seat == current and mover_points is not None:
        points = mover_points
    else:
        points = own.options(mover.roll)[1]
    values = observation_values_one(rules, mover.roll, mover.rolls_left, own.open_boxes(),
                                    points, own.upper_total, own.five_state())
    finished = all(card.finished() for card in cards)
    values.append(1.0 if seat == current and not finished else 0.0)
    values.append(min(own.total(), TOTAL_SCALE) / TOTAL_SCALE)
    upper, five_hot = _one_game_tables(rules)[3:5]
    threshold = rules.upper_bonus_threshold
    for k in range(1, p):
        other = cards[(seat + k) % p]
        values.append(min(other.total(), TOTAL_SCALE) / TOTAL_SCALE)
        values.append(upper[min(other.upper_total, threshold)])
        values += five_hot[other.five_state()]
        values += [1.0 if o else 0.0 for o in other.open_boxes()]
    return np.array(values, dtype=np.float32)
