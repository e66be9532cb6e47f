"""The exact gap of a trained player, as every seed study measures it."""

from __future__ import annotations

from typing import Any

from agents.games import resolve

__all__ = ["measure_agent"]


def measure_agent(agent: Any, game: str, games: int, seed: int = 0) -> dict:
    """The exact gap of a player: ``gap``, ``ci``, ``unit`` and ``value`` (its expected score,
    or in a game that is won its win probability against the optimal player), by the game
    family's ``regret`` hook: ``games`` games (5000: matches) of evaluation ``seed``."""
    g = resolve(game)
    r = g.family.hook("regret")(agent, g, games, seed, progress=False, paired=False)
    return {"gap": r.gap, "ci": list(r.ci), "unit": g.family.unit, "value": r.value}
