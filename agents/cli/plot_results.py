"""Plot the learning curves of the committed agents: ``results/learning_curves.png``.

One column per game.  Top row: the PPO models' evaluation metric against training env steps
(the ``<name>.eval.csv`` next to each committed model in ``agents/models/``, written by
``dice-env train --export``; ``--models`` reads another folder).  Bottom row: the same curves
against wall-clock training time, with each committed learned-value model as one point at its
training time (``results/learned_value.json``: the median seed's exact expected score or win
rate).  Dashed: the optimum (``results/optimal.json``).

Example:
  dice-env report plots --results results
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import command_parser


def build_parser(prog: str | None = None):
    """The command line of ``dice-env report plots``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="where learned_value.json and optimal.json are read and the plot "
                             "is written (default %(default)s)")
    parser.add_argument("--models", type=Path, default=None,
                        help="the folder of the learning curves (default: the committed "
                             "models')")
    return parser


def _optimal_scores(path: Path) -> dict[str, float]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {g["game"]: g["expected_score"] for g in data.get("results", [])
            if isinstance(g, dict) and "game" in g and "expected_score" in g}


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> Path:
    """Plot and write the figure; returns its path."""
    from agents.evaluation.reports.learning_curves import (
        learned_value_points,
        learning_curves_figure,
    )
    from agents.paths import committed_models_dir
    from agents.training.ppo import read_learning_curve
    from dice_env.io import atomic_write_figure

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if not args.results.is_dir():
        what = "is a file, not a folder" if args.results.exists() else "is not a folder"
        parser.error(f"argument --results: {args.results} {what}; name the folder that holds "
                     "learned_value.json and optimal.json (the checkout's results/), where "
                     "learning_curves.png is written")
    models = args.models if args.models is not None else committed_models_dir()
    paths = sorted(models.glob("*.eval.csv"))
    if not paths:
        parser.error(f"argument --models: no learning curves in {models}; train with "
                     "`dice-env train GAME --export MODEL.zip` (MODEL.eval.csv is written "
                     "beside it)")
    curves = {}
    for path in paths:
        rows = read_learning_curve(path)
        if rows:
            curves[path.name.removesuffix(".eval.csv")] = \
                {k: [float(r[k]) for r in rows] for k in rows[0]}
    learned_path = args.results / "learned_value.json"
    learned = learned_value_points(json.loads(learned_path.read_text())) \
        if learned_path.exists() else {}
    figure = learning_curves_figure(curves, _optimal_scores(args.results / "optimal.json"),
                                    learned)
    out = args.results / "learning_curves.png"
    atomic_write_figure(out, figure, dpi=110)
    print(out)
    return out
