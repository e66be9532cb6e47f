"""Pig's evaluation hooks (see :mod:`agents.families`): players against opponents, and the
exact regret of any player against the optimal one.

* :func:`evaluate_players` -- the seat-balanced win rate of each player against each opponent,
  on common random numbers (:func:`agents.pig.matches.play_matches`: every deal is played from
  both seats with the same dice), with a 95 % interval over deals.
* :func:`regret_of` -- the exact per-decision regret in win probability against the optimal
  player (:class:`~agents.pig.optimal.OptimalAgent`), as :class:`PigRegret`.

**The regret.**  ``Q*(s, a)`` is the probability that the player to move wins after action
``a`` in state ``s`` = (its score ``i``, the other's ``j``, the turn total ``k``), both then
playing optimally; it is read from the solver's table (:meth:`PigSolution.action_values
<agents.pig.solver.PigSolution.action_values>`).  The evaluated player plays the optimal
player, and each of its decisions is charged ``max_a Q*(s, a) - Q*(s, chosen)``: the win
probability it gave up there.  The optimal player's own decisions cost nothing, so its regret
is exactly 0.

**The estimator of the win probability.**  Let ``W(s)`` be the evaluated player's win
probability in ``s`` if both play optimally from there (``V*(s)`` when it is to move,
``1 - V*(s)`` otherwise).  At a decision of the optimal player the expected next ``W`` equals
``W(s)`` (the optimal player keeps the minimax value); at a decision of the evaluated player it
drops in expectation by exactly the charged loss.  ``W`` is 1 at a win of the evaluated player
and 0 at a loss, so, summed over a game, ``E[losses] = W(s0) - P(win)`` with ``W(s0)`` the
optimal value of its seat: ``p1`` (0.5306) when it opens, ``1 - p1`` when it plays second.
Every deal is played once from each seat, so the seats' values average to exactly 0.5 and

    value = 0.5 - (mean loss per game)

is an unbiased estimate of its seat-balanced win probability against the optimal player,
much less noisy than counting wins (the count is reported beside it, with the variance ratio).
Intervals are taken over deals (the two games of a deal share their dice).  The optimum ignores
OpenSpiel's ``horizon`` (see :mod:`agents.pig.solver`): a game that reaches it is a draw, not a
win, which the regret does not see; at the default horizon of 1000 moves draws are not seen in
practice, and :attr:`PigRegret.draws` counts them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.pig.matches import play_matches, seat_decisions
from agents.pig.optimal import OptimalAgent
from dice_env.pig import rules as R
from dice_env.pig.rules import PigBatch, PigRules, coerce_rules

__all__ = ["DEFAULT_OPPONENTS", "PigRegret", "evaluate_players", "pig_gap", "regret_of"]

#: the opponents of :func:`evaluate_players` when none are named
DEFAULT_OPPONENTS = ("hold-20", "optimal")
#: a decision losing at most this much win probability counts as optimal (ties of the table)
TOLERANCE = 1e-9
#: the normal quantile of a 95 % interval
Z95 = 1.959963984540054
#: the rows and columns of the roll / hold table
ACTION_KINDS = R.ACTION_NAMES
_CHUNK = 256  # faces drawn per deal at a time


def mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``x`` and its normal-approximation 95 % interval
    (NaN bounds for fewer than two values)."""
    x = np.asarray(x, dtype=np.float64)
    m = float(x.mean()) if x.size else math.nan
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(x.size) if x.size > 1 else math.nan
    return m, m - half, m + half


def _deals(games: int) -> int:
    if (isinstance(games, (bool, np.bool_)) or not isinstance(games, (int, np.integer))
            or games < 1):
        raise ValueError(f"games must be a positive integer, got {games!r}")
    return (int(games) + 1) // 2


# ------------------------------------------------------------------------------------------
# players against opponents
# ------------------------------------------------------------------------------------------
def evaluate_players(players: Mapping[str, Any], game: Any, label: str, games: int, seed: int,
                     opponents: Sequence[str] | None = None, roster: Any = None) -> list[dict]:
    """The seat-balanced win rate of each of ``players`` (name -> player) against each
    registered player of ``opponents`` (default :data:`DEFAULT_OPPONENTS`), two players.

    ``games`` is rounded up to an even number: ``games / 2`` deals, each played from both seats
    on the same dice (common random numbers).  Opponents are built with ``roster.make(name,
    game)`` (the evaluation layer's ``Roster``, which :mod:`agents.pig` cannot import: it sits
    above it); an opponent it returns as ``None`` (not available) is left out.  A row:
    ``game`` (``label``), ``agent``, ``opponent``, ``games``, ``win_rate`` (draws at the
    horizon count as no win), ``ci_low`` / ``ci_high`` (95 %, over deals), ``sem``,
    ``draws``, ``seconds``.
    """
    rules = coerce_rules(game).replace(num_players=2)
    n_deals = _deals(games)
    if not callable(getattr(roster, "make", None)):
        raise ValueError(f"roster must build the opponents by name (roster.make(name, game), as "
                         f"agents.evaluation.benchmark.Roster does), got {roster!r}")
    names = DEFAULT_OPPONENTS if opponents is None else opponents
    built = {o: roster.make(o, game) for o in names}
    rows = []
    for name, agent in players.items():
        for opp, opponent in built.items():
            if opponent is None:
                continue
            start = time.perf_counter()
            result = play_matches([agent, opponent], n_deals, rules=rules, seed=seed)
            rate, se = result["win_rate"][0], result["stderr"][0]
            half = Z95 * se if math.isfinite(se) else math.nan
            rows.append({"game": label or R.NAME, "agent": name, "opponent": opp,
                         "games": result["games"], "win_rate": rate, "ci_low": rate - half,
                         "ci_high": rate + half, "sem": se, "draws": result["draws"],
                         "seconds": time.perf_counter() - start})
    return rows


# ------------------------------------------------------------------------------------------
# the exact regret
# ------------------------------------------------------------------------------------------
@dataclass
class PigRegret:
    """The exact-regret evaluation of one policy on two-player Pig, against the optimal player
    (losses in win probability; see the module docstring for the estimator).

    Attributes:
        agent, games, seed: what was evaluated, how many games (two per deal, one from each
            seat), the seed of the dice.
        rules: the rules played.
        first_player_win_probability: ``p1``, the opener's optimal win probability (0.5306).
        first: ``(games,)`` who opened each game (0: the policy, 1: the optimal player).
        deal: ``(games,)`` the deal of each game (its two games share their dice).
        outcome: ``(games,)`` 1.0 where the policy won, else 0.0 (a loss or a draw).
        per_game: ``(games,)`` the win probability the policy's decisions gave up in each game.
        decisions, mistakes: the policy's decisions, and those that lost something.
        action_counts, action_loss: ``(2, 2)`` rows the policy's choice (roll, hold), columns
            the optimum's; counts and total loss (a tie counts as agreement).
        draws: games that reached the horizon.
        seconds: wall-clock time.
    """

    agent: str
    games: int
    seed: int
    rules: PigRules
    first_player_win_probability: float
    first: np.ndarray = field(repr=False)
    deal: np.ndarray = field(repr=False)
    outcome: np.ndarray = field(repr=False)
    per_game: np.ndarray = field(repr=False)
    decisions: int = 0
    mistakes: int = 0
    action_counts: np.ndarray = field(default_factory=lambda: np.zeros((2, 2), dtype=np.int64))
    action_loss: np.ndarray = field(default_factory=lambda: np.zeros((2, 2)))
    draws: int = 0
    seconds: float = 0.0

    unit = "win probability"

    def per_deal(self, x: np.ndarray) -> np.ndarray:
        """``(deals,)`` the mean of a per-game array over each deal's games."""
        n = int(self.deal.max()) + 1 if self.deal.size else 0
        return (np.bincount(self.deal, weights=np.asarray(x, dtype=np.float64), minlength=n)
                / np.bincount(self.deal, minlength=n))

    @property
    def baseline(self) -> np.ndarray:
        """``(games,)`` the optimal value of the policy's seat: ``p1`` or ``1 - p1``."""
        p1 = self.first_player_win_probability
        return np.where(self.first == 0, p1, 1.0 - p1)

    @property
    def gap(self) -> float:
        """The mean win probability given up per game."""
        return float(self.per_game.mean())

    @property
    def ci(self) -> tuple[float, float]:
        """95 % confidence interval of :attr:`gap` (over deals)."""
        _, low, high = mean_ci(self.per_deal(self.per_game))
        return low, high

    @property
    def value(self) -> float:
        """The policy's seat-balanced win probability against the optimal player, from the
        regret: ``0.5 - gap`` (the first entry of :meth:`estimate`)."""
        return self.estimate()[0]

    def estimate(self) -> tuple[float, float, float]:
        """``(value, CI low, CI high)``: the seat values minus the losses, averaged over deals
        (each deal's two seat values average to 0.5)."""
        return mean_ci(self.per_deal(self.baseline - self.per_game))

    def classical(self) -> np.ndarray:
        """``(games,)`` the gap measured from outcomes alone: ``baseline - won``."""
        return self.baseline - self.outcome

    def classical_gap(self) -> tuple[float, float, float]:
        """``(mean, low, high)`` of :meth:`classical` (over deals)."""
        return mean_ci(self.per_deal(self.classical()))

    def agreement(self) -> tuple[float, float, float]:
        """``(mean, low, high)`` of the difference of the two gap estimates (over deals)."""
        return mean_ci(self.per_deal(self.classical() - self.per_game))

    def variance_reduction(self) -> float:
        """Variance of the classical estimate over the variance of the regret (over deals)."""
        v = float(self.per_deal(self.per_game).var(ddof=1))
        c = float(self.per_deal(self.classical()).var(ddof=1))
        return c / v if v > 0 else math.inf

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary (no per-game arrays)."""
        low, high = self.ci
        c = self.classical_gap()
        return {"game": self.rules.name, "mode": "two-player", "agent": self.agent,
                "games": self.games, "seed": self.seed, "unit": self.unit, "gap": self.gap,
                "gap_ci": [low, high], "classical_gap": c[0], "classical_gap_ci": [c[1], c[2]],
                "estimate": list(self.estimate()), "agreement": list(self.agreement()),
                "variance_reduction": self.variance_reduction(),
                "first_player_win_probability": self.first_player_win_probability,
                "decisions": self.decisions, "mistakes": self.mistakes,
                "action_counts": self.action_counts.tolist(),
                "action_loss_per_game": (self.action_loss / self.games).tolist(),
                "draws": self.draws, "seconds": self.seconds}

    def format_text(self) -> str:
        """A human-readable report of the gap and where it is lost."""
        low, high = self.ci
        c, est, a = self.classical_gap(), self.estimate(), self.agreement()
        share = self.mistakes / self.decisions if self.decisions else 0.0
        lines = [f"{self.agent} on {self.rules.name} against the optimal player: "
                 f"{self.games:,} games ({self.games // 2:,} deals, each from both seats), "
                 f"seed {self.seed}",
                 f"  gap to the optimum  {self.gap:.4f} {self.unit}  95 % CI "
                 f"[{low:.4f}, {high:.4f}]   so its win rate vs optimal is {est[0]:.4f} "
                 f"[{est[1]:.4f}, {est[2]:.4f}]",
                 f"  from outcomes alone {c[0]:.4f}  95 % CI [{c[1]:.4f}, {c[2]:.4f}]   variance "
                 f"reduction {self.variance_reduction():.1f}x; difference of the two "
                 f"{a[0]:+.4f} [{a[1]:+.4f}, {a[2]:+.4f}]",
                 f"  {self.decisions:,} decisions, {share:.2%} lose win probability"
                 + (f"; {self.draws:,} games drawn at the horizon" if self.draws else ""),
                 "  chose -> optimal: count, loss per game"]
        for i, chosen in enumerate(ACTION_KINDS):
            for j, best in enumerate(ACTION_KINDS):
                if i != j:
                    lines.append(f"    {chosen:>5s} -> {best:<5s} {self.action_counts[i, j]:9,d}"
                                 f"  {self.action_loss[i, j] / self.games:.4f}")
        return "\n".join(lines)


def pig_gap(agent: Any, games: int = 2000, seed: int | None = 0, *, rules: Any = None,
            optimal: Any = None, name: str | None = None) -> PigRegret:
    """Measure a Pig policy's gap to the optimum, decision by decision, against the optimal
    player.

    Args:
        agent: any Pig player (``act_batch`` / ``act``, or a function ``(observation, mask) ->
            action``) for the two-player observation of :mod:`dice_env.pig.observation`.
        games: games to play, rounded up to an even number: ``games / 2`` deals, each played
            once with the policy opening and once with the optimal player opening, on the same
            dice (deal ``d``'s ``t``-th roll throws its ``t``-th face, as in
            :func:`agents.pig.matches.play_matches`, whose games these are).
        seed: seed of the dice.
        rules: the rules (two players; default: the standard game, or ``optimal``'s).
        optimal: an :class:`~agents.pig.optimal.OptimalAgent` (default: built for ``rules``).
        name: the agent's name in reports.

    Returns:
        A :class:`PigRegret`.  ``ValueError`` for rules the solver does not cover (three or
        more players) and for an illegal action.
    """
    n_deals = _deals(games)
    if optimal is None:
        optimal = OptimalAgent(coerce_rules(rules))
    rules = optimal.rules if rules is None else coerce_rules(rules)
    if rules.num_players != 2:
        raise ValueError(f"the exact Pig regret is for two players, got num_players="
                         f"{rules.num_players}")
    if any(getattr(rules, k) != getattr(optimal.rules, k)
           for k in ("win_score", "die_sides", "piglet")):
        raise ValueError(f"the optimal player plays {optimal.rules.name}, not {rules.name}")
    sol = optimal.solution
    seed = 0 if seed is None else int(seed)
    start = time.perf_counter()
    players = (agent, optimal)
    n = 2 * n_deals
    rng = np.random.default_rng(seed)
    deal = np.tile(np.arange(n_deals), 2)
    first = np.repeat(np.arange(2), n_deals)                # the player at seat 0
    seat_player = (np.arange(2)[None, :] + first[:, None]) % 2
    faces = rng.integers(1, rules.die_sides + 1, size=(n_deals, _CHUNK))
    used = np.zeros(n, dtype=np.int64)
    batch = PigBatch.empty(n, 2)
    per_game = np.zeros(n)
    counts = np.zeros((2, 2), dtype=np.int64)
    loss_table = np.zeros((2, 2))
    decisions = mistakes = 0
    while True:
        live = np.flatnonzero(~R.is_terminal_batch(rules, batch))
        if live.size == 0:
            break
        sub, masks, who, actions = seat_decisions(players, rules, batch, live, seat_player)
        mine = np.flatnonzero(who == 0)
        if mine.size:  # charge the policy's decisions
            me = sub.current[mine]
            values = sol.action_values(sub.scores[mine, me], sub.scores[mine, 1 - me],
                                       sub.turn_total[mine])
            key = np.where(masks[mine] & np.isfinite(values), values, -np.inf)
            chosen = actions[mine]
            loss = key.max(axis=1) - key[np.arange(mine.size), chosen]
            loss = np.where(loss > TOLERANCE, loss, 0.0)
            np.add.at(per_game, live[mine], loss)
            best = np.where(loss > 0, key.argmax(axis=1), chosen)
            np.add.at(counts, (chosen, best), 1)
            np.add.at(loss_table, (chosen, best), loss)
            decisions += int(mine.size)
            mistakes += int((loss > 0).sum())
        roll = actions == R.ROLL
        rows = live[roll]
        if rows.size:
            while used[rows].max() >= faces.shape[1]:
                faces = np.concatenate([faces, rng.integers(1, rules.die_sides + 1,
                                                            size=(n_deals, _CHUNK))], axis=1)
            R.apply_roll_batch(rules, batch, rows, faces[deal[rows], used[rows]])
            used[rows] += 1
        if not roll.all():
            R.apply_hold_batch(rules, batch, live[~roll])
    winner = R.winner_batch(rules, batch)
    has = winner >= 0
    outcome = np.zeros(n)
    outcome[has] = seat_player[np.flatnonzero(has), winner[has]] == 0
    return PigRegret(
        agent=name or str(getattr(agent, "name", None) or type(agent).__name__), games=n,
        seed=seed, rules=rules,
        first_player_win_probability=float(sol.first_player_win_probability), first=first,
        deal=deal, outcome=outcome, per_game=per_game, decisions=decisions, mistakes=mistakes,
        action_counts=counts, action_loss=loss_table, draws=int((~has).sum()),
        seconds=time.perf_counter() - start)


def regret_of(agent: Any, game: Any, games: int, seed: int, *, name: str | None = None,
              progress: bool = True, dice_averaged: bool = False, paired: bool = True
              ) -> PigRegret:
    """The exact regret of ``agent`` on ``game`` (a resolved Pig game, two players), in win
    probability against the optimal player: :func:`pig_gap` with ``games`` games.
    ``progress``, ``dice_averaged`` and ``paired`` are for the other families (a Pig run takes
    seconds)."""
    return pig_gap(agent, games, seed, rules=coerce_rules(game), name=name)
