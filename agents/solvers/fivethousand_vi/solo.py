"""The solo game of 5000 solved: :func:`solve_solo` (fewest expected turns to reach the
target exactly, by policy iteration from the highest score down) and :class:`SoloSolution`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.solvers.fivethousand_vi.model import DEFAULT_TOL, N_DICE, build_model
from agents.solvers.fivethousand_vi.run import _solo_tables, _solo_values, warm_up_kernels
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules


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

