"""The two-player game of 5000 solved: :func:`solve_two_player` (value iteration of the
probability of winning, both players playing to win) and :class:`TwoPlayerSolution`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from agents.solvers.fivethousand_vi.model import DEFAULT_TOL, N_DICE, build_model
from agents.solvers.fivethousand_vi.run import _run_vi, _set_threads, _turn_tables, warm_up_kernels
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules


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

