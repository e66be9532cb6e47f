#!/usr/bin/env python
"""Where every player loses its points: ``results/regret.md``, ``regret.json``, ``regret.png``.

For every registered player of Penta and Dice Poker, the exact per-decision regret against the
optimum (:func:`agents.evaluation.optimality_gap`): the gap to the optimal expected score with
its 95 % CI, decomposed by decision kind and by turn, checked against the paired final-score
difference on the same dice (the variance-reduction factor says how many times fewer games the
regret needs).  For 5000, the same in win probability against the optimal player, and in
expected turns alone.

Only the documented full run (no count options) writes ``results/``; other runs write
``runs/regret-report/`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

import agents
from agents.evaluation import fivethousand_gap, optimality_gap
from dice_env.io import atomic_write_figure, atomic_write_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["penta", "dice-poker"]
AGENTS = ["random", "greedy", "heuristic", "optimal", "ppo", "learned-value"]
FIVE_THOUSAND_AGENTS = ["random", "threshold", "heuristic", "optimal", "ppo", "learned-value"]
#: players also measured with the dice-averaged regret (the plain one varies most for them)
DICE_AVERAGED = ["greedy"]
DEFAULTS = {"games": 2000, "fivethousand_games": 4000, "seed": 0}
SOLO_ID = "dice_env/FiveThousandSolo-v0"


def _fail(parser: argparse.ArgumentParser, message: str) -> None:
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _make(name: str, game: str):
    """The player, or ``None`` with a note when it is not available for this game."""
    try:
        return agents.make(name, game)
    except (ImportError, FileNotFoundError, ValueError) as err:
        tqdm.write(f"skipping {name} on {game}: {err}")
        return None


def _ci(m: float, low: float, high: float, digits: int = 2) -> str:
    return f"{m:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def scorecard_section(game: str, results: list) -> list[str]:
    opt = results[0].optimal_value
    kinds = results[0].kinds
    lines = [f"## {game}", "", f"Optimal expected score (exact DP): **{opt:.4f}**. "
             f"{results[0].games:,} games per player, seed {results[0].seed}, the same dice for "
             "every player (common random numbers).", "",
             "| player | gap to the optimum (95 % CI) | expected score | paired final-score "
             "difference (95 % CI) | difference of the two estimates | variance reduction | "
             + " | ".join(kinds) + " | upper bonus (player / optimal) | five of a kind "
             "(player / optimal) |",
             "|---|---:|---:|---:|---:|---:|" + "---:|" * len(kinds) + "---:|---:|"]
    for r in results:
        low, high = r.ci
        p, a = r.paired_gap(), r.agreement()
        vr = r.variance_reduction()
        vr_text = "—" if not math.isfinite(vr) else f"{vr:.1f}×"
        by_kind = [f"{m:.3f}" for m, _, _ in r.kind_gaps().values()]
        rates = r.rates()
        ub, fk = rates["upper bonus"], rates["five of a kind"]
        lines.append(f"| {r.agent} | **{r.gap:.3f}** [{low:.3f}, {high:.3f}] | "
                     f"{r.expected_score:.2f} | {_ci(*p)} | {a[0]:+.2f} [{a[1]:+.2f}, {a[2]:+.2f}] "
                     f"| {vr_text} | " + " | ".join(by_kind) +
                     f" | {ub[0]:.3f} / {ub[1]:.3f} | {fk[0]:.3f} / {fk[1]:.3f} |")
    lines += ["", "Costliest box choices (the player's choice → the optimum's; points lost per "
              "game):", ""]
    for r in results:
        mistakes = r.top_box_mistakes(5)
        if mistakes and r.agent != "random":
            lines.append(f"- **{r.agent}**: " + "; ".join(
                f"{c} → {b} ({n:,}×, {per:.3f})" for c, b, n, per in mistakes))
    lines += ["", "Points lost per game at each turn (turn = boxes filled before it + 1):", "",
              "| player | " + " | ".join(str(t + 1) for t in range(results[0].by_turn.shape[1]))
              + " |", "|---|" + "---:|" * results[0].by_turn.shape[1]]
    for r in results:
        lines.append(f"| {r.agent} | " + " | ".join(f"{v:.2f}" for v in r.turn_gaps()) + " |")
    return lines + [""]


def fivethousand_section(results: list, solo: list) -> list[str]:
    lines = ["## 5000", ""]
    for title, rows, what in (
            ("Two players, against the optimal player (seat-balanced); losses in win "
             "probability. The optimal player's own seat-balanced win rate is 0.5.", results,
             "win rate vs optimal"),
            ("Solo (reach exactly 5000 in the fewest turns); losses in expected turns. The "
             "optimum is 23.1326 turns.", solo, "expected turns")):
        if not rows:
            continue
        lines += [title, "", f"| player | gap (95 % CI) | {what} from the regret | from outcomes "
                  "alone (95 % CI) | variance reduction | banked where the optimum rolls on | "
                  "rolled on where the optimum banks |", "|---|---:|---:|---:|---:|---:|---:|"]
        for r in rows:
            low, high = r.ci
            est, c = r.estimate(), r.classical_gap()
            vr = r.variance_reduction()
            lines.append(f"| {r.agent} | **{r.gap:.4f}** [{low:.4f}, {high:.4f}] | "
                         f"{_ci(*est, digits=4)} | {_ci(*c, digits=4)} | "
                         f"{'—' if not math.isfinite(vr) else f'{vr:.1f}×'} | "
                         f"{r.action_loss[1, 0] / r.games:.4f} | "
                         f"{r.action_loss[0, 1] / r.games:.4f} |")
        lines.append("")
    return lines


def plot(scorecard: dict[str, list], path: Path) -> None:
    """Where the points are lost: by decision kind (bars) and by turn (lines), per game."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = [g for g, rs in scorecard.items() if rs]
    fig, axes = plt.subplots(len(games), 2, figsize=(11, 3.4 * len(games)), squeeze=False)
    for (ax_kind, ax_turn), game in zip(axes, games):
        rs = [r for r in scorecard[game] if r.agent not in ("optimal", "random")
              and r.estimator == "regret"]
        kinds = rs[0].kinds if rs else []
        width = 0.8 / max(len(kinds), 1)
        for k, kind in enumerate(kinds):
            vals = [r.by_kind[:, k].mean() for r in rs]
            ax_kind.bar(np.arange(len(rs)) + k * width, vals, width, label=kind)
        ax_kind.set_xticks(np.arange(len(rs)) + width * (len(kinds) - 1) / 2,
                           [r.agent for r in rs])
        ax_kind.set_yscale("log")
        ax_kind.set_ylabel("points lost per game")
        ax_kind.set_title(f"{game}: by decision kind")
        ax_kind.legend(fontsize=8)
        for r in rs:
            ax_turn.plot(np.arange(1, r.by_turn.shape[1] + 1), r.turn_gaps(), marker="o",
                         label=f"{r.agent} ({r.gap:.2f})")
        ax_turn.set_yscale("log")
        ax_turn.set_xlabel("turn")
        ax_turn.set_title(f"{game}: by turn")
        ax_turn.legend(fontsize=8)
    fig.tight_layout()
    atomic_write_figure(path, fig)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=DEFAULTS["games"],
                        help="scorecard games per player (default %(default)s)")
    parser.add_argument("--fivethousand-games", type=int, default=DEFAULTS["fivethousand_games"],
                        help="5000 games per player and mode (default %(default)s; 0 skips 5000)")
    parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    parser.add_argument("--scorecard-games", nargs="*", default=GAMES, metavar="GAME",
                        help="scorecard presets (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: results/ for the full run, else "
                             "runs/regret-report/)")
    args = parser.parse_args(argv)
    if args.games < 2:
        _fail(parser, f"--games must be at least 2, got {args.games}")
    if args.fivethousand_games < 0 or args.fivethousand_games == 1:
        _fail(parser, f"--fivethousand-games must be 0 or at least 2, got "
                      f"{args.fivethousand_games}")
    from dice_env.scorecard.rules import get_rules

    for g in args.scorecard_games:
        try:
            get_rules(g)
        except ValueError as err:
            _fail(parser, str(err))
    full = (args.games, args.fivethousand_games, args.seed) == tuple(DEFAULTS.values()) and \
        args.scorecard_games == GAMES
    out = args.out or (ROOT / "results" if full else ROOT / "runs" / "regret-report")

    scorecard: dict[str, list] = {}
    for game in args.scorecard_games:
        optimal = agents.make("optimal", game)
        scorecard[game] = []
        for name in tqdm(AGENTS, desc=game):
            agent = optimal if name == "optimal" else _make(name, game)
            if agent is None:
                continue
            scorecard[game].append(optimality_gap(agent, game, args.games, args.seed,
                                                  optimal=optimal, name=name))
            tqdm.write(scorecard[game][-1].format_text())
            if name in DICE_AVERAGED:
                scorecard[game].append(optimality_gap(agent, game, args.games, args.seed,
                                                      optimal=optimal, dice_averaged=True,
                                                      name=f"{name} (dice-averaged)"))
                tqdm.write(scorecard[game][-1].format_text())
    five, solo = [], []
    if args.fivethousand_games:
        optimal = agents.make("optimal", "fivethousand")
        for name in tqdm(FIVE_THOUSAND_AGENTS, desc="5000"):
            agent = optimal if name == "optimal" else _make(name, "fivethousand")
            if agent is not None:
                five.append(fivethousand_gap(agent, args.fivethousand_games, args.seed,
                                             optimal=optimal, name=name))
                tqdm.write(five[-1].format_text())
            agent = optimal if name == "optimal" else _make(name, SOLO_ID)
            if agent is not None:
                try:
                    solo.append(fivethousand_gap(agent, args.fivethousand_games, args.seed,
                                                 mode="solo", optimal=optimal, name=name))
                    tqdm.write(solo[-1].format_text())
                except ValueError as err:  # e.g. a model trained on two-player observations
                    tqdm.write(f"skipping {name} solo: {err}")

    command = "python scripts/regret_report.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    lines = ["# Exact regret: where each player loses its points", "",
             f"Generated by `{command.strip()}`. Do not edit by hand.", "",
             "Each decision a player takes along its own games is charged the optimal value it "
             "gives up, `V*(s) − Q*(s, a)`, from the exact DP tables. By the "
             "performance-difference lemma the sum over a game is an unbiased estimate of the "
             "player's gap to the optimum, with a much smaller variance than final scores, and "
             "every lost point is assigned to a decision. The paired final-score difference "
             "(the optimal player on the same dice) is the classical estimate of the same gap: "
             "the two agree within their CIs, and the variance-reduction factor is how many "
             "times fewer games the regret needs for the same precision. Rows marked "
             "*dice-averaged* charge each decision its loss averaged exactly over the throw "
             "before it (`optimality_gap(..., dice_averaged=True)`): still unbiased, with less "
             "variance for a policy whose losses depend on the dice. Decision kinds: the "
             "decision after the first and second throws (a hold, or scoring early) and the box "
             "choice after the third. `python scripts/evaluate.py --agent SPEC --regret` does "
             "the same for any policy.", "", "![where the points are lost](regret.png)", ""]
    for game, rs in scorecard.items():
        if rs:
            lines += scorecard_section(game, rs)
    lines += fivethousand_section(five, solo)
    payload = {"command": command.strip(),
               "scorecard": {g: [r.summary() for r in rs] for g, rs in scorecard.items()},
               "fivethousand": [r.summary() for r in five],
               "fivethousand_solo": [r.summary() for r in solo]}
    atomic_write_text(out / "regret.md", "\n".join(lines))
    atomic_write_text(out / "regret.json", json.dumps(payload, indent=1, default=float) + "\n")
    if any(scorecard.values()):
        plot(scorecard, out / "regret.png")
    print(f"written: {out / 'regret.md'}, regret.json, regret.png")
    return payload


if __name__ == "__main__":
    main()
