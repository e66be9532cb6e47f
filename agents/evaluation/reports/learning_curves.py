"""``learning_curves.png``: the committed agents' learning curves, one column per game.

Top row: each PPO model's evaluation metric against training env steps (its ``eval.csv``);
bottom row: the same curves against wall-clock training time, with each committed learned-value
model as one point at its training time.  Dashed: the optimum.  :func:`learning_curves_figure`
takes the curves as plain columns and returns the figure; the caller writes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agents.games import is_won

__all__ = ["curves_by_game", "learned_value_points", "learning_curves_figure"]

#: a learning curve by column: ``timesteps``, ``train_seconds`` and ``mean_score`` or
#: ``win_rate``
Curve = Mapping[str, Sequence[float]]


def curves_by_game(names: Sequence[str]) -> dict[str, list[str]]:
    """Curve names (``penta``, ``fivethousand-vs-heuristic``, ...) grouped by their game (the
    part before ``-vs-``), in the order given."""
    by_game: dict[str, list[str]] = {}
    for name in names:
        by_game.setdefault(name.split("-vs-")[0], []).append(name)
    return by_game


def learned_value_points(table: Mapping[str, Sequence[dict]]) -> dict[str, tuple[float, float]]:
    """game -> (training minutes, expected score or win rate) of the median seed of each game
    of a ``learned_value.json`` table (games without a training time are left out)."""
    from agents.evaluation.reports.seeds import median_row

    points = {}
    for game, rows in table.items():
        row = median_row(rows)
        if row.get("seconds") is not None:
            points[game] = (row["seconds"] / 60, row["value"])
    return points


def learning_curves_figure(curves: Mapping[str, Curve], optimal: Mapping[str, float],
                           learned: Mapping[str, tuple[float, float]]):
    """The figure of the curves (name -> columns; the name's part before ``-vs-`` is its game),
    the optimal expected scores (game -> score) and the learned-value points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_game = curves_by_game(list(curves))
    fig, axes = plt.subplots(2, len(by_game), figsize=(5 * len(by_game), 7.2), squeeze=False)
    for col, (game, names) in enumerate(by_game.items()):
        metric = "mean_score"
        for name in names:
            c = curves[name]
            metric = "mean_score" if "mean_score" in c else "win_rate"
            # 5000's committed model is evaluated against the optimal player
            versus = (name.split("-vs-")[1] if "-vs-" in name
                      else "optimal" if metric == "win_rate" else None)
            label = "PPO" + (f" vs {versus}" if versus else "")
            axes[0, col].plot([t / 1e6 for t in c["timesteps"]], c[metric], marker="o", ms=3,
                              label=label)
            axes[1, col].plot([t / 60 for t in c["train_seconds"]], c[metric], marker="o",
                              ms=3, label=label)
        if game in learned:
            minutes, value = learned[game]
            axes[1, col].plot([minutes], [value], marker="*", ms=12, ls="none", color="C3",
                              label="learned value" + (" vs optimal" if is_won(game)
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
    return fig
