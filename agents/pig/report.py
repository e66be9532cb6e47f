"""Pig's section of ``results/optimal.md`` (its ``optimal_report`` hook): the exact optimum,
its solve, and the checks that it is right.

* the first player's win probability under optimal play by both, beside Neller & Presser's
  published 0.5306, with the solve time and the Bellman residual of the table;
* optimal against optimal, simulated on the game core: the first seat's win rate must agree;
* optimal against the hold-at-N bots: each match's exact win probability (both policies fixed,
  evaluated on the same state space) beside the simulated seat-balanced win rate.
"""

from __future__ import annotations

import math
import time

from agents.pig.bots import HoldAtAgent
from agents.pig.matches import play_matches
from agents.pig.optimal import OptimalAgent
from agents.pig.solver import fixed_policy_win_probability, load_or_solve
from dice_env.pig.rules import PigRules

__all__ = ["PUBLISHED", "optimal_report"]

#: Neller & Presser, "Optimal Play of the Dice Game Pig", UMAP Journal 25(1), 2004
PUBLISHED = 0.5306
#: the hold-at bots the optimal player meets
THRESHOLDS = (15, 20, 25)


def _z(simulated: float, exact: float, stderr: float) -> float:
    return (simulated - exact) / stderr if stderr > 0 else math.nan


def optimal_report(games: int = 20_000, seed: int = 0, *, cache_dir: str | None = None,
                   threads: int | None = None, progress: bool = False) -> tuple[str, dict]:
    """Solve, check and describe optimal two-player Pig; ``(markdown section, data)``.

    ``games``: games of each simulation (half as many deals, each played from both seats);
    ``seed``: the root seed of their dice.  ``threads`` and ``progress`` are accepted for the
    common hook signature (the solve runs on one thread in about a second).
    """
    rules = PigRules()
    t0 = time.perf_counter()
    sol = load_or_solve(rules, cache_dir=cache_dir, force=True)
    solve_seconds = time.perf_counter() - t0
    exact = sol.first_player_win_probability
    optimal = OptimalAgent("pig", solution=sol)
    deals = max(1, games // 2)
    self_play = play_matches([optimal, optimal], deals, rules=rules, seed=seed)
    first = self_play["first_seat_wins"] / self_play["games"]
    # a deal is played from both seats on the same dice: with the same policy in both seats
    # those are one game twice, so the standard error counts deals
    first_se = math.sqrt(first * (1 - first) / deals)
    rows = []
    for k, threshold in enumerate(THRESHOLDS):
        bot = HoldAtAgent("pig", threshold=threshold)
        opens = fixed_policy_win_probability(rules, sol.roll_table(), bot.roll_table())
        second = 1.0 - fixed_policy_win_probability(rules, bot.roll_table(), sol.roll_table())
        sim = play_matches([optimal, bot], deals, rules=rules, seed=seed + 1 + k)
        rate, se = sim["win_rate"][0], sim["stderr"][0]
        balanced = (opens + second) / 2
        rows.append({"threshold": threshold, "exact_opening": opens, "exact_second": second,
                     "exact": balanced, "simulated": rate, "stderr": se,
                     "z": _z(rate, balanced, se), "games": sim["games"]})
    data = {"first_player_win_probability": exact, "published": PUBLISHED,
            "solve_seconds": solve_seconds, "sweeps": sol.sweeps, "residual": sol.residual,
            "self_play": {"games": self_play["games"], "first_seat_win_rate": first,
                          "stderr": first_se, "z": _z(first, exact, first_se)},
            "against_hold": rows, "games": games, "seed": seed}
    return _markdown(data), data


def _markdown(d: dict) -> str:
    sp = d["self_play"]
    lines = [
        "## Pig", "",
        "OpenSpiel's `pig` (two players, one six-sided die, first to 100; a 1 loses the turn "
        "total), solved exactly by value iteration over (my score, opponent's score, turn total) "
        "maximising the probability of winning (`agents/pig/solver.py`; Neller & Presser, "
        "*Optimal Play of the Dice Game Pig*, UMAP Journal 25(1), 2004). The horizon of "
        "OpenSpiel's game (a draw after 1,000 moves) is left out of the solve, as in the paper; "
        "no simulated game reached it.", "",
        "| quantity | value |", "|---|---:|",
        f"| first player's win probability, optimal play by both | "
        f"**{d['first_player_win_probability']:.6f}** |",
        f"| published (Neller & Presser 2004) | {d['published']:.4f} |",
        f"| solve (s), pair sweeps, Bellman residual | {d['solve_seconds']:.2f}, "
        f"{d['sweeps']:,}, {d['residual']:.1e} |", "",
        f"Optimal against optimal, {sp['games']:,} simulated games ({sp['games'] // 2:,} deals, "
        "each from both seats: the same game twice, so the standard error counts deals): the "
        f"first seat wins {sp['first_seat_win_rate']:.4f} ± {sp['stderr']:.4f} "
        f"(z {sp['z']:+.2f}).", "",
        "The optimal player against the hold-at-N bots (hold once the turn total reaches N, "
        "or when holding wins): the exact win probability of each match (both policies fixed), "
        "and the simulated seat-balanced win rate (each deal played from both seats).", "",
        "| bot | exact, opening | exact, second | exact, seat-balanced | simulated ± SE | z "
        "| games |", "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in d["against_hold"]:
        lines.append(f"| hold at {r['threshold']} | {r['exact_opening']:.4f} | "
                     f"{r['exact_second']:.4f} | {r['exact']:.4f} | {r['simulated']:.4f} ± "
                     f"{r['stderr']:.4f} | {r['z']:+.2f} | {r['games']:,} |")
    lines.append("")
    return "\n".join(lines)
