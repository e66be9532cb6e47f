"""Rules of 5000 (docs/rules.md, section 2) as tables and pure functions; no Gymnasium here.

**Rolls as multisets.**  A throw of ``n`` dice (1 to 5) is named by the index of its multiset
in :data:`dice_env.dice.KEEPS` (the 462 multisets of 0..5 dice; index 0 is the empty set), the
*roll index*.  Dice arrays have a last axis of 5 slots, sorted ascending, with ``0`` padding the
slots of dice not thrown (``[1, 5, 6, 0, 0]`` is a throw of three dice).

**Tables** (read-only numpy arrays, indexed by roll index):

* :data:`ROLL_POINTS` ``(462,)`` -- the roll's score: the best split of its dice into singles
  (1 = 100, 5 = 50), three / four / five of a kind (100 x face, three 1s = 1100; x2; x4) and
  straights (1500).  0 is a bust.
* :data:`ROLL_SCORING_DICE` ``(462,)`` -- how many dice score in that best split (the dice the
  literal rules set aside); :data:`ROLL_SCORING_MASK` ``(462,)`` -- the same dice as a bitmask
  over the sorted dice positions.
* :data:`SETASIDE_POINTS` / :data:`SETASIDE_DICE` ``(462, 32)`` -- for the knob
  ``choose_scoring_dice``: for each bitmask ``m`` over the sorted dice positions, the points of
  setting aside exactly those dice, or ``-1`` when that is not a legal set-aside (empty, a die
  that does not score within the subset, a position past the dice thrown, or not the
  *canonical* mask of its multiset -- the leftmost dice of each face -- so that each distinct
  set-aside has exactly one action).
* :data:`THROW_PROB` ``(6, 462)`` -- the probability of each multiset when ``n`` dice are
  thrown (row ``n``; row 0 is the empty throw).
* :data:`ROLL_INDEX_BY_SLOT_CODE` ``(7**5,)`` -- the roll index of any 5-slot dice array
  (faces 0..6, any order) by its base-7 code (what :func:`roll_index_of` looks up).

**Functions** (leading batch axis everywhere): :func:`roll_index_of`, :func:`throw_dice`,
:func:`dice_left_after`, :func:`bank_allowed`, :func:`resolve_bank`, :func:`gift_receiver`,
:func:`legal_action_mask`, :func:`decode_actions`; for solvers :func:`outcome_distribution`
(the exact distribution of ``(points, scoring dice)`` for ``n`` dice thrown, bust included) and
:func:`throw_distribution` (per multiset, for ``choose_scoring_dice``).  One game at a time
(the single envs' fast path): :func:`bank_allowed` on two ints, :func:`resolve_bank_one`.  The
bank rule itself is written once, for one game, in :func:`bank_one` and
:func:`gift_receiver_one`: plain Python for one game, compiled by numba for the batched
:func:`resolve_bank` and :func:`gift_receiver`.

**Actions.**  Literal rules (``choose_scoring_dice=False``): ``Discrete(2)``, :data:`ROLL` (0)
rolls the non-scoring dice on (all five after hot dice), :data:`BANK` (1) banks.  With
``choose_scoring_dice=True``: ``Discrete(64)``, action ``2 * m + b`` sets aside the dice of
bitmask ``m`` (bit ``i`` = die ``i`` of the sorted roll) and then rolls on (``b = 0``) or
banks (``b = 1``).  In both encodings ``action & 1`` is "bank".
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from functools import cache
from math import factorial

import numba
import numpy as np
from numba.extending import register_jitable

from dice_env import dice as D

N_DICE = D.N_DICE
N_MULTISETS = D.N_KEEPS
N_SETASIDE_MASKS = 32

ROLL, BANK = 0, 1
N_ACTIONS_LITERAL = 2
N_ACTIONS_CHOOSE = 2 * N_SETASIDE_MASKS

#: ``resolve_bank`` outcome codes.
NO_BANK, BANKED, GIFTED, GIFT_LOST_NO_RECEIVER, GIFT_LOST_OVERSHOOT = 0, 1, 2, 3, 4
BANK_OUTCOME_NAMES = ("none", "banked", "gifted", "gift_lost_no_receiver",
                      "gift_lost_overshoot")

SINGLE_POINTS = {1: 100, 5: 50}
STRAIGHT_POINTS = 1500
STRAIGHTS = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))


def three_of_a_kind_points(face: int) -> int:
    """Three of a kind of ``face``: 100 x face, three 1s = 1100."""
    return 1100 if face == 1 else 100 * face


#: Every scoring combination of docs/rules.md as ``(face counts, points)``.
SCORING_COMBINATIONS: tuple[tuple[tuple[int, ...], int], ...] = tuple(
    [(tuple(int(f == face) for f in range(1, 7)), pts) for face, pts in SINGLE_POINTS.items()]
    + [(tuple(k * int(f == face) for f in range(1, 7)), mult * three_of_a_kind_points(face))
       for face in range(1, 7) for k, mult in ((3, 1), (4, 2), (5, 4))]
    + [(tuple(int(f in s) for f in range(1, 7)), STRAIGHT_POINTS) for s in STRAIGHTS]
)


@dataclass(frozen=True)
class FiveThousandRules:
    """The knobs of 5000 (docs/rules.md, sections 2 and 3.2).

    Attributes:
        target: the exact score that wins (5000).  A positive multiple of 100.
        entry: the points a player with no score must bank in one turn to enter (500).
            A multiple of 100 between 0 and ``target``.  Once entered, any bank of at least
            100 is allowed (a turn total ending in 50 never is).
        choose_scoring_dice: ``False`` (literal rules): every scoring die of a roll is set
            aside.  ``True``: the player sets aside any non-empty subset of the scoring dice
            that scores by itself (Farkle style); the action space grows to 64 actions.
    """

    target: int = 5000
    entry: int = 500
    choose_scoring_dice: bool = False

    def __post_init__(self) -> None:
        for name in ("target", "entry"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{name} must be an integer, got {v!r}")
        if self.target < 100 or self.target % 100 or self.target > 1_000_000:
            raise ValueError(f"target must be a multiple of 100 from 100 to 1,000,000, "
                             f"got {self.target}")
        if self.entry < 0 or self.entry % 100 or self.entry > self.target:
            raise ValueError(f"entry must be a multiple of 100 from 0 to target "
                             f"({self.target}), got {self.entry}")
        if not isinstance(self.choose_scoring_dice, (bool, np.bool_)):
            raise ValueError(f"choose_scoring_dice must be a bool, got "
                             f"{self.choose_scoring_dice!r}")
        object.__setattr__(self, "target", int(self.target))
        object.__setattr__(self, "entry", int(self.entry))
        object.__setattr__(self, "choose_scoring_dice", bool(self.choose_scoring_dice))

    @property
    def n_actions(self) -> int:
        """Size of the action space: 2, or 64 with ``choose_scoring_dice``."""
        return N_ACTIONS_CHOOSE if self.choose_scoring_dice else N_ACTIONS_LITERAL

    @property
    def min_entered_score(self) -> int:
        """The lowest score an entered player can hold (``max(entry, 100)``)."""
        return max(self.entry, 100)

    def knobs(self) -> dict:
        """The rules as a plain JSON-serialisable dict."""
        return asdict(self)

    @classmethod
    def from_knobs(cls, knobs: dict | None = None, **overrides) -> FiveThousandRules:
        """Rules from a dict of knobs and/or keywords; unknown knobs raise ``ValueError``."""
        if knobs is not None and not isinstance(knobs, dict):
            raise ValueError(f"5000 rules must be a dict of knobs such as {asdict(cls())}, got "
                             f"{knobs!r}")
        data = dict(knobs or {})
        data.update(overrides)
        known = set(cls.__dataclass_fields__)
        bad = sorted(set(data) - known)
        if bad:
            raise ValueError(f"unknown 5000 rule knobs {bad}; known knobs: {sorted(known)}")
        return cls(**data)


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------
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
for _t in (ROLL_POINTS, ROLL_SCORING_DICE, ROLL_SCORING_MASK, SETASIDE_POINTS, SETASIDE_DICE,
           THROW_PROB):
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


def throw_dice(rng: np.random.Generator, n_dice) -> tuple[np.ndarray, np.ndarray]:
    """Throw ``n_dice[i]`` dice for every game ``i``.

    Draws exactly ``5 * N`` faces from ``rng`` whatever the counts (the convention of
    :func:`dice_env.dice.reroll`), so a batch of one reproduces the scalar game die for die.
    Returns ``(dice, roll)``: ``(N, 5)`` int8 sorted ascending with 0 padding at the end, and
    the ``(N,)`` roll indices.
    """
    n_dice = np.atleast_1d(np.asarray(n_dice, dtype=np.int64))
    faces = rng.integers(1, D.N_FACES + 1, size=(len(n_dice), N_DICE), dtype=np.int8)
    thrown = np.arange(N_DICE)[None, :] < n_dice[:, None]
    dice = np.sort(np.where(thrown, faces, 7), axis=1)  # 7 sorts the padding last
    dice = np.where(dice == 7, 0, dice).astype(np.int8)
    return dice, roll_index_of(dice)


def dice_left_after(n_thrown, n_set_aside) -> np.ndarray:
    """Dice a roll-on throws after setting ``n_set_aside`` of ``n_thrown`` dice aside.

    All five again when every die has scored (hot dice).
    """
    left = np.asarray(n_thrown) - np.asarray(n_set_aside)
    return np.where(left == 0, N_DICE, left)


# --------------------------------------------------------------------------------------------
# Banking
# --------------------------------------------------------------------------------------------
def bank_allowed(rules: FiveThousandRules, score, turn_total) -> np.ndarray:
    """Whether a player holding ``score`` may bank ``turn_total`` (broadcasting arrays).

    Something to bank, no total ending in 50, at least ``entry`` to enter and at least 100
    once entered.  A bank that would overshoot the target is allowed (it gifts, see
    :func:`resolve_bank`).  Two Python ints (one game) give a ``bool``.
    """
    if not (isinstance(score, int) and isinstance(turn_total, int)):
        score, turn_total = np.asarray(score), np.asarray(turn_total)
    entry = max(rules.entry, 100)
    need = entry - (score > 0) * (entry - 100)  # 100 once entered
    return (turn_total >= need) & (turn_total % 100 == 0)


def bank_refusal(rules: FiveThousandRules, score: int, turn_total: int) -> str | None:
    """Why a bank of ``turn_total`` is not allowed (``None`` if it is), in words."""
    score, tt = int(score), int(turn_total)
    if tt <= 0:
        return "there is nothing to bank"
    if tt % 100:
        return f"a turn total of {tt} ends in 50; roll on to round it up"
    if score == 0 and tt < rules.entry:
        return f"entering needs {rules.entry} in one turn (turn total {tt})"
    if tt < 100:
        return "a bank needs at least 100"
    return None


@register_jitable
def gift_receiver_one(scores, banker: int) -> int:
    """:func:`gift_receiver` of one game: ``scores`` a sequence of ints (or a numpy row).

    Plain Python; numba compiles the same function for the batched :func:`gift_receiver`.
    """
    p = len(scores)
    best = -1
    for k in range(1, p):  # turn order after the banker: the first lowest one keeps the gift
        q = (banker + k) % p
        if scores[q] > 0 and (best < 0 or scores[q] < scores[best]):
            best = q
    return best


@numba.njit(cache=True, nogil=True)
def _gift_receiver_rows(scores, banker, out):  # pragma: no cover (compiled)
    for i in range(scores.shape[0]):
        out[i] = gift_receiver_one(scores[i], banker[i])


def gift_receiver(rules: FiveThousandRules, scores, banker) -> np.ndarray:
    """Who receives an overshooting bank's points: ``(N,)`` seats, ``-1`` if nobody.

    The *other* player with the lowest score among the entered ones (score > 0, so at least
    ``entry``); ties go to the first such player after the banker in turn order.
    """
    scores = np.ascontiguousarray(np.atleast_2d(np.asarray(scores, dtype=np.int64)))
    banker = np.ascontiguousarray(np.broadcast_to(np.asarray(banker, dtype=np.int64),
                                                  (len(scores),)))
    out = np.empty(len(scores), dtype=np.int64)
    _gift_receiver_rows(scores, banker, out)
    return out


@dataclass
class BankOutcome:
    """What a bank did, per game (arrays over the batch).

    Attributes:
        scores: ``(N, P)`` the scores after the bank.
        outcome: ``(N,)`` :data:`BANKED`, :data:`GIFTED`, :data:`GIFT_LOST_NO_RECEIVER` or
            :data:`GIFT_LOST_OVERSHOOT` (:data:`NO_BANK` for rows that did not bank).
        receiver: ``(N,)`` the seat that received (or would have received) an overshoot gift,
            ``-1`` if none.
        bumped: ``(N, P)`` bool, the players whose score was knocked back to 0.
        bumped_from: ``(N, P)`` the scores those players lost (0 elsewhere).
        winner: ``(N,)`` the seat that reached the target exactly, ``-1`` if none.
    """

    scores: np.ndarray
    outcome: np.ndarray
    receiver: np.ndarray
    bumped: np.ndarray
    bumped_from: np.ndarray
    winner: np.ndarray


@register_jitable
def bank_one(target: int, scores, banker: int, points: int, new_scores, bumped):
    """The bank of ``points`` by ``banker`` in one game: the rule of :func:`resolve_bank`.

    ``scores`` is read; ``new_scores`` (the scores after the bank) and ``bumped`` (bools) are
    written, one entry per seat.  Returns ``(outcome, receiver, winner)`` as in
    :class:`BankOutcome`.  Plain Python over sequences (the single envs' fast path,
    :func:`resolve_bank_one`); numba compiles the same function for the batched
    :func:`resolve_bank`, so the rule is written once.
    """
    p = len(scores)
    for q in range(p):
        new_scores[q] = scores[q]
        bumped[q] = False
    own = scores[banker] + points
    if own <= target:  # the banker takes it; every other player on that score is bumped
        new_scores[banker] = own
        for q in range(p):
            if q != banker and scores[q] == own:
                new_scores[q] = 0
                bumped[q] = True
        return BANKED, -1, banker if own == target else -1
    receiver = gift_receiver_one(scores, banker)  # an overshoot: a gift, which bumps nobody
    if receiver < 0:
        return GIFT_LOST_NO_RECEIVER, -1, -1
    gift = scores[receiver] + points
    if gift > target:
        return GIFT_LOST_OVERSHOOT, receiver, -1
    new_scores[receiver] = gift
    return GIFTED, receiver, receiver if gift == target else -1


def resolve_bank_one(rules: FiveThousandRules, scores: list[int], banker: int,
                     points: int) -> tuple[list[int], int, int, list[bool], int]:
    """:func:`resolve_bank` of one game in Python values: ``(scores after, outcome, receiver,
    bumped, winner)`` (see :class:`BankOutcome`); ``scores`` is not changed."""
    new_scores = list(scores)
    bumped = [False] * len(scores)
    outcome, receiver, winner = bank_one(rules.target, scores, banker, points, new_scores,
                                         bumped)
    return new_scores, outcome, receiver, bumped, winner


@numba.njit(cache=True, nogil=True)
def _resolve_rows(target, scores, banker, points, banking, new_scores, outcome, receiver,
                  bumped, winner):  # pragma: no cover (compiled)
    for i in range(scores.shape[0]):
        if banking[i]:
            outcome[i], receiver[i], winner[i] = bank_one(target, scores[i], banker[i],
                                                          points[i], new_scores[i], bumped[i])
        else:
            new_scores[i, :] = scores[i, :]


def resolve_bank(rules: FiveThousandRules, scores, banker, points, banking=None) -> BankOutcome:
    """Apply banks of ``points`` by ``banker`` to ``scores`` (pure: returns new arrays).

    * The new score ``s + points`` at most ``target``: the banker takes it; every other player
      whose score equals it is *bumped* to 0; exactly ``target`` wins.
    * Above ``target`` (overshoot): the banker's score does not change; the points go to
      :func:`gift_receiver`; the gift is lost if nobody qualifies or if it would take its
      receiver above ``target``; a gift reaching ``target`` exactly wins for the receiver; a
      gift bumps nobody.

    Legality (:func:`bank_allowed`) is the caller's job.  ``banking`` (``(N,)`` bool) selects
    the rows that bank; other rows are returned unchanged.  Each row is :func:`bank_one`.
    """
    scores = np.ascontiguousarray(np.atleast_2d(np.asarray(scores, dtype=np.int64)))
    n, p = scores.shape

    def rows(values, dtype):
        return np.ascontiguousarray(np.broadcast_to(np.asarray(values, dtype=dtype), (n,)))

    banker, points = rows(banker, np.int64), rows(points, np.int64)
    banking = np.ones(n, dtype=bool) if banking is None else rows(banking, bool)
    new = np.empty_like(scores)
    outcome = np.full(n, NO_BANK, dtype=np.int64)
    receiver = np.full(n, -1, dtype=np.int64)
    bumped = np.zeros((n, p), dtype=bool)
    winner = np.full(n, -1, dtype=np.int64)
    _resolve_rows(rules.target, scores, banker, points, banking, new, outcome, receiver, bumped,
                  winner)
    return BankOutcome(new, outcome, receiver, bumped, np.where(bumped, scores, 0), winner)


# --------------------------------------------------------------------------------------------
# Actions
# --------------------------------------------------------------------------------------------
def legal_action_mask(rules: FiveThousandRules, score, turn_total, roll) -> np.ndarray:
    """``(N, n_actions)`` bool: the legal actions after a (non-bust) roll.

    Args:
        score: ``(N,)`` the deciding player's score.
        turn_total: ``(N,)`` points set aside this turn *before* the current roll.
        roll: ``(N,)`` roll index of the current roll.
    """
    score = np.atleast_1d(np.asarray(score, dtype=np.int64))
    tt = np.atleast_1d(np.asarray(turn_total, dtype=np.int64))
    roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
    scores_now = ROLL_POINTS[roll] > 0
    if not rules.choose_scoring_dice:
        mask = np.zeros((len(roll), N_ACTIONS_LITERAL), dtype=bool)
        mask[:, ROLL] = scores_now
        mask[:, BANK] = scores_now & bank_allowed(rules, score, tt + ROLL_POINTS[roll])
        return mask
    pts = SETASIDE_POINTS[roll].astype(np.int64)  # (N, 32)
    legal = pts >= 0
    mask = np.zeros((len(roll), N_ACTIONS_CHOOSE), dtype=bool)
    mask[:, ROLL::2] = legal
    mask[:, BANK::2] = legal & bank_allowed(rules, score[:, None], tt[:, None] + pts)
    return mask


def decode_actions(rules: FiveThousandRules, roll, actions):
    """``(bank, points, dice_set_aside)`` of (legal) actions on rolls ``roll``, each ``(N,)``."""
    roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
    a = np.atleast_1d(np.asarray(actions, dtype=np.int64))
    bank = (a & 1) == 1
    if not rules.choose_scoring_dice:
        return bank, ROLL_POINTS[roll].astype(np.int64), ROLL_SCORING_DICE[roll].astype(np.int64)
    m = a >> 1
    return (bank, SETASIDE_POINTS[roll, m].astype(np.int64),
            SETASIDE_DICE[roll, m].astype(np.int64))


def encode_action(rules: FiveThousandRules, dice, bank: bool, set_aside=None) -> int:
    """The action that sets aside ``set_aside`` (faces; default: every scoring die) of the
    current ``dice`` (faces of the roll, any order) and then banks or rolls on.

    Raises ``ValueError`` if ``set_aside`` is not a sub-multiset of the dice, or if a set-aside
    other than all scoring dice is asked for under the literal rules.
    """
    dice_arr = pad_dice([d for d in dice if d])
    roll = int(roll_index_of(dice_arr))
    n = int(ROLL_SIZE[roll])
    if set_aside is None:
        m = int(ROLL_SCORING_MASK[roll])
    else:
        want = sorted(int(f) for f in set_aside)
        m, used = 0, set()
        for f in want:
            pos = next((i for i in range(n) if dice_arr[i] == f and i not in used), None)
            if pos is None:
                raise ValueError(f"cannot set aside {want} from the roll {dice_arr[:n].tolist()}")
            used.add(pos)
            m |= 1 << pos
        if not rules.choose_scoring_dice and m != int(ROLL_SCORING_MASK[roll]):
            raise ValueError("the literal rules set aside every scoring die; choosing a subset "
                             "needs choose_scoring_dice=True")
    if not rules.choose_scoring_dice:
        return BANK if bank else ROLL
    return 2 * m + (BANK if bank else ROLL)


def describe_action(rules: FiveThousandRules, action: int, dice=None) -> str:
    """A short description of an action, e.g. ``1 (bank)`` or ``9 (set aside [1 5], roll)``."""
    a = int(action)
    if not 0 <= a < rules.n_actions:
        return f"{a} (out of range)"
    verb = "bank" if a & 1 else "roll"
    if not rules.choose_scoring_dice:
        return f"{a} ({verb})"
    m = a >> 1
    positions = [i for i in range(N_DICE) if m >> i & 1]
    if dice is None:
        return f"{a} (set aside positions {positions}, {verb})"
    faces = [int(dice[i]) for i in positions if i < len(dice)]
    return f"{a} (set aside {faces}, {verb})"


# --------------------------------------------------------------------------------------------
# Distributions for solvers
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OutcomeDistribution:
    """The exact distribution of one throw of ``n_dice`` dice under the literal rules.

    Each entry ``i`` is a distinct outcome: ``points[i]`` (0 = bust), ``scoring_dice[i]``
    (dice set aside, 0 on a bust), ``dice_left[i]`` (dice a roll-on would throw next: 5 on
    hot dice, 0 on a bust) with probability ``prob[i]`` (summing to 1).  The bust, if
    possible, is entry 0.
    """

    n_dice: int
    points: np.ndarray
    scoring_dice: np.ndarray
    dice_left: np.ndarray
    prob: np.ndarray

    @property
    def bust_prob(self) -> float:
        """Probability that the throw scores nothing."""
        return float(self.prob[self.points == 0].sum())


@cache
def outcome_distribution(n_dice: int) -> OutcomeDistribution:
    """Exact distribution of ``(points, scoring dice)`` for ``n_dice`` thrown (bust included).

    What a value-iteration solver over ``(scores, turn total, dice left)`` needs: from a turn
    total ``t`` with ``n`` dice to throw, rolling leads to ``t + points[i]`` with
    ``dice_left[i]`` dice with probability ``prob[i]``, or to a bust (``points == 0``).
    """
    if not 1 <= int(n_dice) <= N_DICE:
        raise ValueError(f"n_dice must be 1..{N_DICE}, got {n_dice}")
    n = int(n_dice)
    rows = np.flatnonzero(THROW_PROB[n] > 0)
    pts = ROLL_POINTS[rows].astype(np.int64)
    k = ROLL_SCORING_DICE[rows].astype(np.int64)
    key = pts * 8 + k
    uniq, inv = np.unique(key, return_inverse=True)
    prob = np.bincount(inv, weights=THROW_PROB[n, rows], minlength=len(uniq))
    points, scoring = uniq // 8, uniq % 8
    left = np.where(points == 0, 0, dice_left_after(n, scoring))
    arrays = [points, scoring, left, prob]
    for arr in arrays:
        arr.setflags(write=False)
    return OutcomeDistribution(n, *arrays)


def throw_distribution(n_dice: int) -> tuple[np.ndarray, np.ndarray]:
    """``(roll indices, probabilities)`` of every multiset of ``n_dice`` dice.

    For ``choose_scoring_dice`` solvers: each roll's options are the rows
    ``SETASIDE_POINTS[roll]`` / ``SETASIDE_DICE[roll]`` (``-1`` = not a legal set-aside).
    """
    if not 0 <= int(n_dice) <= N_DICE:
        raise ValueError(f"n_dice must be 0..{N_DICE}, got {n_dice}")
    rows = np.flatnonzero(THROW_PROB[int(n_dice)] > 0)
    return rows, THROW_PROB[int(n_dice), rows].copy()


def all_rolls(n_dice: int) -> list[tuple[int, ...]]:
    """Every sorted roll of ``n_dice`` dice (for tests and tables)."""
    return list(itertools.combinations_with_replacement(range(1, 7), n_dice))
