"""The benchmark games: every player on every game, as ``dice-env evaluate`` measures them.

Scorecard games: each player plays the same games with **common random numbers** (game ``i``
draws its dice from its own stream seeded by ``(seed, i)``), so the differences between players
are paired (:func:`scorecard_rows`); Penta and Dice Poker also get a two-player head-to-head
table derived from the same games (:func:`head_to_head`).  5000: two-player games against each
opponent, seat-balanced (:func:`fivethousand_rows`).  :func:`run_benchmark` does it all; the
tables are written by :mod:`agents.evaluation.reports.benchmark`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.evaluation.scorecard_games import play_scorecard_games
from agents.evaluation.scorecard_matches import matches_from_games, play_scorecard_matches
from agents.progress import progress_bar, progress_note
from agents.registry import make

SCORECARD_GAMES = ["penta", "dice-poker", "yahtzee-official"]
SCORECARD_AGENTS = ["random", "greedy", "heuristic", "optimal", "ppo", "learned-value"]
FIVE_THOUSAND_AGENTS = ["random", "threshold", "heuristic", "optimal", "ppo", "learned-value"]
FIVE_THOUSAND_OPPONENTS = ["threshold", "heuristic", "optimal"]
#: scorecard games with a two-player head-to-head table (rows ``"<game> 2p"``)
HEAD_TO_HEAD_GAMES = ["penta", "dice-poker"]
#: dice pairs replayed on the match core to check the derived head-to-head table
CHECK_PAIRS = 200


class Roster:
    """Builds registered players by name, remembering the (player, game) pairs left out for
    want of a trained model (not every game has one) in :attr:`missing`."""

    def __init__(self, seed: int, note: Callable[[str], object] = progress_note) -> None:
        self.seed = seed
        self.note = note
        self.missing: list[tuple[str, str]] = []

    def make(self, name: str, game: Any) -> Any | None:
        """``agents.make(name, game, seed=seed)``, or ``None`` when that player is unavailable:
        with a note, or for want of a trained model in :attr:`missing`."""
        try:
            return make(name, game, seed=self.seed)
        except FileNotFoundError:
            label = game if isinstance(game, str) else getattr(game, "name", str(game))
            if (name, label) not in self.missing:
                self.missing.append((name, label))
            return None
        except (ImportError, ValueError) as err:
            self.note(f"skipping {name} on {getattr(game, 'name', game)}: {err}")
            return None


def scorecard_rows(game: str, players: Mapping[str, Any], games: int, seed: int,
                   spec: Any = None) -> tuple[list[dict], dict[str, np.ndarray]]:
    """Rows of the benchmark table of one scorecard game, and every player's final totals.

    ``players``: name -> player (``None``: left out); the one named ``"optimal"`` is the
    reference of the paired differences.  ``game`` labels the rows; ``spec`` (default ``game``)
    is the preset or ``Rules`` played.
    """
    totals, seconds = {}, {}
    for name, agent in progress_bar(players.items(), desc=game, leave=False):
        if agent is None:
            continue
        start = time.perf_counter()
        totals[name] = play_scorecard_games(agent, spec if spec is not None else game, games,
                                            seed=seed).astype(np.float64)
        seconds[name] = time.perf_counter() - start
    rows = []
    for name, t in totals.items():
        row = {"game": game, "agent": name, "opponent": "", "games": games,
               "mean": t.mean(), "std": t.std(ddof=1), "sem": t.std(ddof=1) / np.sqrt(games),
               "seconds": seconds[name]}
        if "optimal" in totals and name != "optimal":
            d = t - totals["optimal"]
            half = 1.96 * d.std(ddof=1) / np.sqrt(games)
            row.update(diff_to_optimal=d.mean(), diff_ci_low=d.mean() - half,
                       diff_ci_high=d.mean() + half)
        rows.append(row)
    return rows, totals


def fivethousand_row(agent: Any, opponent: Any, games: int, seed: int) -> dict:
    """Seat-balanced two-player 5000 games: ``win_rate`` of ``agent`` with its 95 % CI
    (``ci_low``, ``ci_high``), ``sem`` and ``seconds``."""
    start = time.perf_counter()
    result = play_fivethousand_matches([agent, opponent], games, seed=seed)
    p, low, high = result.win_rate_ci(0)
    return {"games": games, "sem": np.sqrt(p * (1 - p) / games), "win_rate": p, "ci_low": low,
            "ci_high": high, "seconds": time.perf_counter() - start}


def fivethousand_rows(names: Sequence[str], opponents: Sequence[str], games: int, seed: int,
                      roster: Roster) -> list[dict]:
    """Rows of the 5000 table: each of ``names`` against each of ``opponents`` (a mirrored
    pairing adds nothing and is played once)."""
    players = {n: roster.make(n, "fivethousand") for n in dict.fromkeys([*names, *opponents])}
    pairs: list[tuple[str, str]] = []
    for a in names:
        for o in opponents:
            if a != o and (o, a) not in pairs:
                pairs.append((a, o))
    rows = []
    for name, opp in progress_bar(pairs, desc="fivethousand", leave=False):
        if players[name] is None or players[opp] is None:
            continue
        rows.append({"game": "fivethousand", "agent": name, "opponent": opp,
                     **fivethousand_row(players[name], players[opp], games, seed)})
    return rows


def head_to_head(game: str, totals: Mapping[str, np.ndarray], seed: int,
                 players: Mapping[str, Any] | None = None) -> list[dict]:
    """Two-player rows of ``game``: every pairing of the players that played, seat-balanced
    (``mean``: A's score, win 1 and tie 1/2, with ``ci_low`` / ``ci_high``; ``win_rate``,
    ``tie_rate``, ``loss_rate``; ``first_seat``: seat 0's score minus 1/2; ``margin``: A's
    mean TOTAL minus B's).

    Every player here reads only its own card, so a match is two solitaire games and the
    table follows from the common-random-number games already played
    (:func:`agents.evaluation.matches_from_games`: dice pair ``g`` is A's game ``2g`` against
    B's game ``2g + 1``, A opening one match and B the other).  With ``players``, the first
    :data:`CHECK_PAIRS` dice pairs of the optimal-heuristic pairing are replayed as real
    matches on the match core and must agree exactly.
    """
    names = list(totals)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            m = matches_from_games(totals[a], totals[b])
            score, half = m.score()
            rates = m.rates()
            rows.append({"game": f"{game} 2p", "agent": a, "opponent": b,
                         "games": 2 * m.pairs, "win_rate": rates["win"],
                         "tie_rate": rates["tie"], "loss_rate": rates["loss"],
                         "mean": score, "sem": half / 1.96, "ci_low": score - half,
                         "ci_high": score + half, "first_seat": m.first_seat()[0],
                         "margin": m.mean_margin()[0]})
    if players is not None and {"optimal", "heuristic"} <= set(totals):
        pairs = min(CHECK_PAIRS, len(totals["optimal"]) // 2)
        played = play_scorecard_matches([players["optimal"], players["heuristic"]], game,
                                        pairs, seed=seed)
        derived = matches_from_games(totals["optimal"][:2 * pairs],
                                     totals["heuristic"][:2 * pairs])
        if not np.array_equal(played.totals, derived.totals):
            raise RuntimeError(f"{game}: matches on the match core disagree with the solitaire "
                               "games they should replay")
    return rows


@dataclass
class Benchmark:
    """What :func:`run_benchmark` measured: the table rows, the exact optimal value of each
    scorecard game, every player's final totals by game, and the (player, game) pairs left
    out for want of a trained model."""

    rows: list[dict] = field(default_factory=list)
    optimal_values: dict[str, float] = field(default_factory=dict)
    totals: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    missing: list[tuple[str, str]] = field(default_factory=list)


def run_benchmark(scorecard_games: Sequence[str] = SCORECARD_GAMES,
                  agents: Sequence[str] = SCORECARD_AGENTS,
                  fivethousand_agents: Sequence[str] = FIVE_THOUSAND_AGENTS,
                  opponents: Sequence[str] = FIVE_THOUSAND_OPPONENTS, games: int = 10_000,
                  fivethousand_games: int | None = None, seed: int = 0) -> Benchmark:
    """Every registered player of ``agents`` on every scorecard game (``games`` each, common
    random numbers), the head-to-head tables of :data:`HEAD_TO_HEAD_GAMES`, and every 5000
    player of ``fivethousand_agents`` against each of ``opponents`` (``fivethousand_games``
    per pairing, default ``games``)."""
    roster = Roster(seed)
    result = Benchmark(missing=roster.missing)
    for game in progress_bar(scorecard_games, desc="scorecard games"):
        players = {name: roster.make(name, game) for name in agents}
        if "optimal" not in players:  # the reference of the paired differences
            players["optimal"] = roster.make("optimal", game)
        game_rows, result.totals[game] = scorecard_rows(game, players, games, seed)
        result.rows += game_rows
        opt = roster.make("optimal", game) if "optimal" in agents else None
        if opt is not None:
            result.optimal_values[game] = float(opt.expected_score)
    for game in [g for g in scorecard_games if g in HEAD_TO_HEAD_GAMES]:
        if len(result.totals[game]) > 1 and games >= 2:
            check = {n: roster.make(n, game) for n in ("optimal", "heuristic")
                     if n in result.totals[game]}
            result.rows += head_to_head(game, result.totals[game], seed, check)
    if fivethousand_agents:
        result.rows += fivethousand_rows(fivethousand_agents, opponents,
                                         fivethousand_games or games, seed, roster)
    return result
