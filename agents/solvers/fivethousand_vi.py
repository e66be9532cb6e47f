"""Exact optimal play of 5000: two-player win probability and solo fewest turns.

The model
---------
Scores are 0 or multiples of 100 from ``entry`` to ``target - 100`` (46 values for 5000); turn
totals are multiples of 50.  A *turn-start state* is ``(my score, opponent's score)`` with the
mover about to throw five dice; a *decision* comes after every throw that scored, at
``(my score, opponent's score, turn total t with this throw, n dice to throw if rolling on)``:
bank ``t`` (when the rules allow it) or roll the ``n`` dice (five after hot dice).

* **Two players** (Neller & Presser's method for Pig): ``W[a, b]`` = probability that the
  player to move at ``(a, b)`` wins, both players playing to win::

      W[a, b] = E_throw[ bust -> 1 - W[b, a];  else decision(a, b, t, n) ]
      decision = max(bank value (if allowed), E_throw[ bust -> 1 - W[b, a]; else decision ])
      bank value = 1 if the bank reaches the target, 0 if its gift takes the opponent there,
                   else 1 - W[b', a'] with the scores (a', b') after the bank.

  Every rule of the bank -- entry, no 50s, bumping on equal scores, the overshoot gift to an
  entered opponent, lost when it would pass the target, exact target wins -- comes from
  :func:`dice_env.fivethousand.rules.bank_allowed` and :func:`~dice_env.fivethousand.rules.
  resolve_bank`, evaluated once for every (score, score, turn total) into a table; the throws
  from :func:`~dice_env.fivethousand.rules.outcome_distribution`.  Turn totals are tabulated
  up to the target: beyond the last total at which a bank can still change the scores (at
  most the target), every bank is lost and the turn is worth exactly a bust.

  The equations are cyclic (a bust hands ``(b, a)`` to the opponent; a bump knocks a score
  back to 0), so they are solved by value iteration: states are grouped in pairs
  ``{(a, b), (b, a)}`` and pairs in *levels* of equal ``a + b``.  A bank or a gift raises
  the sum, a bust or a lost gift keeps it, so only bumps lead to a lower level.  A sweep
  visits the levels from the highest sum down, iterating each pair in place (Gauss-Seidel)
  until it settles; the pairs of one level may run in parallel (they never read each other,
  which is checked when the model is built).  Sweeps repeat until no value moves by more
  than ``tol`` (1e-9).

* **Solo**: ``F[a]`` = expected turns still to play (this one included) to reach the target
  exactly from the start of a turn at score ``a``, minimised.  A turn only raises the score
  or leaves it unchanged (a bust, or an overshooting bank whose points are lost: nobody to
  gift them to), so scores are solved from the highest down, each one's self-referential
  equation by policy iteration (Newton on a concave piecewise-linear map: exact once the
  policy repeats).

* **One turn on its own**: the best probability of entering from a fresh start, and the best
  expected banked points of one turn for an entered player far from the target.

Under ``choose_scoring_dice`` a throw's options are its legal set-asides
(:data:`~dice_env.fivethousand.rules.SETASIDE_POINTS`) and the mover also picks the best one;
the state is the same.

The module is long (about 1,000 lines) because it is one cohesive algorithm: the model's
tables, the two value iterations that read them, their cache and the policies extracted from
them share one state layout, and the kernels they run are apart (:mod:`.fivethousand_kernels`).

Public API: :func:`build_model`, :func:`solve_two_player`, :func:`solve_solo`,
:func:`load_or_solve_two_player`, :func:`load_or_solve_solo`, :func:`single_turn_facts`,
:func:`match_win_probabilities` (exact win probabilities of fixed players), :func:`policy_of`,
:func:`solve_fivethousand_summary` (the JSON record of ``scripts/solve.py fivethousand``).
"""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numba
import numpy as np

from agents.solvers import cache as C
from agents.solvers import fivethousand_kernels as K
from agents.solvers.cache import peak_memory_mb
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.bots import coerce_rules
from dice_env.fivethousand.rules import FiveThousandRules

__all__ = [
    "FORMAT_VERSION",
    "FiveThousandModel",
    "SoloSolution",
    "TwoPlayerSolution",
    "build_model",
    "coerce_rules",
    "describe_fivethousand",
    "load_or_solve_solo",
    "load_or_solve_two_player",
    "match_win_probabilities",
    "peak_memory_mb",
    "policy_of",
    "single_turn_facts",
    "solve_fivethousand_summary",
    "solve_solo",
    "solve_two_player",
]

#: Version of the solved-table format and of the solver's semantics; part of the cache key.
FORMAT_VERSION = 1
DEFAULT_TOL = 1e-9
N_DICE = R.N_DICE
#: ties between banking and rolling on closer than this go to banking (the agent's rule)
TIE_TOL = 1e-12


# --------------------------------------------------------------------------------------------
# The model: rule tables for the kernels
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FiveThousandModel:
    """The tables the kernels read, built from :mod:`dice_env.fivethousand.rules`.

    Attributes:
        rules: the game.
        scores: ``(K,)`` the score grid: 0, then ``min_entered_score`` .. ``target - 100``.
        score_index: ``(target // 100 + 1,)`` index of score ``s`` at ``s // 100``, -1 if
            ``s`` is not on the grid.
        n_slots: ``T = target // 50 + 1`` turn-total slots (``t = 50 j``).
        bank_ok: ``(K, T)`` bool, the mover (score index) may bank slot ``j``.
        bank_next: ``(K, K, T)`` two players: ``ib' * K + ia'`` of the state after the bank
            (seen from the opponent, who moves next), or :data:`~.fivethousand_kernels.WIN` /
            :data:`~.fivethousand_kernels.LOSS`; meaningless where the bank is not allowed.
        j_hi: ``(K, K)`` the last slot at which a bank changes the scores (-1 if none).
        solo_next: ``(K, 1, T)`` solo: the score index after a bank (itself when the points
            are lost) or ``WIN``; ``solo_j_hi`` ``(K, 1)``.
        bust_prob, grp_start, grp_prob, opt_start, opt_slot, opt_left: the throw tables (see
            :mod:`~agents.solvers.fivethousand_kernels`).
        level_start, pairs_a, pairs_b, level_sums: the pairs ``{pairs_a[p], pairs_b[p]}``
            (``pairs_a <= pairs_b``) level by level, highest score sum first: level ``l`` is
            ``level_start[l] .. level_start[l + 1]``, with score sum ``level_sums[l]``.
    """

    rules: FiveThousandRules
    scores: np.ndarray
    score_index: np.ndarray
    n_slots: int
    bank_ok: np.ndarray
    bank_next: np.ndarray
    j_hi: np.ndarray
    solo_next: np.ndarray
    solo_j_hi: np.ndarray
    bust_prob: np.ndarray
    grp_start: np.ndarray
    grp_prob: np.ndarray
    opt_start: np.ndarray
    opt_slot: np.ndarray
    opt_left: np.ndarray
    level_start: np.ndarray = field(repr=False)
    pairs_a: np.ndarray = field(repr=False)
    pairs_b: np.ndarray = field(repr=False)
    level_sums: np.ndarray = field(repr=False)

    @property
    def n_scores(self) -> int:
        return len(self.scores)

    @property
    def n_states(self) -> int:
        """Turn-start states of the two-player game (``K * K``)."""
        return self.n_scores ** 2

    @property
    def n_decision_states(self) -> int:
        """Decision states ``(a, b, t, n)`` of the two-player game (``K * K * T * 5``)."""
        return self.n_states * self.n_slots * N_DICE

    def throw_tables(self) -> tuple:
        """The throw tables in the order the kernels take them."""
        return (self.bust_prob, self.grp_start, self.grp_prob, self.opt_start, self.opt_slot,
                self.opt_left)

    def index(self, scores) -> np.ndarray:
        """Score indices of scores (``ValueError`` for a score that is not on the grid)."""
        s = np.asarray(scores, dtype=np.int64)
        ok = (s >= 0) & (s <= self.rules.target - 100) & (s % 100 == 0)
        idx = np.where(ok, self.score_index[np.clip(s // 100, 0, len(self.score_index) - 1)],
                       -1)
        if np.any(idx < 0):
            bad = np.atleast_1d(s)[np.atleast_1d(idx) < 0][0]
            raise ValueError(f"{int(bad)} is not a possible score of a game in progress: 0 or "
                             f"a multiple of 100 from {self.rules.min_entered_score} to "
                             f"{self.rules.target - 100}")
        return idx

    def slot(self, turn_total) -> np.ndarray:
        """Slot of a turn total (``T`` for any total above the target)."""
        t = np.asarray(turn_total, dtype=np.int64)
        if np.any(t < 0) or np.any(t % 50):
            raise ValueError("turn totals are non-negative multiples of 50")
        return np.minimum(t // 50, self.n_slots)


def _throw_tables(rules: FiveThousandRules):
    """Groups and options of a throw of 1..5 dice (see the kernels' module doc)."""
    bust = np.zeros(N_DICE + 1)
    grp_start = [0, 0]  # n = 0 has no groups; the groups of n dice are grp_start[n]..[n+1]
    grp_prob: list[float] = []
    opt_start = [0]
    opt_slot: list[int] = []
    opt_left: list[int] = []
    for n in range(1, N_DICE + 1):
        groups: dict[tuple, float] = {}
        if not rules.choose_scoring_dice:
            od = R.outcome_distribution(n)
            for pts, left, p in zip(od.points.tolist(), od.dice_left.tolist(), od.prob.tolist()):
                if pts == 0:
                    bust[n] += p
                else:
                    key = ((pts, left),)
                    groups[key] = groups.get(key, 0.0) + p
        else:
            rolls, probs = R.throw_distribution(n)
            for r, p in zip(rolls.tolist(), probs.tolist()):
                if R.ROLL_POINTS[r] == 0:
                    bust[n] += p
                    continue
                pts = R.SETASIDE_POINTS[r]
                legal = np.flatnonzero(pts >= 0)
                left = R.dice_left_after(n, R.SETASIDE_DICE[r, legal])
                key = tuple(sorted(set(zip(pts[legal].tolist(), np.atleast_1d(left).tolist()))))
                groups[key] = groups.get(key, 0.0) + p
        for key, p in sorted(groups.items()):
            grp_prob.append(p)
            for pts, left in key:
                if pts % 50 or pts <= 0:
                    raise RuntimeError(f"a scoring throw is worth {pts}, not a positive "
                                       "multiple of 50")
                opt_slot.append(pts // 50)
                opt_left.append(int(left))
            opt_start.append(len(opt_slot))
        grp_start.append(len(grp_prob))
    total = bust[1:] + np.array([sum(grp_prob[grp_start[n]:grp_start[n + 1]])
                                 for n in range(1, N_DICE + 1)])
    if not np.allclose(total, 1.0, atol=1e-12):
        raise RuntimeError(f"throw probabilities do not sum to 1: {total}")
    i64 = np.int64
    return (bust, np.array(grp_start, dtype=i64), np.array(grp_prob),
            np.array(opt_start, dtype=i64), np.array(opt_slot, dtype=i64),
            np.array(opt_left, dtype=i64))


def _last_change(changes: np.ndarray) -> np.ndarray:
    """Index of the last True along the last axis (-1 if none)."""
    n = changes.shape[-1]
    rev = np.argmax(changes[..., ::-1], axis=-1)
    return np.where(changes.any(axis=-1), n - 1 - rev, -1).astype(np.int64)


@lru_cache(maxsize=8)
def _build_model(rules: FiveThousandRules) -> FiveThousandModel:
    target = rules.target
    low = rules.min_entered_score
    scores = np.concatenate([[0], np.arange(low, target, 100)]).astype(np.int64)
    scores = np.unique(scores)  # low may equal target: then only 0
    k = len(scores)
    score_index = np.full(target // 100 + 1, -1, dtype=np.int64)
    score_index[scores // 100] = np.arange(k)
    n_slots = target // 50 + 1
    t = 50 * np.arange(n_slots, dtype=np.int64)
    bank_ok = R.bank_allowed(rules, scores[:, None], t[None, :])

    def idx(s: np.ndarray) -> np.ndarray:
        ok = (s >= 0) & (s < target) & (s % 100 == 0)
        out = np.where(ok, score_index[np.clip(s // 100, 0, len(score_index) - 1)], -1)
        if np.any(out < 0):
            raise RuntimeError("resolve_bank produced a score outside the solver's grid")
        return out

    # two players: every allowed bank through resolve_bank
    ia, ib, j = np.nonzero(np.broadcast_to(bank_ok[:, None, :], (k, k, n_slots)))
    out = R.resolve_bank(rules, np.stack([scores[ia], scores[ib]], axis=1),
                         np.zeros(len(ia), dtype=np.int64), t[j])
    bank_next = np.full((k, k, n_slots), K.LOSS, dtype=np.int64)
    nxt = np.full(len(ia), K.LOSS, dtype=np.int64)
    live = out.winner < 0
    nxt[live] = idx(out.scores[live, 1]) * k + idx(out.scores[live, 0])
    nxt[out.winner == 0] = K.WIN
    bank_next[ia, ib, j] = nxt
    unchanged = (np.arange(k)[None, :] * k + np.arange(k)[:, None])  # [ia, ib] -> ib*k + ia
    j_hi = _last_change(bank_ok[:, None, :] & (bank_next != unchanged[:, :, None]))

    # beyond the target every bank must be lost (what makes the table's cap exact)
    a_all, b_all = np.meshgrid(scores, scores, indexing="ij")
    a_all, b_all = a_all.ravel(), b_all.ravel()
    for extra in (target + 100, target + 4400, 2 * target + 4400):
        beyond = R.resolve_bank(rules, np.stack([a_all, b_all], axis=1),
                                np.zeros(len(a_all), dtype=np.int64),
                                np.full(len(a_all), extra))
        if (np.any(beyond.winner >= 0) or np.any(beyond.scores[:, 0] != a_all)
                or np.any(beyond.scores[:, 1] != b_all)):
            raise RuntimeError("a bank above the target changed the scores; the solver's "
                               "turn-total cap assumes it cannot")

    # solo
    ia1, j1 = np.nonzero(bank_ok)
    out1 = R.resolve_bank(rules, scores[ia1][:, None], np.zeros(len(ia1), dtype=np.int64),
                          t[j1])
    solo_next = np.full((k, 1, n_slots), K.WIN, dtype=np.int64)
    live1 = out1.winner < 0
    nxt1 = np.full(len(ia1), K.WIN, dtype=np.int64)
    nxt1[live1] = idx(out1.scores[live1, 0])
    solo_next[ia1, 0, j1] = nxt1
    if np.any((nxt1 >= 0) & (nxt1 < ia1)):
        raise RuntimeError("a solo bank lowered the score; the solo solver assumes it cannot")
    solo_j_hi = _last_change(bank_ok & (solo_next[:, 0, :] != np.arange(k)[:, None]))[:, None]

    # levels of pairs {ia, ib} by score sum, and the check that makes them parallel-safe
    pa, pb = np.triu_indices(k)
    sums = scores[pa] + scores[pb]
    order = np.lexsort((pb, pa, -sums))
    pa, pb, sums = pa[order].astype(np.int64), pb[order].astype(np.int64), sums[order]
    level_sums, first = np.unique(-sums, return_index=True)
    level_start = np.append(first, len(pa)).astype(np.int64)
    level_sums = (-level_sums).astype(np.int64)
    reads_from = ia * k + ib
    ok_j = j <= j_hi[ia, ib]
    reads = np.concatenate([bank_next[ia, ib, j][ok_j & (nxt >= 0)],
                            unchanged.ravel()])
    readers = np.concatenate([reads_from[ok_j & (nxt >= 0)], np.arange(k * k)])
    ra, rb = readers // k, readers % k
    xa, xb = reads // k, reads % k
    same_pair = (np.minimum(ra, rb) == np.minimum(xa, xb)) & (np.maximum(ra, rb)
                                                              == np.maximum(xa, xb))
    same_level = scores[ra] + scores[rb] == scores[xa] + scores[xb]
    if np.any(same_level & ~same_pair):
        raise RuntimeError("two pairs of one score-sum level read each other; the parallel "
                           "sweep would race")

    throws = _throw_tables(rules)
    arrays = [scores, score_index, bank_ok, bank_next, j_hi, solo_next, solo_j_hi, *throws,
              level_start, pa, pb, level_sums]
    for a in arrays:
        a.setflags(write=False)
    return FiveThousandModel(rules, scores, score_index, n_slots, np.ascontiguousarray(bank_ok),
                             bank_next, j_hi, solo_next, solo_j_hi, *throws,
                             level_start=level_start, pairs_a=pa, pairs_b=pb,
                             level_sums=level_sums)


def build_model(rules: FiveThousandRules | dict | str | None = None) -> FiveThousandModel:
    """The kernel tables of ``rules`` (default: 5000), built once per rules."""
    return _build_model(coerce_rules(rules))


_NO_POLICY = np.zeros((1, 1, 1, 1), dtype=np.bool_)


# --------------------------------------------------------------------------------------------
# Two players
# --------------------------------------------------------------------------------------------
@dataclass
class TwoPlayerSolution:
    """The solved two-player game.

    Attributes:
        rules: the game.
        win: ``(K, K)`` ``win[i, j]`` = probability that the player to move, holding score
            ``scores[i]`` against ``scores[j]``, wins under optimal play by both (at the start
            of the turn, before the first throw).
        sweeps: value-iteration sweeps until no value moved by more than ``tol``.
        tol: the convergence tolerance.
        residual: the largest Bellman residual ``|T(win) - win|`` of the final table.
        seconds: wall seconds of the solve (the stored solve time when loaded from the cache).
        source: ``"solved"`` or ``"cache"``; ``cache_path`` the file read or written.
        timings: ``model``, ``compile``, ``sweeps`` seconds, ``pair_rounds`` (pair updates
            in all), ``sweep_changes`` (the largest change of each sweep).
    """

    rules: FiveThousandRules
    win: np.ndarray
    sweeps: int = 0
    tol: float = DEFAULT_TOL
    residual: float = float("nan")
    seconds: float = 0.0
    source: str = "solved"
    cache_path: Path | None = None
    timings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.model = build_model(self.rules)
        k = self.model.n_scores
        if self.win.shape != (k, k):
            raise ValueError(f"win table has shape {self.win.shape}, expected {(k, k)}")
        self.win = np.ascontiguousarray(self.win, dtype=np.float64)
        self._tables: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def first_player_win_probability(self) -> float:
        """Probability that the player who opens the game wins, both playing optimally."""
        return float(self.win[0, 0])

    def win_probability(self, my_score, opp_score) -> np.ndarray | float:
        """Win probability of the player to move at the start of a turn."""
        v = self.win[self.model.index(my_score), self.model.index(opp_score)]
        return float(v) if np.ndim(v) == 0 else v

    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """``(roll, bank)``: ``roll[i, j, slot, n]`` the win probability of rolling ``n`` dice
        on at turn total ``50 * slot``, ``bank[i, j, slot]`` of banking it (NaN where not
        allowed); slot ``T`` stands for every total above the target.  Computed on first use
        (about 20 MB for 5000)."""
        if self._tables is None:
            self._tables, start = _turn_tables(self.model, self.win, self.win, None)
            self.residual = float(np.max(np.abs(start - self.win)))
        return self._tables

    def decision_values(self, my_score, opp_score, turn_total, dice_left
                        ) -> tuple[np.ndarray, np.ndarray]:
        """``(roll, bank)`` win probabilities of rolling ``dice_left`` dice on / banking
        ``turn_total`` (NaN where a bank is not allowed), batched."""
        roll, bank = self.tables()
        i, j = self.model.index(my_score), self.model.index(opp_score)
        s = self.model.slot(turn_total)
        n = np.asarray(dice_left, dtype=np.int64)
        if np.any((n < 1) | (n > N_DICE)):
            raise ValueError("dice_left must be 1..5")
        return roll[i, j, s, n], bank[i, j, s]


def _turn_tables(model: FiveThousandModel, w_mover: np.ndarray, w_next: np.ndarray,
                 policy: np.ndarray | None):
    k, t = model.n_scores, model.n_slots
    roll = np.empty((k, k, t + 1, N_DICE + 1))
    bank = np.empty((k, k, t + 1))
    start = np.empty((k, k))
    pol = _NO_POLICY if policy is None else policy
    K.all_turn_tables(w_mover, w_next, pol, policy is not None, model.j_hi, model.bank_ok,
                      model.bank_next, *model.throw_tables(), roll, bank, start)
    return (roll, bank), start


def _set_threads(threads: int | None) -> int:
    old = numba.get_num_threads()
    if threads:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    return old


def warm_up_kernels() -> float:
    """Compile (or load from numba's cache) every kernel on a tiny game; seconds spent."""
    t0 = time.perf_counter()
    model = build_model(FiveThousandRules(target=200, entry=100))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for parallel in (False, True):
            _run_vi(model, np.full((model.n_scores,) * 2, 0.5), None, None, 1e-3, 1, 10,
                    parallel=parallel)
    _turn_tables(model, np.zeros((model.n_scores,) * 2), np.zeros((model.n_scores,) * 2), None)
    _solo_values(model, 1e-3)
    f = np.zeros(model.n_scores)
    _solo_tables(model, f)
    dec = np.zeros((model.n_slots, N_DICE + 1))
    K.single_turn(np.zeros(model.n_slots), model.bank_ok[0], *model.throw_tables()[1:],
                  dec, dec.copy())
    return time.perf_counter() - t0


def _run_vi(model: FiveThousandModel, w_a: np.ndarray, w_b: np.ndarray | None,
            policies: tuple[np.ndarray | None, np.ndarray | None] | None, tol: float,
            max_sweeps: int, max_local: int, local_tol: float | None = None,
            parallel: bool = False, progress: bool = False) -> dict:
    """Sweeps of value iteration in place; returns the sweep statistics.

    Each pair is iterated in place until it moves by at most ``local_tol``; by default a
    thousandth of the previous sweep's largest change (``1e-4`` in the first sweep), never
    below ``tol / 10``: early sweeps do not polish pairs whose inputs are still moving.
    """
    symmetric = w_b is None
    w_b = w_a if w_b is None else w_b
    pol_a, pol_b = policies if policies is not None else (None, None)
    floor = tol / 10.0
    local = max(1e-4, floor) if local_tol is None else local_tol
    sweep = K.sweep_parallel if parallel else K.sweep_serial
    n_pairs = len(model.pairs_a)
    changes = []
    rounds = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=f"5000 value iteration (target {model.rules.target})", unit="sweep",
                   leave=False)
    converged = False
    try:
        for _ in range(max_sweeps):
            ch = np.zeros(n_pairs)
            it = np.zeros(n_pairs, dtype=np.int64)
            sweep(model.level_start, model.pairs_a, model.pairs_b, w_a, w_b,
                  _NO_POLICY if pol_a is None else pol_a, _NO_POLICY if pol_b is None else pol_b,
                  pol_a is not None, pol_b is not None, symmetric, local, max_local,
                  model.j_hi, model.bank_ok, model.bank_next, *model.throw_tables(), ch, it)
            biggest = float(ch.max())
            rounds += int(it.sum())
            changes.append(biggest)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(change=f"{biggest:.2e}")
            if biggest <= tol:
                converged = True
                break
            if local_tol is None:
                local = max(floor, 1e-3 * biggest)
    finally:
        if bar is not None:
            bar.close()
    if not converged:
        warnings.warn(f"value iteration did not converge to {tol:g} in {max_sweeps} sweeps "
                      f"(last change {changes[-1]:.3g})", RuntimeWarning, stacklevel=3)
    return {"sweeps": len(changes), "sweep_changes": changes, "pair_rounds": rounds,
            "converged": converged}


def solve_two_player(rules: FiveThousandRules | dict | str | None = None, *,
                     tol: float = DEFAULT_TOL, init: float = 0.5, max_sweeps: int = 1000,
                     max_local: int = 100_000, threads: int | None = None,
                     parallel: bool | None = None, progress: bool = False) -> TwoPlayerSolution:
    """Solve the two-player game (maximise the probability of winning) now, without the cache.

    Args:
        rules: the game (default 5000); ``choose_scoring_dice`` is supported.
        tol: stop when a whole sweep moves no value by more than this.
        init: the starting value of every state (the fixed point does not depend on it; the
            tests check 0 and 1).
        max_sweeps, max_local: caps on the sweeps and on the in-place rounds of one pair.
        threads: numba threads (default: all).
        parallel: spread the pairs of each level over the threads (default: when more than
            one thread).  The values do not depend on it.
        progress: a tqdm bar over the sweeps.
    """
    rules = coerce_rules(rules)
    t0 = time.perf_counter()
    model = build_model(rules)
    t1 = time.perf_counter()
    compile_s = warm_up_kernels()
    old = _set_threads(threads)
    try:
        t2 = time.perf_counter()
        w = np.full((model.n_scores, model.n_scores), float(init))
        if parallel is None:
            parallel = numba.get_num_threads() > 1
        stats = _run_vi(model, w, None, None, tol, max_sweeps, max_local, parallel=parallel,
                        progress=progress)
        t3 = time.perf_counter()
        sol = TwoPlayerSolution(rules, w, sweeps=stats["sweeps"], tol=tol)
        sol.tables()  # the residual check (and the agent's tables)
        threads_used = numba.get_num_threads()
    finally:
        numba.set_num_threads(old)
    t4 = time.perf_counter()
    sol.seconds = t4 - t0
    sol.timings = {"model": t1 - t0, "compile": compile_s, "sweeps": t3 - t2,
                   "tables": t4 - t3, "pair_rounds": stats["pair_rounds"],
                   "sweep_changes": stats["sweep_changes"], "converged": stats["converged"],
                   "states": model.n_states, "decision_states": model.n_decision_states,
                   "threads": threads_used, "parallel": bool(parallel)}
    return sol


# --------------------------------------------------------------------------------------------
# Solo
# --------------------------------------------------------------------------------------------
@dataclass
class SoloSolution:
    """The solved solo game (fewest expected turns to reach the target exactly).

    Attributes:
        rules: the game.
        turns: ``(K,)`` expected turns still to play, the coming one included, from the start
            of a turn at ``scores[i]`` under the optimal policy.
        newton_steps: ``(K,)`` policy-iteration steps each score took.
        residual: the largest Bellman residual of the final table.
        seconds, source, cache_path, timings: as in :class:`TwoPlayerSolution`.
    """

    rules: FiveThousandRules
    turns: np.ndarray
    newton_steps: np.ndarray | None = None
    tol: float = DEFAULT_TOL
    residual: float = float("nan")
    seconds: float = 0.0
    source: str = "solved"
    cache_path: Path | None = None
    timings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.model = build_model(self.rules)
        if self.turns.shape != (self.model.n_scores,):
            raise ValueError(f"turns table has shape {self.turns.shape}, expected "
                             f"{(self.model.n_scores,)}")
        self.turns = np.ascontiguousarray(self.turns, dtype=np.float64)
        self._tables: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def expected_turns(self) -> float:
        """Expected turns of a whole solo game under the optimal policy."""
        return float(self.turns[0])

    def expected_turns_from(self, score) -> np.ndarray | float:
        """Expected turns still to play from the start of a turn at ``score``."""
        v = self.turns[self.model.index(score)]
        return float(v) if np.ndim(v) == 0 else v

    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """``(roll, bank)``: ``roll[i, slot, n]`` expected turns still to play (this one
        included) after rolling ``n`` dice on at turn total ``50 * slot``, ``bank[i, slot]``
        after banking it (NaN where not allowed); slot ``T``: any total above the target."""
        if self._tables is None:
            self._tables, start = _solo_tables(self.model, self.turns)
            self.residual = float(np.max(np.abs(start - self.turns)))
        return self._tables

    def decision_values(self, score, turn_total, dice_left) -> tuple[np.ndarray, np.ndarray]:
        """``(roll, bank)`` expected turns still to play, batched."""
        roll, bank = self.tables()
        i = self.model.index(score)
        s = self.model.slot(turn_total)
        n = np.asarray(dice_left, dtype=np.int64)
        if np.any((n < 1) | (n > N_DICE)):
            raise ValueError("dice_left must be 1..5")
        return roll[i, s, n], bank[i, s]


def _solo_values(model: FiveThousandModel, tol: float) -> tuple[np.ndarray, np.ndarray]:
    f = np.zeros(model.n_scores)
    steps = np.zeros(model.n_scores, dtype=np.int64)
    order = np.arange(model.n_scores - 1, -1, -1, dtype=np.int64)
    x0 = 1e6
    K.solve_solo(order, f, x0, tol * 1e-3, 200, model.solo_j_hi, model.bank_ok,
                 model.solo_next, *model.throw_tables(), steps)
    if np.any(steps >= 200) or not np.all(np.isfinite(f)):
        raise RuntimeError("solo policy iteration did not converge")
    return f, steps


def _solo_tables(model: FiveThousandModel, f: np.ndarray):
    k, t = model.n_scores, model.n_slots
    roll = np.empty((k, t + 1, N_DICE + 1))
    bank = np.empty((k, t + 1))
    start = np.empty(k)
    K.all_solo_tables(f, model.solo_j_hi, model.bank_ok, model.solo_next,
                      *model.throw_tables(), roll, bank, start)
    return (roll, bank), start


def solve_solo(rules: FiveThousandRules | dict | str | None = None, *,
               tol: float = DEFAULT_TOL) -> SoloSolution:
    """Solve the solo game (minimise the expected turns to reach the target exactly) now.

    Scores are solved from the highest down; each one's fixed point by policy iteration,
    stopped when a step moves the value by at most ``tol * 1e-3`` relative (in practice the
    policy has stopped changing and the value is exact to rounding).
    """
    rules = coerce_rules(rules)
    t0 = time.perf_counter()
    model = build_model(rules)
    t1 = time.perf_counter()
    compile_s = warm_up_kernels()
    t2 = time.perf_counter()
    f, steps = _solo_values(model, tol)
    t3 = time.perf_counter()
    sol = SoloSolution(rules, f, newton_steps=steps, tol=tol)
    sol.tables()
    t4 = time.perf_counter()
    sol.seconds = t4 - t0
    sol.timings = {"model": t1 - t0, "compile": compile_s, "solve": t3 - t2,
                   "tables": t4 - t3, "newton_steps": int(steps.sum()),
                   "max_newton_steps": int(steps.max()), "states": model.n_scores}
    return sol


# --------------------------------------------------------------------------------------------
# Fixed players: exact match win probabilities
# --------------------------------------------------------------------------------------------
def policy_of(solution: TwoPlayerSolution) -> np.ndarray:
    """The optimal player's bank decisions ``(K, K, T, 6)`` bool, exactly as
    :class:`agents.fivethousand.optimal.OptimalAgent` plays (ties within ``TIE_TOL`` bank)."""
    if solution.rules.choose_scoring_dice:
        raise NotImplementedError("fixed-policy tables cover the literal rules only")
    roll, bank = solution.tables()
    t = solution.model.n_slots
    with np.errstate(invalid="ignore"):
        pol = solution.model.bank_ok[:, None, :, None] & (
            bank[:, :, :t, None] >= roll[:, :, :t, :] - TIE_TOL)
    return np.ascontiguousarray(pol)


def _representative_states(model: FiveThousandModel):
    """For every decision ``(ia, ib, j, n)`` a real 5000 position: a throw that leaves ``n``
    dice (one scoring die among ``n + 1`` thrown, or one die scoring hot dice) and the turn
    total before it.  Returns the arrays of a :class:`~dice_env.fivethousand.game.
    FiveThousandState` in decision order."""
    k, t_slots = model.n_scores, model.n_slots
    fill = {0: [], 1: [2], 2: [2, 3], 3: [2, 2, 3], 4: [2, 2, 3, 3]}
    ia, ib, j, n = (a.ravel() for a in np.meshgrid(np.arange(k), np.arange(k),
                                                   np.arange(t_slots), np.arange(1, N_DICE + 1),
                                                   indexing="ij"))
    t = 50 * j
    die = np.where(t % 100 == 50, 5, 1)
    dice = np.zeros((len(ia), N_DICE), dtype=np.int8)
    for m in range(1, N_DICE + 1):
        sel = n == m
        others = fill[m] if m < N_DICE else []
        for d in (1, 5):
            rows = sel & (die == d)
            dice[rows] = R.pad_dice([d, *others])
    roll = R.roll_index_of(dice)
    pts = R.ROLL_POINTS[roll].astype(np.int64)
    left = R.dice_left_after(R.ROLL_SIZE[roll], R.ROLL_SCORING_DICE[roll])
    assert np.array_equal(left, n) and np.all(pts == np.where(die == 5, 50, 100))
    before = np.maximum(t - pts, 0)
    return ia, ib, j, n, dice, roll, before


def threshold_policy(model: FiveThousandModel, player: Any, chunk: int = 200_000) -> np.ndarray:
    """The bank decisions ``(K, K, T, 6)`` of a player that decides from the state alone.

    The player is asked once per decision ``(my score, opponent's score, turn total, dice
    left)``, through its ``act_batch`` (or ``act``) on the observation and mask the env would
    show for a representative throw (see :func:`_representative_states`).  Exact for players
    that look only at scores, turn total and dice left, such as
    :class:`~dice_env.fivethousand.bots.ThresholdBot`; a player that looks at the faces is
    only approximated.  Decisions the rules force (no bank allowed) are rolls.
    """
    from dice_env.fivethousand import game as G
    from dice_env.fivethousand.observation import encode_observation

    rules = model.rules
    if rules.choose_scoring_dice:
        raise NotImplementedError("fixed-policy tables cover the literal rules only")
    ia, ib, j, n, dice, roll, before = _representative_states(model)
    out = np.zeros((model.n_scores, model.n_scores, model.n_slots, N_DICE + 1), dtype=bool)
    act_batch = getattr(player, "act_batch", None)
    for s in range(0, len(ia), chunk):
        sl = slice(s, s + chunk)
        m = len(ia[sl])
        st = G.FiveThousandState.empty(m, 2)
        st.scores[:, 0] = model.scores[ia[sl]]
        st.scores[:, 1] = model.scores[ib[sl]]
        st.turn_total[:] = before[sl]
        st.dice[:] = dice[sl]
        st.roll[:] = roll[sl]
        obs = encode_observation(rules, st, np.zeros(m, dtype=np.int64))
        masks = G.action_mask(rules, st)
        if act_batch is not None:
            acts = np.asarray(act_batch(obs, masks.astype(np.int8)), dtype=np.int64)
        else:
            acts = np.array([player.act(o, mk.astype(np.int8)) for o, mk in zip(obs, masks)])
        bank = (acts == R.BANK) & masks[:, R.BANK]
        out[ia[sl], ib[sl], j[sl], n[sl]] = bank
    return out


def match_win_probabilities(rules: FiveThousandRules | dict | str | None,
                            policy_a: np.ndarray | None, policy_b: np.ndarray | None, *,
                            tol: float = DEFAULT_TOL, max_sweeps: int = 2000,
                            init: float | np.ndarray = 0.5) -> dict:
    """Exact win probabilities of a two-player match between fixed players A and B.

    ``policy_a`` / ``policy_b``: bank decisions ``(K, K, T, 6)`` (from :func:`policy_of` or
    :func:`threshold_policy`), or ``None`` for a player who *best responds* to the other (the
    maximum against that fixed opponent, not the minimax policy).  ``init``: the starting
    values of both players' tables (a number, or a ``(K, K)`` table such as the optimal
    ``win``, which speeds the evaluation up).  Returns ``a_first`` (A
    opens and wins), ``b_first`` (B opens, A wins), ``a_seat_balanced`` (their mean),
    ``w_a`` / ``w_b`` (win probability of the player to move at ``[own, other]``) and
    ``sweeps``.
    """
    model = build_model(rules)
    if model.rules.choose_scoring_dice:
        raise NotImplementedError("fixed-policy evaluation covers the literal rules only")
    if policy_a is None and policy_b is None:
        raise ValueError("one player at least must be fixed; solve_two_player solves the rest")
    k = model.n_scores
    w_a = np.array(np.broadcast_to(np.asarray(init, dtype=np.float64), (k, k)))
    w_b = w_a.copy()
    warm_up_kernels()
    stats = _run_vi(model, w_a, w_b, (policy_a, policy_b), tol, max_sweeps, 100_000)
    a_first = float(w_a[0, 0])
    b_first = 1.0 - float(w_b[0, 0])
    return {"a_first": a_first, "b_first": b_first, "a_seat_balanced": (a_first + b_first) / 2,
            "w_a": w_a, "w_b": w_b, "sweeps": stats["sweeps"]}


# --------------------------------------------------------------------------------------------
# One turn
# --------------------------------------------------------------------------------------------
def _single_turn(model: FiveThousandModel, reward: np.ndarray, bank_ok: np.ndarray):
    dec = np.zeros((len(reward), N_DICE + 1))
    roll = np.zeros((len(reward), N_DICE + 1))
    value = K.single_turn(reward.astype(np.float64), np.ascontiguousarray(bank_ok),
                          *model.throw_tables()[1:], dec, roll)
    policy = bank_ok[:, None] & (reward[:, None] >= roll - TIE_TOL)
    policy[:, 0] = False
    return float(value), policy


def single_turn_facts(rules: FiveThousandRules | dict | str | None = None,
                      points_cap: int = 40_000) -> dict:
    """Exact single-turn facts of the rules.

    Returns a dict with:

    * ``entry_probability``: the best probability that one turn from a fresh start (score 0)
      ends with a bank that enters the game (``entry`` or more, not overshooting the target);
      ``entry_policy`` ``(T, 6)`` bool: the optimal banks at (slot, dice left).
    * ``expected_points``: the best expected banked points of one turn for an entered player
      with no target in sight (banks of 100 or more, no 50s), turn totals tabulated up to
      ``points_cap`` (any turn reaching it is counted as 0: a lower bound, and
      ``expected_points_cap_check`` is the value with half the cap -- equal to rounding);
      ``points_policy`` ``(points_cap // 50 + 1, 6)`` bool, and ``points_thresholds``: for
      1..5 dice left, the smallest turn total at which banking is optimal.
    """
    rules = coerce_rules(rules)
    model = build_model(rules)
    t = 50 * np.arange(model.n_slots)
    # entering: a bank from score 0 that moves the score (solo: an overshoot is lost)
    enters = model.bank_ok[0] & (model.solo_next[0, 0] != 0)
    entry_p, entry_policy = _single_turn(model, enters.astype(np.float64), model.bank_ok[0])

    def points(cap: int):
        slots = cap // 50 + 1
        tt = 50 * np.arange(slots)
        ok = R.bank_allowed(rules, np.full(slots, rules.min_entered_score), tt)
        return _single_turn(model, tt.astype(np.float64), ok)

    pts, pts_policy = points(points_cap)
    pts_half, _ = points(points_cap // 2)
    tt = 50 * np.arange(pts_policy.shape[0])
    thresholds = {}
    for n in range(1, N_DICE + 1):
        banked = np.flatnonzero(pts_policy[:, n] & (tt <= 20_000))
        thresholds[n] = int(tt[banked[0]]) if banked.size else None
    return {"entry_probability": entry_p, "entry_policy": entry_policy,
            "entry_policy_is_bank_when_allowed": bool(np.array_equal(
                entry_policy[:, 1:], np.broadcast_to(enters[:, None], (len(t), N_DICE)))),
            "expected_points": pts, "expected_points_cap_check": pts_half,
            "points_cap": points_cap, "points_policy": pts_policy,
            "points_thresholds": thresholds}


# --------------------------------------------------------------------------------------------
# The on-disk cache
# --------------------------------------------------------------------------------------------
def cache_key(rules: FiveThousandRules, kind: str, tol: float) -> dict:
    """The cache key of a 5000 table: solver kind, format version, rule knobs, tolerance."""
    return {"solver": f"fivethousand-vi-{kind}", "format_version": FORMAT_VERSION,
            "rules": rules.knobs(), "tol": float(tol)}


def _stem(rules: FiveThousandRules, kind: str) -> str:
    return f"fivethousand-{kind}-t{rules.target}-e{rules.entry}" + (
        "-choose" if rules.choose_scoring_dice else "")


def _save(path: Path, key: dict, arrays: dict, meta: dict) -> bool:
    try:
        C.save_table(path, key, arrays, meta)
        return True
    except OSError as exc:
        warnings.warn(f"could not write the solver cache {path}: {exc}", RuntimeWarning,
                      stacklevel=3)
        return False


def load_or_solve_two_player(rules: FiveThousandRules | dict | str | None = None, *,
                             cache_dir: str | os.PathLike | None = None,
                             use_cache: bool = True, force: bool = False,
                             tol: float = DEFAULT_TOL, threads: int | None = None,
                             progress: bool = False) -> TwoPlayerSolution:
    """The two-player solution, from the on-disk cache when a valid table is there.

    ``use_cache=False`` neither reads nor writes; ``force`` solves again and overwrites.  A
    corrupted or foreign cache file is reported with
    :class:`~agents.solvers.cache.CacheCorruptionWarning` and replaced.
    """
    rules = coerce_rules(rules)
    if not use_cache:
        return solve_two_player(rules, tol=tol, threads=threads, progress=progress)
    key = cache_key(rules, "2p", tol)
    path = C.cache_path(cache_dir, _stem(rules, "2p"), key)
    k = build_model(rules).n_scores
    if not force:
        t0 = time.perf_counter()
        loaded = C.load_table(path, key)
        if loaded is not None:
            arrays, meta = loaded
            win = arrays.get("win")
            if win is not None and win.shape == (k, k) and np.all(np.isfinite(win)):
                sol = TwoPlayerSolution(rules, win, sweeps=int(meta.get("sweeps", 0)), tol=tol,
                                        residual=float(meta.get("residual", float("nan"))),
                                        seconds=float(meta.get("seconds", 0.0)),
                                        source="cache", cache_path=path,
                                        timings={"load": time.perf_counter() - t0,
                                                 **meta.get("timings", {})})
                return sol
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve_two_player(rules, tol=tol, threads=threads, progress=progress)
    meta = {"first_player_win_probability": sol.first_player_win_probability,
            "sweeps": sol.sweeps, "residual": sol.residual, "seconds": sol.seconds,
            "timings": {k_: v for k_, v in sol.timings.items() if k_ != "sweep_changes"}}
    if _save(path, key, {"win": sol.win}, meta):
        sol.cache_path = path
    return sol


def load_or_solve_solo(rules: FiveThousandRules | dict | str | None = None, *,
                       cache_dir: str | os.PathLike | None = None, use_cache: bool = True,
                       force: bool = False, tol: float = DEFAULT_TOL) -> SoloSolution:
    """The solo solution, from the on-disk cache when a valid table is there (as
    :func:`load_or_solve_two_player`)."""
    rules = coerce_rules(rules)
    if not use_cache:
        return solve_solo(rules, tol=tol)
    key = cache_key(rules, "solo", tol)
    path = C.cache_path(cache_dir, _stem(rules, "solo"), key)
    k = build_model(rules).n_scores
    if not force:
        t0 = time.perf_counter()
        loaded = C.load_table(path, key)
        if loaded is not None:
            arrays, meta = loaded
            turns = arrays.get("turns")
            if turns is not None and turns.shape == (k,) and np.all(np.isfinite(turns)):
                return SoloSolution(rules, turns, newton_steps=arrays.get("newton_steps"),
                                    tol=tol, residual=float(meta.get("residual", float("nan"))),
                                    seconds=float(meta.get("seconds", 0.0)), source="cache",
                                    cache_path=path,
                                    timings={"load": time.perf_counter() - t0,
                                             **meta.get("timings", {})})
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve_solo(rules, tol=tol)
    meta = {"expected_turns": sol.expected_turns, "residual": sol.residual,
            "seconds": sol.seconds, "timings": sol.timings}
    if _save(path, key, {"turns": sol.turns, "newton_steps": sol.newton_steps}, meta):
        sol.cache_path = path
    return sol


def solve_fivethousand_summary(cache_dir: str | os.PathLike | None = None, force: bool = False,
                               *, use_cache: bool = True,
                               rules: FiveThousandRules | dict | None = None,
                               threads: int | None = None, progress: bool = False) -> dict:
    """Solve (or load) both 5000 games; the JSON record of ``scripts/solve.py fivethousand``.

    Fields: ``game`` (``"fivethousand"``), ``first_player_win_probability``,
    ``expected_turns_solo``, ``seconds`` (wall time this call spent getting both tables:
    building the rule tables, loading or compiling the kernels, solving -- or reading the
    cache), ``peak_mb`` (peak resident memory of the process), ``source`` (``solved`` /
    ``cache``, ``mixed`` if one of each), ``threads``, ``sweeps`` and ``residual`` of the
    two-player value iteration, ``tol``, ``solo_residual``, ``two_player_seconds`` /
    ``solo_seconds`` (this call) and ``solved_seconds`` (the stored solve times when loaded),
    ``states`` (turn-start states), ``decision_states``, ``cache_paths``, ``rules``; after
    a solve the breakdown ``model_seconds``, ``compile_seconds``, ``vi_seconds``.  The two
    values are rounded to 10 decimals (the value iteration is converged to ``tol`` = 1e-9;
    its error is about 1e-10).
    """
    rules = coerce_rules(rules)
    t0 = time.perf_counter()
    two = load_or_solve_two_player(rules, cache_dir=cache_dir, use_cache=use_cache,
                                   force=force, threads=threads, progress=progress)
    t1 = time.perf_counter()
    solo = load_or_solve_solo(rules, cache_dir=cache_dir, use_cache=use_cache, force=force)
    t2 = time.perf_counter()
    model = build_model(rules)
    sources = {two.source, solo.source}
    record = {
        "game": "fivethousand",
        "first_player_win_probability": round(two.first_player_win_probability, 10),
        "expected_turns_solo": round(solo.expected_turns, 10),
        "seconds": round(t2 - t0, 3),
        "peak_mb": round(peak_memory_mb(), 1),
        "source": sources.pop() if len(sources) == 1 else "mixed",
        "threads": numba.get_num_threads() if not threads else int(threads),
        "sweeps": two.sweeps,
        "tol": two.tol,
        "residual": two.residual,
        "solo_residual": solo.residual,
        "two_player_seconds": round(t1 - t0, 3),
        "solo_seconds": round(t2 - t1, 3),
        "states": model.n_states,
        "decision_states": model.n_decision_states,
        "cache_paths": [str(p) for p in (two.cache_path, solo.cache_path) if p is not None],
        "rules": rules.knobs(),
    }
    if two.source == "cache" or solo.source == "cache":
        record["solved_seconds"] = round(two.seconds + solo.seconds, 3)
    if two.source == "solved":
        record.update(model_seconds=round(two.timings["model"], 3),
                      compile_seconds=round(two.timings["compile"], 3),
                      vi_seconds=round(two.timings["sweeps"], 3))
    return record


def describe_fivethousand(record: dict) -> str:
    """The human-readable lines of a :func:`solve_fivethousand_summary` record."""
    lines = [
        f"{record['game']}: first player wins {record['first_player_win_probability']:.10f} "
        f"under optimal play; solo needs {record['expected_turns_solo']:.10f} turns on average",
    ]
    if record["source"] == "cache":
        when = f"on {record['solved_at']}, " if record.get("solved_at") else ""
        lines.append(f"  not solved in this run: loaded in {record['seconds']:.2f} s from the "
                     f"cache, solved earlier ({when}in "
                     f"{record.get('solved_seconds', float('nan')):.2f} s; --force to solve it "
                     "again)")
    else:
        extra = ""
        if "vi_seconds" in record:
            extra = (f": tables {record['model_seconds']:.2f} s, numba kernels "
                     f"{record['compile_seconds']:.2f} s, value iteration "
                     f"{record['vi_seconds']:.2f} s")
        lines.append(f"  solved now, in {record['seconds']:.2f} s{extra}; {record['sweeps']} "
                     f"sweeps to {record['tol']:g} (residual {record['residual']:.1e}) over "
                     f"{record['states']:,} states / {record['decision_states']:,} decisions "
                     f"on {record['threads']} thread(s)")
    lines.append(f"  peak memory {record['peak_mb']:.0f} MB")
    for path in record.get("cache_paths", []):
        lines.append(f"  table: {path}")
    return "\n".join(lines)
