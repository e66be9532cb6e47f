"""The benchmark of record on standard Yahtzee (``yahtzee-official``): our players beside the
optimum and the published agents, with the metrics the published work reports.

Every player of ours plays the same :data:`GAMES` games (common random numbers: game ``i``
draws its dice from the stream ``(REPORT_SEED, i)``), the **report games** of
:mod:`agents.evaluation.game_sets`, disjoint from the selection games that chose the committed
PPO seed.  Each row gives the mean final score (95 % CI) and the median over those games, the
upper-bonus rate and the Yahtzee rate (:func:`score_statistics`), and the exact gap to the
optimum with its 95 % CI: the exact per-decision regret
(:func:`~agents.evaluation.scorecard_regret.optimality_gap`) over the first
:data:`REGRET_GAMES` of the same games.  :data:`PUBLISHED` holds the published agents' own
figures with their sources; the table is written by :mod:`agents.evaluation.reports.yahtzee`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.evaluation.game_sets import REPORT_SEED
from agents.evaluation.scorecard_games import ScorecardGames, run_scorecard_games
from agents.evaluation.scorecard_regret import mean_ci, optimality_gap
from agents.registry import make

__all__ = ["GAME", "GAMES", "PLAYERS", "PUBLISHED", "REGRET_GAMES", "YahtzeeBenchmark",
           "make_players", "measure_player", "median_score", "run_yahtzee_benchmark",
           "score_statistics", "upper_bonus_rate", "yahtzee_rate"]

#: the preset: Hasbro's rules (upper bonus 35 at 63, Yahtzee bonus 100, forced Joker)
GAME = "yahtzee-official"
#: games per player for the score statistics (the published agents' count)
GAMES = 100_000
#: games per player for the exact gap (the first of the same games)
REGRET_GAMES = 2_000
#: our players, in the table's order (registered names of :func:`agents.make`)
PLAYERS = ("optimal", "ppo", "ppo-pure", "learned-value", "heuristic")

#: The published agents' own figures (``None``: not published; approximate figures in
#: ``*_text``).  Sources checked 2026-12; nothing here is measured by us.
PUBLISHED: tuple[dict, ...] = (
    {"player": "A2C, multi-headed network (Pape 2025)",
     "source": "N. A. Pape, *Yahtzee: Reinforcement Learning Techniques for Stochastic "
               "Combinatorial Games*, arXiv:2601.00007 (2025), abstract",
     "url": "https://arxiv.org/abs/2601.00007",
     "games": 100_000, "mean": None, "median": 241.78, "upper_bonus_rate": 0.249,
     "yahtzee_rate": 0.341, "optimum": 254.59,
     "note": "self-play A2C; the mean is not in the abstract; its optimum is Verhoeff's "
             "254.59"},
    {"player": "Yahtzotron (Häfner 2021)",
     "source": "D. Häfner, Yahtzotron, README of github.com/dionhaefner/yahtzotron and the "
               "blog post *Learning to play Yahtzee with Advantage Actor-Critic (A2C)* (2021)",
     "url": "https://github.com/dionhaefner/yahtzotron",
     "games": None, "mean": None, "mean_text": "≈ 240", "median": None,
     "upper_bonus_rate": None, "yahtzee_rate": None, "optimum": None,
     "note": "A2C through self-play; \"average scores are around 240 ... just 5-10 points "
             "below perfect play\" (README), \"about 5% below perfect play\" (blog); its "
             "Yahtzee rules score a Yahtzee as a Joker in any box (free Joker)"},
    {"player": "MLP Q-learner (Dutschke)",
     "source": "M. Dutschke, yahtzee (Q-learning with scikit-learn's MLPRegressor), README of "
               "github.com/markusdutschke/yahtzee",
     "url": "https://github.com/markusdutschke/yahtzee",
     "games": 100, "mean": 241.6, "median": None, "upper_bonus_rate": None,
     "yahtzee_rate": None, "optimum": 245.87,
     "note": "\"PlayerAI_full_v2: 241.6 +/- 40.7\" (the spread of 100 test games' scores, so "
             "the mean's 95 % interval is about ±8); the optimum it compares with is "
             "Holderied's 245.9, the optimum without the Yahtzee bonus and Joker (our "
             "yahtzee-no-bonus, 245.8708), so its rules are not yahtzee-official's"},
)


def median_score(totals: np.ndarray) -> float:
    """The median final score (the mean of the two middle ones for an even count)."""
    return float(np.median(np.asarray(totals, dtype=np.float64)))


def upper_bonus_rate(games: ScorecardGames) -> float:
    """The share of games whose upper section reached the bonus threshold (63 points)."""
    return float(np.mean(games.upper_bonus))


def yahtzee_rate(games: ScorecardGames) -> float:
    """The share of games with a Yahtzee scored in the Yahtzee box (the box holds its 50;
    a box zeroed, or a Yahtzee only ever used as a Joker elsewhere, does not count)."""
    return float(np.mean(games.five_kind))


def score_statistics(games: ScorecardGames) -> dict:
    """A player's final statistics: ``games``, ``mean`` with its 95 % interval ``mean_ci``,
    ``sd``, ``median``, ``upper_bonus_rate``, ``yahtzee_rate`` and ``yahtzee_bonus_rate``
    (the share of games with at least one Yahtzee bonus)."""
    total = np.asarray(games.total, dtype=np.float64)
    mean, low, high = mean_ci(total)
    return {"games": int(total.size), "mean": mean, "mean_ci": [low, high],
            "sd": float(total.std(ddof=1)) if total.size > 1 else math.nan,
            "median": median_score(total), "upper_bonus_rate": upper_bonus_rate(games),
            "yahtzee_rate": yahtzee_rate(games),
            "yahtzee_bonus_rate": float(np.mean(np.asarray(games.five_bonus) > 0))}


def measure_player(name: str, agent: Any, games: int = GAMES, regret_games: int = REGRET_GAMES,
                   seed: int = REPORT_SEED, optimal: Any = None,
                   progress: bool = False) -> tuple[dict, np.ndarray]:
    """One player's row (:func:`score_statistics` over ``games`` games of evaluation ``seed``,
    and ``gap`` / ``gap_ci`` / ``expected_score``: the exact regret over the first
    ``regret_games`` of them) and its final totals."""
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=games, desc=f"{name}: {games:,} games", unit="game", leave=False)
    start = time.perf_counter()
    try:
        stats = run_scorecard_games(agent, GAME, games, seed, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    row = {"player": name, "seed": seed, **score_statistics(stats),
           "seconds": time.perf_counter() - start}
    start = time.perf_counter()
    regret = optimality_gap(agent, GAME, regret_games, seed, paired=False, optimal=optimal,
                            name=name, progress=progress)
    row.update(regret_games=regret_games, gap=regret.gap, gap_ci=list(regret.ci),
               expected_score=regret.expected_score,
               regret_seconds=time.perf_counter() - start)
    return row, stats.total


@dataclass
class YahtzeeBenchmark:
    """What :func:`run_yahtzee_benchmark` measured: a row per player of ours, the optimum's
    exact expected score, the players left out (name -> why) and the settings."""

    rows: list[dict] = field(default_factory=list)
    optimal_value: float = math.nan
    missing: dict[str, str] = field(default_factory=dict)
    games: int = GAMES
    regret_games: int = REGRET_GAMES
    seed: int = REPORT_SEED


def make_players(names: Sequence[str] = PLAYERS,
                 ppo_model: Any = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Our players of :data:`GAME` by registered name (``ppo_model``: a model file for
    ``"ppo"`` instead of the committed one), and those left out, name -> why (no trained
    model)."""
    players, missing = {}, {}
    for name in names:
        options = {"model_path": ppo_model} if name == "ppo" and ppo_model is not None else {}
        try:
            players[name] = make(name, GAME, **options)
        except FileNotFoundError as err:
            missing[name] = str(err)
    return players, missing


def _measure_in_worker(name: str, ppo_model: Any, games: int, regret_games: int,
                       seed: int) -> tuple[dict, np.ndarray]:
    """:func:`measure_player` of one player, built by name in a worker process."""
    players, missing = make_players([name], ppo_model)
    if missing:
        raise FileNotFoundError(missing[name])
    return measure_player(name, players[name], games, regret_games, seed,
                          make("optimal", GAME))


def _say(note: Callable[[str], object], row: Mapping) -> None:
    note(f"{row['player']}: mean {row['mean']:.2f} [{row['mean_ci'][0]:.2f}, "
         f"{row['mean_ci'][1]:.2f}], median {row['median']:g}, upper bonus "
         f"{row['upper_bonus_rate']:.1%}, Yahtzee {row['yahtzee_rate']:.1%}, gap "
         f"{row['gap']:.2f} [{row['gap_ci'][0]:.2f}, {row['gap_ci'][1]:.2f}] "
         f"({row['seconds'] + row['regret_seconds']:.0f} s)")


def run_yahtzee_benchmark(names: Sequence[str] = PLAYERS, ppo_model: Any = None,
                          games: int = GAMES, regret_games: int = REGRET_GAMES,
                          seed: int = REPORT_SEED, progress: bool = False, workers: int = 1,
                          worker_setup: Callable[[], object] | None = None,
                          note: Callable[[str], object] = print) -> YahtzeeBenchmark:
    """Measure our players ``names`` (registered names; ``ppo_model``: see
    :func:`make_players`) on the same games, ``workers`` players at a time in processes of
    their own, each first calling ``worker_setup`` (a picklable function: say, setting torch's
    threads), or here with progress bars if ``progress`` (``workers`` 1); each row is also
    said through ``note``.  Players without a trained model are left out
    (:attr:`YahtzeeBenchmark.missing`)."""
    players, missing = make_players(names, ppo_model)
    optimal = players.get("optimal") or make("optimal", GAME)
    result = YahtzeeBenchmark(optimal_value=float(optimal.expected_score), missing=missing,
                              games=games, regret_games=regret_games, seed=seed)
    measured: dict[str, tuple[dict, np.ndarray]] = {}
    if workers > 1 and len(players) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(players)), mp_context=context,
                                 initializer=worker_setup) as pool:
            # the last of PLAYERS, the heuristic, is the slowest by far: it starts first
            futures = {name: pool.submit(_measure_in_worker, name, ppo_model, games,
                                         regret_games, seed) for name in reversed(players)}
            for name, future in futures.items():
                measured[name] = future.result()
                _say(note, measured[name][0])
    else:
        for name, agent in players.items():
            measured[name] = measure_player(name, agent, games, regret_games, seed, optimal,
                                            progress)
            _say(note, measured[name][0])
    for name in players:  # the table's order
        row, total = measured[name]
        if "optimal" in measured and name != "optimal":
            diff, low, high = mean_ci(total - measured["optimal"][1].astype(np.float64))
            row["paired_diff_to_optimal"] = [diff, low, high]
        result.rows.append(row)
    return result
