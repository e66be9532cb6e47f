"""Five-dice combinatorics shared by every game, solver, bot and environment.

Everything here is a precomputed numpy table, built once at import time:

* ``ROLLS`` -- the 252 sorted rolls of five six-sided dice, ``(252, 5)`` int8, faces 1..6,
  ascending within a roll and in lexicographic order across rolls.  A roll is named by its
  row number, the *roll index*.
* ``ROLL_COUNTS`` -- ``(252, 6)`` how many dice of each face a roll shows.
* ``ROLL_INDEX_BY_CODE`` -- maps any *ordered* five-dice tuple, encoded base 6 by
  :func:`dice_code`, to the index of its sorted roll (so unsorted dice look up in one step).
* ``KEEPS`` -- the 462 multisets of 0..5 dice (what a player can keep between rolls);
  ``KEEP_COUNTS`` ``(462, 6)`` and ``KEEP_SIZES`` ``(462,)``; keep 0 is the empty keep.
* ``KEEP_TO_ROLL_PROB`` -- ``(462, 252)``: the probability that rerolling the dice not in a keep
  gives each sorted roll (a keep of five dice stays itself with probability 1).
* ``FRESH_ROLL_PROB`` -- ``(252,)`` the probability of each roll when all five dice are thrown.
* ``HOLD_KEEP`` -- ``(252, 32)``: the keep obtained by holding the dice at the positions whose
  bits are set in a hold bitmask (bit ``i`` = die ``i`` of the sorted roll).
* ``CANONICAL_HOLD`` -- ``(252, 32)`` bool: the smallest bitmask among those holding the same
  multiset (for sorted dice, the leftmost dice of each face); one legal hold per distinct keep.
* ``KEEP_CHILDREN`` -- ``(462, 6)``: the keep with one more die of each face (-1 if the keep
  already has five dice), the step that builds keep values one die at a time in the solver.

The rolling process itself (:func:`reroll`) is defined once here too: five uniform faces are
drawn for every game, held positions keep their old value, and the dice are sorted.  The
scalar environments and the batched ones consume the generator identically, so a batch of one
reproduces the scalar game die for die.
"""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np

N_DICE = 5
N_FACES = 6
N_ROLLS = 252
N_KEEPS = 462
N_HOLDS = 32  # 2**N_DICE hold bitmasks
ALL_HELD = N_HOLDS - 1


_CODE_OFFSET = sum(6**i for i in range(5))  # the code of faces 1..6 read as digits 0..5


def dice_code(dice: np.ndarray) -> np.ndarray:
    """Base-6 code of ordered dice (last axis of length 5, faces 1..6) in ``[0, 7776)``."""
    d = np.asarray(dice, dtype=np.int16)  # 6**5 fits in int16
    code = d[..., 0] * 6 + d[..., 1]
    for i in range(2, N_DICE):
        code = code * 6 + d[..., i]
    return code - _CODE_OFFSET


def _counts_code(counts: np.ndarray) -> np.ndarray:
    """Base-6 code of face counts (last axis 6, each count 0..5)."""
    c = np.asarray(counts, dtype=np.int64)
    return c @ (6 ** np.arange(N_FACES, dtype=np.int64))


def _multinomial_prob(counts: tuple[int, ...]) -> float:
    n = sum(counts)
    ways = factorial(n)
    for c in counts:
        ways //= factorial(c)
    return ways / N_FACES**n


def _build_tables():
    rolls = np.array(
        list(itertools.combinations_with_replacement(range(1, 7), N_DICE)), dtype=np.int8
    )
    roll_counts = np.zeros((len(rolls), N_FACES), dtype=np.int8)
    for i, r in enumerate(rolls):
        for f in r:
            roll_counts[i, f - 1] += 1

    index_by_code = np.full(N_FACES**N_DICE, -1, dtype=np.int16)
    all_ordered = np.array(list(itertools.product(range(1, 7), repeat=N_DICE)), dtype=np.int8)
    sorted_ordered = np.sort(all_ordered, axis=1)
    roll_lookup = {tuple(r): i for i, r in enumerate(rolls.tolist())}
    index_by_code[dice_code(all_ordered)] = [roll_lookup[tuple(r)] for r in sorted_ordered.tolist()]

    keeps = [()]
    for n in range(1, N_DICE + 1):
        keeps.extend(itertools.combinations_with_replacement(range(1, 7), n))
    keep_counts = np.zeros((len(keeps), N_FACES), dtype=np.int8)
    for i, k in enumerate(keeps):
        for f in k:
            keep_counts[i, f - 1] += 1
    keep_sizes = keep_counts.sum(axis=1).astype(np.int8)
    keep_by_counts_code = np.full(N_FACES**N_FACES, -1, dtype=np.int16)
    keep_by_counts_code[_counts_code(keep_counts)] = np.arange(len(keeps))

    # Probability of each final roll from each keep: the rerolled dice form a multiset whose
    # probability is multinomial; add it to the keep.
    keep_to_roll = np.zeros((len(keeps), len(rolls)), dtype=np.float64)
    roll_by_counts = {tuple(c): i for i, c in enumerate(roll_counts.tolist())}
    for ki, kc in enumerate(keep_counts.tolist()):
        n_free = N_DICE - sum(kc)
        for extra in itertools.combinations_with_replacement(range(N_FACES), n_free):
            ec = [0] * N_FACES
            for f in extra:
                ec[f] += 1
            final = tuple(a + b for a, b in zip(kc, ec, strict=True))
            keep_to_roll[ki, roll_by_counts[final]] += _multinomial_prob(tuple(ec))

    hold_keep = np.zeros((len(rolls), N_HOLDS), dtype=np.int16)
    canonical = np.zeros((len(rolls), N_HOLDS), dtype=bool)
    for ri, r in enumerate(rolls.tolist()):
        seen = set()
        for b in range(N_HOLDS):
            c = [0] * N_FACES
            for i in range(N_DICE):
                if b >> i & 1:
                    c[r[i] - 1] += 1
            k = int(keep_by_counts_code[_counts_code(np.array(c))])
            hold_keep[ri, b] = k
            if k not in seen:  # bitmasks are visited in increasing order: first is smallest
                seen.add(k)
                canonical[ri, b] = True

    children = np.full((len(keeps), N_FACES), -1, dtype=np.int16)
    for ki, kc in enumerate(keep_counts.tolist()):
        if sum(kc) < N_DICE:
            for f in range(N_FACES):
                c = list(kc)
                c[f] += 1
                children[ki, f] = keep_by_counts_code[_counts_code(np.array(c))]
    return (rolls, roll_counts, index_by_code, keeps, keep_counts, keep_sizes,
            keep_by_counts_code, keep_to_roll, hold_keep, canonical, children)


(
    ROLLS,
    ROLL_COUNTS,
    ROLL_INDEX_BY_CODE,
    _KEEP_TUPLES,
    KEEP_COUNTS,
    KEEP_SIZES,
    KEEP_INDEX_BY_COUNTS_CODE,
    KEEP_TO_ROLL_PROB,
    HOLD_KEEP,
    CANONICAL_HOLD,
    KEEP_CHILDREN,
) = _build_tables()

for _table in (ROLLS, ROLL_COUNTS, ROLL_INDEX_BY_CODE, KEEP_COUNTS, KEEP_SIZES,
               KEEP_INDEX_BY_COUNTS_CODE, KEEP_TO_ROLL_PROB, HOLD_KEEP, CANONICAL_HOLD,
               KEEP_CHILDREN):
    _table.setflags(write=False)

EMPTY_KEEP = 0
FRESH_ROLL_PROB = KEEP_TO_ROLL_PROB[EMPTY_KEEP]
#: keep index of each full roll (a keep of all five dice), ``(252,)``
ROLL_AS_KEEP = KEEP_INDEX_BY_COUNTS_CODE[_counts_code(ROLL_COUNTS)]
ROLL_AS_KEEP.setflags(write=False)


def roll_index(dice) -> int | np.ndarray:
    """Index of the sorted roll showing these dice (any order; last axis of length 5)."""
    d = np.asarray(dice)
    if d.shape[-1] != N_DICE:
        raise ValueError(f"expected {N_DICE} dice, got shape {d.shape}")
    if d.size and (d.min() < 1 or d.max() > N_FACES):
        raise ValueError(f"dice must show faces 1..6, got {d.tolist()}")
    idx = ROLL_INDEX_BY_CODE[dice_code(d)]
    return int(idx) if idx.ndim == 0 else idx


def keep_index(kept_dice) -> int:
    """Index of the keep holding exactly these dice (0 to 5 faces, any order)."""
    c = np.zeros(N_FACES, dtype=np.int64)
    for f in kept_dice:
        if not 1 <= int(f) <= N_FACES:
            raise ValueError(f"dice must show faces 1..6, got {list(kept_dice)}")
        c[int(f) - 1] += 1
    if c.sum() > N_DICE:
        raise ValueError(f"a keep holds at most {N_DICE} dice, got {list(kept_dice)}")
    return int(KEEP_INDEX_BY_COUNTS_CODE[_counts_code(c)])


def keep_dice(keep: int) -> tuple[int, ...]:
    """The sorted faces of a keep index."""
    return _KEEP_TUPLES[keep]


def hold_bits(held_positions) -> int:
    """Hold bitmask from an iterable of die positions (0..4)."""
    bits = 0
    for i in held_positions:
        bits |= 1 << int(i)
    return bits


def canonical_hold(roll: int, hold: int) -> int:
    """The canonical bitmask holding the same multiset as ``hold`` on sorted roll ``roll``."""
    keep = HOLD_KEEP[roll, hold]
    return int(np.flatnonzero(CANONICAL_HOLD[roll] & (HOLD_KEEP[roll] == keep))[0])


#: ``(32, 5)`` bool: which positions a hold bitmask holds.
HOLD_POSITIONS = ((np.arange(N_HOLDS)[:, None] >> np.arange(N_DICE)) & 1).astype(bool)
HOLD_POSITIONS.setflags(write=False)
#: ``(252, 32)`` bool: the canonical holds that are legal rerolls (not holding all five).
CANONICAL_REROLL = CANONICAL_HOLD.copy()
CANONICAL_REROLL[:, ALL_HELD] = False
CANONICAL_REROLL.setflags(write=False)


class DiceStream:
    """Common random numbers: every game draws its dice from a stream of its own.

    Game ``g`` draws from ``numpy.random.default_rng([seed, g])``, five faces per throw, so two
    players who make the same decisions in game ``g`` see the same dice, and players who differ
    still share the underlying draws (paired comparisons with small variance).  Pass it where a
    generator is expected by the batched game cores, with the game ids of the batch rows.

    Args:
        seed: the evaluation seed, or one seed per row (games of different evaluations side
            by side: row ``i`` then draws from ``default_rng([seed[i], game_ids[i]])``).
        game_ids: the global game number of each row of the batch.
        block: throws pre-drawn per game at a time.
    """

    def __init__(self, seed, game_ids, block: int = 48) -> None:
        self.game_ids = np.asarray(game_ids, dtype=np.int64)
        if np.ndim(seed) == 0:
            self.seed = int(seed)
            seeds = [self.seed] * len(self.game_ids)
        else:
            self.seed = seeds = [int(s) for s in seed]
        self.block = int(block)
        self._rngs = [np.random.default_rng([s, int(g)])
                      for s, g in zip(seeds, self.game_ids, strict=True)]
        self._faces = np.stack([r.integers(1, N_FACES + 1, size=(self.block, N_DICE),
                                           dtype=np.int8) for r in self._rngs])
        self._used = np.zeros(len(self.game_ids), dtype=np.int64)

    def draw(self, rows: np.ndarray) -> np.ndarray:
        """The next five faces of each game in ``rows`` (indices into the batch)."""
        rows = np.asarray(rows, dtype=np.int64)
        for r in rows[self._used[rows] >= self.block]:  # refill the exhausted games
            self._faces[r] = self._rngs[r].integers(1, N_FACES + 1, size=(self.block, N_DICE),
                                                    dtype=np.int8)
            self._used[r] = 0
        faces = self._faces[rows, self._used[rows]]
        self._used[rows] += 1
        return faces


def draw_faces(source, rows: np.ndarray) -> np.ndarray:
    """``(len(rows), 5)`` fresh faces from a generator or a :class:`DiceStream`."""
    if isinstance(source, DiceStream):
        return source.draw(rows)
    return source.integers(1, N_FACES + 1, size=(len(rows), N_DICE), dtype=np.int8)


def reroll(rng, dice: np.ndarray, holds, rows: np.ndarray | None = None):
    """Reroll the dice not held; return the new sorted dice and their roll indices.

    ``dice`` is ``(N, 5)``, ``holds`` the hold bitmasks ``(N,)``; pass ``holds = 0`` for a
    fresh throw.  Exactly 5 faces are drawn per game, whatever is held, from ``rng`` (a
    ``numpy.random.Generator``, or a :class:`DiceStream` -- then ``rows`` names the games),
    so scalar and batched games with the same generator see the same dice.
    """
    dice = np.asarray(dice)
    if dice.ndim == 1:
        new, roll = reroll(rng, dice[None], np.atleast_1d(holds), rows)
        return new[0], roll[0]
    if rows is None:
        rows = np.arange(len(dice))
    fresh = draw_faces(rng, rows)
    mixed = np.where(HOLD_POSITIONS[holds], dice, fresh)
    roll = ROLL_INDEX_BY_CODE[dice_code(mixed)].astype(np.int64)
    return ROLLS[roll], roll


# One game at a time: the tables above as Python tuples, for the single envs' scalar paths.
#: the sorted dice of each roll index, as tuples of ints
ROLL_TUPLES: tuple[tuple[int, ...], ...] = tuple(tuple(r) for r in ROLLS.tolist())
_INDEX_BY_CODE_LIST: list[int] = ROLL_INDEX_BY_CODE.tolist()
_ROW_ZERO = np.zeros(1, dtype=np.int64)


def draw_five(source, row: int = 0) -> list[int]:
    """Five fresh faces for one game, as a list of ints: the draw :func:`draw_faces` makes
    for that game alone (the same generator call; for a :class:`DiceStream`, ``row`` names
    the game)."""
    return draw_faces(source, _ROW_ZERO if row == 0 else np.array([row]))[0].tolist()


def reroll_one(rng, dice, hold: int, row: int = 0) -> tuple[tuple[int, ...], int]:
    """:func:`reroll` for one game: ``dice`` the five sorted faces, ``hold`` a bitmask,
    ``row`` the game's row for a :class:`DiceStream`.

    Returns ``(sorted dice, roll index)`` as Python ints; draws exactly what ``reroll`` draws
    for that game, so both see the same dice from the same generator.
    """
    fresh = draw_five(rng, row)
    code = 0
    for i in range(N_DICE):
        code = code * N_FACES + (dice[i] if hold >> i & 1 else fresh[i])
    roll = _INDEX_BY_CODE_LIST[code - _CODE_OFFSET]
    return ROLL_TUPLES[roll], roll
