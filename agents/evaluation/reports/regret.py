"""The exact-regret report of ``results/``: ``regret.md``, ``regret.json`` and ``regret.png``,
from what :func:`agents.evaluation.players_regret.regret_of_every_player` measured."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.game_sets import REPORT_SEED
from dice_env.io import atomic_write_figure, atomic_write_text

INTRODUCTION = (
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
    "choice after the third. `dice-env evaluate --agent SPEC --regret` does "
    "the same for any policy.")


def _ci(m: float, low: float, high: float, digits: int = 2) -> str:
    return f"{m:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def scorecard_section(game: str, results: Sequence[Any],
                      probes: Mapping[str, Any] | None = None) -> list[str]:
    """The markdown lines of one scorecard game: each player's gap, by decision kind, its
    costliest box choices and its losses by turn; with ``probes`` (player -> its
    :class:`~agents.evaluation.scorecard_probes.BonusProbe`) a column of the bonus probe."""
    probes = probes or {}
    opt = results[0].optimal_value
    kinds = results[0].kinds
    lines = [f"## {game}", "", f"Optimal expected score (exact DP): **{opt:.4f}**. "
             f"{results[0].games:,} games per player, seed {results[0].seed:,}"
             + (" (the report games, disjoint from the selection games that chose the committed "
                "PPO seed)" if results[0].seed == REPORT_SEED else "")
             + ", the same dice for every player (common random numbers).", "",
             "| player | gap to the optimum (95 % CI) | expected score | paired final-score "
             "difference (95 % CI) | difference of the two estimates | variance reduction | "
             + " | ".join(kinds) + " | upper bonus (player / optimal) | five of a kind "
             "(player / optimal) |" + (" sure bonus rerolled away (probe) |" if probes else ""),
             "|---|---:|---:|---:|---:|---:|" + "---:|" * len(kinds) + "---:|---:|"
             + ("---:|" if probes else "")]
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
                     f" | {ub[0]:.3f} / {ub[1]:.3f} | {fk[0]:.3f} / {fk[1]:.3f} |"
                     + (f" {_probe_text(probes.get(r.agent))} |" if probes else ""))
    if probes:
        any_probe = next(iter(probes.values()))
        lines += ["", f"The bonus probe (`agents/evaluation/scorecard_probes.py`): "
                  f"{any_probe.states:,} positions a game can reach with five of a kind in hand, "
                  f"the five-of-a-kind box at 50 (scoring now earns the bonus of "
                  f"{any_probe.bonus} points) and a reroll left; the share in which the player "
                  "rerolls the sure bonus away (the optimal player: never)."]
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


def _probe_text(probe: Any) -> str:
    return "—" if probe is None else f"{probe.rate:.1%}"


def fivethousand_section(results: Sequence[Any], solo: Sequence[Any]) -> list[str]:
    """The markdown lines of 5000: two-player (win probability) and solo (turns)."""
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


def plot(scorecard: Mapping[str, Sequence[Any]], path: Path) -> None:
    """Where the points are lost: by decision kind (bars) and by turn (lines), per game;
    written (atomically) to ``path``."""
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


def regret_markdown(scorecard: Mapping[str, Sequence[Any]], fivethousand: Sequence[Any],
                    solo: Sequence[Any], command: str,
                    probes: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """``regret.md``; its header says ``command``; ``probes``: game -> player -> its bonus
    probe."""
    lines = ["# Exact regret: where each player loses its points", "",
             f"Generated by `{command}`. Do not edit by hand.", "", INTRODUCTION, "",
             "![where the points are lost](regret.png)", ""]
    for game, rs in scorecard.items():
        if rs:
            lines += scorecard_section(game, rs, (probes or {}).get(game))
    lines += fivethousand_section(fivethousand, solo)
    return "\n".join(lines)


def regret_payload(scorecard: Mapping[str, Sequence[Any]], fivethousand: Sequence[Any],
                   solo: Sequence[Any], command: str,
                   probes: Mapping[str, Mapping[str, Any]] | None = None) -> dict:
    """What ``regret.json`` holds: the command and every result's summary (a scorecard
    player's with ``bonus_giveaway``, its probe's share, where it was probed)."""
    probes = probes or {}

    def summary(game: str, r: Any) -> dict:
        probe = probes.get(game, {}).get(r.agent)
        return {**r.summary(), **({} if probe is None else {"bonus_giveaway": probe.rate})}

    return {"command": command,
            "scorecard": {g: [summary(g, r) for r in rs] for g, rs in scorecard.items()},
            "fivethousand": [r.summary() for r in fivethousand],
            "fivethousand_solo": [r.summary() for r in solo]}


def write_regret_report(out: Path, scorecard: Mapping[str, Sequence[Any]],
                        fivethousand: Sequence[Any], solo: Sequence[Any], command: str,
                        probes: Mapping[str, Mapping[str, Any]] | None = None) -> dict:
    """Write ``regret.md``, ``regret.json`` and (with scorecard results) ``regret.png`` into
    ``out``, each atomically; returns the JSON payload.  ``probes``: game -> player -> its
    bonus probe."""
    out = Path(out)
    payload = regret_payload(scorecard, fivethousand, solo, command, probes)
    atomic_write_text(out / "regret.md",
                      regret_markdown(scorecard, fivethousand, solo, command, probes))
    atomic_write_text(out / "regret.json", json.dumps(payload, indent=1, default=float) + "\n")
    if any(scorecard.values()):
        plot(scorecard, out / "regret.png")
    return payload
