"""Three-player 5000 for the results page: the shipped max-n profile, how far it is from an
equilibrium, and what it wins against the built-in bots.

:func:`three_player_report` loads (or solves, then caches) the profile of
:mod:`agents.solvers.fivethousand_three` and returns, as a JSON-serialisable dict:

* its exact win probability of each seat from 0-0-0;
* the convergence facts of the max-n iteration (sweeps, whether the policy cycled, the frozen
  groups -- where it cycled -- by their scores);
* the largest one-turn deviation gain over all states and over the states reachable from
  0-0-0 (with their expected visits);
* the solve time;
* simulated matches, seat-balanced over the three seats (the player sits in seat
  ``g % 3`` of game ``g``): the three-player optimal player against two ``heuristic`` bots,
  the old leader approximation (``num_players=2``: the two-player table against the leader)
  in the same setting, and the three-player player against itself (the seat win rates must
  agree with the exact values).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.fivethousand.optimal import OptimalAgent
from agents.registry import make
from agents.solvers import fivethousand_three as TP
from dice_env.fivethousand.rules import FiveThousandRules

__all__ = ["seat_balanced_three", "three_player_report"]

Z95 = 1.959963984540054


def seat_balanced_three(players: list[Any], n_games: int, seed: int,
                        rules: FiveThousandRules | None = None) -> dict:
    """Player 0's seat-balanced win rate in three-player games against ``players[1:]``.

    Game ``g`` seats player ``k`` in seat ``(k + g) % 3``
    (:func:`~agents.evaluation.fivethousand_matches.play_fivethousand_matches`).  Returns the
    win rate in each seat, their mean (``win_rate``, the seat-balanced rate), its standard
    error and 95 % confidence interval, and the games that hit the decision cap.
    """
    t0 = time.perf_counter()
    r = play_fivethousand_matches(players, n_games, seed=seed, rules=rules)
    seat = (0 + np.arange(n_games)) % 3  # player 0's seat in each game
    per_seat, var = [], 0.0
    for s in range(3):
        won = r.winner[seat == s] == 0
        p = float(won.mean())
        per_seat.append(p)
        var += p * (1 - p) / max(len(won), 1)
    rate = float(np.mean(per_seat))
    se = math.sqrt(var) / 3
    return {"win_rate": rate, "standard_error": se,
            "ci95": [rate - Z95 * se, rate + Z95 * se],
            "win_rate_by_seat": per_seat, "games": n_games,
            "unfinished": int(np.sum(r.winner < 0)), "seconds": time.perf_counter() - t0}


def _self_play(player: Any, n_games: int, seed: int, exact: list[float],
               rules: FiveThousandRules) -> dict:
    r = play_fivethousand_matches([player, player, player], n_games, seed=seed, rules=rules)
    seat = (r.winner + np.arange(n_games)) % 3  # the winner's seat (player k: seat (k+g)%3)
    seat = np.where(r.winner >= 0, seat, -1)
    rates = [float(np.mean(seat == s)) for s in range(3)]
    se = [math.sqrt(p * (1 - p) / n_games) for p in rates]
    return {"seat_win_rates": rates, "standard_errors": se,
            "z_scores": [(p - e) / s if s > 0 else 0.0 for p, e, s in zip(rates, exact, se)],
            "games": n_games}


def three_player_report(matches: int = 20000, seed: int = 0, *,
                        cache_dir: str | None = None, force: bool = False,
                        rules: FiveThousandRules | dict | None = None) -> dict:
    """The three-player numbers of the results page (see the module doc).

    Args:
        matches: games of each simulated series (a multiple of 3 balances the seats exactly;
            otherwise the per-seat rates are averaged).
        seed: seed of the dice of the series (each series its own offset).
        cache_dir, force: where the solved table is cached; ``force`` solves it again (the
            solve time reported is then this run's).
        rules: the game (default 5000; smaller targets for quick checks).

    Returns a JSON-serialisable dict: ``seat_win_probabilities`` (exact, seat 0 opens),
    ``convergence``, ``equilibrium_gap``, ``solve_seconds`` (and ``source``: ``solved`` in
    this call or ``cache``, when the seconds are the stored solve time), ``vs_heuristic``
    (the three-player optimal player), ``leader_vs_heuristic`` (the leader approximation),
    ``gain_over_leader`` (the difference, with its standard error), ``self_play`` and
    ``seconds`` (this call).
    """
    t0 = time.perf_counter()
    sol = TP.load_or_solve_three_player(rules, cache_dir=cache_dir, force=force)
    f = sol.facts
    rules = sol.rules
    three = OptimalAgent(rules, num_players=3, three_player=sol)
    leader = OptimalAgent(rules, num_players=2, cache_dir=cache_dir)
    heur = make("heuristic", "fivethousand")
    vs = seat_balanced_three([three, heur, heur], matches, seed, rules)
    old = seat_balanced_three([leader, heur, heur], matches, seed + 1, rules)
    diff = vs["win_rate"] - old["win_rate"]
    diff_se = math.hypot(vs["standard_error"], old["standard_error"])
    exact = [float(x) for x in f["seat_win_probabilities"]]
    keys_gap = ("max_gain_start_all", "max_gain_decision_all", "max_gain_start_reachable",
                "max_gain_decision_reachable", "states_with_gain",
                "reachable_states_with_gain", "decisions_flipping", "reachable_states",
                "expected_turns", "visits_at_states_with_gain", "visit_weighted_gain",
                "gain_eps", "residual", "forward_residual", "min_gain_start")
    return {
        "rules": rules.knobs(),
        "seat_win_probabilities": exact,
        "sum_at_start": float(f["sum_at_start"]),
        "convergence": {
            "sweeps": f["vi"]["sweeps"],
            "converged": f["vi"]["converged"],
            "policy_cycled": f["policy_cycled"],
            "frozen_groups": f["frozen_groups"],
            "frozen_state_count": f["frozen_state_count"],
            # each frozen group by its scores (every order of them is a state of the group)
            "frozen_group_scores": sorted({"-".join(str(x) for x in sorted(g[0]))
                                           for g in f["frozen_states"]}),
            "frozen_at_sweep": sorted(set(f["frozen_at_sweep"])),
            "decision_cycles": f["vi"].get("decision_cycles", []),
            "unsettled_per_sweep": f["vi"]["unsettled_per_sweep"],
            "groups_flipped_per_sweep": f["vi"]["groups_flipped_per_sweep"],
            "sweep_changes": f["vi"]["sweep_changes"],
            "evaluation_sweeps": f["evaluation"]["sweeps"],
            "evaluation_start": f["evaluation"].get("start"),
            "turns_to_end": f["evaluation"].get("turns_to_end"),
            "tol": f["tol"], "eval_tol": f["eval_tol"], "freeze_from": TP.FREEZE_FROM,
        },
        "equilibrium_gap": {k: f[k] for k in keys_gap},
        "solve_seconds": float(f["seconds"]),
        "solve_timings": f["timings"],
        "solve_threads": f["threads"],
        "source": sol.source,
        "states": f["states"],
        "vs_heuristic": vs,
        "leader_vs_heuristic": old,
        "gain_over_leader": {"win_rate": diff, "standard_error": diff_se,
                             "ci95": [diff - Z95 * diff_se, diff + Z95 * diff_se]},
        "self_play": _self_play(three, matches, seed + 2, exact, rules),
        "seconds": time.perf_counter() - t0,
    }
