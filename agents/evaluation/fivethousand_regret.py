"""Exact per-decision regret of any policy on 5000, in win probability or in turns.

The same idea as :mod:`agents.evaluation.scorecard_regret`, over the exact tables of
:mod:`agents.solvers.fivethousand_vi`:

* **two players** -- the policy plays against the optimal player (seat-balanced: it opens
  every other game).  Each of its decisions is charged ``max_a Q*(s, a) - Q*(s, chosen)``,
  ``Q*`` being the probability that the mover wins after the action with both then playing
  optimally.  Against the optimal (minimax) opponent nothing beats the optimal policy, so the
  sum over a game is an unbiased estimate of the win probability the policy gives up against
  the optimal opponent, and ``V*(seat) - loss`` estimates its win rate with far less variance
  than counting wins;
* **solo** -- ``Q*`` is the expected number of turns still to play; each decision is charged
  the turns it adds, ``Q*(s, chosen) - min_a Q*(s, a)``, and the sum estimates how many more
  turns than the optimum (23.13) the policy needs.

:func:`fivethousand_gap` returns a :class:`FiveThousandRegret` with the gap, its CI, the
classical estimate (wins or turns counted) it is checked against, and the decomposition by the
number of dice just thrown and by roll-on / bank against the optimum's choice.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.evaluation.scorecard_regret import TOLERANCE, DecisionBatch, GapEstimate, mean_ci
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R

__all__ = ["FiveThousandRegret", "action_cells", "fivethousand_gap"]

MODES = ("two-player", "solo")
ACTION_KINDS = ("roll on", "bank")


def action_cells(chosen: np.ndarray, optimal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells of the roll-on / bank table for decisions: ``(row, col)``, the policy's
    choice and the optimum's (0 = roll on, 1 = bank; see :data:`ACTION_KINDS`)."""
    return (((chosen & 1) == R.BANK).astype(np.int64),
            ((optimal & 1) == R.BANK).astype(np.int64))


@dataclass
class FiveThousandRegret(GapEstimate):
    """The exact-regret evaluation of one policy on 5000 (``gap``: the mean loss per game,
    win probability given up or turns added; ``ci``: its 95 % interval).

    Attributes:
        mode: ``"two-player"`` (losses in win probability, against the optimal player) or
            ``"solo"`` (losses in turns).
        agent, games, seed: what was evaluated, how many games, the seed of the dice.
        baseline: ``(games,)`` the optimal value of the policy's seat in each game (two
            players: the optimal win probability of the opener or of the second player; solo:
            the optimal expected turns).
        outcome: ``(games,)`` what happened: 1.0 for a win, 0.0 otherwise (two players); the
            turns taken (solo).
        per_game: ``(games,)`` the loss of the policy's decisions in each game.
        by_dice: ``(games, 5)`` the same split by the dice just thrown (1..5).
        decisions, mistakes: ``(5,)`` decisions after a throw of 1..5 dice, and those that
            lost something.
        action_counts, action_loss: ``(2, 2)`` rows the policy's choice (roll on, bank),
            columns the optimum's; counts and total loss (a tie counts as agreement).
        seconds: wall-clock time.
        first: ``(games,)`` who opened each game (0: the policy, 1: the optimal player; two
            players only).
        trace: the policy's decisions as charged, step by step (``trace=True`` of
            :func:`fivethousand_gap`; ``games`` there is the game's index), else ``None``.
    """

    mode: str
    agent: str
    games: int
    seed: int
    baseline: np.ndarray
    outcome: np.ndarray
    per_game: np.ndarray
    by_dice: np.ndarray
    decisions: np.ndarray
    mistakes: np.ndarray
    action_counts: np.ndarray
    action_loss: np.ndarray
    seconds: float = 0.0
    first: np.ndarray | None = None
    trace: list[DecisionBatch] | None = None

    @property
    def unit(self) -> str:
        return "turns" if self.mode == "solo" else "win probability"

    def classical(self) -> np.ndarray:
        """``(games,)`` the gap measured from outcomes alone: ``baseline - won`` (two players),
        ``turns - baseline`` (solo)."""
        if self.mode == "solo":
            return self.outcome - self.baseline
        return self.baseline - self.outcome

    def classical_gap(self) -> tuple[float, float, float]:
        """``(mean, low, high)`` of :meth:`classical`."""
        return mean_ci(self.classical())

    @property
    def value(self) -> float:
        """The first entry of :meth:`estimate`."""
        return self.estimate()[0]

    def estimate(self) -> tuple[float, float, float]:
        """The policy's win rate against the optimal player (two players) or its expected
        turns (solo), from the regret: ``(value, CI low, CI high)``."""
        sign = 1.0 if self.mode == "solo" else -1.0
        return mean_ci(self.baseline + sign * self.per_game)

    def agreement(self) -> tuple[float, float, float]:
        """``(mean, low, high)`` of the game-by-game difference of the two gap estimates."""
        return mean_ci(self.classical() - self.per_game)

    def variance_reduction(self) -> float:
        """Variance of the classical estimate over the variance of the regret."""
        v = float(self.per_game.var(ddof=1))
        c = float(self.classical().var(ddof=1))
        return c / v if v > 0 else math.inf

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary (no per-game arrays)."""
        low, high = self.ci
        c = self.classical_gap()
        return {"game": "fivethousand", "mode": self.mode, "agent": self.agent,
                "games": self.games, "seed": self.seed, "unit": self.unit, "gap": self.gap,
                "gap_ci": [low, high], "classical_gap": c[0], "classical_gap_ci": [c[1], c[2]],
                "estimate": list(self.estimate()), "agreement": list(self.agreement()),
                "variance_reduction": self.variance_reduction(),
                "by_dice": self.by_dice.mean(axis=0).tolist(),
                "decisions": self.decisions.tolist(), "mistakes": self.mistakes.tolist(),
                "action_counts": self.action_counts.tolist(),
                "action_loss_per_game": (self.action_loss / self.games).tolist(),
                "seconds": self.seconds}

    def format_text(self) -> str:
        """A human-readable report of the gap and its decomposition."""
        low, high = self.ci
        c, est, a = self.classical_gap(), self.estimate(), self.agreement()
        what = "expected turns" if self.mode == "solo" else "win rate vs optimal"
        lines = [f"{self.agent} on 5000 ({self.mode}): {self.games:,} games, seed {self.seed}",
                 f"  gap to the optimum  {self.gap:.4f} {self.unit}  95 % CI "
                 f"[{low:.4f}, {high:.4f}]   so its {what} is {est[0]:.4f} "
                 f"[{est[1]:.4f}, {est[2]:.4f}]",
                 f"  from outcomes alone {c[0]:.4f}  95 % CI [{c[1]:.4f}, {c[2]:.4f}]   variance "
                 f"reduction {self.variance_reduction():.1f}x; difference of the two "
                 f"{a[0]:+.4f} [{a[1]:+.4f}, {a[2]:+.4f}]",
                 "  by dice just thrown (loss per game, decisions, share that lose):"]
        for n in range(R.N_DICE):
            d, mk = int(self.decisions[n]), int(self.mistakes[n])
            lines.append(f"    {n + 1} dice  {self.by_dice[:, n].mean():.4f}  {d:9,d} decisions, "
                         f"{(mk / d if d else 0.0):6.2%} mistakes")
        lines.append("  chose -> optimal: count, loss per game")
        for i, chosen in enumerate(ACTION_KINDS):
            for j, best in enumerate(ACTION_KINDS):
                if i != j:
                    lines.append(f"    {chosen:>8s} -> {best:<8s} {self.action_counts[i, j]:9,d}"
                                 f"  {self.action_loss[i, j] / self.games:.4f}")
        return "\n".join(lines)


class _Recorder:
    """Charges the decisions of player 0 (the evaluated policy) their loss."""

    def __init__(self, optimal: Any, n_games: int, solo: bool, trace: bool = False) -> None:
        self.optimal = optimal
        self.trace: list[DecisionBatch] | None = [] if trace else None
        self.solo = solo
        self.by_dice = np.zeros((n_games, R.N_DICE))
        self.decisions = np.zeros(R.N_DICE, dtype=np.int64)
        self.mistakes = np.zeros(R.N_DICE, dtype=np.int64)
        self.action_counts = np.zeros((2, 2), dtype=np.int64)
        self.action_loss = np.zeros((2, 2))

    def __call__(self, player: int, rows: np.ndarray, state: G.FiveThousandState,
                 masks: np.ndarray, chosen: np.ndarray) -> None:
        if player != 0:
            return
        values = self.optimal.state_action_values(state)
        sign = -1.0 if self.solo else 1.0  # solo values are turns: fewer is better
        key = np.where(masks & np.isfinite(values), sign * values, -np.inf)
        best = key.max(axis=1)
        taken = key[np.arange(len(rows)), chosen]
        loss = np.where(np.isfinite(best), best - taken, 0.0)
        # a legal action the tables cannot value (NaN) only occurs when nothing is finite
        loss = np.where(np.isfinite(loss), loss, 0.0)
        loss = np.where(loss > TOLERANCE, loss, 0.0)
        dice = R.ROLL_SIZE[state.roll].astype(np.int64) - 1
        np.add.at(self.by_dice, (rows, dice), loss)
        np.add.at(self.decisions, dice, 1)
        np.add.at(self.mistakes, dice, loss > 0)
        optimal = np.where(loss > 0, self.optimal.act_states(state, masks), chosen)
        cell = action_cells(chosen, optimal)
        np.add.at(self.action_counts, cell, 1)
        np.add.at(self.action_loss, cell, loss)
        if self.trace is not None:
            self.trace.append(DecisionBatch(rows, state, masks, values, chosen, optimal, loss))


def fivethousand_gap(agent: Any, games: int = 4000, seed: int | None = 0, *,
                     mode: str = "two-player", optimal: Any = None, rules: Any = None,
                     name: str | None = None, trace: bool = False) -> FiveThousandRegret:
    """Measure a 5000 policy's gap to the optimum, decision by decision.

    Args:
        agent: any 5000 player (``act_batch`` / ``act`` or a function ``(observation, mask)
            -> action``) for the observation of ``mode`` (``FiveThousand-v0`` with two
            players, or ``FiveThousandSolo-v0``).
        games: games to play (two players: seats alternate, so an even number is fair).
        seed: seed of the dice.
        mode: ``"two-player"`` (against the optimal player, losses in win probability) or
            ``"solo"`` (losses in expected turns).
        optimal: an :class:`agents.fivethousand.optimal.OptimalAgent` (default: built).
        rules: the 5000 rules (default: the standard game).
        name: the agent's name in reports.
        trace: keep the policy's decisions as charged (:attr:`FiveThousandRegret.trace`).

    Returns:
        A :class:`FiveThousandRegret`.
    """
    from agents.fivethousand.optimal import OptimalAgent, play_solo_games

    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {list(MODES)}")
    if games < 2:
        raise ValueError(f"games must be at least 2 (for a confidence interval), got {games}")
    if optimal is None:
        optimal = OptimalAgent("fivethousand", rules=rules)
    seed = 0 if seed is None else int(seed)
    solo = mode == "solo"
    t0 = time.perf_counter()
    recorder = _Recorder(optimal, games, solo, trace)
    first = None
    if solo:
        outcome = play_solo_games(agent, games, rules=optimal.rules, seed=seed,
                                  on_decision=recorder).astype(np.float64)
        baseline = np.full(games, float(optimal.expected_turns))
    else:
        result = play_fivethousand_matches([agent, optimal], games, seed=seed,
                                           rules=optimal.rules, on_decision=recorder)
        outcome = (result.winner == 0).astype(np.float64)
        first = result.first
        p1 = float(optimal.first_player_win_probability)
        baseline = np.where(result.first == 0, p1, 1.0 - p1)
    return FiveThousandRegret(
        mode=mode, agent=name or str(getattr(agent, "name", None) or type(agent).__name__),
        games=games, seed=seed, baseline=baseline, outcome=outcome,
        per_game=recorder.by_dice.sum(axis=1), by_dice=recorder.by_dice,
        decisions=recorder.decisions, mistakes=recorder.mistakes,
        action_counts=recorder.action_counts, action_loss=recorder.action_loss,
        seconds=time.perf_counter() - t0, first=first, trace=recorder.trace)
