"""Solve every scorecard preset, play the optimal agent, and write results/optimal.{md,json}.

For each preset the script

1. solves the game in a fresh process (``scripts/solve.py GAME --json --force``), which gives
   an honest solve time and peak memory and refreshes the cached table;
2. loads the table into an :class:`agents.scorecard.optimal.OptimalAgent` and plays ``--games``
   games on the batched game core (dice from ``numpy.random.default_rng(--seed)``);
3. times the agent's per-decision queries (``act`` one at a time, ``act_batch`` on a batch).

The simulated mean must agree with the DP value within sampling error (the ``z`` column).
Both output files are written atomically (temporary file + ``os.replace``).

Example::

    python scripts/optimal_report.py --games 100000 --seed 2024
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _cli_args import at_least, output_folder

from dice_env.io import atomic_write_text

ROOT = Path(__file__).resolve().parent.parent
#: the arguments of the run that wrote the committed results/optimal.*
DOCUMENTED_RUN = {"games": 100_000, "seed": 2024}
PUBLISHED = {
    "yahtzee-official": (254.5877, "forced Joker, Hasbro's rule"),
    "yahtzee-free-joker": (254.5896, "Verhoeff's free-choice Joker"),
    "yahtzee-no-bonus": (245.8708, "no Yahtzee bonus, no Joker"),
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


def solve_in_subprocess(game: str, cache_dir: str | None, threads: int) -> dict:
    """Run ``scripts/solve.py GAME --json --force`` and return its JSON record."""
    cmd = [sys.executable, str(ROOT / "scripts" / "solve.py"), game, "--json", "--force",
           "--quiet"]
    if cache_dir:
        cmd += ["--cache-dir", cache_dir]
    if threads:
        cmd += ["--threads", str(threads)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def time_queries(agent, n_decisions: int, seed: int) -> dict:
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


def run(args: argparse.Namespace) -> dict:
    """Solve, simulate and time every game; the report as a dict."""
    from tqdm.auto import tqdm

    from agents.scorecard.optimal import OptimalAgent, simulate_optimal_games
    from dice_env.scorecard.rules import get_rules

    report = {"command": "python scripts/optimal_report.py " + " ".join(args.argv),
              "generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "games_per_preset": args.games, "seed": args.seed,
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version(),
                          "processor": platform.processor() or platform.machine()},
              "results": []}
    for index, game in enumerate(tqdm(args.game, desc="presets", unit="game",
                                      disable=args.quiet)):
        rules = get_rules(game)
        # independent dice for every preset, all derived from --seed
        seed = int(np.random.SeedSequence([args.seed, index]).generate_state(1)[0])
        solve = solve_in_subprocess(game, args.cache_dir, args.threads)
        agent = OptimalAgent(game, cache_dir=args.cache_dir)
        t0 = time.perf_counter()
        stats = simulate_optimal_games(agent, args.games, seed=seed,
                                       batch_size=args.batch_size, progress=not args.quiet)
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
            "simulation_seed": seed,
            "queries": time_queries(agent, args.query_sample, seed + 1),
        }
        entry["solve"].pop("cache_path", None)  # machine-specific
        report["results"].append(entry)
    if not args.no_variants:
        from agents.solvers.scorecard_dp import solve_scorecard

        report["joker_variants"] = []
        for knobs in tqdm(JOKER_VARIANTS, desc="joker readings", disable=args.quiet):
            sol = solve_scorecard(get_rules("yahtzee-official", **knobs))
            report["joker_variants"].append({"knobs": knobs,
                                             "expected_score": round(sol.expected_score, 6)})
    return report


def markdown(report: dict) -> str:
    """The report as Markdown."""
    rows = report["results"]
    lines = [
        "# Optimal play of the scorecard games",
        "",
        f"Generated by `{report['command']}` on {report['generated']} "
        f"({report['machine']['cpus']} CPUs, {report['machine']['platform']}, "
        f"Python {report['machine']['python']}).  Do not edit by hand.",
        "",
        "Exact expected-score optimum (DP over filled boxes x capped upper total x "
        "five-of-a-kind box state; `agents/solvers/scorecard_dp.py`), then "
        f"{report['games_per_preset']:,} games per preset played by `OptimalAgent` on the "
        f"batched game core (dice from `numpy.random.default_rng`, seeds derived from "
        f"`--seed {report['seed']}` and the preset's position).",
        "",
        "## Expected scores and simulation",
        "",
        "| game | boxes | DP expected score | published | simulated mean ± SE | SD | z "
        "| upper bonus | five of a kind | five-kind bonus / game |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        pub = f"{r['published']:.4f}" if r["published"] is not None else "—"
        lines.append(
            f"| {r['game']} | {r['boxes']} | **{r['expected_score']:.4f}** | {pub} "
            f"| {r['simulated_mean']:.2f} ± {r['standard_error']:.2f} | {r['simulated_sd']:.2f} "
            f"| {r['z']:+.2f} | {100 * r['upper_bonus_share']:.1f} % "
            f"| {100 * r['five_kind_share']:.1f} % | {r['five_bonus_mean']:.2f} |")
    lines += [
        "",
        "*five of a kind*: share of games whose five-of-a-kind box (Penta / Poker / YAHTZEE) "
        "holds its 50.  *z*: (simulated mean − DP value) / SE.",
        "",
    ]
    for game, (value, what) in PUBLISHED.items():
        got = next((r["expected_score"] for r in rows if r["game"] == game), None)
        if got is not None:
            lines.append(f"- `{game}` -- {what}: {got:.4f}, published {value:.4f} "
                         f"(difference {got - value:+.5f}).")
    lines += [
        "",
        "## Solve time and memory",
        "",
        "Each preset solved in a fresh process by `python scripts/solve.py GAME --json --force` "
        "(numba kernels loaded from numba's on-disk cache; the one-time compilation is shown "
        "when it happened).",
        "",
        "| game | states | solve (s) | of which DP (s) | kernels (s) | tables (s) | process wall "
        "(s) | peak memory (MB) | threads |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        s = r["solve"]
        lines.append(
            f"| {r['game']} | {s.get('states', 0):,} | {s['seconds']:.2f} "
            f"| {s.get('dp_seconds', float('nan')):.2f} "
            f"| {s.get('compile_seconds', float('nan')):.2f} "
            f"| {s.get('prepare_seconds', float('nan')):.2f} | {s['wall_seconds']:.2f} "
            f"| {s['peak_mb']:.0f} | {s['threads']} |")
    lines += [
        "",
        "## Policy queries",
        "",
        "Per decision, after the table is loaded: `act` (one observation at a time, the "
        "within-turn values recomputed from the table) and `act_batch` (all the sample at "
        "once, on every numba thread).",
        "",
        "| game | decisions | act (µs) | act_batch (µs / decision) | simulation (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        q = r["queries"]
        lines.append(f"| {r['game']} | {q['decisions']:,} | {q['act_us']:.1f} "
                     f"| {q['act_batch_us']:.2f} | {r['simulation_seconds']:.1f} |")
    if report.get("joker_variants"):
        lines += [
            "",
            "## Joker readings on the Yahtzee card",
            "",
            "`yahtzee-official` with these knobs overridden (`forced`: an extra five of a "
            "kind must go in its upper box, else any lower box at full value, else 0 in an "
            "upper box; `free`: any open box, Full / straights at full value only when the "
            "matching upper box is filled; *when scratched*: the Joker also applies when the "
            "YAHTZEE box holds 0).",
            "",
            "| joker | when scratched | five-kind bonus | expected score |",
            "|---|---|---:|---:|",
        ]
        for v in report["joker_variants"]:
            k = v["knobs"]
            lines.append(f"| {k['joker']} | {'yes' if k['joker_when_scratched'] else 'no'} "
                         f"| {k.get('five_kind_bonus', 100)} | {v['expected_score']:.4f} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from dice_env.scorecard.rules import PRESETS

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20_000, help="games per preset")
    parser.add_argument("--seed", type=int, default=0, help="seed of the dice")
    parser.add_argument("--game", nargs="+", default=list(PRESETS), choices=sorted(PRESETS),
                        help="presets to include (default: all)")
    parser.add_argument("--out-dir", default=None,
                        help="where optimal.md and optimal.json go (default: results/ for the "
                             "documented full run, else runs/optimal_report/)")
    parser.add_argument("--cache-dir", default=None,
                        help="solver cache folder (default: $DICE_ENV_CACHE, else user cache)")
    parser.add_argument("--batch-size", type=at_least(1), default=20_000,
                        help="games simulated side by side")
    parser.add_argument("--query-sample", type=at_least(0), default=2_000,
                        help="decisions timed per preset")
    parser.add_argument("--threads", type=at_least(1), default=0,
                        help="numba threads (default: all)")
    parser.add_argument("--no-variants", action="store_true",
                        help="skip the table of Joker readings on the Yahtzee card")
    parser.add_argument("--no-fivethousand", action="store_true",
                        help="skip the 5000 section")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    args.out_dir = output_folder(parser, args, ROOT / "runs" / "optimal_report", ROOT / "results",
                                 option="out_dir", expected=DOCUMENTED_RUN,
                                 ignore=("quiet", "threads", "cache_dir", "batch_size"))
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)
    report = run(args)
    text = markdown(report)
    if not args.no_fivethousand:
        from agents.evaluation.fivethousand_report import fivethousand_report

        section, report["fivethousand"] = fivethousand_report(
            args.games, args.seed, cache_dir=args.cache_dir, threads=args.threads or None,
            progress=not args.quiet)
        text = text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    out = Path(args.out_dir)
    atomic_write_text(out / "optimal.json", json.dumps(report, indent=2) + "\n")
    atomic_write_text(out / "optimal.md", text)
    for r in report["results"]:
        print(f"{r['game']:20s} DP {r['expected_score']:.4f}  sim {r['simulated_mean']:.2f} "
              f"± {r['standard_error']:.2f} (z {r['z']:+.2f})  solve {r['solve']['seconds']:.2f}"
              f" s, {r['solve']['peak_mb']:.0f} MB")
    print(f"wrote {out / 'optimal.md'} and {out / 'optimal.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
