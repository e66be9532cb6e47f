"""The N-player learned-value player of 5000 against the exact three-player profile and the bots.

:func:`learned_value_n_player_report` measures the N-player models of
:mod:`agents.fivethousand.learned_value` (``results/models/learned-value-fivethousand-<N>p.pt``)
and returns, as a JSON-serialisable dict, for each table size:

* **three players**, against the shipped max-n profile of
  :mod:`agents.solvers.fivethousand_three` (``agents.make("optimal", "fivethousand",
  num_players=3)``):

  - ``vs_optimal``: the learned player's seat-balanced win share against two copies of it
    (simulated; a player as good as the profile's own seats would win 1/3);
  - ``exact``: its *exact* win probability in each seat when the profile plays the other two
    (:func:`mixed_profile_values`: the learned player's policy, tabulated on every state, and
    the profile's, evaluated as one Markov chain of turns), their mean (``win_share``: the
    exact counterpart of ``vs_optimal``), and the gap to 1/3;
  - ``network_error``: how far the network's win probabilities are from the profile's exact
    values, over every state and weighted by the profile's expected visits from 0-0-0;
  - ``exact_leader``: the exact win probabilities of the learned player's leader
    approximation (its two-player model against the highest other score) in the same seats
    (:func:`leader_policy`), the baseline the N-player model replaces;

* **every table size**: seat-balanced win shares against ``N - 1`` heuristic bots
  (``vs_heuristic``) and against ``N - 1`` optimal players of the leader approximation (the
  exact two-player policy against the leader, ``OptimalAgent(num_players=2)``:
  ``vs_leader_optimal``), each beside the same number for the learned player's own leader
  approximation (the two-player model, ``num_players=2``; keys ``leader_...``).

Shares are seat-balanced: in game ``g`` the measured player sits in seat ``g % N``
(:func:`~agents.evaluation.fivethousand_matches.play_fivethousand_matches`), the share is the
mean of its per-seat win rates, with a 95 % normal confidence interval.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.fivethousand import learned_value as LV
from agents.fivethousand.optimal import OptimalAgent
from agents.registry import make
from agents.solvers import fivethousand_three as TP
from dice_env.fivethousand.rules import N_DICE, FiveThousandRules

__all__ = ["leader_policy", "learned_value_n_player_report", "learned_value_policy",
           "mixed_profile_values", "seat_balanced"]

Z95 = 1.959963984540054


def seat_balanced(players: list[Any], n_games: int, seed: int,
                  rules: FiveThousandRules | None = None) -> dict:
    """Player 0's seat-balanced win rate against ``players[1:]`` (2 to 8 players).

    Game ``g`` seats player ``k`` in seat ``(k + g) % N``; returns the win rate in each seat,
    their mean (``win_rate``), its standard error and 95 % confidence interval, the games, the
    games that hit the decision cap and the seconds.
    """
    t0 = time.perf_counter()
    n = len(players)
    r = play_fivethousand_matches(players, n_games, seed=seed, rules=rules)
    seat = np.arange(n_games) % n  # player 0's seat in each game
    per_seat, var = [], 0.0
    for s in range(n):
        won = r.winner[seat == s] == 0
        p = float(won.mean()) if won.size else float("nan")
        per_seat.append(p)
        var += p * (1 - p) / max(won.size, 1)
    rate = float(np.mean(per_seat))
    se = math.sqrt(var) / n
    return {"win_rate": rate, "standard_error": se, "ci95": [rate - Z95 * se, rate + Z95 * se],
            "win_rate_by_seat": per_seat, "games": n_games,
            "unfinished": int(np.sum(r.winner < 0)), "seconds": time.perf_counter() - t0}


# --------------------------------------------------------------------------------------------
# Exact values of the learned player in one seat, the three-player profile in the others
# --------------------------------------------------------------------------------------------
def learned_value_policy(model: LV.NValueModel, three: TP.ThreeModel) -> np.ndarray:
    """``(S, T, 6)`` bool: the learned player's decision (bank) at every ``(state, turn total
    slot, dice left)`` of the three-player solver's table (the layout of
    :attr:`~agents.solvers.fivethousand_three.ThreePlayerSolution.policy`)."""
    tm = model.turn_model
    if not np.array_equal(tm.scores, three.base.scores):
        raise ValueError("the learned model's score grid is not the solver's")
    sol = LV.solve_n_turns(tm, three.st_idx, model.probabilities)
    return np.ascontiguousarray(sol.bank_first[:, :three.n_slots, :])


def leader_policy(agent: LV.LearnedValueAgent, three: TP.ThreeModel,
                  chunk: int = 8192) -> np.ndarray:
    """``(S, T, 6)`` bool: the decisions of the learned player's leader approximation (its
    two-player model against the highest other score, ties to banking) on the three-player
    solver's table."""
    tm = agent.turn_model
    if not np.array_equal(tm.scores, three.base.scores):
        raise ValueError("the learned model's score grid is not the solver's")
    scores = three.base.scores[three.st_idx]
    leader = scores[:, 1:].max(axis=1)
    t = three.n_slots
    pol = np.zeros((three.n_states, t, N_DICE + 1), dtype=np.bool_)
    for lo in range(0, three.n_states, chunk):
        roll, bank = agent.turn_tables(scores[lo:lo + chunk, 0], leader[lo:lo + chunk])
        bank = bank[:, :t, None]
        pol[lo:lo + chunk] = ~np.isnan(bank) & (bank >= roll[:, :t] - LV.TIE_TOL)
    return pol


@numba.njit(cache=True)
def _mixed_sweep(nxt_a, prob_a, nxt_b, prob_b, v):  # pragma: no cover (compiled)
    """One Gauss-Seidel sweep of the chain of turns, in place; returns the largest change.

    ``v[s, d]`` = (P(the player ``d`` seats after the mover wins), P(another player wins)) at
    turn-start state ``s``; the player ``d = 0`` plays ``a``'s transitions, the others ``b``'s.
    """
    n_states, n_out = nxt_a.shape
    p = v.shape[1]
    delta = 0.0
    for s in range(n_states):
        for d in range(p):
            dn = (d + p - 1) % p  # the next player moves: one seat closer
            mine = 0.0
            other = 0.0
            for j in range(n_out):
                if d == 0:
                    q = prob_a[s, j]
                    t = nxt_a[s, j]
                else:
                    q = prob_b[s, j]
                    t = nxt_b[s, j]
                if q == 0.0:
                    continue
                if t >= 0:
                    mine += q * v[t, dn, 0]
                    other += q * v[t, dn, 1]
                elif -1 - t == d:
                    mine += q
                else:
                    other += q
            ch = max(abs(mine - v[s, d, 0]), abs(other - v[s, d, 1]))
            if ch > delta:
                delta = ch
            v[s, d, 0] = mine
            v[s, d, 1] = other
    return delta


def mixed_profile_values(three: TP.ThreeModel, policy: np.ndarray, others: np.ndarray, *,
                         tol: float = 1e-13, max_sweeps: int = 100_000) -> dict:
    """Exact win probabilities of a player who plays ``policy`` while everyone else plays
    ``others`` (both ``(S, T, 6)`` bank decisions of the solver's table).

    The turns under each policy end at a bank or a bust
    (:func:`~agents.solvers.fivethousand_three.profile_transitions`); the chain of turn
    starts, with the seat of the player relative to the mover, is iterated Gauss-Seidel from
    0 (so the limit is the least fixed point: the probabilities) until no value moves by more
    than ``tol``.  Returns ``seat_win_probabilities`` (``(P,)``: in seat ``k`` of a game from
    all scores 0, seat 0 opening), ``others_win_probabilities`` (someone else wins),
    ``unfinished`` (``1 -`` both), ``sweeps``, ``converged`` and ``values`` ``(S, P, 2)``.
    """
    nxt_a, prob_a = TP.profile_transitions(three, np.ascontiguousarray(policy, dtype=np.bool_))
    nxt_b, prob_b = TP.profile_transitions(three, np.ascontiguousarray(others, dtype=np.bool_))
    v = np.zeros((three.n_states, three.num_players, 2))
    delta, sweeps = np.inf, 0
    while delta > tol and sweeps < max_sweeps:
        delta = _mixed_sweep(nxt_a, prob_a, nxt_b, prob_b, v)
        sweeps += 1
    start = int(three.state_index(np.zeros(three.num_players, dtype=np.int64)))
    mine, other = v[start, :, 0], v[start, :, 1]
    return {"seat_win_probabilities": [float(x) for x in mine],
            "others_win_probabilities": [float(x) for x in other],
            "unfinished": [float(1.0 - a - b) for a, b in zip(mine, other)],
            "sweeps": sweeps, "converged": bool(delta <= tol), "values": v}


def _network_error(model: LV.NValueModel, sol: TP.ThreePlayerSolution) -> dict:
    """The network's win probabilities against the profile's exact values."""
    w = model.probabilities(sol.model.st_idx)
    err = np.abs(w - sol.values)
    visits = sol.visits / sol.visits.sum()
    mover = err[:, 0]
    return {"rms_all_states": float(np.sqrt(np.mean(err ** 2))),
            "max_all_states": float(err.max()),
            "rms_visit_weighted": float(np.sqrt(np.sum(visits[:, None] * err ** 2) / 3)),
            "mover_rms_visit_weighted": float(np.sqrt(np.sum(visits * mover ** 2))),
            "network_at_start": [float(x) for x in w[0]],
            "exact_at_start": [float(x) for x in sol.values[0]]}


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------
def _model_for(num_players: int, rules: FiveThousandRules,
               models: dict | None) -> LV.NValueModel | None:
    given = (models or {}).get(num_players)
    if isinstance(given, LV.NValueModel):
        return given
    path = Path(given) if given is not None else LV.n_player_model_path(num_players)
    if not path.is_file():
        return None
    model = LV.NValueModel.load(path, num_players=num_players)
    if model.rules != rules:
        raise ValueError(f"{path} was trained for {model.rules.knobs()}, not {rules.knobs()}")
    return model


def learned_value_n_player_report(num_players: tuple[int, ...] = (3, 4), matches: int = 12000,
                                  seed: int = 0, *, exact: bool = True,
                                  models: dict | None = None,
                                  rules: FiveThousandRules | dict | None = None,
                                  cache_dir: str | None = None,
                                  baseline: bool = True) -> dict:
    """The N-player learned-value numbers (see the module doc).

    Args:
        num_players: the table sizes measured (3 to 6); a size without a model is reported as
            ``{"model": None}``.
        matches: games of each simulated series (a multiple of every ``N`` balances the seats
            exactly; otherwise the per-seat rates are averaged).
        seed: seed of the dice (each series its own offset).
        exact: for three players, compute the exact values (``exact``, ``network_error``;
            about a minute) besides the simulated share.
        models: ``{N: NValueModel or path}`` instead of the committed models.
        rules: the game (default 5000; smaller targets for quick checks).
        cache_dir: where the three-player profile is cached (solved there if missing).
        baseline: also measure the learned player's leader approximation (the two-player
            model against the leader; needs ``results/models/learned-value-fivethousand.pt``
            for the standard rules, else skipped).

    Returns ``{"rules", "by_players": {N: {...}}, "seconds"}``: per ``N`` the model's path and
    training record (``training``: seconds, iterations, seed), ``vs_heuristic``,
    ``vs_leader_optimal`` (and ``leader_vs_heuristic``, ``leader_vs_leader_optimal``); for three
    players ``vs_optimal`` (and ``leader_vs_optimal``), ``exact``, ``network_error`` and
    ``exact_leader``.
    """
    t0 = time.perf_counter()
    rules = LV.rules_of(rules if rules is not None else "fivethousand")
    heur = make("heuristic", "fivethousand")
    leader_opt = OptimalAgent(rules, num_players=2, cache_dir=cache_dir)
    two_player = None
    if baseline:
        try:
            two_player = LV.LearnedValueAgent(rules=rules, num_players=2)
        except (FileNotFoundError, ValueError):
            two_player = None
    out: dict = {"rules": rules.knobs(), "matches": matches, "seed": seed, "by_players": {}}
    for k, n in enumerate(num_players):
        n = LV.check_model_players(n)
        model = _model_for(n, rules, models)
        given = (models or {}).get(n)
        path = (None if model is None else "given" if isinstance(given, LV.NValueModel)
                else str(given if given is not None else LV.n_player_model_path(n)))
        entry: dict = {"model": path}
        out["by_players"][n] = entry
        if model is None:
            continue
        cfg = model.meta.get("config", {})
        entry["training"] = {"seconds": model.meta.get("seconds"),
                             "iterations": model.meta.get("iterations"),
                             "seed": cfg.get("seed"), "hidden": list(model.hidden)}
        agent = LV.LearnedValueAgent(rules=rules, model=model)
        base = 100 * k + seed
        entry["vs_heuristic"] = seat_balanced([agent] + [heur] * (n - 1), matches, base + 1,
                                              rules)
        entry["vs_leader_optimal"] = seat_balanced([agent] + [leader_opt] * (n - 1), matches,
                                                   base + 2, rules)
        if two_player is not None:
            entry["leader_vs_heuristic"] = seat_balanced([two_player] + [heur] * (n - 1),
                                                         matches, base + 1, rules)
            entry["leader_vs_leader_optimal"] = seat_balanced(
                [two_player] + [leader_opt] * (n - 1), matches, base + 2, rules)
        if n != 3:
            continue
        sol = TP.load_or_solve_three_player(rules, cache_dir=cache_dir)
        optimal = OptimalAgent(rules, num_players=3, three_player=sol)
        entry["vs_optimal"] = seat_balanced([agent, optimal, optimal], matches, base + 3, rules)
        if two_player is not None:
            entry["leader_vs_optimal"] = seat_balanced([two_player, optimal, optimal], matches,
                                                       base + 3, rules)
        if exact:
            ta = time.perf_counter()
            pol = learned_value_policy(model, sol.model)
            mixed = mixed_profile_values(sol.model, pol, sol.policy)
            seats = mixed.pop("seat_win_probabilities")
            mixed.pop("values")
            share = float(np.mean(seats))
            entry["exact"] = {"seat_win_probabilities": seats, "win_share": share,
                              "gap_to_one_third": share - 1.0 / 3.0,
                              "optimal_seat_win_probabilities":
                                  [float(x) for x in sol.seat_win_probabilities],
                              **mixed, "seconds": time.perf_counter() - ta}
            entry["network_error"] = _network_error(model, sol)
            if two_player is not None:
                lead = mixed_profile_values(sol.model, leader_policy(two_player, sol.model),
                                            sol.policy)
                share = float(np.mean(lead["seat_win_probabilities"]))
                entry["exact_leader"] = {
                    "seat_win_probabilities": lead["seat_win_probabilities"],
                    "win_share": share, "gap_to_one_third": share - 1.0 / 3.0,
                    "sweeps": lead["sweeps"], "converged": lead["converged"]}
    out["seconds"] = time.perf_counter() - t0
    return out
