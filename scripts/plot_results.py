#!/usr/bin/env python
"""Plot the learning curves of the committed agents: ``results/learning_curves.png``.

One column per game.  Top row: the PPO models' evaluation metric against training env steps
(``results/models/<name>.eval.csv``, written by ``scripts/train.py --export``).  Bottom row:
the same curves against wall-clock training time, with each committed learned-value model as
one point at its training time (``results/learned_value.json``: the median seed's exact
expected score or win rate).  Dashed: the optimum (``results/optimal.json``).
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dice_env.io import atomic_write_bytes  # noqa: E402


def read_curve(path: Path) -> dict[str, list[float]]:
    """An ``eval.csv`` by column."""
    from agents.training.ppo import read_learning_curve

    rows = read_learning_curve(path)
    return {k: [float(r[k]) for r in rows] for k in rows[0]} if rows else {}


def _learned_value_points(results: Path) -> dict[str, tuple[float, float]]:
    """game -> (training minutes, expected score or win rate) of the committed median seed."""
    path = results / "learned_value.json"
    if not path.exists():
        return {}
    from learned_value_seeds import median_row

    points = {}
    for game, rows in json.loads(path.read_text()).items():
        row = median_row(rows)
        if row.get("seconds") is not None:
            points[game] = (row["seconds"] / 60, row["value"])
    return points


def _optimal_scores(results: Path) -> dict[str, float]:
    path = results / "optimal.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {g["game"]: g["expected_score"] for g in data.get("results", [])
            if isinstance(g, dict) and "game" in g and "expected_score" in g}


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    curves = sorted((args.results / "models").glob("*.eval.csv"))
    if not curves:
        parser.error(f"no learning curves in {args.results / 'models'}; train with "
                     "`python scripts/train.py GAME --export results/models/GAME.zip`")
    by_game: dict[str, list[Path]] = {}
    for path in curves:
        name = path.name.removesuffix(".eval.csv")
        by_game.setdefault(name.split("-vs-")[0], []).append(path)
    optimal = _optimal_scores(args.results)
    learned = _learned_value_points(args.results)
    fig, axes = plt.subplots(2, len(by_game), figsize=(5 * len(by_game), 7.2), squeeze=False)
    for col, (game, paths) in enumerate(by_game.items()):
        metric = "mean_score"
        for path in paths:
            c = read_curve(path)
            metric = "mean_score" if "mean_score" in c else "win_rate"
            # 5000's committed model is evaluated against the optimal player
            versus = (path.name.removesuffix(".eval.csv").split("-vs-")[1]
                      if "-vs-" in path.name else "optimal" if metric == "win_rate" else None)
            label = "PPO" + (f" vs {versus}" if versus else "")
            axes[0, col].plot([t / 1e6 for t in c["timesteps"]], c[metric], marker="o", ms=3,
                              label=label)
            axes[1, col].plot([t / 60 for t in c["train_seconds"]], c[metric], marker="o",
                              ms=3, label=label)
        if game in learned:
            minutes, value = learned[game]
            axes[1, col].plot([minutes], [value], marker="*", ms=12, ls="none", color="C3",
                              label="learned value" + (" vs optimal" if game == "fivethousand"
                                                       else ""))
        for row, xlabel in enumerate(("training env steps (millions)",
                                      "training wall-clock (minutes)")):
            ax = axes[row, col]
            if metric == "mean_score" and game in optimal:
                ax.axhline(optimal[game], color="k", ls="--", lw=1, label="optimal (DP)")
            if metric == "win_rate":
                ax.axhline(0.5, color="k", ls=":", lw=1)
            ax.set_title(game)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("mean score" if metric == "mean_score" else "win rate (seat-balanced)")
            ax.grid(alpha=0.3)
            ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    out = args.results / "learning_curves.png"
    atomic_write_bytes(out, buf.getvalue())
    print(out)
    return out


if __name__ == "__main__":
    main()
