#!/usr/bin/env python
"""Plot the learning curves of the committed PPO models: ``results/learning_curves.png``.

Reads ``results/models/<game>.eval.csv`` (written by ``scripts/train.py --export``), draws the
evaluation metric against training timesteps, with the optimal value (``results/optimal.json``)
for the scorecard games.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dice_env.io import atomic_write_bytes  # noqa: E402


def read_curve(path: Path) -> dict[str, list[float]]:
    rows = list(csv.DictReader(path.open()))
    return {k: [float(r[k]) for r in rows] for k in rows[0]} if rows else {}


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    curves = sorted((args.results / "models").glob("*.eval.csv"))
    if not curves:
        raise SystemExit(f"no learning curves in {args.results / 'models'}; train with "
                         "`python scripts/train.py GAME --export results/models/GAME.zip`")
    optimal = {}
    opt_path = args.results / "optimal.json"
    if opt_path.exists():
        data = json.loads(opt_path.read_text())
        for game in data.get("results", []):
            if isinstance(game, dict) and "game" in game and "expected_score" in game:
                optimal[game["game"]] = game["expected_score"]
    fig, axes = plt.subplots(1, len(curves), figsize=(5 * len(curves), 3.8), squeeze=False)
    for ax, path in zip(axes[0], curves):
        game = path.name.removesuffix(".eval.csv")
        c = read_curve(path)
        metric = "mean_score" if "mean_score" in c else "win_rate"
        ax.plot([t / 1e6 for t in c["timesteps"]], c[metric], marker="o", ms=3, label="PPO")
        if metric == "mean_score" and game in optimal:
            ax.axhline(optimal[game], color="k", ls="--", lw=1, label="optimal (DP)")
        if metric == "win_rate":
            ax.axhline(0.5, color="k", ls=":", lw=1)
        ax.set_title(game)
        ax.set_xlabel("training timesteps (millions)")
        ax.set_ylabel("mean score" if metric == "mean_score" else "win rate (seat-balanced)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    out = args.results / "learning_curves.png"
    atomic_write_bytes(out, buf.getvalue())
    print(out)
    return out


if __name__ == "__main__":
    main()
