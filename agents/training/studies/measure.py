"""The exact gap of a trained player, as every seed study measures it."""

from __future__ import annotations

from typing import Any

from agents.games import is_fivethousand

__all__ = ["measure_agent"]


def measure_agent(agent: Any, game: str, games: int, seed: int = 0) -> dict:
    """The exact gap of a player: ``gap``, ``ci``, ``unit`` and ``value`` (its expected score,
    or for 5000 its seat-balanced win probability against the optimal player).

    Scorecard games: the exact per-decision regret (``optimality_gap``, ``games`` games of
    evaluation ``seed``), in points; ``"fivethousand"``: ``fivethousand_gap`` against the
    optimal player (``games`` matches of ``seed``)."""
    from agents.evaluation import fivethousand_gap, optimality_gap

    if is_fivethousand(game):
        r = fivethousand_gap(agent, games=games, seed=seed)
        return {"gap": r.gap, "ci": list(r.ci), "unit": "win probability",
                "value": r.estimate()[0]}
    r = optimality_gap(agent, game, games=games, seed=seed, paired=False)
    return {"gap": r.gap, "ci": list(r.ci), "unit": "points", "value": r.expected_score}
