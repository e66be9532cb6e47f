"""The optimal players of the scorecard games, measured (what ``dice-env report optimal`` runs).

For each preset :func:`optimal_play_report`

1. solves the game in a fresh process (:func:`solve_in_subprocess`, the record of ``dice-env
   solve GAME --json --force``), which gives an honest solve time and peak memory and refreshes
   the cached table;
2. loads the table into an :class:`agents.scorecard.optimal.OptimalAgent` and plays ``games``
   games on the batched game core (dice from ``numpy.random.default_rng``, a seed derived
   from ``seed`` and the preset's position);
3. times the agent's per-decision queries (``act`` one at a time, ``act_batch`` on a batch,
   :func:`time_queries`);

and solves the Joker readings of the Yahtzee card (:data:`JOKER_VARIANTS`).  The simulated
mean must agree with the DP value within sampling error (the ``z`` field).  The report is
written by :mod:`agents.evaluation.reports.optimal`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

#: published optimal expected scores: preset -> (value as published, which reading of the
#: rules, and the reason for any difference)
PUBLISHED = {
    "yahtzee-official": (254.5877, "forced Joker, Hasbro's rule"),
    "yahtzee-free-joker": (254.5896, "Verhoeff's free-choice Joker"),
    "yahtzee-no-bonus": (245.8708, "no Yahtzee bonus, no Joker"),
    "yatzy": (248.63, "Scandinavian Yatzy as Larsson & Sjöberg state its rules (Optimal Yatzy "
                      "Strategy, KTH 2012); their 248.63 is their program's, whose Two pairs "
                      "also scores a single pair, which their rules forbid -- with that Two "
                      "pairs the DP gives 248.63 too (docs/rules.md section 1.7 has every "
                      "reading's optimum; tests/test_yatzy_yacht.py)"),
}
#: Joker readings solved on the Yahtzee card (knob overrides of ``yahtzee-official``).
JOKER_VARIANTS = [
    {"joker": "forced", "joker_when_scratched": True},
    {"joker": "free", "joker_when_scratched": True},
    {"joker": "forced", "joker_when_scratched": False},
    {"joker": "free", "joker_when_scratched": False},
    {"joker": "none", "joker_when_scratched": False},
    {"joker": "forced", "joker_when_scratched": True, "five_kind_bonus": 0},
    {"joker": "none", "joker_when_scratched": False, "five_kind_bonus": 0},
]
#: what the fresh process runs: ``dice-env solve GAME --json --force --quiet``, its clock
#: started before its imports
_SOLVE = """\
import time; _start = time.perf_counter()
import json, sys
from agents.solvers.records import solve_record
record = solve_record(sys.argv[1], cache_dir=sys.argv[2] or None, force=True,
                      threads=int(sys.argv[3]) or None)
record["wall_seconds"] = round(time.perf_counter() - _start, 3)
print(json.dumps(record))
"""


def solve_in_subprocess(game: str, cache_dir: str | None = None, threads: int = 0) -> dict:
    """Solve ``game`` afresh (``force``) in a new Python process; its JSON record (that of
    ``dice-env solve GAME --json --force``).  ``threads`` 0: all cores."""
    cmd = [sys.executable, "-c", _SOLVE, game, cache_dir or "", str(threads or 0)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"solving {game} in a fresh process failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def time_queries(agent: Any, n_decisions: int, seed: int) -> dict:
    """Microseconds per decision of ``act`` (one at a time) and ``act_batch`` (one batch)."""
    from dice_env.scorecard import game as G
    from dice_env.scorecard.observation import encode_observation

    rules = agent.rules
    rng = np.random.default_rng(seed)
    state = G.ScorecardState.empty(rules, n_decisions)
    G.start_games(rules, state, np.ones(n_decisions, dtype=bool), rng)
    # advance every game a random number of decisions, so the sample spans whole games
    stop = rng.integers(0, 3 * rules.n_boxes, size=n_decisions)
    for step in range(int(stop.max())):
        active = (step < stop) & ~state.finished()
        legal = G.box_options(rules, state)[0]
        masks = G.action_mask(rules, state, True, legal)
        actions = np.zeros(n_decisions, dtype=np.int64)
        rows = np.flatnonzero(active)
        if rows.size:
            actions[rows] = agent.act_states(state.take(rows), masks[rows])
        G.apply_actions(rules, state, actions, rng, active=active)
    keep = ~state.finished()
    state = state.take(np.flatnonzero(keep))
    legal, points, _ = G.box_options(rules, state)
    masks = G.action_mask(rules, state, True, legal)
    obs = encode_observation(rules, state.dice, state.roll, state.rolls_left,
                             state.open_boxes(), points, state.upper_total,
                             state.five_state(rules))
    for i in range(min(20, len(obs))):
        agent.act(obs[i], masks[i])
    agent.act_batch(obs[:300], masks[:300])
    t0 = time.perf_counter()
    for o, m in zip(obs, masks, strict=True):
        agent.act(o, m)
    single = (time.perf_counter() - t0) / len(obs)
    t0 = time.perf_counter()
    agent.act_batch(obs, masks)
    batch = (time.perf_counter() - t0) / len(obs)
    return {"decisions": int(len(obs)), "act_us": round(single * 1e6, 1),
            "act_batch_us": round(batch * 1e6, 2)}


def preset_entry(game: str, index: int, games: int, seed: int, *, cache_dir: str | None = None,
                 batch_size: int = 20_000, query_sample: int = 2_000, threads: int = 0,
                 progress: bool = False) -> dict:
    """Solve (in a fresh process), simulate and time one preset, the ``index``-th of the
    report (its dice seed derives from ``seed`` and ``index``); its entry of the report."""
    from agents.scorecard.optimal import OptimalAgent, simulate_optimal_games
    from dice_env.scorecard.rules import get_rules

    rules = get_rules(game)
    # independent dice for every preset, all derived from the seed
    game_seed = int(np.random.SeedSequence([seed, index]).generate_state(1)[0])
    solve = solve_in_subprocess(game, cache_dir, threads)
    agent = OptimalAgent(game, cache_dir=cache_dir)
    t0 = time.perf_counter()
    stats = simulate_optimal_games(agent, games, seed=game_seed, batch_size=batch_size,
                                   progress=progress)
    sim_seconds = time.perf_counter() - t0
    totals = stats["total"].astype(np.float64)
    mean = float(totals.mean())
    sd = float(totals.std(ddof=1))
    se = sd / np.sqrt(len(totals))
    entry = {
        "game": game, "boxes": rules.n_boxes,
        "expected_score": round(agent.expected_score, 6),
        "published": PUBLISHED.get(game, (None, None))[0],
        "simulated_mean": round(mean, 3), "simulated_sd": round(sd, 3),
        "standard_error": round(se, 3), "z": round((mean - agent.expected_score) / se, 2),
        "percentiles": {str(q): float(np.percentile(totals, q)) for q in (5, 25, 50, 75, 95)},
        "min": int(totals.min()), "max": int(totals.max()),
        "upper_bonus_share": round(float(stats["upper_bonus"].mean()), 4),
        "five_kind_share": round(float(stats["five_kind"].mean()), 4),
        "five_bonus_mean": round(float(stats["five_bonus"].mean()), 3),
        "simulation_seconds": round(sim_seconds, 2),
        "solve": solve,
        "simulation_seed": game_seed,
        "queries": time_queries(agent, query_sample, game_seed + 1),
    }
    entry["solve"].pop("cache_path", None)  # machine-specific
    return entry


def joker_variants(progress: bool = False) -> list[dict]:
    """The exact expected score of each Joker reading of :data:`JOKER_VARIANTS`."""
    from agents.progress import progress_bar
    from agents.solvers.scorecard_dp import solve_scorecard
    from dice_env.scorecard.rules import get_rules

    return [{"knobs": knobs,
             "expected_score": round(solve_scorecard(get_rules("yahtzee-official", **knobs))
                                     .expected_score, 6)}
            for knobs in progress_bar(JOKER_VARIANTS, desc="joker readings", disable=not progress)]


def optimal_play_report(presets: Sequence[str], games: int, seed: int, command: str, *,
                        cache_dir: str | None = None, batch_size: int = 20_000,
                        query_sample: int = 2_000, threads: int = 0, variants: bool = True,
                        progress: bool = False) -> dict:
    """Solve, simulate and time every preset of ``presets`` (and with ``variants`` the Joker
    readings); the report as a dict (``command``: what produced it)."""
    from agents.progress import progress_bar

    report = {"command": command,
              "generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "games_per_preset": games, "seed": seed,
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version(),
                          "processor": platform.processor() or platform.machine()},
              "results": []}
    for index, game in enumerate(progress_bar(presets, desc="presets", unit="game",
                                      disable=not progress)):
        report["results"].append(preset_entry(
            game, index, games, seed, cache_dir=cache_dir, batch_size=batch_size,
            query_sample=query_sample, threads=threads, progress=progress))
    if variants:
        report["joker_variants"] = joker_variants(progress)
    return report
