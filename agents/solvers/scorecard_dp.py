"""Exact expected-score optimum of the scorecard games (Penta, Dice Poker, Yahtzee presets).

The model
---------
A state at the start of a turn is ``(filled boxes, upper total capped at the bonus threshold,
five-of-a-kind box state)``.  The five-of-a-kind box state (``FIVE_OPEN`` / ``FIVE_FIFTY`` /
``FIVE_ZERO``) already says whether that box is filled, so the filled set is stored without it
(the *rest* mask, ``n_boxes - 1`` bits).  The table of state values is::

    values[five_state, rest_mask, upper] -> expected points still to come, bonuses included

(``NaN`` for upper totals no sequence of scores can reach given which upper boxes are filled).
It is solved backwards, one *layer* (number of filled boxes) at a time; inside a turn the usual
roll/keep levels over the 252 rolls and 462 keeps are evaluated by the numba kernels of
:mod:`agents.solvers.scorecard_kernels`, for all upper totals of a (five state, mask) group at
once, the groups of a layer in parallel.

No scoring is implemented here: what each roll scores in each box, which boxes are legal (the
Joker rule) and the five-of-a-kind bonus come from :func:`dice_env.scorecard.rules.box_outcomes`
(called for every roll and, for the six five-of-a-kind rolls, every open set), the upper bonus
from :func:`~dice_env.scorecard.rules.upper_bonus_earned` and the five-state transition from
:func:`~dice_env.scorecard.rules.five_state_after`.

Public API: :func:`solve_scorecard` (solve now), :func:`load_or_solve_scorecard` (through the
on-disk cache), :class:`ScorecardSolution` (the solved table and on-demand action values).
"""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numba
import numpy as np

from agents.solvers import cache as C
from agents.solvers import scorecard_kernels as K
from dice_env import dice as D
from dice_env.scorecard.rules import (
    FIVE_FIFTY,
    FIVE_OPEN,
    FIVE_ZERO,
    Rules,
    box_outcomes,
    five_state_after,
    get_rules,
    upper_bonus_earned,
)

__all__ = [
    "FORMAT_VERSION",
    "ScorecardModel",
    "ScorecardSolution",
    "cache_key",
    "load_or_solve_scorecard",
    "prepare_model",
    "solve_scorecard",
    "warm_up_kernels",
]

#: Version of the solved-table format and of the solver's semantics; part of the cache key.
FORMAT_VERSION = 1
N_ACTION_HOLDS = D.N_HOLDS
#: batches of at least this many decisions are evaluated on all numba threads
PARALLEL_QUERY_ROWS = 256


def _popcount(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.int64)
    out = np.zeros_like(x)
    while np.any(x):
        out += x & 1
        x >>= 1
    return out


@dataclass(frozen=True, eq=False)
class ScorecardModel:
    """Everything the kernels need about one ``Rules``, derived from the rules engine.

    Attributes:
        rules: the game.
        n_boxes, threshold, five_box: box count, upper bonus threshold, five-of-a-kind box.
        rest_index: ``(2**n_boxes,)`` filled mask -> rest mask (the five-of-a-kind bit removed).
        reg_pts, reg_bonus: ``(3, 252, n_boxes)`` / ``(3, 252)`` points and five-of-a-kind bonus
            of each roll that is not five of a kind, per five state (their legality is "open").
        five_slot: ``(252,)`` 0..5 for the six five-of-a-kind rolls, -1 for the others.
        jk_legal, jk_pts, jk_bonus: ``(3, 2**(n-1), 6)`` legal-box bitmask, ``(..., n_boxes)``
            points and ``(3, 2**(n-1), 6)`` bonus of the five-of-a-kind rolls for every state
            (the Joker rule as the rules engine applies it).
        ub_table: ``(threshold + 1, 31)`` upper bonus earned from capped total ``u`` adding
            ``points``.
        reachable: ``(64, threshold + 1)`` bool, the capped upper totals reachable with the
            upper boxes of a 6-bit mask filled; ``u_lists`` / ``u_counts`` the same as lists.
        five_after: ``(2,)`` the five state after a zero / positive score in its box.
        slot_table: ``(n_boxes, max points + 1)`` the next-state slot of a box score: dice
            counted (upper boxes), positive or not (five-of-a-kind box), 0 (others).
        merge_fifty_zero: whether the two filled five states play identically (then one is
            solved and copied).
        reg_pts_t, reg_row_t, five_rolls: for the per-decision kernel, ``(3, n_boxes, 252)``
            points (float) and next-state row (``box * 6 + slot``) of the rolls that are not
            five of a kind, box-major; the indices of the five-of-a-kind rolls.
    """

    rules: Rules
    n_boxes: int
    threshold: int
    five_box: int
    rest_index: np.ndarray
    reg_pts: np.ndarray
    reg_bonus: np.ndarray
    five_slot: np.ndarray
    jk_legal: np.ndarray
    jk_pts: np.ndarray
    jk_bonus: np.ndarray
    ub_table: np.ndarray
    reachable: np.ndarray
    u_lists: np.ndarray
    u_counts: np.ndarray
    five_after: np.ndarray
    slot_table: np.ndarray
    merge_fifty_zero: bool
    reg_pts_t: np.ndarray
    reg_row_t: np.ndarray
    five_rolls: np.ndarray
    layers: list = field(repr=False)

    @property
    def n_rest(self) -> int:
        return 1 << (self.n_boxes - 1)

    @property
    def value_shape(self) -> tuple[int, int, int]:
        return (3, self.n_rest, self.threshold + 1)

    def kernel_tables(self) -> tuple:
        """The rule tables in the order the kernels take them (after ``V``)."""
        return (self.rest_index, self.n_boxes, self.five_box, self.ub_table, self.five_after,
                self.reg_pts, self.reg_bonus, self.five_slot, self.jk_legal, self.jk_pts,
                self.jk_bonus, self.slot_table, _ROLL_KEEP, _CHILDREN, _PARENTS, _N_PARENTS)

    def query_tables(self) -> tuple:
        """The extra tables of the per-decision kernels (after :meth:`kernel_tables`)."""
        return (_HOLD_KEEP, self.reg_pts_t, self.reg_row_t, self.five_rolls)

    def full_mask(self, rest: np.ndarray, five_state: np.ndarray) -> np.ndarray:
        """The filled mask (all boxes) from the rest mask and the five state."""
        rest = np.asarray(rest, dtype=np.int64)
        low = rest & ((1 << self.five_box) - 1)
        high = (rest >> self.five_box) << (self.five_box + 1)
        five = (np.asarray(five_state) != FIVE_OPEN).astype(np.int64) << self.five_box
        return low | high | five

    @property
    def n_states(self) -> int:
        """Reachable states (group, upper total) the solver evaluates."""
        return int(sum(layer[3] for layer in self.layers))


def _keep_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    children = D.KEEP_CHILDREN.astype(np.int64)
    sizes = D.KEEP_SIZES
    if not (np.all(np.diff(sizes) >= 0) and sizes[K.N_SMALL_KEEPS - 1] == 4
            and sizes[K.N_SMALL_KEEPS] == 5 and children.shape == (K.N_KEEPS, 6)):
        raise RuntimeError("dice_env.dice keeps are not ordered by size as the kernels expect")
    parents = np.full((K.N_KEEPS, 6), -1, dtype=np.int64)
    n_parents = np.zeros(K.N_KEEPS, dtype=np.int64)
    for k in range(K.N_KEEPS):
        for f in range(6):
            c = children[k, f]
            if c >= 0:
                parents[c, n_parents[c]] = k
                n_parents[c] += 1
    roll_keep = D.ROLL_AS_KEEP.astype(np.int64)
    return roll_keep, children, parents, n_parents


_ROLL_KEEP, _CHILDREN, _PARENTS, _N_PARENTS = _keep_tables()
_HOLD_KEEP = D.HOLD_KEEP.astype(np.int64)
_FRESH_PROB = np.ascontiguousarray(D.FRESH_ROLL_PROB, dtype=np.float64)


def _reachable_upper(threshold: int) -> np.ndarray:
    """``(64, threshold + 1)``: capped upper totals reachable with each set of upper boxes."""
    out = np.zeros((64, threshold + 1), dtype=bool)
    for um in range(64):
        totals = {0}
        for f in range(6):
            if um >> f & 1:
                totals = {min(t + c * (f + 1), threshold) for t in totals for c in range(6)}
        out[um, sorted(totals)] = True
    return out


def prepare_model(game: str | Rules) -> ScorecardModel:
    """The kernel tables of ``game`` (a preset name or a ``Rules``), built once per rules."""
    return _prepare_model(get_rules(game))


@lru_cache(maxsize=16)
def _prepare_model(rules: Rules) -> ScorecardModel:
    n = rules.n_boxes
    t = rules.tables
    thr = rules.upper_bonus_threshold
    fb = rules.five_kind_box
    if tuple(np.flatnonzero(t.is_upper)) != tuple(range(6)):
        raise ValueError("the solver expects the six upper boxes first (aces .. sixes)")
    if n > 20:
        raise ValueError(f"{n} boxes is too many for this solver (2**{n} masks)")

    full = np.arange(1 << n, dtype=np.int64)
    low = full & ((1 << fb) - 1)
    rest_index = low | ((full >> (fb + 1)) << fb)
    n_rest = 1 << (n - 1)
    rest = np.arange(n_rest, dtype=np.int64)
    rest_low = rest & ((1 << fb) - 1)
    rest_high = (rest >> fb) << (fb + 1)
    five_states = (FIVE_OPEN, FIVE_FIFTY, FIVE_ZERO)

    # The five state after scoring in the five-of-a-kind box, from the rules engine.
    fifty = int(five_state_after(rules, np.array([FIVE_OPEN]), np.array([fb]),
                                 np.array([rules.five_kind]))[0])
    zero = int(five_state_after(rules, np.array([FIVE_OPEN]), np.array([fb]), np.array([0]))[0])

    # Rolls that are not five of a kind: legality is "open", points do not depend on the mask.
    five_rolls = np.flatnonzero(t.is_five_kind)
    if len(five_rolls) != 6:
        raise RuntimeError("expected six five-of-a-kind rolls")
    five_slot = np.full(D.N_ROLLS, -1, dtype=np.int64)
    five_slot[five_rolls] = np.arange(6)
    reg_pts = np.zeros((3, D.N_ROLLS, n), dtype=np.int32)
    reg_bonus = np.zeros((3, D.N_ROLLS), dtype=np.float64)
    all_rolls = np.arange(D.N_ROLLS)
    for fs in five_states:
        open_ = np.ones((D.N_ROLLS, n), dtype=bool)
        open_[:, fb] = fs == FIVE_OPEN
        legal, pts, bonus = box_outcomes(rules, all_rolls, open_, np.full(D.N_ROLLS, fs))
        regular = five_slot < 0
        if not np.array_equal(legal[regular], open_[regular]):
            raise RuntimeError("box_outcomes restricts boxes for a roll that is not five of a "
                               "kind; the solver's model does not cover that")
        reg_pts[fs] = np.where(regular[:, None], pts, 0)
        reg_bonus[fs] = np.where(regular, bonus, 0)

    # Five-of-a-kind rolls: every open set, through box_outcomes (the Joker rule lives there).
    jk_legal = np.zeros((3, n_rest, 6), dtype=np.int32)
    jk_pts = np.zeros((3, n_rest, 6, n), dtype=np.int32)
    jk_bonus = np.zeros((3, n_rest, 6), dtype=np.float64)
    bit_weights = 1 << np.arange(n, dtype=np.int64)
    for fs in five_states:
        fullm = rest_low | rest_high | (np.int64(fs != FIVE_OPEN) << fb)
        m = np.repeat(fullm, 6)
        open_ = ((m[:, None] >> np.arange(n)) & 1) == 0
        legal, pts, bonus = box_outcomes(rules, np.tile(five_rolls, n_rest), open_,
                                         np.full(len(m), fs))
        if np.any(legal & ~open_):
            raise RuntimeError("box_outcomes allowed a filled box")
        if not legal.any(axis=1)[open_.any(axis=1)].all():
            raise RuntimeError("box_outcomes left a five of a kind with no legal box")
        jk_legal[fs] = (legal.astype(np.int64) @ bit_weights).reshape(n_rest, 6)
        jk_pts[fs] = pts.reshape(n_rest, 6, n)
        jk_bonus[fs] = bonus.reshape(n_rest, 6)

    # The kernels index the next state of an upper box by the number of dice counted.
    faces = np.arange(1, 7)
    for name, arr in (("regular", reg_pts[..., :6]), ("five-of-a-kind", jk_pts[..., :6])):
        if np.any(arr % faces) or np.any(arr > 5 * faces) or np.any(arr < 0):
            raise RuntimeError(f"{name} upper points are not 0..5 times the face")
    if min(reg_pts.min(), jk_pts.min()) < 0:
        raise RuntimeError("negative box points")
    max_points = int(max(reg_pts.max(), jk_pts.max()))
    slot_table = np.zeros((n, max_points + 1), dtype=np.int64)
    for b in range(6):
        slot_table[b] = np.arange(max_points + 1) // (b + 1)
    slot_table[fb, 1:] = 1

    box_rows = 6 * np.arange(n)[None, None, :]
    reg_row = box_rows + slot_table[np.arange(n)[None, None, :], reg_pts]

    u = np.arange(thr + 1)
    pts = np.arange(31)
    ub_table = upper_bonus_earned(rules, u[:, None], pts[None, :]).astype(np.float64)

    reachable = _reachable_upper(thr)
    u_counts = reachable.sum(axis=1).astype(np.int64)
    u_lists = np.zeros((64, thr + 1), dtype=np.int64)
    for um in range(64):
        u_lists[um, : u_counts[um]] = np.flatnonzero(reachable[um])

    merge = bool(np.array_equal(reg_pts[FIVE_FIFTY], reg_pts[FIVE_ZERO])
                 and np.array_equal(reg_bonus[FIVE_FIFTY], reg_bonus[FIVE_ZERO])
                 and np.array_equal(jk_legal[FIVE_FIFTY], jk_legal[FIVE_ZERO])
                 and np.array_equal(jk_pts[FIVE_FIFTY], jk_pts[FIVE_ZERO])
                 and np.array_equal(jk_bonus[FIVE_FIFTY], jk_bonus[FIVE_ZERO]))

    # Groups (five state, filled mask) by layer = number of filled boxes.
    pop = _popcount(full)
    layers = []
    for n_filled in range(n - 1, -1, -1):
        ms = full[pop == n_filled]
        five_filled = (ms >> fb) & 1 == 1
        g_fs, g_full = [], []
        g_fs.append(np.full(int((~five_filled).sum()), FIVE_OPEN))
        g_full.append(ms[~five_filled])
        for fs in (FIVE_FIFTY,) if merge else (FIVE_FIFTY, FIVE_ZERO):
            g_fs.append(np.full(int(five_filled.sum()), fs))
            g_full.append(ms[five_filled])
        g_fs = np.concatenate(g_fs).astype(np.int64)
        g_full = np.concatenate(g_full).astype(np.int64)
        # big groups first, so the chunks finish together
        order = np.argsort(-u_counts[g_full & 63], kind="stable")
        g_fs, g_full = g_fs[order], g_full[order]
        layers.append((g_fs, rest_index[g_full], g_full, int(u_counts[g_full & 63].sum())))

    return ScorecardModel(
        rules=rules, n_boxes=n, threshold=thr, five_box=fb, rest_index=rest_index,
        reg_pts=reg_pts, reg_bonus=reg_bonus, five_slot=five_slot, jk_legal=jk_legal,
        jk_pts=jk_pts, jk_bonus=jk_bonus, ub_table=ub_table, reachable=reachable,
        u_lists=u_lists, u_counts=u_counts,
        five_after=np.array([zero, fifty], dtype=np.int64), slot_table=slot_table,
        merge_fifty_zero=merge, layers=layers,
        reg_pts_t=np.ascontiguousarray(reg_pts.transpose(0, 2, 1), dtype=np.float64),
        reg_row_t=np.ascontiguousarray(reg_row.transpose(0, 2, 1)),
        five_rolls=five_rolls.astype(np.int64),
    )


def warm_up_kernels(model: ScorecardModel, *, solver: bool = True,
                    queries: bool = False, batched: bool = True) -> float:
    """Compile (or load from numba's on-disk cache) the kernels; returns the seconds spent.

    ``solver``: the layer kernel of :func:`solve_scorecard`; ``queries``: the kernel of one
    decision (what a player asks), and with ``batched`` also the batched kernels of
    :meth:`ScorecardSolution.action_values` (a player that never asks for a batch leaves
    them to their first use: they take longer to compile than the rest together).
    """
    t0 = time.perf_counter()
    V = np.zeros(model.value_shape)
    empty = np.zeros(0, dtype=np.int64)
    if solver:
        K.solve_layer(empty, empty, empty, 1, V, model.u_lists, model.u_counts,
                      *model.kernel_tables(), _FRESH_PROB, model.rules.rolls_per_turn)
    if queries:
        K.action_values_one(0, 0, 0, 0, 0, 0, V, *model.kernel_tables(), *model.query_tables(),
                            np.zeros(N_ACTION_HOLDS + model.n_boxes))
    if queries and batched:
        out = np.zeros((0, N_ACTION_HOLDS + model.n_boxes))
        K.action_values(empty, empty, empty, empty, empty, empty, V, *model.kernel_tables(),
                        *model.query_tables(), 1, out)
        K.action_values_serial(empty, empty, empty, empty, empty, empty, V,
                               *model.kernel_tables(), *model.query_tables(), out)
    return time.perf_counter() - t0


@dataclass
class ScorecardSolution:
    """The solved value table of one scorecard game, and cheap per-decision action values.

    Attributes:
        rules: the game.
        values: ``(3, 2**(n_boxes-1), threshold + 1)`` float64, expected points still to come
            at the start of a turn (see the module doc); NaN where unreachable.
        seconds: wall seconds the solve took (kernel compile/load included); the stored solve
            time when loaded from the cache.
        source: ``"solved"`` or ``"cache"``.
        cache_path: the cache file read or written, if any.
        timings: breakdown of the solve (``prepare``, ``compile``, ``layers`` in seconds,
            ``per_layer``, ``states``, ``threads``), or ``load`` seconds from the cache.
        model: the :class:`ScorecardModel` of the rules (set on creation).
    """

    rules: Rules
    values: np.ndarray
    seconds: float = 0.0
    source: str = "solved"
    cache_path: Path | None = None
    timings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.model = prepare_model(self.rules)
        if self.values.shape != self.model.value_shape:
            raise ValueError(f"value table has shape {self.values.shape}, expected "
                             f"{self.model.value_shape} for {self.rules.name}")
        self.values = np.ascontiguousarray(self.values, dtype=np.float64)

    @property
    def expected_score(self) -> float:
        """The optimal expected final score of a new game."""
        return float(self.values[FIVE_OPEN, 0, 0])

    def _index(self, open_boxes: np.ndarray, upper_capped: np.ndarray,
               five_state: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        m = self.model
        open_boxes = np.atleast_2d(np.asarray(open_boxes, dtype=bool))
        if open_boxes.shape[1] != m.n_boxes:
            raise ValueError(f"open_boxes needs {m.n_boxes} columns, got {open_boxes.shape}")
        full = (~open_boxes).astype(np.int64) @ (1 << np.arange(m.n_boxes, dtype=np.int64))
        fs = np.atleast_1d(np.asarray(five_state, dtype=np.int64))
        u = np.atleast_1d(np.asarray(upper_capped, dtype=np.int64))
        if np.any((fs < 0) | (fs > 2)):
            raise ValueError("five_state must be FIVE_OPEN, FIVE_FIFTY or FIVE_ZERO (0, 1, 2)")
        if np.any(((full >> m.five_box) & 1) != (fs != FIVE_OPEN)):
            raise ValueError("five_state disagrees with whether the five-of-a-kind box is open")
        if np.any((u < 0) | (u > m.threshold)):
            raise ValueError(f"upper_capped must be within 0..{m.threshold}")
        if not np.all(m.reachable[full & 63, u]):
            raise ValueError("upper total not reachable with these upper boxes filled")
        return fs, m.rest_index[full], full, u

    def state_value(self, open_boxes, upper_capped, five_state) -> np.ndarray | float:
        """Expected points still to come at the start of a turn (before its first throw).

        ``open_boxes`` ``(n_boxes,)`` or ``(N, n_boxes)`` bool; ``upper_capped`` the upper total
        capped at the threshold; ``five_state`` 0/1/2.  Returns a float for one state.
        """
        fs, rest, full, u = self._index(open_boxes, upper_capped, five_state)
        finished = full == (1 << self.model.n_boxes) - 1
        v = np.where(finished, 0.0, self.values[fs, rest, u])
        return float(v[0]) if np.ndim(open_boxes) == 1 else v

    def action_values(self, roll, rolls_left, open_boxes, upper_capped,
                      five_state) -> np.ndarray:
        """``(N, 32 + n_boxes)``: expected points still to come after each action.

        Scoring ``32 + b`` counts the box's points, the bonuses it earns and the value of the
        next turn; hold ``h`` is the mean over the reroll of the best play afterwards.
        ``-inf`` marks boxes the rules forbid, and holds when no reroll is left.  (Masking
        holds by canonical form is left to the caller.)  All arguments are batched
        (leading axis ``N``); decisions are computed in parallel for large ``N``.
        """
        fs, rest, full, u = self._index(open_boxes, upper_capped, five_state)
        roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
        rolls_left = np.atleast_1d(np.asarray(rolls_left, dtype=np.int64))
        if np.any(full == (1 << self.model.n_boxes) - 1):
            raise ValueError("a finished game has no actions")
        if np.any((rolls_left < 0) | (rolls_left >= self.rules.rolls_per_turn)):
            raise ValueError(f"rolls_left must be within 0..{self.rules.rolls_per_turn - 1}")
        out = np.empty((len(fs), N_ACTION_HOLDS + self.model.n_boxes))
        args = (fs, rest, full, u, roll, rolls_left, self.values, *self.model.kernel_tables(),
                *self.model.query_tables())
        if len(fs) < PARALLEL_QUERY_ROWS or numba.get_num_threads() == 1:
            K.action_values_serial(*args, out)
        else:
            K.action_values(*args, min(len(fs), 16 * numba.get_num_threads()), out)
        out[out <= K.NEG] = -np.inf
        return out


def solve_scorecard(game: str | Rules, *, progress: bool = False,
                    n_threads: int | None = None) -> ScorecardSolution:
    """Solve ``game`` (a preset name or a :class:`Rules`) now, without the disk cache.

    ``progress`` shows a tqdm bar over the states; ``n_threads`` limits numba's threads
    (default: all).  The returned ``seconds`` include building the tables and loading (or,
    the first time, compiling) the numba kernels.
    """
    rules = get_rules(game)
    t0 = time.perf_counter()
    model = prepare_model(rules)
    t1 = time.perf_counter()
    compile_s = warm_up_kernels(model)
    t2 = time.perf_counter()
    V = np.full(model.value_shape, np.nan)
    V[1:, -1, :] = 0.0  # every box filled: nothing more to come
    old_threads = numba.get_num_threads()
    threads = old_threads if n_threads is None else int(n_threads)
    threads = max(1, min(threads, numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=model.n_states, desc=f"solve {rules.name}", unit="state",
                   unit_scale=True, leave=False)
    layer_seconds = []
    try:
        for g_fs, g_rest, g_full, n_states in model.layers:
            ts = time.perf_counter()
            n_chunks = max(1, min(len(g_fs), 8 * numba.get_num_threads()))
            K.solve_layer(g_fs, g_rest, g_full, n_chunks, V, model.u_lists, model.u_counts,
                          *model.kernel_tables(), _FRESH_PROB, rules.rolls_per_turn)
            if model.merge_fifty_zero:
                V[FIVE_ZERO] = V[FIVE_FIFTY]
            layer_seconds.append(time.perf_counter() - ts)
            if bar is not None:
                bar.update(n_states)
    finally:
        numba.set_num_threads(old_threads)
        if bar is not None:
            bar.close()
    t3 = time.perf_counter()
    timings = {"prepare": t1 - t0, "compile": compile_s, "layers": t3 - t2,
               "per_layer": layer_seconds, "states": model.n_states,
               "threads": threads}
    return ScorecardSolution(rules, V, seconds=t3 - t0, source="solved", timings=timings)


def cache_key(rules: Rules) -> dict:
    """The cache key of a scorecard solution: solver kind, format version and rule knobs."""
    return {"solver": "scorecard-dp", "format_version": FORMAT_VERSION, "rules": rules.knobs()}


def load_or_solve_scorecard(game: str | Rules, *, cache_dir: str | os.PathLike | None = None,
                            use_cache: bool = True, force: bool = False,
                            progress: bool = False) -> ScorecardSolution:
    """The solution of ``game``, from the on-disk cache when a valid table is there.

    Args:
        game: a preset name or a :class:`Rules`.
        cache_dir: the cache folder (default ``$DICE_ENV_CACHE``, else the user cache folder).
        use_cache: ``False`` neither reads nor writes the cache.
        force: solve again even if cached, and overwrite the cached table.
        progress: show a progress bar while solving.

    A corrupted or truncated cache file is reported with
    :class:`~agents.solvers.cache.CacheCorruptionWarning` and replaced.  A cache folder that
    cannot be written only gives a warning.
    """
    rules = get_rules(game)
    if not use_cache:
        return solve_scorecard(rules, progress=progress)
    key = cache_key(rules)
    path = C.cache_path(cache_dir, f"scorecard-{rules.name}", key)
    if not force:
        t0 = time.perf_counter()
        loaded = C.load_table(path, key)
        if loaded is not None:
            arrays, meta = loaded
            values = arrays.get("values")
            if values is not None and values.shape == prepare_model(rules).value_shape:
                sol = ScorecardSolution(rules, values, seconds=float(meta.get("seconds", 0.0)),
                                        source="cache", cache_path=path,
                                        timings={"load": time.perf_counter() - t0})
                return sol
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve_scorecard(rules, progress=progress)
    meta = {"game": rules.name, "expected_score": sol.expected_score, "seconds": sol.seconds,
            "timings": {k: v for k, v in sol.timings.items() if k != "per_layer"}}
    try:
        C.save_table(path, key, {"values": sol.values}, meta)
        sol.cache_path = path
    except OSError as exc:
        warnings.warn(f"could not write the solver cache {path}: {exc}", RuntimeWarning,
                      stacklevel=2)
    return sol
