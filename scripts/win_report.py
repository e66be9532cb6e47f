#!/usr/bin/env python
"""Playing to win: the win-value players against score-optimal tables, and 5000 for three.

1. **Seeds** (``--seeds``, default 0 1 2): each game's win-value runs
   ``runs/win-value-<GAME>-seed<S>/model.pt`` (trained by ``scripts/train_win_value.py`` when
   missing, unless ``--no-train``) are measured by their paired gain over the score-optimal
   player in two-player matches (``--seed-sets`` dice sets); the **median** seed (never the
   best) is committed to ``results/models/win-value-<GAME>.pt`` with its learning curve.
2. **Tables**: the committed player against score-optimal opponents at tables of
   ``--players`` (default 2 and 4), in every seat on common dice
   (:func:`agents.evaluation.scorecard_tables.play_scorecard_tables`): its win share with a
   95 % CI over dice sets, the paired difference to a score-optimal player in its place on the
   same dice (share and TOTAL), win / tie / loss, and what each seat is worth.
3. **5000 for three**: the exact three-player solution's values, its distance from an
   equilibrium and its win share against two heuristic bots
   (:func:`agents.evaluation.fivethousand_three.three_player_report`).
4. **5000 for N players, learned value**: the committed N-player learned-value models
   (``--fivethousand-players``, default 3 and 4) against the exact three-player profile
   (exactly, and in matches), against N - 1 heuristic bots and against N - 1 two-player optima
   that play the leader, each beside the old leader approximation
   (:func:`agents.evaluation.fivethousand_n_players.learned_value_n_player_report`).

Writes ``win.md``, ``win.json``, ``win_leads.png`` (win share against the lead at the start of
a turn, win-value and score-optimal) and ``win_curves.png`` (learning curves).  The documented
full run, ``python scripts/win_report.py``, writes ``results/``; any other run writes
``runs/win-report/`` unless ``--out`` says where.  ``--quick`` is a small smoke run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from _cli_args import OneLineParser, at_least, output_folder  # noqa: E402

GAMES = ["penta", "dice-poker"]
#: dice sets per table size in the full run: two players, enough for a CI half-width of the raw
#: win share of about 0.004 (the paired estimate 1/N + gain is narrower still)
SETS = {2: 60_000, 3: 8_000, 4: 8_000, 5: 5_000, 6: 5_000}
QUICK_SETS = 60
TURNS_PLOTTED = (6, 9, 11, 12)  # filled boxes at the start of the turn (turn k + 1)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="win_report.py", description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", choices=GAMES, default=GAMES, help="scorecard games")
    p.add_argument("--players", nargs="+", type=int, default=[2, 4],
                   help="table sizes, 2 to 6 (default 2 4)")
    p.add_argument("--sets", type=at_least(1), default=None,
                   help="dice sets per table (default: 60000 for 2 players, 8000 for 3-4, "
                        "5000 for 5-6)")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2],
                   help="training seeds (default 0 1 2)")
    p.add_argument("--seed-sets", type=at_least(2), default=4_000,
                   help="two-player dice sets measuring each seed (default 4000)")
    p.add_argument("--no-train", action="store_true", help="measure only the runs that exist")
    p.add_argument("--no-seeds", action="store_true",
                   help="skip the seeds: measure the committed models as they are")
    p.add_argument("--only-fivethousand", action="store_true",
                   help="only the three-player 5000 section (keeps the scorecard rows)")
    p.add_argument("--no-export", action="store_true",
                   help="do not commit the median seed's model to results/models/")
    p.add_argument("--fivethousand-matches", type=at_least(0), default=20_000,
                   help="3-player 5000 matches against two heuristic bots (0: skip 5000)")
    p.add_argument("--fivethousand-players", nargs="+", type=int, default=[3, 4],
                   help="table sizes of the N-player learned-value 5000 section (default 3 4; "
                        "a size without a committed model is listed as such)")
    p.add_argument("--fivethousand-n-matches", type=at_least(0), default=12_000,
                   help="5000 matches of each N-player learned-value series (0: skip it)")
    p.add_argument("--seed", type=int, default=0, help="dice seed of the evaluation")
    p.add_argument("--quick", action="store_true",
                   help=f"a smoke run: {QUICK_SETS} dice sets, the committed models, no seeds")
    p.add_argument("--jobs", type=at_least(1), default=1,
                   help="worker processes sharing each table's dice sets (default 1; the "
                        "results do not depend on it)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default results/ for the documented full run, else "
                        "runs/win-report/)")
    return p


def run_dir(game: str, seed: int) -> Path:
    return ROOT / "runs" / f"win-value-{game}-seed{seed}"


def _ci(pair: tuple[float, float]) -> list[float]:
    return [round(pair[0], 5), round(pair[1], 5)]


def _play_chunk(task: tuple) -> tuple:
    """Worker: dice sets ``first .. first + sets - 1`` of one table, with the win-value player
    (``who="win"``) or a score-optimal player (``who="optimal"``) as identity 0."""
    game, players, first, sets, seed, model, who, progress = task
    import agents
    from agents.evaluation.scorecard_tables import play_scorecard_tables
    from agents.scorecard.win_value import WinValueAgent

    optimal = agents.make("optimal", game)
    me = WinValueAgent(game, model_path=model) if who == "win" else optimal
    view = "match" if who == "win" else "card"
    t = play_scorecard_tables([me] + [optimal] * (players - 1), game, sets, seed=seed,
                              views=[view] + ["card"] * (players - 1), progress=progress,
                              first_set=first, record_leads=True)
    return t.totals, t.leads


def _play(game: str, players: int, sets: int, seed: int, model: Path | None, who: str,
          jobs: int, progress: bool):
    """The tables of ``sets`` dice sets, split over ``jobs`` worker processes."""
    import numpy as np

    from agents.evaluation.scorecard_tables import TableMatches

    bounds = np.linspace(0, sets, max(1, min(jobs, sets)) + 1).astype(int)
    tasks = [(game, players, int(a), int(b - a), seed, model, who, progress and i == 0)
             for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    if len(tasks) == 1:
        parts = [_play_chunk(tasks[0])]
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(len(tasks)) as pool:
            parts = pool.map(_play_chunk, tasks)
    return TableMatches(np.concatenate([p[0] for p in parts]),
                        np.concatenate([p[1] for p in parts]))


def measure_tables(game: str, players: int, sets: int, seed: int, progress: bool,
                   model: Path | None = None, jobs: int = 1) -> tuple[dict, object, object]:
    """One table size: the win-value player (identity 0) against score-optimal opponents, and
    a score-optimal player in its place on the same dice."""
    start = time.perf_counter()
    tables = _play(game, players, sets, seed, model, "win", jobs, progress)
    seconds = time.perf_counter() - start
    reference = _play(game, players, sets, seed, model, "optimal", jobs, False)
    diff = tables.difference(reference)
    share = tables.share()
    row = {"game": game, "players": players, "sets": sets, "matches": sets * players,
           "share": _ci(share), "reference_share": _ci(reference.share()),
           "gain": _ci(diff["share"]), "total_cost": _ci(diff["total"]),
           "mean_total": _ci(tables.mean_total()),
           "reference_total": _ci(reference.mean_total()),
           "rates": {k: round(v, 5) for k, v in tables.rates().items()},
           "seats": [_ci(s) for s in tables.seat_values()],
           "reference_seats": [_ci(s) for s in reference.seat_values()],
           "seconds": round(seconds, 1)}
    # N score-optimal players are exchangeable, so the reference is worth exactly 1/N in
    # expectation and 1/N + the paired gain estimates the share without the dice's noise
    row["paired_share"] = _ci((1 / players + diff["share"][0], diff["share"][1]))
    return row, tables, reference


def seed_rows(game: str, args: argparse.Namespace) -> list[dict]:
    """Train (if needed) and measure every seed of ``game``."""
    import train_win_value

    rows = []
    for seed in args.seeds:
        model = run_dir(game, seed) / "model.pt"
        if not model.exists():
            if args.no_train:
                print(f"no run {model}; skipping (train it or drop --no-train)", file=sys.stderr)
                continue
            code = train_win_value.main([game, "--seed", str(seed), "--no-progress",
                                         "--out", str(model.parent),
                                         *(["--resume"] if Path(f"{model}.ckpt").exists()
                                           else [])])
            if code:
                raise SystemExit(code)
        row, _, _ = measure_tables(game, 2, args.seed_sets, args.seed + 1000, False, model,
                                   args.jobs)
        curve = json.loads(model.with_suffix(".curve.json").read_text())
        rows.append({"seed": seed, "gain": row["gain"], "total_cost": row["total_cost"],
                     "train_seconds": curve["seconds"]})
        print(f"{game} seed {seed}: gain {row['gain'][0]:+.4f} +- {row['gain'][1]:.4f}",
              flush=True)
    return rows


def median_seed(rows: list[dict]) -> int:
    """The seed whose gain is the median (the lower middle one for an even count)."""
    gains = sorted(r["gain"][0] for r in rows)
    target = statistics.median_low(gains)
    return next(r["seed"] for r in rows if r["gain"][0] == target)


def export(game: str, seed: int) -> None:
    src = run_dir(game, seed)
    for suffix in (".pt", ".curve.json", ".curve.csv"):
        shutil.copyfile(src / f"model{suffix}",
                        ROOT / "results" / "models" / f"win-value-{game}{suffix}")


def lead_profile(tables, reference, turns=TURNS_PLOTTED, width: int = 10) -> dict:
    """Win share by lead at the start of selected turns, for the player and the reference."""
    import numpy as np

    out = {}
    for k in turns:
        rows = {}
        for name, t in (("win-value", tables), ("score-optimal", reference)):
            lead = t.leads[..., k].ravel()
            pts = t.points().ravel()
            ok = np.isfinite(lead)
            bins = np.clip(np.round(lead[ok] / width), -8, 8).astype(int) * width
            rows[name] = {int(b): [round(float(pts[ok][bins == b].mean()), 4),
                                   int((bins == b).sum())] for b in np.unique(bins)}
        out[k] = rows
    return out


def plot_leads(profiles: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dice_env.io import atomic_write_figure

    keys = list(profiles)
    fig, axes = plt.subplots(2 * len(keys), len(TURNS_PLOTTED),
                             figsize=(3.2 * len(TURNS_PLOTTED), 5.2 * len(keys)), squeeze=False)
    for i, key in enumerate(keys):
        for j, k in enumerate(TURNS_PLOTTED):
            ax, dax = axes[2 * i][j], axes[2 * i + 1][j]
            shares = {}
            for name, style in (("score-optimal", "o--"), ("win-value", "s-")):
                pts = profiles[key][k][name]
                xs = sorted(pts)
                shares[name] = {x: pts[x][0] for x in xs if pts[x][1] >= 200}
                ax.plot(xs, [pts[x][0] for x in xs], style, ms=3, label=name)
            both = sorted(set(shares["win-value"]) & set(shares["score-optimal"]))
            dax.bar(both, [100 * (shares["win-value"][x] - shares["score-optimal"][x])
                           for x in both], width=8)
            dax.axhline(0, color="k", lw=0.6)
            ax.set_title(f"{key}: turn {k + 1}", fontsize=9)
            dax.set_xlabel("lead at the turn's start")
            for a in (ax, dax):
                a.grid(alpha=0.3)
        axes[2 * i][0].set_ylabel("win share")
        axes[2 * i + 1][0].set_ylabel("win-value minus\nscore-optimal (pp)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    atomic_write_figure(path, fig)


def plot_curves(games: list[str], seeds: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dice_env.io import atomic_write_figure

    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 3.4), squeeze=False)
    for ax, game in zip(axes[0], games):
        for seed in seeds.get(game, []):
            f = run_dir(game, seed["seed"]) / "model.curve.json"
            if not f.exists():
                continue
            curve = json.loads(f.read_text())["curve"]
            ax.semilogy([r["layer"] for r in curve], [r["val_rmse"] for r in curve], "o-",
                        ms=3, label=f"seed {seed['seed']}")
        ax.set_title(f"{game}: held-out error of each layer's fit")
        ax.set_xlabel("boxes filled (fitted from the last layer down)")
        ax.set_ylabel("RMSE of P(win)")
        ax.invert_xaxis()
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    atomic_write_figure(path, fig)


def pct(pair: list[float]) -> str:
    return f"{100 * pair[0]:.2f} % ± {100 * pair[1]:.2f}"


def to_markdown(report: dict) -> str:
    commands = report.get("commands", [report["command"]])
    lines = ["# Playing to win", "",
             "Regenerate: " + " then ".join(f"`{c}`" for c in commands)
             + f" (dice seed {report['seed']}; {report['seconds']:.0f} s in all; a run of some "
             "games keeps the others' rows).", "",
             "The **win-value** player (`agents.make(\"win-value\", GAME)`) reads every card of "
             "the match and maximises P(sole top TOTAL) + 1/2 P(shared top); its opponents "
             "are the score-optimal DP player.  Every dice set is played once per seat (the "
             "win-value player in each seat, the same dice per player), so the seats are "
             "balanced; the *gain* is the paired difference to a score-optimal player in its "
             "place on the same dice, the *cost* the same for its TOTAL.  CIs are 95 % over "
             "the dice sets.", ""]
    rows = report["tables"]
    if rows:
        lines += ["| game | players | matches | win share | score-optimal in its place | "
                  "gain (paired) | win / tie / loss | TOTAL cost | seat values |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            seats = " / ".join(f"{100 * s[0]:.1f}" for s in r["seats"])
            rates = r["rates"]
            lines.append(
                f"| {r['game']} | {r['players']} | {r['matches']} | {pct(r['share'])} | "
                f"{pct(r['reference_share'])} | {100 * r['gain'][0]:+.2f} pp ± "
                f"{100 * r['gain'][1]:.2f} | {100 * rates['win']:.1f} / "
                f"{100 * rates['tie']:.1f} / {100 * rates['loss']:.1f} % | "
                f"{r['total_cost'][0]:+.2f} ± {r['total_cost'][1]:.2f} | {seats} % |")
        lines += ["", "A table of N score-optimal players is exchangeable, so the player in its "
                  "place is worth exactly 1/N in expectation, and 1/N + the paired gain is an "
                  "unbiased estimate of the win share with the gain's (narrower) CI:", ""]
        for r in rows:
            if "paired_share" in r:
                fair = 1 / r["players"]
                low = r["paired_share"][0] - r["paired_share"][1]
                verdict = "excludes" if low > fair else "does not exclude"
                lines.append(f"- {r['game']}, {r['players']} players: {pct(r['paired_share'])} "
                             f"({verdict} {100 * fair:.0f} %)")
        lines.append("")
    for game, seeds in report["seeds"].items():
        if not seeds:
            continue
        lines += [f"## {game}: training seeds", "",
                  f"Two-player gain over score-optimal ({report['seed_sets']} dice sets each, "
                  f"dice seed {report['seed'] + 1000}); the committed model is the median "
                  f"seed, **{report['committed'].get(game, '-')}**.", "",
                  "| seed | gain | TOTAL cost | training (s) |", "|---|---|---|---|"]
        for s in seeds:
            lines.append(f"| {s['seed']} | {100 * s['gain'][0]:+.2f} pp ± "
                         f"{100 * s['gain'][1]:.2f} | {s['total_cost'][0]:+.2f} | "
                         f"{s['train_seconds']:.0f} |")
        lines.append("")
    if report.get("leads"):
        lines += ["## When does it pay to gamble?", "",
                  "![win share against the lead](win_leads.png)", "",
                  "Win share by the lead (own TOTAL minus the best other) at the start of a "
                  "turn, two players, for the win-value player and for a score-optimal player "
                  "on the same dice; below, the difference (bins of at least 200 matches).",
                  ""]
    ft = report.get("fivethousand")
    if ft:
        lines += fivethousand_markdown(ft)
    if report.get("fivethousand_n"):
        lines += fivethousand_n_markdown(report["fivethousand_n"])
    lines += ["![learning curves](win_curves.png)", ""]
    return "\n".join(lines)


def _share(r: dict | None) -> str:
    if not r:
        return "-"
    return f"{100 * r['win_rate']:.2f} % [{100 * r['ci95'][0]:.2f}, {100 * r['ci95'][1]:.2f}]"


def fivethousand_n_markdown(ft: dict) -> list[str]:
    """The N-player learned-value 5000 section: one row per table size and opposition."""
    lines = ["## 5000 for N players: learned value", "",
             "`agents.make(\"learned-value\", \"fivethousand\", num_players=N)` plays with one "
             "network of every seat's P(win) over the N scores (exact turn solve, max-n "
             "decisions; `results/models/learned-value-fivethousand-<N>p.pt`). *Before* is the "
             "learned player's leader approximation (its two-player model against the highest "
             "other score). Seat-balanced win shares over "
             f"{ft['matches']} games per series (dice seed {ft['seed']}); a fair share is 1/N.",
             "", "| players | opponents | N-player model | before (leader approx.) |",
             "|---|---|---|---|"]
    for n, e in sorted(ft["by_players"].items(), key=lambda kv: int(kv[0])):
        if not e.get("model"):
            lines.append(f"| {n} | (no committed model) | - | - |")
            continue
        if "exact" in e:
            ex, old = e["exact"], e.get("exact_leader")
            seats = " / ".join(f"{p:.4f}" for p in ex["seat_win_probabilities"])
            before = "-" if not old else f"{100 * old['win_share']:.3f} % (exact)"
            lines.append(f"| {n} | two exact three-player optima, exact (seats {seats}) | "
                         f"{100 * ex['win_share']:.3f} % | {before} |")
            lines.append(f"| {n} | two exact three-player optima, matches | "
                         f"{_share(e.get('vs_optimal'))} | {_share(e.get('leader_vs_optimal'))} |")
        lines.append(f"| {n} | {int(n) - 1} heuristic bots | {_share(e.get('vs_heuristic'))} | "
                     f"{_share(e.get('leader_vs_heuristic'))} |")
        lines.append(f"| {n} | {int(n) - 1} two-player optima against the leader | "
                     f"{_share(e.get('vs_leader_optimal'))} | "
                     f"{_share(e.get('leader_vs_leader_optimal'))} |")
    trained = [f"{n} players: seed {e['training']['seed']}, {e['training']['seconds']:.0f} s"
               for n, e in sorted(ft["by_players"].items(), key=lambda kv: int(kv[0]))
               if e.get("training") and e["training"].get("seconds") is not None]
    if trained:
        lines += ["", "Committed models (median of seeds 0-2): " + "; ".join(trained) + ". "
                  "Train: `python scripts/train_learned_value.py fivethousand --players N "
                  "--seed S`."]
    return lines + [""]


def fivethousand_markdown(ft: dict) -> list[str]:
    """The three-player 5000 section: exact values, the equilibrium gap, the matches."""
    conv, gap = ft["convergence"], ft["equilibrium_gap"]
    seats = " / ".join(f"{p:.6f}" for p in ft["seat_win_probabilities"])
    lines = ["## 5000 with three players", "",
             "`agents.make(\"optimal\", \"fivethousand\", num_players=3)` plays a max-n "
             "profile of three-player 5000 (every player maximises its own chance of winning), "
             "defined by a procedure and evaluated exactly "
             "(`agents/solvers/fivethousand_three.py` says how).", "",
             "| | |", "|---|---|",
             f"| P(win) of seats 0 / 1 / 2 from 0-0-0 (exact) | {seats} |",
             f"| turn-start states | {ft['states']} |",
             f"| value-iteration sweeps | {conv['sweeps']} (converged: {conv['converged']}) |",
             f"| groups whose best responses kept flipping, frozen | "
             f"{conv['frozen_groups']} ({conv['frozen_state_count']} states) |",
             f"| largest one-turn deviation gain, all states | "
             f"{gap['max_gain_start_all']['gain']:.2e} at "
             f"{'-'.join(map(str, gap['max_gain_start_all']['scores']))} |",
             f"| the same, states reached from 0-0-0 | "
             f"{gap['max_gain_start_reachable']['gain']:.2e} at "
             f"{'-'.join(map(str, gap['max_gain_start_reachable']['scores']))} "
             f"(visited {gap['max_gain_start_reachable']['visits']:.1e} times a game) |",
             f"| largest gain at a single decision, all / reached | "
             f"{gap['max_gain_decision_all']['gain']:.2e} / "
             f"{gap['max_gain_decision_reachable']['gain']:.2e} |",
             f"| visits per game to states where deviating gains anything | "
             f"{gap['visits_at_states_with_gain']:.3f} (of {gap['expected_turns']:.1f} turns); "
             f"visit-weighted gain {gap['visit_weighted_gain']:.1e} |",
             f"| solve | {ft['solve_seconds']:.0f} s on {ft['solve_threads']} threads "
             f"(cached after) |", ""]
    vs, old = ft["vs_heuristic"], ft["leader_vs_heuristic"]
    gain = ft["gain_over_leader"]
    lines += [f"Against two `heuristic` bots, seat-balanced, {vs['games']} games:", "",
              "| player | win share | 95 % CI |", "|---|---|---|",
              f"| exact three-player optimum | {100 * vs['win_rate']:.2f} % | "
              f"[{100 * vs['ci95'][0]:.2f}, {100 * vs['ci95'][1]:.2f}] |",
              f"| two-player optimum against the leader (before) | {100 * old['win_rate']:.2f} % "
              f"| [{100 * old['ci95'][0]:.2f}, {100 * old['ci95'][1]:.2f}] |",
              f"| gain | {100 * gain['win_rate']:+.2f} pp | [{100 * gain['ci95'][0]:+.2f}, "
              f"{100 * gain['ci95'][1]:+.2f}] |", ""]
    return lines


def _int_keys(leads: dict) -> dict:
    return {g: {int(k): {name: {int(b): v for b, v in bins.items()}
                         for name, bins in per.items()} for k, per in turns.items()}
            for g, turns in leads.items()}


def merge_earlier(report: dict, path: Path) -> dict:
    """``report`` with what an earlier run wrote at ``path`` for the games, table sizes and
    5000 this run did not measure (so the games can be run one at a time, in any order)."""
    if not path.exists():
        return report
    try:
        old = json.loads(path.read_text())
        done = {(r["game"], r["players"]) for r in report["tables"]}
        kept = [r for r in old.get("tables", []) if (r["game"], r["players"]) not in done]
        report["tables"] = sorted(kept + report["tables"],
                                  key=lambda r: (GAMES.index(r["game"]), r["players"]))
        for key in ("seeds", "committed"):
            report[key] = {**old.get(key, {}), **report[key]}
        report["leads"] = {**_int_keys(old.get("leads", {})), **report["leads"]}
        for key in ("fivethousand", "fivethousand_n"):
            if key not in report and key in old:
                report[key] = old[key]
        commands = old.get("commands", [old.get("command", "")])
        report["commands"] = [c for c in commands if c and c != report["command"]] + \
            [report["command"]]
        report["seconds"] = round(report["seconds"] + float(old.get("seconds", 0.0)), 1)
    except (ValueError, KeyError, TypeError) as exc:
        print(f"{path} is not a win report ({exc}); writing this run's results alone",
              file=sys.stderr)
    return report


def main(argv: list[str] | None = None) -> dict:
    parser = build_parser()
    args = parser.parse_args(argv)
    for p in args.players:
        if not 2 <= p <= 6:
            parser.error(f"--players takes 2 to 6, got {p}")
    out = output_folder(parser, args, ROOT / "runs" / "win-report",
                        ignore=("no_progress", "jobs"))
    start = time.perf_counter()
    report: dict = {"command": "python scripts/win_report.py " + " ".join(
        argv if argv is not None else sys.argv[1:]), "seed": args.seed,
        "seed_sets": args.seed_sets, "seeds": {}, "committed": {}, "tables": [], "leads": {}}
    report["command"] = report["command"].strip()
    for game in [] if args.only_fivethousand else args.games:
        if not (args.quick or args.no_seeds):
            report["seeds"][game] = seed_rows(game, args)
            if report["seeds"][game] and not args.no_export:
                seed = median_seed(report["seeds"][game])
                export(game, seed)
                report["committed"][game] = seed
        for players in args.players:
            sets = QUICK_SETS if args.quick else (args.sets or SETS[players])
            row, tables, reference = measure_tables(game, players, sets, args.seed,
                                                    not args.no_progress, jobs=args.jobs)
            report["tables"].append(row)
            print(f"{game} {players}p: share {pct(row['share'])}, gain "
                  f"{100 * row['gain'][0]:+.2f} pp ± {100 * row['gain'][1]:.2f}", flush=True)
            if players == 2:
                report["leads"][game] = lead_profile(tables, reference)
    if args.fivethousand_matches:
        from agents.evaluation.fivethousand_three import three_player_report

        report["fivethousand"] = three_player_report(
            matches=QUICK_SETS if args.quick else args.fivethousand_matches, seed=args.seed)
    if args.fivethousand_n_matches:
        from agents.evaluation.fivethousand_n_players import learned_value_n_player_report

        report["fivethousand_n"] = learned_value_n_player_report(
            tuple(args.fivethousand_players), seed=args.seed,
            matches=QUICK_SETS if args.quick else args.fivethousand_n_matches)
    report["seconds"] = round(time.perf_counter() - start, 1)
    from dice_env.io import atomic_write_text

    out.mkdir(parents=True, exist_ok=True)
    import fcntl

    with open(out / ".win.lock", "w") as lock:  # runs of other games may end at the same time
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not args.quick:
            report = merge_earlier(report, out / "win.json")
        if report["leads"]:
            plot_leads(report["leads"], out / "win_leads.png")
        plot_curves(GAMES, report["seeds"], out / "win_curves.png")
        atomic_write_text(out / "win.json", json.dumps(report, indent=1) + "\n")
        atomic_write_text(out / "win.md", to_markdown(report))
    print(f"written: {out / 'win.md'}")
    return report


if __name__ == "__main__":
    main()
