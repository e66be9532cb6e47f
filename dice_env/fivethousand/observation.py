"""The observation vector of the 5000 envs (single-agent, solo, AEC), and its decoding.

Every observation is seen *from one seat* (the observer): players are listed in turn order
starting with the observer.  Layout for ``P`` players (float32, every entry in ``[0, 1]``;
points are divided by the ``target`` and clipped at 1):

========== ================  =================================================================
index      name              meaning
========== ================  =================================================================
0 .. P-1   ``score``         each player's score / target (observer first, then turn order)
P .. 2P-1  ``entered``       1 if that player has entered (score > 0)
2P .. 3P-1 ``to_move``       one-hot: the player whose decision it is (all 0 once over)
3P         ``turn_before``   points set aside this turn before the current roll / target
3P+1       ``roll_points``   the current roll's best score / target
3P+2       ``turn_total``    ``turn_before + roll_points``: the turn total with every scoring
                             die set aside -- what a bank adds under the literal rules
3P+3       ``dice_thrown``   dice in the current roll / 5
3P+4..3P+9 ``face_counts``   dice of the current roll showing 1, 2, ..., 6 / 5
3P+10      ``dice_left``     dice a roll-on throws after setting every scoring die aside
                             (5 on hot dice) / 5
3P+11      ``can_bank``      1 if the player to move may bank ``turn_total`` now
3P+12      ``overshoot``     1 if that bank would take the player to move above the target
3P+13      ``progress``      the observer's completed turns / ``max_turns`` (0 without a cap)
========== ================  =================================================================

Size ``3P + 14`` (20 for two players, 17 solo).  The turn entries (``3P`` to ``3P+12``) are 0
once the game is over.  :func:`decode_observation` turns a vector back into points, dice and
flags (exact while the turn total stays below the target), so bots work from observations.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dice_env import dice as D
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.game import FiveThousandState
from dice_env.fivethousand.rules import FiveThousandRules

TURN_FEATURES = ("turn_before", "roll_points", "turn_total", "dice_thrown", "face_counts",
                 "dice_left", "can_bank", "overshoot", "progress")


def observation_slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of each part of the observation vector."""
    p = int(num_players)
    sizes = [("score", p), ("entered", p), ("to_move", p), ("turn_before", 1),
             ("roll_points", 1), ("turn_total", 1), ("dice_thrown", 1), ("face_counts", 6),
             ("dice_left", 1), ("can_bank", 1), ("overshoot", 1), ("progress", 1)]
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


def observation_size(num_players: int) -> int:
    """``3 * num_players + 14``."""
    return 3 * int(num_players) + 14


def num_players_of(obs_size: int) -> int:
    """The number of players of an observation of this length."""
    p, rem = divmod(int(obs_size) - 14, 3)
    if rem or p < 1:
        raise ValueError(f"{obs_size} is not the length of a 5000 observation (3P + 14)")
    return p


@cache
def _roll_features(rules: FiveThousandRules) -> np.ndarray:
    """``(462, 13)`` the turn entries that depend on the roll alone (``roll_points``,
    ``dice_thrown``, ``face_counts``, ``dice_left`` at their places; the rest 0)."""
    t = np.zeros((R.N_MULTISETS, 13), dtype=np.float32)
    t[:, 1] = np.minimum(R.ROLL_POINTS / float(rules.target), 1.0)
    t[:, 3] = R.ROLL_SIZE / 5.0
    t[:, 4:10] = D.KEEP_COUNTS / 5.0
    t[:, 10] = R.dice_left_after(R.ROLL_SIZE, R.ROLL_SCORING_DICE) / 5.0
    t.setflags(write=False)
    return t


def encode_observation(rules: FiveThousandRules, state: FiveThousandState, seat,
                       max_turns: int | None = None) -> np.ndarray:
    """``(N, 3P + 14)`` float32 observations of ``N`` games, each from ``seat[i]``."""
    n, p = state.n, state.num_players
    seat = np.asarray(seat, dtype=np.int64)
    if seat.ndim == 0:
        seat = np.full(n, seat, dtype=np.int64)
    rows = np.arange(n)
    target = float(rules.target)
    obs = np.zeros((n, observation_size(p)), dtype=np.float32)
    order = np.add.outer(seat, np.arange(p)) % p
    rel_scores = state.scores[rows[:, None], order]
    obs[:, 0:p] = np.minimum(rel_scores / target, 1.0)
    obs[:, p:2 * p] = rel_scores > 0
    live = state.winner < 0
    b = 3 * p
    obs[rows, 2 * p + (state.current - seat) % p] = live
    roll = state.roll
    total = state.turn_total + R.ROLL_POINTS[roll]
    score_now = state.scores[rows, state.current]
    turn = obs[:, b:b + 13]
    turn[:] = _roll_features(rules)[roll]
    turn[:, 0] = np.minimum(state.turn_total / target, 1.0)
    turn[:, 2] = np.minimum(total / target, 1.0)
    turn[:, 11] = (R.ROLL_POINTS[roll] > 0) & R.bank_allowed(rules, score_now, total)
    turn[:, 12] = score_now + total > rules.target
    if not live.all():
        turn[~live] = 0.0
    if max_turns:
        obs[:, b + 13] = np.minimum(state.turns[rows, seat] / float(max_turns), 1.0)
    return obs


_ROLL_POINTS = tuple(R.ROLL_POINTS.tolist())


@cache
def _roll_feature_lists(rules: FiveThousandRules) -> tuple[list[float], ...]:
    """:func:`_roll_features` as Python lists of float32 values, one per roll."""
    return tuple(_roll_features(rules).tolist())


def encode_observation_one(rules: FiveThousandRules, scores: list[int], current: int,
                           turn_total: int, roll: int, turns: list[int], winner: int, seat: int,
                           max_turns: int | None = None) -> np.ndarray:
    """:func:`encode_observation` of one game given as Python values (the fields of
    :class:`FiveThousandState`, one game), from ``seat``: ``(3P + 14,)`` float32, equal to it
    bit for bit."""
    p = len(scores)
    target = rules.target
    rel = scores[seat:] + scores[:seat]  # turn order from the observer
    values = [s / target if s < target else 1.0 for s in rel]  # min(score / target, 1)
    values += [1.0 if s > 0 else 0.0 for s in rel]
    to_move = [0.0] * p
    if winner < 0:
        to_move[(current - seat) % p] = 1.0
        values += to_move
        f = _roll_feature_lists(rules)[roll]
        points = _ROLL_POINTS[roll]
        total = turn_total + points
        score_now = scores[current]
        values.append(turn_total / target if turn_total < target else 1.0)
        values.append(f[1])
        values.append(total / target if total < target else 1.0)
        values += f[3:11]
        values.append(1.0 if points > 0 and R.bank_allowed(rules, score_now, total) else 0.0)
        values.append(1.0 if score_now + total > target else 0.0)
    else:
        values += to_move
        values += [0.0] * 13
    values.append(min(turns[seat] / max_turns, 1.0) if max_turns else 0.0)
    return np.array(values, dtype=np.float32)


_COUNT_CODE_WEIGHTS = 6 ** np.arange(6)


def decode_observation(rules: FiveThousandRules, obs: np.ndarray) -> dict[str, np.ndarray]:
    """Invert :func:`encode_observation` (leading batch axis if ``obs`` is 2-D).

    Returns integer arrays in points and dice: ``scores`` and ``entered`` (observer first),
    ``to_move`` (relative seat, -1 once over), ``turn_before``, ``roll_points``, ``turn_total``,
    ``dice_thrown``, ``face_counts``, ``roll`` (roll index), ``dice_left``, and the bools
    ``can_bank`` and ``overshoot``.  Points are clipped at the target by the encoding.
    """
    o = np.asarray(obs, dtype=np.float64)
    p = num_players_of(o.shape[-1])
    target = rules.target
    b = 3 * p  # the turn entries, in the order of observation_slices (contiguous blocks)

    def points(x):
        return (np.rint(x * target / 50.0) * 50).astype(np.int64)

    def columns(block):  # a block's columns: arrays per row, numpy scalars for one observation
        return block.T if block.ndim <= 2 else np.moveaxis(block, -1, 0)

    turn_before, roll_points, turn_total = columns(points(o[..., b:b + 3]))
    dice = np.rint(o[..., b + 3:b + 11] * 5).astype(np.int64)       # thrown, 6 counts, left
    dice_columns = columns(dice)
    can_bank, overshoot = columns(o[..., b + 11:b + 13] > 0.5)
    counts = dice[..., 1:7]
    to_move = o[..., 2 * p:b]
    mover = np.argmax(to_move, axis=-1)
    # the one-hot's largest entry (numpy's max over a short last axis is slow)
    if to_move.ndim == 2:
        top = to_move[np.arange(to_move.shape[0]), mover]
    else:
        top = np.take_along_axis(to_move, np.expand_dims(mover, -1), axis=-1)[..., 0]
    return {
        "scores": points(o[..., :p]),
        "entered": o[..., p:2 * p] > 0.5,
        "to_move": np.where(top > 0.5, mover, -1),
        "turn_before": turn_before,
        "roll_points": roll_points,
        "turn_total": turn_total,
        "dice_thrown": dice_columns[0],
        "face_counts": counts,
        "roll": D.KEEP_INDEX_BY_COUNTS_CODE[counts @ _COUNT_CODE_WEIGHTS].astype(np.int64),
        "dice_left": dice_columns[7],
        "can_bank": can_bank,
        "overshoot": overshoot,
    }
