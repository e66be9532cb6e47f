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
About 500k states: a few minutes once, then cached beside the DP tables.

:class:`ScoreMoments` answers ``mean``, ``std`` and ``std_after_turn`` of the points still to
come for batches of cards (0 for full cards).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.scorecard.turn_policy import follow_policy, turn_leaves
from agents.solvers import cache as C
from agents.solvers.scorecard_dp import ScorecardSolution, cache_key, load_or_solve_scorecard
from dice_env.scorecard.rules import FIVE_OPEN, Rules

__all__ = ["FORMAT_VERSION", "ScoreMoments", "load_or_compute_spread", "reachable_states"]

#: Version of the spread table's format and meaning; part of the cache key.
FORMAT_VERSION = 2


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


def _compute(solution: ScorecardSolution, chunk: int = 2000, progress: bool = False
             ) -> tuple[np.ndarray, np.ndarray]:
    m = solution.model
    rules = solution.rules
    second = np.full(solution.values.shape, np.nan)
    after = np.full(solution.values.shape, np.nan)
    moments = ScoreMoments(solution, second, after)
    layers = range(m.n_boxes - 1, -1, -1)
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=m.n_boxes, desc=f"score spread {rules.name}", unit="layer")
    for filled in layers:
        open_, upper, five = reachable_states(solution, filled)
        for i in range(0, len(upper), chunk):
            o, u, f = open_[i:i + chunk], upper[i:i + chunk], five[i:i + chunk]

            def first(rows, o2, u2, f2, gain):
                return gain + moments.mean(o2, u2, f2)

            def second_leaf(rows, o2, u2, f2, gain):
                mean = moments.mean(o2, u2, f2)
                fs, rest, uu, done = moments._index(o2, u2, f2)
                m2 = np.where(done, 0.0, second[fs, rest, uu])
                return gain * gain + 2.0 * gain * mean + m2

            def spread_after(rows, o2, u2, f2, gain):
                mean = moments.mean(o2, u2, f2)
                fs, rest, uu, done = moments._index(o2, u2, f2)
                return np.where(done, 0.0, second[fs, rest, uu] - mean * mean)

            leaves = turn_leaves(rules, o, u, f, first)
            q = np.stack([turn_leaves(rules, o, u, f, second_leaf),
                          turn_leaves(rules, o, u, f, spread_after)], axis=-1)
            q[~np.isfinite(q)] = 0.0
            _, e = follow_policy(leaves, q, rules.rolls_per_turn)
            fs, rest, uu, _ = moments._index(o, u, f)
            second[fs, rest, uu] = e[:, 0]
            after[fs, rest, uu] = e[:, 1]
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return second, after


def load_or_compute_spread(game: str | Rules, *, cache_dir: str | os.PathLike | None = None,
                           use_cache: bool = True, progress: bool = False) -> ScoreMoments:
    """The :class:`ScoreMoments` of ``game``: computed once (a few minutes), then read from
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
