"""The playing-to-win report (``dice-env report win``): ``win.md``, ``win.json``,
``win_leads.png`` (win share against the lead at the start of a turn, win-value and
score-optimal) and ``win_curves.png`` (the training seeds' learning curves).

It formats what :mod:`agents.training.studies.win` measured: a report dict (the tables, the
seeds, the lead profiles, the 5000 sections) and the learning curves.
"""

from __future__ import annotations

import json
from pathlib import Path

from dice_env.io import atomic_write_figure, atomic_write_text

__all__ = ["fivethousand_markdown", "fivethousand_n_markdown", "pct", "plot_curves",
           "plot_leads", "to_markdown", "write_report"]


def pct(pair: list[float]) -> str:
    """A share and its CI half-width in percent: ``51.32 % ± 0.39``."""
    return f"{100 * pair[0]:.2f} % ± {100 * pair[1]:.2f}"


def plot_leads(profiles: dict, path: Path) -> None:
    """Per game: the win share by lead at the start of each profiled turn (win-value and
    score-optimal), and below it their difference (bins of at least 200 matches)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(profiles)
    turns = sorted(profiles[keys[0]])
    fig, axes = plt.subplots(2 * len(keys), len(turns),
                             figsize=(3.2 * len(turns), 5.2 * len(keys)), squeeze=False)
    for i, key in enumerate(keys):
        for j, k in enumerate(turns):
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


def plot_curves(games: list[str], curves: dict[str, list[tuple[int, list]]], path: Path) -> None:
    """One panel per game: the held-out error of each layer's fit, one line per seed
    (``curves``: ``{game: [(seed, curve rows), ...]}``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 3.4), squeeze=False)
    for ax, game in zip(axes[0], games):
        for seed, curve in curves.get(game, []):
            ax.semilogy([r["layer"] for r in curve], [r["val_rmse"] for r in curve], "o-",
                        ms=3, label=f"seed {seed}")
        ax.set_title(f"{game}: held-out error of each layer's fit")
        ax.set_xlabel("boxes filled (fitted from the last layer down)")
        ax.set_ylabel("RMSE of P(win)")
        ax.invert_xaxis()
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    atomic_write_figure(path, fig)


def _table_lines(rows: list[dict]) -> list[str]:
    lines = ["| game | players | matches | win share | score-optimal in its place | "
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
    return lines + [""]


def to_markdown(report: dict) -> str:
    """``win.md``: the tables, the training seeds, the lead plot, the 5000 sections."""
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
    if report["tables"]:
        lines += _table_lines(report["tables"])
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
    if report.get("fivethousand"):
        lines += fivethousand_markdown(report["fivethousand"])
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
             "decisions; `agents/models/learned-value-fivethousand-<N>p.pt`). *Before* is the "
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
                  "Train: `dice-env train learned-value fivethousand --players N "
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


def write_report(out: Path, report: dict, games: list[str],
                 curves: dict[str, list[tuple[int, list]]]) -> Path:
    """Write ``win_leads.png`` (when the report has lead profiles), ``win_curves.png``,
    ``win.json`` and ``win.md`` into ``out``, atomically; returns the markdown's path."""
    if report["leads"]:
        plot_leads(report["leads"], out / "win_leads.png")
    plot_curves(games, curves, out / "win_curves.png")
    atomic_write_text(out / "win.json", json.dumps(report, indent=1) + "\n")
    atomic_write_text(out / "win.md", to_markdown(report))
    return out / "win.md"
