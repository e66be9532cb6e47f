"""The exact two-player optimum of Pig by value iteration (Neller & Presser 2004).

Neller & Presser ("Optimal Play of the Dice Game Pig", *The UMAP Journal* 25(1), 2004) define
``P(i, j, k)``, the probability that the player to move wins with score ``i``, the opponent's
score ``j`` and turn total ``k``, both players playing to win::

    P(i, j, k) = 1                                          if i + k >= W
    P(i, j, k) = max(P_roll, P_hold)                        otherwise
    P_roll     = ( (1 - P(j, i, 0)) + sum_{f=2..s} P(i, j, k + g(f)) ) / s
    P_hold     = 1 - P(j, i + k, 0)

with ``W = win_score``, ``s = die_sides`` and ``g(f) = f`` (``1`` under piglet).  A hold at
``i + k >= W`` wins (that is the only legal move there, as in OpenSpiel).  Holding with
``k = 0`` is legal in OpenSpiel's game and is in the equations (``P_hold = 1 - P(j, i, 0)``);
it is never better than rolling, so the value is the classic one.

**How it is solved.**  A bust or a hold at ``k = 0`` hands ``(j, i, 0)`` to the opponent: the
same score sum.  A hold with ``k > 0`` raises the sum; a roll stays in the same ``(i, j)`` with
a larger ``k``.  So the states are solved by *levels* of ``i + j``, from the highest down, and
within a level pair by pair (``(i, j)`` with ``(j, i)``): each pair is swept in place
(Gauss-Seidel, ``k`` from high to low) until no value moves by more than ``tol`` (1e-13,
well under the 1e-9 asked for; :func:`bellman_residual` checks the whole table independently
in numpy).  One numba kernel, one thread.

**OpenSpiel's horizon.**  OpenSpiel's ``pig`` also ends the game as a draw after ``horizon``
moves (1000 by default).  That makes the exact game finite and, strictly, its optimal policy
depend on the moves left; the classic optimum solved here (and by Neller & Presser) has no
horizon.  Under optimal play a game lasts far fewer moves than 1000 (no draw is seen in the
tests' thousands of games), so the two differ by a negligible amount at the default horizon;
the table is keyed on ``win_score``, ``die_sides`` and ``piglet`` only.

Only two players: for more, Pig has no single "optimal" value (a max-n fixed point would be
needed), and :func:`solve` refuses them with ``ValueError``.
"""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np

from agents.solvers import cache as C
from dice_env.pig.rules import PigRules, coerce_rules

__all__ = ["DEFAULT_TOL", "FORMAT_VERSION", "MAX_WIN_SCORE", "PigSolution", "bellman_residual",
           "check_solvable", "describe_record", "fixed_policy_win_probability", "load_or_solve",
           "solvable_games", "solve", "solve_record"]

#: the convergence tolerance of every pair's sweeps (largest change of one value)
DEFAULT_TOL = 1e-13
#: the table format; bump it when the solver or the table changes
FORMAT_VERSION = 1
#: two action values closer than this are a tie (the optimal player then holds, with k > 0)
TIE = 1e-12
#: the largest win score solved (the table holds win_score**3 float64: 216 MB at 300)
MAX_WIN_SCORE = 300


def check_solvable(rules: PigRules) -> PigRules:
    """``rules`` if the exact solver covers them (two players, ``win_score`` up to
    :data:`MAX_WIN_SCORE`); ``ValueError`` saying why otherwise."""
    if rules.num_players != 2:
        raise ValueError(f"the exact Pig solver covers two players (Neller & Presser's optimum); "
                         f"got num_players={rules.num_players}: with more players there is no "
                         f"single optimal value (a max-n equilibrium would be needed)")
    if rules.win_score > MAX_WIN_SCORE:
        raise ValueError(f"the exact Pig solver covers win_score up to {MAX_WIN_SCORE} (its table "
                         f"holds win_score**3 values), got {rules.win_score}")
    return rules


@numba.njit(cache=True, nogil=True)
def _sweep(p, a, b, w, sides, piglet):  # pragma: no cover  (compiled)
    """One in-place sweep of state ``(a, b, k)`` for every ``k`` (high to low); the largest
    change."""
    delta = 0.0
    for k in range(w - 1 - a, -1, -1):
        acc = 1.0 - p[b, a, 0]
        if piglet:
            nxt = 1.0 if a + k + 1 >= w else p[a, b, k + 1]
            acc += (sides - 1) * nxt
        else:
            for f in range(2, sides + 1):
                acc += 1.0 if a + k + f >= w else p[a, b, k + f]
        roll = acc / sides
        hold = 1.0 - p[b, a + k, 0]
        v = roll if roll > hold else hold
        d = abs(v - p[a, b, k])
        if d > delta:
            delta = d
        p[a, b, k] = v
    return delta


@numba.njit(cache=True, nogil=True)
def _solve_kernel(w, sides, piglet, tol, max_sweeps):  # pragma: no cover  (compiled)
    """The table ``p[i, j, k]`` (1 where ``i + k >= w``) and the sweeps of each pair."""
    p = np.ones((w, w, w))
    for i in range(w):
        for j in range(w):
            for k in range(w - i):
                p[i, j, k] = 0.5
    total = 0
    worst = 0
    for s in range(2 * w - 2, -1, -1):
        lo = max(0, s - (w - 1))
        for i in range(lo, s // 2 + 1):
            j = s - i
            n = 0
            while True:
                d = _sweep(p, i, j, w, sides, piglet)
                if i != j:
                    d2 = _sweep(p, j, i, w, sides, piglet)
                    if d2 > d:
                        d = d2
                n += 1
                if d <= tol or n >= max_sweeps:
                    break
            total += n
            if n > worst:
                worst = n
    return p, total, worst


@numba.njit(cache=True, nogil=True)
def _eval_sweep(q_me, q_other, a, b, w, sides, piglet, rolls, win):  # pragma: no cover
    """One in-place sweep of ``q_me[a, b, k]`` (the first player's win probability when the
    mover, with score ``a``, plays the fixed policy ``rolls``; ``win`` is its value when the
    mover reaches ``w``: 1 for the first player, 0 for the second)."""
    delta = 0.0
    for k in range(w - 1 - a, -1, -1):
        if rolls[a, b, k]:
            acc = q_other[b, a, 0]
            if piglet:
                acc += (sides - 1) * (win if a + k + 1 >= w else q_me[a, b, k + 1])
            else:
                for f in range(2, sides + 1):
                    acc += win if a + k + f >= w else q_me[a, b, k + f]
            v = acc / sides
        else:
            v = q_other[b, a + k, 0]
        d = abs(v - q_me[a, b, k])
        if d > delta:
            delta = d
        q_me[a, b, k] = v
    return delta


@numba.njit(cache=True, nogil=True)
def _eval_kernel(w, sides, piglet, roll_a, roll_b, tol, max_sweeps):  # pragma: no cover
    """First player A's win probability ``qa[i, j, k]`` (A to move, A's score ``i``) and
    ``qb[j, i, k]`` (B to move, B's score ``j``) under the fixed policies; the most sweeps a
    pair took."""
    qa = np.full((w, w, w), 0.5)
    qb = np.full((w, w, w), 0.5)
    worst = 0
    for s in range(2 * w - 2, -1, -1):
        for i in range(max(0, s - (w - 1)), min(s, w - 1) + 1):
            j = s - i
            n = 0
            while True:
                d = _eval_sweep(qa, qb, i, j, w, sides, piglet, roll_a, 1.0)
                d2 = _eval_sweep(qb, qa, j, i, w, sides, piglet, roll_b, 0.0)
                n += 1
                if max(d, d2) <= tol or n >= max_sweeps:
                    break
            if n > worst:
                worst = n
    return qa, qb, worst


def fixed_policy_win_probability(rules: Any, roll_a: np.ndarray, roll_b: np.ndarray, *,
                                 tol: float = DEFAULT_TOL, max_sweeps: int = 100_000) -> float:
    """The exact probability that player A, who opens, wins against player B, both playing
    fixed policies: ``roll_x[i, j, k]`` (``(W, W, W)`` bool) says whether the mover with score
    ``i``, the other's score ``j`` and turn total ``k`` rolls (it holds otherwise; read only
    where ``i + k < W``).  Two players, no horizon (as :func:`solve`).  ``ValueError`` if the
    values do not settle (policies that both hold a turn total of 0 forever)."""
    rules = check_solvable(coerce_rules(rules))
    w = rules.win_score
    tables = []
    for name, t in (("roll_a", roll_a), ("roll_b", roll_b)):
        t = np.asarray(t)
        if t.shape != (w, w, w):
            raise ValueError(f"{name} must have shape ({w}, {w}, {w}), got {t.shape}")
        tables.append(np.ascontiguousarray(t, dtype=np.bool_))
    qa, _, worst = _eval_kernel(w, rules.die_sides, rules.piglet, tables[0], tables[1],
                                float(tol), int(max_sweeps))
    if worst >= max_sweeps:
        raise ValueError(f"the policies' values did not settle within {max_sweeps} sweeps (do "
                         "both hold a turn total of 0?)")
    return float(qa[0, 0, 0])


@dataclass
class PigSolution:
    """The solved table of two-player Pig.

    Attributes:
        rules: the rules solved (``num_players`` 2).
        table: ``(W, W, W)`` float64, ``table[i, j, k]`` = ``P(i, j, k)`` for ``i + k < W``
            (and 1 elsewhere).
        seconds: wall time of the solve (compilation included on a first run).
        sweeps: pair sweeps in all; max_sweeps: the most one pair took.
        tol: the tolerance of the sweeps; residual: the table's Bellman residual (the largest
            ``|max(P_roll, P_hold) - P|``, computed in numpy).
        source: ``"solved"`` or ``"cache"``; cache_path: the table's file, if cached.
    """

    rules: PigRules
    table: np.ndarray = field(repr=False)
    seconds: float = 0.0
    sweeps: int = 0
    max_sweeps: int = 0
    tol: float = DEFAULT_TOL
    residual: float = float("nan")
    source: str = "solved"
    cache_path: Path | None = None
    timings: dict = field(default_factory=dict)

    @property
    def first_player_win_probability(self) -> float:
        """``P(0, 0, 0)``: the opener's win probability, both playing optimally."""
        return float(self.table[0, 0, 0])

    def win_probability(self, i: Any, j: Any, k: Any = 0) -> np.ndarray | float:
        """``P(i, j, k)`` (1 where ``i + k >= win_score``); arrays broadcast."""
        i, j, k = (np.asarray(x, dtype=np.int64) for x in (i, j, k))
        w = self.rules.win_score
        done = i + k >= w
        out = np.where(done, 1.0, self.table[np.minimum(i, w - 1), np.minimum(j, w - 1),
                                             np.where(done, 0, np.minimum(k, w - 1))])
        return float(out) if out.ndim == 0 else out

    def action_values(self, i: Any, j: Any, k: Any) -> np.ndarray:
        """``(N, 2)`` win probabilities of rolling (column 0) and holding (column 1) for the
        mover at ``(i, j, k)`` (scores below ``win_score``); rolling is NaN where
        ``i + k >= win_score`` (only the hold is legal: it wins)."""
        i, j, k = (np.atleast_1d(np.asarray(x, dtype=np.int64)) for x in (i, j, k))
        r = self.rules
        w, s = r.win_score, r.die_sides
        if np.any((i < 0) | (i >= w) | (j < 0) | (j >= w) | (k < 0)):
            raise ValueError(f"scores must be from 0 to {w - 1} and turn totals non-negative")
        live = i + k < w
        hold = np.where(live, 1.0 - self.win_probability(j, np.minimum(i + k, w - 1), 0), 1.0)
        roll = 1.0 - self.win_probability(j, i, 0)
        faces = np.ones(s - 1, dtype=np.int64) if r.piglet else np.arange(2, s + 1)
        roll = roll + self.win_probability(i[:, None], j[:, None],
                                           k[:, None] + faces[None, :]).sum(axis=1)
        roll = np.where(live, roll / s, np.nan)
        return np.stack([roll, hold], axis=1)

    def rolls(self, i: Any, j: Any, k: Any) -> np.ndarray:
        """Whether the optimal move at ``(i, j, k)`` is to roll: where rolling is worth more
        than holding by over :data:`TIE` (ties hold), and always with ``k = 0`` while the roll
        is legal (a hold of nothing is never better: it only passes the die)."""
        vals = self.action_values(i, j, k)
        k = np.atleast_1d(np.asarray(k))
        live = ~np.isnan(vals[:, 0])
        return live & ((vals[:, 0] > vals[:, 1] + TIE) | (k == 0))

    def roll_table(self) -> np.ndarray:
        """``(W, W, W)`` bool: :meth:`rolls` at every ``(i, j, k)`` (False where ``i + k >= W``)."""
        w = self.rules.win_score
        i, j, k = np.meshgrid(np.arange(w), np.arange(w), np.arange(w), indexing="ij")
        return self.rolls(i.ravel(), j.ravel(), k.ravel()).reshape(w, w, w)


def bellman_residual(rules: PigRules, table: np.ndarray) -> float:
    """The largest ``|max(P_roll, P_hold) - P|`` over every decision state, in numpy (an
    independent check of the kernel)."""
    w, s = rules.win_score, rules.die_sides
    padded = np.ones((w, w, 2 * w + s))  # k up to w + s - 1 reads 1 (the mover holds and wins)
    padded[:, :, :w] = table
    i = np.arange(w)[:, None, None]
    k = np.arange(w)[None, None, :]
    padded[:, :, :w] = np.where(i + k >= w, 1.0, table)
    t0 = padded[:, :, 0]  # P(a, b, 0)
    bust = 1.0 - t0.T[:, :, None]  # 1 - P(j, i, 0)
    faces = [1] * (s - 1) if rules.piglet else list(range(2, s + 1))
    roll = bust.repeat(w, axis=2)
    for f in faces:
        roll = roll + padded[:, :, f:f + w]
    roll = roll / s
    # hold: 1 - P(j, i + k, 0), 1 where i + k >= w
    ii = np.minimum(i + k, w - 1)  # (w, 1, w)
    jj = np.arange(w)[None, :, None]
    hold = np.where(i + k >= w, 1.0, 1.0 - t0[jj, ii])
    best = np.maximum(roll, hold)
    live = np.broadcast_to(i + k < w, best.shape)
    return float(np.abs(best - padded[:, :, :w])[live].max())


def solve(rules: Any = None, *, tol: float = DEFAULT_TOL, max_sweeps: int = 100_000) -> PigSolution:
    """Solve two-player Pig for ``rules`` (a ``PigRules``, knobs, ``"pig"``; default 100 points
    with a d6) in memory.  ``ValueError`` for rules the solver does not cover
    (:func:`check_solvable`) or if a pair does not settle within ``max_sweeps``."""
    rules = check_solvable(coerce_rules(rules))
    if not tol > 0:
        raise ValueError(f"tol must be positive, got {tol!r}")
    t0 = time.perf_counter()
    table, sweeps, worst = _solve_kernel(rules.win_score, rules.die_sides, rules.piglet,
                                         float(tol), int(max_sweeps))
    seconds = time.perf_counter() - t0
    if worst >= max_sweeps:
        raise ValueError(f"value iteration did not settle within {max_sweeps} sweeps of a pair "
                         f"({rules.name})")
    t1 = time.perf_counter()
    residual = bellman_residual(rules, table)
    return PigSolution(rules, table, seconds=seconds, sweeps=int(sweeps), max_sweeps=int(worst),
                       tol=float(tol), residual=residual,
                       timings={"solve": seconds, "residual": time.perf_counter() - t1})


def cache_key(rules: PigRules, tol: float) -> dict:
    """The cache key of a Pig table: solver, format version, the knobs that matter, tolerance."""
    return {"solver": "pig-value-iteration", "format_version": FORMAT_VERSION,
            "win_score": rules.win_score, "die_sides": rules.die_sides,
            "piglet": rules.piglet, "tol": float(tol)}


def _stem(rules: PigRules) -> str:
    return f"pig-2p-w{rules.win_score}-d{rules.die_sides}" + ("-piglet" if rules.piglet else "")


def load_or_solve(rules: Any = None, *, cache_dir: str | os.PathLike | None = None,
                  use_cache: bool = True, force: bool = False,
                  tol: float = DEFAULT_TOL) -> PigSolution:
    """The two-player table, from the on-disk cache (:mod:`agents.solvers.cache`) when a valid
    one is there, else solved and written (atomically).

    ``use_cache=False`` neither reads nor writes; ``force`` solves again and overwrites.  The
    horizon and the number of players are not part of the key (see the module docstring).
    """
    rules = check_solvable(coerce_rules(rules))
    if not use_cache:
        return solve(rules, tol=tol)
    key = cache_key(rules, tol)
    path = C.cache_path(cache_dir, _stem(rules), key)
    w = rules.win_score
    if not force:
        t0 = time.perf_counter()
        loaded = C.load_table(path, key)
        if loaded is not None:
            arrays, meta = loaded
            table = arrays.get("table")
            if table is not None and table.shape == (w, w, w) and np.all(np.isfinite(table)):
                return PigSolution(rules, table, seconds=float(meta.get("seconds", 0.0)),
                                   sweeps=int(meta.get("sweeps", 0)),
                                   max_sweeps=int(meta.get("max_sweeps", 0)), tol=float(tol),
                                   residual=float(meta.get("residual", float("nan"))),
                                   source="cache", cache_path=path,
                                   timings={"load": time.perf_counter() - t0})
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve(rules, tol=tol)
    meta = {"first_player_win_probability": sol.first_player_win_probability,
            "seconds": sol.seconds, "sweeps": sol.sweeps, "max_sweeps": sol.max_sweeps,
            "residual": sol.residual}
    try:
        C.save_table(path, key, {"table": sol.table}, meta)
        sol.cache_path = path
    except OSError as exc:
        warnings.warn(f"could not write the solver cache {path}: {exc}", RuntimeWarning,
                      stacklevel=2)
    return sol


def solve_record(game: Any = "pig", *, cache_dir: str | os.PathLike | None = None,
                 use_cache: bool = True, force: bool = False, tol: float = DEFAULT_TOL,
                 **_ignored: Any) -> dict:
    """The record of ``dice-env solve pig``: ``game``, ``first_player_win_probability``,
    ``seconds`` (getting the table: solving, or reading the cache), ``source``,
    ``cache_path``, ``iterations`` (pair sweeps of the solve), ``max_sweeps``, ``residual``,
    ``tol``, ``peak_mb``; ``solved_seconds`` when read from the cache.  Other keywords
    (``threads``, ``progress``, which the other families' records take) are ignored: the
    solver runs on one thread in well under a second."""
    rules = coerce_rules(game)
    t0 = time.perf_counter()
    sol = load_or_solve(rules, cache_dir=cache_dir, use_cache=use_cache, force=force, tol=tol)
    record = {
        "game": rules.name,
        "first_player_win_probability": round(sol.first_player_win_probability, 6),
        "seconds": round(time.perf_counter() - t0, 3),
        "source": sol.source,
        "cache_path": str(sol.cache_path) if sol.cache_path else None,
        "iterations": sol.sweeps,
        "max_sweeps": sol.max_sweeps,
        "residual": sol.residual,
        "tol": sol.tol,
        "peak_mb": round(C.peak_memory_mb(), 1),
    }
    if sol.source == "cache":
        record["solved_seconds"] = round(sol.seconds, 3)
    return record


def solvable_games() -> list[str]:
    """The name ``dice-env solve`` takes for Pig (two players, first to 100, six sides)."""
    return ["pig"]


def describe_record(record: dict) -> str:
    """The human-readable lines of a :func:`solve_record` record."""
    lines = [f"{record['game']}: the first player wins with probability "
             f"{record['first_player_win_probability']:.4f} under optimal play by both "
             "(Neller & Presser 2004: 0.5306)"]
    if record["source"] == "cache":
        lines.append(f"  not solved in this run: loaded in {record['seconds']:.2f} s from the "
                     f"cache (solved earlier in {record['solved_seconds']:.2f} s; --force to "
                     "solve it again)")
    else:
        lines.append(f"  solved now, in {record['seconds']:.2f} s: value iteration, "
                     f"{record['iterations']:,} sweeps, residual {record['residual']:.1e}")
    lines.append(f"  peak memory {record['peak_mb']:.0f} MB")
    if record.get("cache_path"):
        lines.append(f"  table: {record['cache_path']}")
    return "\n".join(lines)
