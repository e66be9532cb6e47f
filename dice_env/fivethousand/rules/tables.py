"""The tables of the rolls of 5000 (read-only, indexed by roll index: points, scoring dice,
set-asides, throw probabilities, the roll index of any dice array) and the functions over
dice arrays that read them (:func:`roll_index_of`, :func:`throw_faces` -- the generator call
of every throw --, :func:`throw_dice`, :func:`dice_left_after`)."""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np

from dice_env import dice as D
from dice_env.fivethousand.rules.knobs import (
    N_DICE,
    N_MULTISETS,
    N_SETASIDE_MASKS,
    SCORING_COMBINATIONS,
)


def _best_split(counts: tuple[int, ...], memo: dict) -> tuple[int, tuple[int, ...]]:
    """Best points of a multiset of dice and the face counts of the dice that score."""
    if counts in memo:
        return memo[counts]
    best = (0, (0,) * 6)
    for combo, pts in SCORING_COMBINATIONS:
        if all(c >= k for c, k in zip(counts, combo)):
            rest = tuple(c - k for c, k in zip(counts, combo))
            sub_pts, sub_used = _best_split(rest, memo)
            cand = (pts + sub_pts, tuple(a + b for a, b in zip(combo, sub_used)))
            if cand[0] > best[0] or (cand[0] == best[0] and sum(cand[1]) > sum(best[1])):
                best = cand
    memo[counts] = best
    return best


def _canonical_masks(n: int, faces: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """Sub-multiset counts -> the smallest bitmask (leftmost dice per face) selecting it."""
    out: dict[tuple[int, ...], int] = {}
    for m in range(1 << n):
        c = [0] * 6
        for i in range(n):
            if m >> i & 1:
                c[faces[i] - 1] += 1
        out.setdefault(tuple(c), m)
    return out


def _build_tables():
    memo: dict = {}
    n_ms = N_MULTISETS
    points = np.zeros(n_ms, dtype=np.int32)
    scoring = np.zeros(n_ms, dtype=np.int8)
    scoring_mask = np.zeros(n_ms, dtype=np.int8)
    setaside_points = np.full((n_ms, N_SETASIDE_MASKS), -1, dtype=np.int32)
    setaside_dice = np.zeros((n_ms, N_SETASIDE_MASKS), dtype=np.int8)
    throw_prob = np.zeros((N_DICE + 1, n_ms), dtype=np.float64)
    for k in range(n_ms):
        counts = tuple(int(c) for c in D.KEEP_COUNTS[k])
        faces = D.keep_dice(k)
        n = len(faces)
        pts, used = _best_split(counts, memo)
        points[k] = pts
        scoring[k] = sum(used)
        masks = _canonical_masks(n, faces)
        scoring_mask[k] = masks[used]
        for sub, m in masks.items():
            sub_pts, sub_used = _best_split(sub, memo)
            if sum(sub) > 0 and sub_used == sub:  # every die of the subset scores in it
                setaside_points[k, m] = sub_pts
                setaside_dice[k, m] = sum(sub)
        ways = factorial(n)
        for c in counts:
            ways //= factorial(c)
        throw_prob[n, k] = ways / 6**n
    return points, scoring, scoring_mask, setaside_points, setaside_dice, throw_prob


(ROLL_POINTS, ROLL_SCORING_DICE, ROLL_SCORING_MASK, SETASIDE_POINTS, SETASIDE_DICE,
 THROW_PROB) = _build_tables()
#: number of dice of each multiset (roll index), ``(462,)``
ROLL_SIZE = D.KEEP_SIZES
#: the dice of each roll index, ``(462, 5)`` int8: sorted, 0-padded
ROLL_DICE = np.array([D.keep_dice(k) + (0,) * (N_DICE - len(D.keep_dice(k)))
                      for k in range(N_MULTISETS)], dtype=np.int8)
for _t in (ROLL_POINTS, ROLL_SCORING_DICE, ROLL_SCORING_MASK, SETASIDE_POINTS, SETASIDE_DICE,
           THROW_PROB, ROLL_DICE):
    _t.setflags(write=False)

def _build_padded_index() -> np.ndarray:
    """Roll index of every 5-slot dice array (faces 0..6, 0 = no die) by its base-7 code."""
    slots = np.array(list(itertools.product(range(7), repeat=N_DICE)), dtype=np.int64)
    codes = slots @ _SLOT_WEIGHTS
    counts = (slots[:, :, None] == np.arange(1, 7)).sum(axis=1)
    table = np.empty(7**N_DICE, dtype=np.int16)
    table[codes] = D.KEEP_INDEX_BY_COUNTS_CODE[counts @ (6 ** np.arange(6))]
    table.setflags(write=False)
    return table


_SLOT_WEIGHTS = 7 ** np.arange(N_DICE, dtype=np.int64)
#: roll index of any 5-slot dice array, by ``dice @ 7**arange(5)`` (0 = no die, any order)
ROLL_INDEX_BY_SLOT_CODE = _build_padded_index()


def roll_index_of(dice) -> np.ndarray:
    """Roll index of dice arrays (last axis 5, 0 = no die; any order) -> ints (batch shape)."""
    d = np.asarray(dice, dtype=np.int64)
    if d.shape[-1] != N_DICE:
        raise ValueError(f"expected a last axis of {N_DICE} dice slots, got shape {d.shape}")
    return ROLL_INDEX_BY_SLOT_CODE[d @ _SLOT_WEIGHTS].astype(np.int64)


def pad_dice(faces) -> np.ndarray:
    """A list of 0..5 faces as a sorted, 0-padded ``(5,)`` int8 dice array."""
    f = sorted(int(x) for x in faces)
    if len(f) > N_DICE or any(not 1 <= x <= 6 for x in f):
        raise ValueError(f"a roll is 0 to {N_DICE} faces from 1 to 6, got {list(faces)}")
    return np.array(f + [0] * (N_DICE - len(f)), dtype=np.int8)


def roll_score(dice) -> tuple[np.ndarray, np.ndarray]:
    """``(points, scoring dice)`` of dice arrays (last axis 5, 0 = no die)."""
    idx = roll_index_of(dice)
    return ROLL_POINTS[idx], ROLL_SCORING_DICE[idx]


def throw_faces(rng: np.random.Generator, n_games: int) -> np.ndarray:
    """The generator call of every throw of 5000: ``(n_games, 5)`` int8 faces 1..6, five per
    game whatever the dice thrown (a game throwing ``n`` dice uses the first ``n``: the
    convention of :func:`dice_env.dice.reroll`, so that one game and a batch see the same
    dice)."""
    return rng.integers(1, D.N_FACES + 1, size=(n_games, N_DICE), dtype=np.int8)


def throw_dice(rng: np.random.Generator, n_dice) -> tuple[np.ndarray, np.ndarray]:
    """Throw ``n_dice[i]`` dice for every game ``i`` (one :func:`throw_faces` call).

    Returns ``(dice, roll)``: ``(N, 5)`` int8 sorted ascending with 0 padding at the end, and
    the ``(N,)`` roll indices.
    """
    n_dice = np.atleast_1d(np.asarray(n_dice, dtype=np.int64))
    faces = throw_faces(rng, len(n_dice))
    thrown = np.arange(N_DICE)[None, :] < n_dice[:, None]
    roll = ROLL_INDEX_BY_SLOT_CODE[np.where(thrown, faces, 0) @ _SLOT_WEIGHTS].astype(np.int64)
    return ROLL_DICE[roll], roll


def dice_left_after(n_thrown, n_set_aside) -> np.ndarray:
    """Dice a roll-on throws after setting ``n_set_aside`` of ``n_thrown`` dice aside.

    All five again when every die has scored (hot dice).
    """
    left = np.asarray(n_thrown) - np.asarray(n_set_aside)
    return np.where(left == 0, N_DICE, left)
