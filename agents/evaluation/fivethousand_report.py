"""The 5000 section of ``results/optimal.md``: exact numbers, solve times and simulation checks.

:func:`fivethousand_report` solves both games in a fresh process (an honest solve time and peak
memory), then checks the tables from several sides:

* optimal vs optimal over many games reproduces the first player's win probability;
* the solo agent's mean number of turns reproduces the expected turns;
* the single-turn facts (best entry probability, best expected points) against Monte-Carlo
  turns played on the game core;
* the optimal player against the built-in bot and the family of threshold heuristics: the
  exact win probability of each match (both players' policies fixed, solved on the same state
  space), and the simulated seat-balanced win rate, which must agree;
* with three and four players (no exact solution), the two-player policy as a bot.

It returns ``(markdown, data)``; the caller writes them (``dice-env report optimal``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import numpy as np

from agents.solvers import fivethousand_vi as VI

__all__ = ["fivethousand_report", "seat_balanced", "single_turn_monte_carlo",
           "solve_in_subprocess"]

#: the threshold heuristics simulated (``ThresholdBot(threshold=k)``; 300 is the env default)
SIMULATED_THRESHOLDS = (200, 300, 400, 500, 600, 800, 1000)
#: the thresholds evaluated exactly (no simulation), to find the strongest heuristic
EXACT_THRESHOLDS = tuple(range(100, 1600, 100))
#: tolerance of the exact scan (the match rows use the solver's 1e-9)
SCAN_TOL = 1e-7
#: flat thresholds (the same for every number of dice left), exact and simulated
FLAT_THRESHOLDS = (300, 500, 1000)
SCORES_SHOWN = (0, 500, 1000, 2000, 3000, 4000, 4500, 4900)
#: score situations whose optimal banking is shown (my score, opponent's score)
POLICY_EXAMPLES = ((0, 0), (0, 3000), (1000, 1000), (2000, 4000), (4000, 2000), (3000, 3000),
                   (4500, 4500), (4800, 4700))


def policy_examples(two: VI.TwoPlayerSolution, shown: int = 5) -> list[dict]:
    """The turn totals the optimal player banks in some score situations, by dice left."""
    pol = VI.policy_of(two)
    m = two.model
    out = []
    for a, b in POLICY_EXAMPLES:
        i, j = int(m.index(a)), int(m.index(b))
        banks = {n: [50 * int(k) for k in np.flatnonzero(pol[i, j, :, n])][:shown]
                 for n in range(1, 6)}
        out.append({"my_score": a, "opponent": b, "banks": banks,
                    "win_probability": float(two.win[i, j])})
    return out


def solve_in_subprocess(cache_dir: str | None = None, threads: int | None = None,
                        force: bool = True) -> dict:
    """Run :func:`~agents.solvers.fivethousand_vi.solve_fivethousand_summary` in a fresh
    Python process (``force``: solve even if cached); its JSON record."""
    code = ("import json, sys; from agents.solvers.fivethousand_vi import "
            "solve_fivethousand_summary as s; "
            f"print(json.dumps(s(cache_dir={cache_dir!r}, force={force!r}, "
            f"threads={threads!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the 5000 solve failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def single_turn_monte_carlo(n_turns: int, seed: int, facts: dict | None = None,
                            rules=None) -> dict:
    """Play ``n_turns`` single turns on the game core with the optimal single-turn policies.

    Entering: from score 0 under ``rules`` (default 5000), bank whenever the entry policy says
    so; the turn enters if the score is positive afterwards.  Points: a player with no target
    in sight (target 1,000,000, entry 0) follows the expected-points policy.  Returns the
    rates / means with their standard errors.
    """
    from dice_env.fivethousand import game as G
    from dice_env.fivethousand import rules as R
    from dice_env.fivethousand.rules import FiveThousandRules

    rules = VI.coerce_rules(rules)
    facts = facts or VI.single_turn_facts(rules)
    rng = np.random.default_rng(seed)

    def one_turn(r: FiveThousandRules, policy: np.ndarray) -> np.ndarray:
        st = G.FiveThousandState.empty(n_turns, 1)
        G.start_games(r, st, np.ones(n_turns, dtype=bool), rng)
        for _ in range(10_000):
            active = (st.turns[:, 0] == 0) & ~st.finished()
            if not active.any():
                break
            slot = np.minimum(st.full_turn_total() // 50, policy.shape[0] - 1)
            bank = policy[slot, st.dice_left()]
            G.step_games(r, st, np.where(bank, R.BANK, R.ROLL), rng, active=active)
        return st.scores[:, 0].copy()

    entered = one_turn(rules, facts["entry_policy"]) > 0
    far = FiveThousandRules(target=1_000_000, entry=0)
    points = one_turn(far, facts["points_policy"]).astype(np.float64)
    p = float(entered.mean())
    return {"turns": n_turns, "entry_rate": p,
            "entry_se": float(np.sqrt(p * (1 - p) / n_turns)),
            "points_mean": float(points.mean()),
            "points_sd": float(points.std(ddof=1)),
            "points_se": float(points.std(ddof=1) / np.sqrt(n_turns))}


def seat_balanced(player: Any, opponent: Any, n_games: int, seed: int, rules=None) -> dict:
    """Two-player match with
    :func:`agents.evaluation.fivethousand_matches.play_fivethousand_matches` (seats alternate
    game by game): ``player``'s win rate when it opens / follows, their mean
    (the seat-balanced rate) and its standard error."""
    from agents.evaluation.fivethousand_matches import play_fivethousand_matches

    t0 = time.perf_counter()
    r = play_fivethousand_matches([player, opponent], n_games, seed=seed,
                                  rules=VI.coerce_rules(rules))
    opened = r.first == 0
    p1 = float(np.mean(r.winner[opened] == 0))
    p2 = float(np.mean(r.winner[~opened] == 0))
    se = 0.5 * np.sqrt(p1 * (1 - p1) / opened.sum() + p2 * (1 - p2) / (~opened).sum())
    return {"win_rate_first": p1, "win_rate_second": p2, "win_rate": (p1 + p2) / 2,
            "standard_error": float(se), "games": n_games,
            "unfinished": int(np.sum(r.winner < 0)), "seconds": time.perf_counter() - t0}


def _z(sim: float, exact: float, se: float) -> float:
    return float((sim - exact) / se) if se > 0 else float("nan")


def _bot_label(thresholds: list[int], flat: bool, k: int) -> str:
    if flat:
        return f"flat {k}"
    return f"threshold {k} ({'/'.join(str(x) for x in thresholds)})"


def fivethousand_report(games: int = 20_000, seed: int = 0, *, cache_dir: str | None = None,
                        threads: int | None = None, bot_games: int | None = None,
                        extra_opponents: dict[str, Any] | None = None,
                        progress: bool = False) -> tuple[str, dict]:
    """Solve, check and describe optimal 5000; ``(markdown section, data)``.

    Args:
        games: games of each simulation (optimal vs optimal, solo games, single turns x 5).
        seed: the root seed; every simulation's dice derive from it.
        cache_dir: the solver cache folder (default ``$DICE_ENV_CACHE``, else the user cache).
            The solve runs with ``force`` in a fresh process (an honest time), which refreshes
            the cached tables; the checks then load them.
        threads: numba threads of the solve (default: all).
        bot_games: games of each optimal-vs-heuristic match (default ``games``), seat-balanced.
        extra_opponents: more two-player opponents to include, ``{name: player}`` (any object
            with ``act`` / ``act_batch`` on the env's observations).
        progress: a tqdm bar over the simulations.
    """
    from agents.evaluation.fivethousand_matches import play_fivethousand_matches
    from agents.fivethousand.optimal import OptimalAgent, play_solo_games
    from agents.progress import progress_bar
    from dice_env.fivethousand.bots import ThresholdBot

    bot_games = games if bot_games is None else bot_games
    seeds = iter(np.random.SeedSequence([int(seed), 5000]).generate_state(64).tolist())
    data: dict[str, Any] = {"games": games, "bot_games": bot_games, "seed": seed}

    # -- solve in a fresh process, then load ----------------------------------------------
    solve = solve_in_subprocess(cache_dir, threads, force=True)
    t0 = time.perf_counter()
    two = VI.load_or_solve_two_player(cache_dir=cache_dir)
    solo = VI.load_or_solve_solo(cache_dir=cache_dir)
    load_s = time.perf_counter() - t0
    solve.pop("cache_paths", None)
    data["solve"] = solve
    data["load_seconds"] = load_s
    rules = two.rules
    agent = OptimalAgent(rules=rules, two_player=two, solo=solo)
    facts = VI.single_turn_facts(rules)
    data["exact"] = {
        "first_player_win_probability": two.first_player_win_probability,
        "second_player_win_probability": 1.0 - two.first_player_win_probability,
        "expected_turns_solo": solo.expected_turns,
        "entry_probability": facts["entry_probability"],
        "expected_points": facts["expected_points"],
        "expected_points_cap_check": facts["expected_points_cap_check"],
        "points_thresholds": facts["points_thresholds"],
        "entry_policy_is_bank_when_allowed": facts["entry_policy_is_bank_when_allowed"],
        "sweeps": two.sweeps, "residual": two.residual, "tol": two.tol,
        "solo_residual": solo.residual,
        "win_table": {"scores": list(SCORES_SHOWN),
                      "win": [[float(two.win_probability(a, b)) for b in SCORES_SHOWN]
                              for a in SCORES_SHOWN]},
        "solo_turns_from": {str(s): float(solo.expected_turns_from(s)) for s in SCORES_SHOWN},
        "policy_examples": policy_examples(two),
    }

    bar = progress_bar(total=5 + len(SIMULATED_THRESHOLDS) + len(FLAT_THRESHOLDS)
               + len(extra_opponents or {}), desc="5000 checks", disable=not progress)
    # -- simulation checks ------------------------------------------------------------------
    t0 = time.perf_counter()
    res = play_fivethousand_matches([agent, agent], games, seed=next(seeds), rules=rules)
    p = float(np.mean(res.winner == res.first))
    se = float(np.sqrt(p * (1 - p) / games))
    data["optimal_vs_optimal"] = {
        "games": games, "first_player_wins": p, "standard_error": se,
        "z": _z(p, two.first_player_win_probability, se),
        "unfinished": int(np.sum(res.winner < 0)),
        "mean_decisions": float(res.decisions.mean()), "seconds": time.perf_counter() - t0}
    bar.update()
    t0 = time.perf_counter()
    turns = play_solo_games(agent, games, rules=rules, seed=next(seeds)).astype(np.float64)
    se = float(turns.std(ddof=1) / np.sqrt(games))
    data["solo_simulation"] = {
        "games": games, "mean_turns": float(turns.mean()), "sd": float(turns.std(ddof=1)),
        "standard_error": se, "z": _z(float(turns.mean()), solo.expected_turns, se),
        "percentiles": {str(q): float(np.percentile(turns, q)) for q in (5, 25, 50, 75, 95)},
        "seconds": time.perf_counter() - t0}
    bar.update()
    mc = single_turn_monte_carlo(5 * games, next(seeds), facts, rules)
    mc["entry_z"] = _z(mc["entry_rate"], facts["entry_probability"], mc["entry_se"])
    mc["points_z"] = _z(mc["points_mean"], facts["expected_points"], mc["points_se"])
    data["single_turn_simulation"] = mc
    bar.update()

    # -- optimal vs heuristics ----------------------------------------------------------------
    opt_policy = VI.policy_of(two)
    model = two.model

    def exact_vs(player: Any) -> dict:
        pol = VI.threshold_policy(model, player)
        m = VI.match_win_probabilities(rules, opt_policy, pol)
        br = VI.match_win_probabilities(rules, None, pol)
        return {"exact_first": m["a_first"], "exact_second": m["b_first"],
                "exact": m["a_seat_balanced"], "best_response": br["a_seat_balanced"]}

    exact_scan = []
    for k in EXACT_THRESHOLDS:
        bot = ThresholdBot(rules, threshold=k)
        pol = VI.threshold_policy(model, bot)
        m = VI.match_win_probabilities(rules, opt_policy, pol, tol=SCAN_TOL)
        exact_scan.append({"threshold": k, "thresholds": bot.thresholds[1:].tolist(),
                           "optimal_win": m["a_seat_balanced"]})
    bar.update()
    data["exact_threshold_scan"] = exact_scan
    strongest = min(exact_scan, key=lambda r: r["optimal_win"])
    # thresholds that play identically in every reachable state tie exactly
    strongest["equivalent"] = [r["threshold"] for r in exact_scan
                               if abs(r["optimal_win"] - strongest["optimal_win"]) < 1e-6]
    data["strongest_threshold"] = strongest

    opponents: list[tuple[str, Any, dict]] = []
    for k in SIMULATED_THRESHOLDS:
        bot = ThresholdBot(rules, threshold=k)
        label = _bot_label(bot.thresholds[1:].tolist(), False, k)
        if k == 300:
            label += ", the envs' default opponent"
        opponents.append((label, bot, {"kind": "threshold", "threshold": k}))
    if not set(strongest["equivalent"]) & set(SIMULATED_THRESHOLDS):
        k = strongest["threshold"]
        bot = ThresholdBot(rules, threshold=k)
        opponents.append((_bot_label(bot.thresholds[1:].tolist(), False, k) + ", the strongest",
                          bot, {"kind": "threshold", "threshold": k}))
    for k in FLAT_THRESHOLDS:
        bot = ThresholdBot(rules, thresholds=[k] * 5)
        opponents.append((_bot_label([k] * 5, True, k), bot, {"kind": "flat", "threshold": k}))
    try:  # the factory's tuned "heuristic" (the winner of dice-env report thresholds)
        from agents.fivethousand.bots import HeuristicAgent
    except ImportError:  # pragma: no cover - older trees
        HeuristicAgent = None
    if HeuristicAgent is not None:
        bot = HeuristicAgent(rules)
        label = ("heuristic (" + "/".join(str(x) for x in bot.thresholds[1:].tolist())
                 + "), the factory's tuned bot")
        opponents.append((label, bot, {"kind": "heuristic"}))
    matches = []
    for label, bot, info in opponents:
        row = {"opponent": label, **info, **exact_vs(bot)}
        sim = seat_balanced(agent, bot, bot_games, next(seeds), rules)
        row.update(simulated=sim["win_rate"], simulated_first=sim["win_rate_first"],
                   simulated_second=sim["win_rate_second"], standard_error=sim["standard_error"],
                   z=_z(sim["win_rate"], row["exact"], sim["standard_error"]),
                   games=sim["games"], seconds=sim["seconds"])
        matches.append(row)
        bar.update()
    for label, player in (extra_opponents or {}).items():
        sim = seat_balanced(agent, player, bot_games, next(seeds), rules)
        matches.append({"opponent": label, "kind": "extra", "simulated": sim["win_rate"],
                        "simulated_first": sim["win_rate_first"],
                        "simulated_second": sim["win_rate_second"],
                        "standard_error": sim["standard_error"], "games": sim["games"],
                        "seconds": sim["seconds"]})
        bar.update()
    data["matches"] = matches

    # -- more than two players: the two-player policy as a bot -------------------------------
    multi = []
    for p in (3, 4):
        n = max(1, bot_games // p) * p
        r = play_fivethousand_matches([agent] + [ThresholdBot(rules) for _ in range(p - 1)], n,
                                      seed=next(seeds), rules=rules)
        rate = r.win_rate(0)
        seat = np.arange(n) % p  # the agent's seat in game g (seats rotate)
        multi.append({"players": p, "games": n, "win_rate": rate,
                      "standard_error": float(np.sqrt(rate * (1 - rate) / n)),
                      "fair_share": 1.0 / p,
                      "per_seat": [float(np.mean(r.winner[seat == s_] == 0)) for s_ in range(p)]})
    data["multiplayer"] = multi
    bar.update()
    bar.close()
    return markdown(data), data


def _row(name: str, value: str) -> str:
    return f"| {name} | {value} |"


def markdown(data: dict) -> str:
    """The report dict as the Markdown ``## 5000`` section."""
    s = data["solve"]
    e = data["exact"]
    oo = data["optimal_vs_optimal"]
    so = data["solo_simulation"]
    mc = data["single_turn_simulation"]
    rules = s["rules"]
    lines = [
        "## 5000",
        "",
        f"Rules of docs/rules.md section 2 (target {rules['target']}, entry {rules['entry']}, "
        + ("Farkle-style set-asides" if rules["choose_scoring_dice"]
           else "every scoring die set aside")
        + "), solved exactly by `agents/solvers/fivethousand_vi/`: value iteration over "
        "(my score, opponent's score, turn total, dice left) for two players maximising the "
        "probability of winning (Neller & Presser's method for Pig), and a backward solve over "
        "the score (policy iteration per score) for solo play minimising the expected number "
        "of turns.  Bank outcomes (entry, no 50s, bumps, overshoot gifts and their loss, exact "
        "wins) are tabulated from `dice_env.fivethousand.rules.resolve_bank`, throws from "
        "`outcome_distribution`.  No optimal solution of this game was published before; the "
        "checks below come from several sides: brute-force recursions on small targets "
        "(`tests/test_fivethousand_solver.py`), an exact evaluation of every match, and "
        "simulation on the game core.",
        "",
        "### Exact values",
        "",
        "| quantity | value |",
        "|---|---:|",
        _row("first player's win probability, both optimal",
             f"**{e['first_player_win_probability']:.10f}**"),
        _row("second player's win probability",
             f"{e['second_player_win_probability']:.10f}"),
        _row(f"expected turns to reach {rules['target']} exactly, solo",
             f"**{e['expected_turns_solo']:.10f}**"),
        _row(f"best probability of entering (banking ≥ {rules['entry']}) in one turn from a "
             "fresh start", f"**{e['entry_probability']:.10f}**"),
        _row("best expected banked points of one turn, entered, far from the target",
             f"**{e['expected_points']:.10f}**"),
        _row(f"value-iteration sweeps to converge (largest change ≤ {e['tol']:g})",
             str(e["sweeps"])),
        _row("Bellman residual of the two-player table", f"{e['residual']:.1e}"),
        _row("turn-start states / decision states",
             f"{s['states']:,} / {s['decision_states']:,}"),
        "",
        f"The entry probability is that of banking as soon as the bank is allowed (the optimal "
        f"entry policy does exactly that: {e['entry_policy_is_bank_when_allowed']}).  The "
        f"expected points tabulate turn totals up to 40,000 (a turn reaching it counts 0); "
        f"with half that cap the value is {e['expected_points_cap_check']:.10f}.  The "
        "expected-points policy banks from these totals on (smallest bankable total at which "
        "banking is optimal, by dice left to roll): "
        + ", ".join(f"{n} dice {t}" for n, t in sorted(e["points_thresholds"].items(),
                                                        key=lambda kv: int(kv[0])))
        + ".",
        "",
        "### Solve time and memory",
        "",
        "Both games solved in a fresh process by `solve_fivethousand_summary(force=True)` (the "
        "record of `dice-env solve fivethousand --json --force`; numba kernels loaded from "
        "numba's on-disk cache).",
        "",
        "| solve (s) | two players (s) | solo (s) | peak memory (MB) | threads | sweeps | "
        "loading the cached tables (s) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| {s['seconds']:.2f} | {s['two_player_seconds']:.2f} | {s['solo_seconds']:.2f} "
        f"| {s['peak_mb']:.0f} | {s['threads']} | {s['sweeps']} | {data['load_seconds']:.3f} |",
        "",
        "### Simulation checks",
        "",
        "| check | exact | simulated ± SE | z | sample |",
        "|---|---:|---:|---:|---:|",
        f"| optimal vs optimal: the opener wins | {e['first_player_win_probability']:.4f} "
        f"| {oo['first_player_wins']:.4f} ± "
        f"{oo['standard_error']:.4f} | {oo['z']:+.2f} | {oo['games']:,} games |",
        f"| solo: turns to reach {rules['target']} | {e['expected_turns_solo']:.3f} "
        f"| {so['mean_turns']:.3f} ± {so['standard_error']:.3f} | {so['z']:+.2f} "
        f"| {so['games']:,} games |",
        f"| one turn: enters from 0 | {e['entry_probability']:.4f} | {mc['entry_rate']:.4f} ± "
        f"{mc['entry_se']:.4f} | {mc['entry_z']:+.2f} | {mc['turns']:,} turns |",
        f"| one turn: banked points | {e['expected_points']:.2f} | {mc['points_mean']:.2f} ± "
        f"{mc['points_se']:.2f} | {mc['points_z']:+.2f} | {mc['turns']:,} turns |",
        "",
        f"Solo games under the optimal policy: SD {so['sd']:.2f} turns; 5/25/50/75/95th "
        "percentiles "
        + " / ".join(f"{so['percentiles'][q]:.0f}" for q in ("5", "25", "50", "75", "95"))
        + f".  Optimal vs optimal: {oo['mean_decisions']:.1f} decisions per game.",
        "",
        "### The optimal player against heuristics",
        "",
        "`ThresholdBot(threshold=k)` banks once the turn total reaches max(k, the one-throw "
        "break-even total for the dice left) (per dice left 1..5 in brackets); *flat k* banks at "
        "k whatever the dice; *heuristic* is `agents.make('heuristic', 'fivethousand')`, the "
        "best threshold bot of `dice-env report thresholds` against the default bot.  Every "
        "one of them banks an exact win and never an overshoot.  *Exact*: the optimal "
        "player's win probability with both policies fixed, solved on the same state space "
        "(opening / following / seat-balanced mean).  *Simulated*: seat-balanced over the "
        "games shown, seats alternating game by game; 95 % "
        "interval ±1.96 SE.  *Best response*: what a player tuned against that heuristic "
        "would win (the optimal player plays the minimax policy, not the exploiting one).",
        "",
        "| opponent | exact: opening | following | seat-balanced | simulated (95 % CI) | z "
        "| games | best response |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in data["matches"]:
        ci = 1.96 * m["standard_error"]
        if m.get("kind") == "extra":
            lines.append(f"| {m['opponent']} | — | — | — | {m['simulated']:.4f} ± {ci:.4f} | — "
                         f"| {m['games']:,} | — |")
            continue
        lines.append(
            f"| {m['opponent']} | {m['exact_first']:.4f} | {m['exact_second']:.4f} "
            f"| **{m['exact']:.4f}** | {m['simulated']:.4f} ± {ci:.4f} | {m['z']:+.2f} "
            f"| {m['games']:,} | {m['best_response']:.4f} |")
    st = data["strongest_threshold"]
    scan = data["exact_threshold_scan"]
    lines += [
        "",
        f"Over the exact scan of `ThresholdBot(threshold=k)` for k = {scan[0]['threshold']}.."
        f"{scan[-1]['threshold']} (step {scan[1]['threshold'] - scan[0]['threshold']}) the "
        f"strongest heuristic is k = {', '.join(str(k) for k in st['equivalent'])} "
        f"({'/'.join(str(x) for x in st['thresholds'])}"
        + ("; these thresholds make the same decision in every reachable state"
           if len(st["equivalent"]) > 1 else "")
        + f"): the optimal player still wins {st['optimal_win']:.4f} of seat-balanced games "
        f"against it, and {max(r['optimal_win'] for r in scan):.4f} against the weakest of "
        "the scan.",
        "",
        "### More than two players",
        "",
        "No exact solution is computed for three or more players.  `OptimalAgent` then plays "
        "the two-player optimal policy against the leader (the other player with the highest "
        "score), ignoring the rest -- a strong bot, not an optimal player.  Against default "
        "`ThresholdBot`s, seat-balanced (the agent in each seat in turn):",
        "",
        "| players | games | agent's win rate ± SE | fair share | per seat |",
        "|---:|---:|---:|---:|---|",
    ]
    for m in data["multiplayer"]:
        lines.append(f"| {m['players']} | {m['games']:,} | {m['win_rate']:.4f} ± "
                     f"{m['standard_error']:.4f} | {m['fair_share']:.4f} | "
                     + " / ".join(f"{x:.3f}" for x in m["per_seat"]) + " |")
    wt = e["win_table"]
    lines += [
        "",
        "### Win probability of the player to move (start of a turn)",
        "",
        "| my score \\ opponent | " + " | ".join(str(b) for b in wt["scores"]) + " |",
        "|---:|" + "---:|" * len(wt["scores"]),
    ]
    for a, row in zip(wt["scores"], wt["win"]):
        lines.append(f"| {a} | " + " | ".join(f"{v:.3f}" for v in row) + " |")
    lines += [
        "",
        "### What the optimal player banks",
        "",
        "The first turn totals (multiples of 100 only: a total ending in 50 cannot be banked) "
        "at which the optimal two-player policy banks, by dice left to roll if it rolled on.  "
        "Near the target it is no threshold rule: at 4800 against 4700 it banks 200 (exactly "
        "5000) but neither 100 nor 300 -- 300 would overshoot and gift the opponent exactly "
        "5000 -- and from 400 on every bank is a lost gift, worth the same as a bust.",
        "",
        "| my score | opponent | win prob. | 1 die | 2 dice | 3 dice | 4 dice | 5 dice |",
        "|---:|---:|---:|---|---|---|---|---|",
    ]
    for ex in e["policy_examples"]:
        banks = {int(k): v for k, v in ex["banks"].items()}  # keys are str after JSON
        cells = [", ".join(str(t) for t in banks[n]) + (", ..." if banks[n] else "")
                 for n in range(1, 6)]
        lines.append(f"| {ex['my_score']} | {ex['opponent']} | {ex['win_probability']:.3f} | "
                     + " | ".join(cells) + " |")
    lines += [
        "",
        "Solo, expected turns still to play from the start of a turn: "
        + ", ".join(f"{k} → {v:.2f}" for k, v in e["solo_turns_from"].items()) + ".",
        "",
    ]
    return "\n".join(lines)
