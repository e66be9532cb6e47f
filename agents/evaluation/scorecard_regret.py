"""Exact per-decision regret of any policy on the scorecard games.

We hold the optimal action values ``Q*(s, a)`` (expected points still to come after ``a``,
from the DP table of :mod:`agents.solvers.scorecard_dp`), so each decision a policy takes
along its own games can be charged the optimal value it gives up,
``V*(s) - Q*(s, a) >= 0`` with ``V*(s) = max over the legal actions of Q*(s, .)``.  By the
performance-difference lemma the sum of these losses over a game is an unbiased estimate of
the policy's gap to the optimum, ``V*(s0) - V^pi(s0)``, and its variance is far smaller than
that of final scores (about 60 points of SD per game): only the decisions the policy gets
wrong contribute.  Every point lost is assigned to a decision, so the gap decomposes by
decision kind, by turn and by the box chosen against the box the optimum would choose.

:func:`optimality_gap` plays the policy's games (common random numbers: game ``i`` draws its
dice from the stream ``(seed, i)``), charges each decision its loss, and, unless told not to,
plays the optimal player on the same dice for the paired final-score difference -- the
classical estimate the regret is checked against.  It returns a :class:`ScorecardRegret`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.evaluation.scorecard_games import (
    ScorecardGames,
    actions_of,
    run_scorecard_games,
    scorecard_observations,
)
from dice_env.dice import FRESH_ROLL_PROB, HOLD_KEEP, KEEP_TO_ROLL_PROB, N_HOLDS, ROLLS
from dice_env.scorecard import game as G
from dice_env.scorecard.rules import Rules, coerce_rules

__all__ = ["DecisionBatch", "ScorecardRegret", "box_cells", "decision_kinds", "mean_ci",
           "optimality_gap"]

Z95 = 1.959963984540054
#: losses below this are rounding, not mistakes (the DP values are float64 sums)
TOLERANCE = 1e-9
#: decisions evaluated at once when averaging over the dice
AVERAGING_CHUNK = 65_536


def mean_ci(x: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``x`` and its normal-approximation 95 % interval."""
    x = np.asarray(x, dtype=np.float64)
    m = float(x.mean()) if x.size else math.nan
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size) if x.size > 1 else math.nan
    return m, m - half, m + half


def decision_kinds(rules: Rules) -> list[str]:
    """Names of the decision kinds, by the throw the decision follows.

    The decisions after the first and second throws are holds (or scoring early); the one
    after the last throw is the box choice.
    """
    r = rules.rolls_per_turn
    names = [f"hold after roll {k}" for k in range(1, r)]
    return names + [f"box after roll {r}"]


def box_cells(chosen: np.ndarray, optimal: np.ndarray, n_boxes: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells of the box-vs-optimal table for decisions: ``(row, col, counted)``.

    ``row`` is the box the policy scored (``n_boxes`` for a reroll), ``col`` the optimum's
    choice, and ``counted`` the decisions the table counts (where either scored a box).
    """
    row = np.where(chosen >= N_HOLDS, chosen - N_HOLDS, n_boxes)
    col = np.where(optimal >= N_HOLDS, optimal - N_HOLDS, n_boxes)
    return row, col, (row != n_boxes) | (col != n_boxes)


@dataclass
class DecisionBatch:
    """The decisions of one step of the games, as charged (kept when asked for a trace).

    Attributes:
        games: ``(N,)`` the game of each decision (its index in the evaluation).
        state: the games' states before the decision (a copy).
        masks: ``(N, n_actions)`` the legal actions.
        values: ``(N, n_actions)`` the optimal action values ``Q*(s, a)`` of the optimal
            player's tables (scorecard: points still to come; 5000: the mover's win
            probability, or turns still to play solo).
        chosen: ``(N,)`` the policy's actions; ``optimal``: the optimum's (the policy's own
            on a tie).
        loss: ``(N,)`` what each decision was charged.
    """

    games: np.ndarray
    state: Any
    masks: np.ndarray
    values: np.ndarray
    chosen: np.ndarray
    optimal: np.ndarray
    loss: np.ndarray


class GapEstimate:
    """The mean of ``per_game`` losses and its 95 % interval (shared by the regret results)."""

    per_game: np.ndarray

    @property
    def gap(self) -> float:
        """Mean loss per game."""
        return float(self.per_game.mean())

    @property
    def ci(self) -> tuple[float, float]:
        """95 % confidence interval of :attr:`gap`, ``(low, high)``."""
        _, low, high = mean_ci(self.per_game)
        return low, high

    @property
    def value(self) -> float:
        """The policy's expected result estimated from the regret (its expected score, or
        its win probability against the optimal player)."""
        raise NotImplementedError


@dataclass
class ScorecardRegret(GapEstimate):
    """The exact-regret evaluation of one policy on one scorecard game.

    Per-game arrays have one entry per game (``games`` of them); losses are in points.

    Attributes:
        game, agent: what was evaluated (the agent's name or ``repr``).
        games, seed: how many games, and the seed of their dice.
        optimal_value: ``V*(s0)``, the optimal expected final score (exact).
        per_game: ``(games,)`` the points the policy's decisions gave up in each game.
        by_kind: ``(games, n_kinds)`` the same split by decision kind (:attr:`kinds`).
        by_turn: ``(games, n_boxes)`` split by turn (the number of boxes filled before it).
        decisions, mistakes: ``(n_kinds,)`` decisions taken, and those that lost points.
        box_counts, box_loss: ``(n_boxes + 1, n_boxes + 1)`` decisions where the policy or the
            optimum scored a box: rows the policy's choice, columns the optimum's (the last row
            / column is "reroll"); counts and points lost.  A choice that ties the optimum is
            counted on the diagonal.
        stats: the policy's final statistics (totals, upper bonus, five of a kind).
        game_seeds: ``(games,)`` the seed of each game when it was played as the first game
            of its own seed (``game_seeds`` of :func:`optimality_gap`), else ``None``.
        trace: every decision as charged, step by step (``trace=True`` of
            :func:`optimality_gap`), else ``None``.
        optimal_stats: the optimal player's on the same dice (``None`` if not played).
        seconds: wall-clock time of the evaluation.
        luck: ``(games,)`` how much the dice moved the optimal expected final score in each
            game (zero mean under any policy); ``realized - luck == optimal_value - total``
            exactly, game by game.
        realized: ``(games,)`` the losses of the decisions as taken (the same as
            :attr:`per_game` unless ``estimator`` is ``"dice-averaged regret"``).
        estimator: ``"regret"`` or ``"dice-averaged regret"`` (see :func:`optimality_gap`).
    """

    game: str
    agent: str
    games: int
    seed: int
    optimal_value: float
    kinds: list[str]
    box_labels: list[str]
    per_game: np.ndarray
    by_kind: np.ndarray
    by_turn: np.ndarray
    decisions: np.ndarray
    mistakes: np.ndarray
    box_counts: np.ndarray
    box_loss: np.ndarray
    stats: ScorecardGames
    optimal_stats: ScorecardGames | None = None
    seconds: float = 0.0
    luck: np.ndarray | None = None
    realized: np.ndarray | None = None
    estimator: str = "regret"
    game_seeds: np.ndarray | None = None
    trace: list[DecisionBatch] | None = None

    # -- the gap (``gap``: mean points lost per game, the estimate of V*(s0) - V^pi(s0);
    # ``ci``: its 95 % interval) -------------------------------------------------------------
    @property
    def expected_score(self) -> float:
        """The policy's expected final score estimated from the regret: ``V*(s0) - gap``."""
        return self.optimal_value - self.gap

    @property
    def value(self) -> float:
        """:attr:`expected_score`."""
        return self.expected_score

    def kind_gaps(self) -> dict[str, tuple[float, float, float]]:
        """Decision kind -> ``(mean points lost per game, CI low, CI high)``."""
        return {k: mean_ci(self.by_kind[:, i]) for i, k in enumerate(self.kinds)}

    def turn_gaps(self) -> np.ndarray:
        """``(n_boxes,)`` mean points lost per game at each turn."""
        return self.by_turn.mean(axis=0)

    # -- the classical estimate it is checked against -------------------------------------
    @property
    def paired_diff(self) -> np.ndarray | None:
        """``(games,)`` optimal minus policy final score, game by game (same dice)."""
        if self.optimal_stats is None:
            return None
        return (self.optimal_stats.total - self.stats.total).astype(np.float64)

    def paired_gap(self) -> tuple[float, float, float] | None:
        """``(mean, low, high)`` of :attr:`paired_diff`: the gap from final scores."""
        d = self.paired_diff
        return None if d is None else mean_ci(d)

    def agreement(self) -> tuple[float, float, float] | None:
        """``(mean, low, high)`` of the game-by-game difference of the two gap estimates.

        Both are unbiased for the same gap, so the interval should contain 0.
        """
        d = self.paired_diff
        return None if d is None else mean_ci(d - self.per_game)

    def variance_reduction(self) -> float:
        """Variance of the paired final-score difference over the variance of the regret
        (how many times fewer games the regret needs for the same precision)."""
        d = self.paired_diff
        if d is None:
            return math.nan
        v = float(self.per_game.var(ddof=1))
        return float(d.var(ddof=1)) / v if v > 0 else math.inf

    def rates(self) -> dict[str, tuple[float, float | None]]:
        """``{"upper bonus" | "five of a kind": (policy rate, optimal rate or None)}``."""
        out = {}
        for label, attr in (("upper bonus", "upper_bonus"), ("five of a kind", "five_kind")):
            opt = None if self.optimal_stats is None else float(getattr(self.optimal_stats,
                                                                         attr).mean())
            out[label] = (float(getattr(self.stats, attr).mean()), opt)
        return out

    def top_box_mistakes(self, k: int = 8) -> list[tuple[str, str, int, float]]:
        """The ``k`` costliest (policy's choice, optimal choice) pairs off the diagonal:
        ``(chosen, optimal, count, points lost per game)``."""
        loss = self.box_loss.copy()
        np.fill_diagonal(loss, 0.0)
        labels = self.box_labels + ["reroll"]
        order = np.argsort(-loss, axis=None)[:k]
        out = []
        for flat in order:
            i, j = np.unravel_index(flat, loss.shape)
            if loss[i, j] <= 0:
                break
            out.append((labels[i], labels[j], int(self.box_counts[i, j]),
                        float(loss[i, j]) / self.games))
        return out

    # -- reporting ------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """A JSON-able summary (no per-game arrays)."""
        low, high = self.ci
        out: dict[str, Any] = {
            "game": self.game, "agent": self.agent, "games": self.games, "seed": self.seed,
            "estimator": self.estimator, "optimal_value": self.optimal_value, "gap": self.gap,
            "gap_ci": [low, high],
            "gap_sd": float(self.per_game.std(ddof=1)) if self.games > 1 else math.nan,
            "expected_score": self.expected_score, "mean_score": float(self.stats.total.mean()),
            "by_kind": {k: v[0] for k, v in self.kind_gaps().items()},
            "decisions": dict(zip(self.kinds, self.decisions.tolist())),
            "mistakes": dict(zip(self.kinds, self.mistakes.tolist())),
            "by_turn": self.turn_gaps().tolist(),
            "rates": {k: list(v) for k, v in self.rates().items()},
            "top_box_mistakes": self.top_box_mistakes(),
            "seconds": self.seconds,
        }
        paired = self.paired_gap()
        if paired is not None:
            out.update(paired_gap=paired[0], paired_gap_ci=[paired[1], paired[2]],
                       agreement=list(self.agreement()),
                       variance_reduction=self.variance_reduction())
        return out

    def format_text(self) -> str:
        """A human-readable report of the gap and its decomposition."""
        low, high = self.ci
        lines = [f"{self.agent} on {self.game}: {self.games:,} games, seed {self.seed}, "
                 f"{self.estimator}",
                 f"  gap to the optimum  {self.gap:8.3f} points  95 % CI [{low:.3f}, {high:.3f}]"
                 f"   (optimal {self.optimal_value:.4f}, so the policy's expected score is "
                 f"{self.expected_score:.3f})"]
        paired = self.paired_gap()
        if paired is not None:
            a = self.agreement()
            lines.append(f"  paired final scores {paired[0]:8.3f} points  95 % CI "
                         f"[{paired[1]:.3f}, {paired[2]:.3f}]   variance reduction "
                         f"{self.variance_reduction():.1f}x; difference of the two "
                         f"{a[0]:+.3f} [{a[1]:+.3f}, {a[2]:+.3f}]")
        lines.append("  by decision kind (points per game, decisions, share that lose points):")
        for i, (kind, (m, lo, hi)) in enumerate(self.kind_gaps().items()):
            d, mk = int(self.decisions[i]), int(self.mistakes[i])
            share = mk / d if d else 0.0
            lines.append(f"    {kind:18s} {m:8.3f} [{lo:.3f}, {hi:.3f}]  {d:9,d} decisions, "
                         f"{share:6.2%} mistakes")
        turns = self.turn_gaps()
        lines.append("  by turn: " + " ".join(f"{t + 1}:{v:.2f}" for t, v in enumerate(turns)))
        rates = self.rates()
        lines.append("  rates (policy / optimal on the same dice): " + ", ".join(
            f"{k} {p:.3f}" + ("" if o is None else f" / {o:.3f}") for k, (p, o) in rates.items()))
        mistakes = self.top_box_mistakes()
        if mistakes:
            lines.append("  costliest box choices (chose -> optimal: count, points per game):")
            for chosen, best, count, per in mistakes:
                lines.append(f"    {chosen:>16s} -> {best:<16s} {count:8,d}  {per:.3f}")
        return "\n".join(lines)


class _RegretRecorder:
    """The :data:`~agents.evaluation.scorecard_games.DecisionCallback` that charges losses.

    With ``agent`` given it also averages, over the dice, the loss of the decision that
    follows each chance node the game passes (see ``dice_averaged`` in
    :func:`optimality_gap`): ``avg_kind`` / ``avg_turn``.
    """

    def __init__(self, optimal: Any, rules: Rules, n_games: int, agent: Any = None,
                 canonical_holds: bool = True, trace: bool = False) -> None:
        self.optimal = optimal
        self.trace: list[DecisionBatch] | None = [] if trace else None
        self.rules = rules
        self.agent = agent
        self.canonical_holds = canonical_holds
        self.avg_kind = np.zeros((n_games, rules.rolls_per_turn))
        self.avg_turn = np.zeros((n_games, rules.n_boxes))
        b = rules.n_boxes
        self.n_kinds = rules.rolls_per_turn
        self.per_kind = np.zeros((n_games, self.n_kinds))
        self.per_turn = np.zeros((n_games, b))
        self.decisions = np.zeros(self.n_kinds, dtype=np.int64)
        self.mistakes = np.zeros(self.n_kinds, dtype=np.int64)
        self.box_counts = np.zeros((b + 1, b + 1), dtype=np.int64)
        self.box_loss = np.zeros((b + 1, b + 1))
        # luck: the change of the optimal expected final score that the dice (not the policy)
        # made; telescoping, regret - luck = V*(s0) - final score, game by game
        self.luck = np.zeros(n_games)
        self.expected_after = np.full(n_games, float(optimal.expected_score))
        self.started = False

    def __call__(self, start: int, rows: np.ndarray, state: G.ScorecardState,
                 masks: np.ndarray, chosen: np.ndarray) -> None:
        values = self.optimal.state_action_values(state)
        legal_values = np.where(masks, values, -np.inf)
        best = legal_values.max(axis=1)
        taken = values[np.arange(len(rows)), chosen]
        loss = np.where(np.isfinite(best), best - taken, 0.0)
        if not np.all(np.isfinite(loss)):
            raise ValueError("the policy took an action the optimal player values at -inf")
        loss = np.where(loss > TOLERANCE, loss, 0.0)
        games = start + rows
        on_card = state.total(self.rules).astype(np.float64)
        self.luck[games] += on_card + best - self.expected_after[games]
        self.expected_after[games] = on_card + taken
        kind = self.rules.rolls_per_turn - 1 - state.rolls_left
        turn = (~state.open_boxes()).sum(axis=1)
        np.add.at(self.per_kind, (games, kind), loss)
        np.add.at(self.per_turn, (games, turn), loss)
        np.add.at(self.decisions, kind, 1)
        np.add.at(self.mistakes, kind, loss > 0)
        # chosen box vs the optimum's: the policy's choice stands for the optimum's on a tie
        optimal = np.where(loss > 0, self.optimal.act_states(state, masks), chosen)
        row, col, boxes = box_cells(chosen, optimal, self.rules.n_boxes)
        np.add.at(self.box_counts, (row[boxes], col[boxes]), 1)
        np.add.at(self.box_loss, (row[boxes], col[boxes]), loss[boxes])
        if self.trace is not None:
            self.trace.append(DecisionBatch(games, state, masks, values, chosen, optimal, loss))
        if self.agent is not None:
            self._average_next(games, state, chosen)

    def expected_loss(self, state: G.ScorecardState, probs: np.ndarray) -> np.ndarray:
        """``(N,)`` the policy's expected loss at the decision after a throw: game ``i`` has
        the card and rerolls left of ``state`` row ``i`` and throws roll ``r`` with
        probability ``probs[i, r]``."""
        out = np.zeros(state.n)
        rows, rolls = np.nonzero(probs)
        for lo in range(0, len(rows), AVERAGING_CHUNK):
            r, roll = rows[lo:lo + AVERAGING_CHUNK], rolls[lo:lo + AVERAGING_CHUNK]
            sub = state.take(r)
            sub.roll = roll.astype(np.int64)
            sub.dice = ROLLS[roll].astype(np.int8)
            legal, points, _ = G.box_options(self.rules, sub)
            masks = G.action_mask(self.rules, sub, self.canonical_holds, legal)
            chosen = actions_of(self.agent, scorecard_observations(self.rules, sub, points),
                                masks)
            values = self.optimal.state_action_values(sub)
            best = np.where(masks, values, -np.inf).max(axis=1)
            loss = np.where(np.isfinite(best), best - values[np.arange(len(r)), chosen], 0.0)
            loss = np.where(loss > TOLERANCE, loss, 0.0)
            out += np.bincount(r, weights=probs[r, roll] * loss, minlength=state.n)
        return out

    def _add_average(self, games: np.ndarray, state: G.ScorecardState,
                     probs: np.ndarray) -> None:
        kind = self.rules.rolls_per_turn - 1 - state.rolls_left
        turn = (~state.open_boxes()).sum(axis=1)
        expected = self.expected_loss(state, probs)
        np.add.at(self.avg_kind, (games, kind), expected)
        np.add.at(self.avg_turn, (games, turn), expected)

    def _average_next(self, games: np.ndarray, state: G.ScorecardState,
                      chosen: np.ndarray) -> None:
        """Average over the dice the loss of the decision after each game's next throw."""
        if not self.started:  # the first throw of every game: the same expectation for all
            empty = G.ScorecardState.empty(self.rules, 1)
            empty.rolls_left[:] = self.rules.rolls_per_turn - 1
            first = self.expected_loss(empty, FRESH_ROLL_PROB[None, :])[0]
            self.avg_kind[:, 0] += first
            self.avg_turn[:, 0] += first
            self.started = True
        after = state.copy()
        G.apply_actions(self.rules, after, chosen, np.random.default_rng(0))
        going = ~after.finished()
        holding = chosen < N_HOLDS
        probs = np.where(holding[:, None],
                         KEEP_TO_ROLL_PROB[HOLD_KEEP[state.roll, np.minimum(chosen, N_HOLDS - 1)]],
                         FRESH_ROLL_PROB[None, :])
        rows = np.flatnonzero(going)
        self._add_average(games[rows], after.take(rows), probs[rows])


def _name_of(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def optimality_gap(agent: Any, game: str | Rules = "penta", games: int = 2000,
                   seed: int | None = 0, *, paired: bool = True, optimal: Any = None,
                   batch_size: int = 10_000, canonical_holds: bool = True,
                   name: str | None = None, progress: bool = False,
                   dice_averaged: bool = False,
                   game_seeds: Sequence[int] | np.ndarray | None = None,
                   trace: bool = False) -> ScorecardRegret:
    """Measure a policy's gap to the optimum on a scorecard game, decision by decision.

    Args:
        agent: any player of the game (``act_batch`` / ``act``, or a function
            ``(observation, mask) -> action``; see :func:`agents.load`).
        game: a preset name (``"penta"``, ``"dice-poker"``, ...), a Gymnasium id or a
            :class:`Rules`.
        games: how many games to play.
        seed: seed of the dice (common random numbers: game ``i`` uses the stream
            ``(seed, i)``).
        paired: also play the optimal player on the same dice, for the paired final-score
            difference, the rates beside the optimum's and the variance-reduction factor.
        optimal: an :class:`agents.scorecard.optimal.OptimalAgent` for the game (default:
            built, which solves or loads the game's table).
        batch_size: games played side by side.
        canonical_holds: the env's hold encoding.
        name: the agent's name in reports (default: its ``name`` attribute or class).
        progress: show a progress bar.
        dice_averaged: charge each decision the loss *expected* over the throw that led to it
            (the policy and the optimum evaluated on every possible roll, weighted by its
            probability) instead of the loss of the roll that fell.  Still unbiased (a
            conditional expectation of each term), with a smaller variance -- most useful for
            weak policies whose losses depend on the dice -- at the cost of asking the policy
            about ~100 times more decisions.  The box table and mistake counts stay those of
            the decisions actually taken.
        game_seeds: play one game per seed instead of ``games`` games of ``seed``: game ``i``
            is the first game of the evaluation seeded ``game_seeds[i]`` -- the game
            ``optimality_gap(agent, game, games=n, seed=game_seeds[i])`` plays first, for any
            ``n`` (what :mod:`agents.evaluation.inspect.games` calls "seed S").  One game is
            then enough (its interval is NaN).
        trace: keep every decision as charged (:attr:`ScorecardRegret.trace`).

    Returns:
        A :class:`ScorecardRegret`: ``.gap`` (mean points lost per game), ``.ci`` (its 95 %
        interval) and the decomposition.
    """
    import time

    from agents.scorecard.optimal import OptimalAgent

    rules = coerce_rules(game)
    if game_seeds is not None:
        game_seeds = np.asarray(game_seeds, dtype=np.int64).ravel()
        if game_seeds.size == 0 or np.any(game_seeds < 0):
            raise ValueError("game_seeds must be one or more non-negative seeds")
        games, seed = len(game_seeds), int(game_seeds[0])
    elif games < 2:
        raise ValueError(f"games must be at least 2 (for a confidence interval), got {games}")
    if optimal is None:
        optimal = OptimalAgent(rules)
    elif optimal.rules != rules:
        raise ValueError(f"the optimal player is for {optimal.rules.name!r}, not {rules.name!r}")
    seed = 0 if seed is None else int(seed)
    t0 = time.perf_counter()
    recorder = _RegretRecorder(optimal, rules, games, agent if dice_averaged else None,
                               canonical_holds, trace)
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=games * (2 if paired else 1), desc=f"regret {rules.name}",
                   unit="game", leave=False)
    try:
        stats = run_scorecard_games(agent, rules, games, seed, batch_size, canonical_holds,
                                    on_decision=recorder, progress=bar, game_seeds=game_seeds)
        optimal_stats = None
        if paired:
            optimal_stats = run_scorecard_games(optimal, rules, games, seed, batch_size,
                                                canonical_holds, progress=bar,
                                                game_seeds=game_seeds)
    finally:
        if bar is not None:
            bar.close()
    realized = recorder.per_kind.sum(axis=1)
    by_kind, by_turn = recorder.per_kind, recorder.per_turn
    if dice_averaged:
        by_kind, by_turn = recorder.avg_kind, recorder.avg_turn
    return ScorecardRegret(
        game=rules.name, agent=name or _name_of(agent), games=games, seed=seed,
        optimal_value=float(optimal.expected_score), kinds=decision_kinds(rules),
        box_labels=list(rules.labels), per_game=by_kind.sum(axis=1), realized=realized,
        estimator="dice-averaged regret" if dice_averaged else "regret",
        by_kind=by_kind, by_turn=by_turn, decisions=recorder.decisions,
        mistakes=recorder.mistakes, box_counts=recorder.box_counts,
        box_loss=recorder.box_loss, stats=stats, optimal_stats=optimal_stats,
        seconds=time.perf_counter() - t0,
        luck=recorder.luck + stats.total - recorder.expected_after, game_seeds=game_seeds,
        trace=recorder.trace)
