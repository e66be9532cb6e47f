"""How far the score-optimal player's final total may land from its expectation.

The exact DP (:mod:`agents.solvers.scorecard_dp`) gives the *expected* points still to come
from every turn-start state under score-optimal play.  A player that plays to win also needs
their *spread*: :func:`load_or_compute_spread` adds the exact second moment of the points
still to come under that same policy, for every reachable turn-start state, by one backward
pass over the layers of the card (the last box first): each state's turn is played by the
optimal decisions (:func:`agents.scorecard.turn_policy.follow_policy`) and the leaf of scoring
``g`` points into successor card ``c'`` carries ``E[(g + R')^2] = g^2 + 2 g E[R'] + E[R'^2]``.
The same pass keeps the variance expected to remain after the next turn (what a player who
watches this card will still not know then).
About 500k states for Penta: seconds (a numba kernel as fast as a few of the DP's own passes,
:mod:`agents.solvers.spread_kernels`), once, then cached beside the DP tables.

:class:`ScoreMoments` answers ``mean``, ``std`` and ``std_after_turn`` of the points still to
come for batches of cards (0 for full cards).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from agents.solvers import cache as C
from agents.solvers import spread_kernels as SK
from agents.solvers.scorecard_dp import ScorecardSolution, cache_key, load_or_solve_scorecard
from dice_env import dice as D
from dice_env.scorecard.rules import FIVE_FIFTY, FIVE_OPEN, FIVE_ZERO, Rules

__all__ = ["FORMAT_VERSION", "ScoreMoments", "load_or_compute_spread", "reachable_states"]

#: Version of the spread table's format and meaning; part of the cache key.
FORMAT_VERSION = 2

_FRESH_PROB = np.ascontiguousarray(D.FRESH_ROLL_PROB, dtype=np.float64)


@dataclass
class ScoreMoments:
    """Mean and second moment of the points still to come under score-optimal play.

    Attributes:
        solution: the DP solution (the means, ``solution.values``).
        second: same shape as ``solution.values``: ``E[R^2]`` (NaN where unreachable).
        after: same shape: the variance of the points still to come expected *after the
            next turn* (``E[Var(R' | card after the turn)]``): the rest of the variance is
            what the next turn resolves.
        seconds: how long the tables took (or the stored time, from the cache).
    """

    solution: ScorecardSolution
    second: np.ndarray
    after: np.ndarray
    seconds: float = 0.0

    @property
    def rules(self) -> Rules:
        return self.solution.rules

    def _index(self, open_: np.ndarray, upper: np.ndarray, five: np.ndarray):
        m = self.solution.model
        open_ = np.atleast_2d(np.asarray(open_, dtype=bool))
        full = (~open_).astype(np.int64) @ (1 << np.arange(m.n_boxes, dtype=np.int64))
        done = full == (1 << m.n_boxes) - 1
        return (np.asarray(five, dtype=np.int64), m.rest_index[full],
                np.minimum(np.asarray(upper, dtype=np.int64), m.threshold), done)

    def mean(self, open_: np.ndarray, upper: np.ndarray, five: np.ndarray) -> np.ndarray:
        """``(N,)`` expected points still to come (unchecked fast lookup; 0 for full cards)."""
        fs, rest, u, done = self._index(open_, upper, five)
        return np.where(done, 0.0, self.solution.values[fs, rest, u])

    def std(self, open_: np.ndarray, upper: np.ndarray, five: np.ndarray) -> np.ndarray:
        """``(N,)`` standard deviation of the points still to come (0 for full cards)."""
        fs, rest, u, done = self._index(open_, upper, five)
        m = self.solution.values[fs, rest, u]
        var = np.where(done, 0.0, self.second[fs, rest, u] - m * m)
        return np.sqrt(np.maximum(var, 0.0))

    def std_after_turn(self, open_: np.ndarray, upper: np.ndarray, five: np.ndarray
                       ) -> np.ndarray:
        """``(N,)`` the spread of the points still to come expected after the next turn
        (root of its expected variance; 0 for full cards and cards with one box open)."""
        fs, rest, u, done = self._index(open_, upper, five)
        return np.sqrt(np.maximum(np.where(done, 0.0, self.after[fs, rest, u]), 0.0))


def reachable_states(solution: ScorecardSolution, filled: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every reachable turn-start state with ``filled`` boxes filled: ``(open_, upper, five)``."""
    m = solution.model
    out_open, out_u, out_f = [], [], []
    for fs in range(3):
        rests = np.arange(m.n_rest)
        full = m.full_mask(rests, np.full(m.n_rest, fs))
        count = np.array([bin(x).count("1") for x in full.tolist()])
        keep = count == filled
        rests, full = rests[keep], full[keep]
        ok = ~np.isnan(solution.values[fs][rests])  # (R, threshold + 1)
        r, u = np.nonzero(ok)
        bits = (full[r][:, None] >> np.arange(m.n_boxes)) & 1
        out_open.append(bits == 0)
        out_u.append(u)
        out_f.append(np.full(len(u), fs))
    open_ = np.concatenate(out_open)
    five = np.concatenate(out_f)
    valid = (five == FIVE_OPEN) == open_[:, m.five_box]
    return open_[valid], np.concatenate(out_u)[valid], five[valid]


def _compute(solution: ScorecardSolution, progress: bool = False, merge_lost: bool = True
             ) -> tuple[np.ndarray, np.ndarray]:
    """The second moment and the variance expected after the next turn of every reachable
    turn-start state, one layer of the card at a time (the last box first), by the numba
    kernel :func:`agents.solvers.spread_kernels.spread_layer` on the DP's own groups (the upper
    totals that can no longer reach the bonus computed once, unless ``merge_lost`` is off)."""
    m = solution.model
    rules = solution.rules
    V = solution.values
    second = np.full(V.shape, np.nan)
    after = np.full(V.shape, np.nan)
    second[1:, -1, :] = 0.0  # every box filled: nothing more to come
    after[1:, -1, :] = 0.0
    tables = m.kernel_tables()
    rest_index, n_boxes, five_box, ub_table, five_after = tables[:5]
    reg_pts, reg_bonus, five_slot, jk_legal, jk_pts, jk_bonus, slot_table = tables[5:12]
    roll_keep = tables[12]
    children, parents, n_parents = SK.hold_ordered(*tables[13:16])
    merge_lost = merge_lost and SK.lost_totals_merge(ub_table)
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=m.n_states, desc=f"score spread {rules.name}", unit="state",
                           unit_scale=True, leave=False)
    try:
        for g_fs, g_rest, g_full, n_states in m.layers:
            n_chunks = max(1, min(len(g_fs), 8 * numba.get_num_threads()))
            SK.spread_layer(g_fs, g_rest, g_full, n_chunks, V, second, after, m.u_lists,
                            m.u_counts, rest_index, n_boxes, five_box, ub_table, five_after,
                            reg_pts, reg_bonus, five_slot, jk_legal, jk_pts, jk_bonus,
                            slot_table, roll_keep, children, parents, n_parents, _FRESH_PROB,
                            rules.rolls_per_turn, merge_lost)
            if m.merge_fifty_zero:
                second[FIVE_ZERO] = second[FIVE_FIFTY]
                after[FIVE_ZERO] = after[FIVE_FIFTY]
            if bar is not None:
                bar.update(n_states)
    finally:
        if bar is not None:
            bar.close()
    second[1:, -1, :] = np.nan  # the stored tables leave the finished card out, as before
    after[1:, -1, :] = np.nan
    return second, after


def load_or_compute_spread(game: str | Rules, *, cache_dir: str | os.PathLike | None = None,
                           use_cache: bool = True, progress: bool = False) -> ScoreMoments:
    """The :class:`ScoreMoments` of ``game``: computed once (seconds), then read from
    the cache (``$DICE_ENV_CACHE`` or the user cache folder, beside the DP tables)."""
    solution = load_or_solve_scorecard(game, cache_dir=cache_dir, use_cache=use_cache)
    rules = solution.rules
    key = {"kind": "scorecard-spread", "format": FORMAT_VERSION, "dp": cache_key(rules)}
    path: Path | None = None
    if use_cache:
        path = C.cache_path(cache_dir, f"spread-{rules.name}", key)
        loaded = C.load_table(path, key)
        if loaded is not None:
            arrays, meta = loaded
            return ScoreMoments(solution, arrays["second"], arrays["after"],
                                float(meta.get("seconds", 0.0)))
    start = time.perf_counter()
    second, after = _compute(solution, progress=progress)
    seconds = time.perf_counter() - start
    if path is not None:
        C.save_table(path, key, {"second": second, "after": after},
                     {"seconds": round(seconds, 1)})
    return ScoreMoments(solution, second, after, seconds)
