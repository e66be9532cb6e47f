"""The exact gap of a trained player, as every seed study measures it."""

from __future__ import annotations

from typing import Any

from agents.evaluation.scorecard_probes import bonus_giveaway
from agents.games import resolve

__all__ = ["MISTAKES", "measure_agent"]

#: how many of the costliest box choices a split measurement keeps
MISTAKES = 8


def measure_agent(agent: Any, game: str, games: int, seed: int = 0,
                  split: bool = False) -> dict:
    """The exact gap of a player: ``gap``, ``ci``, ``unit`` and ``value`` (its expected score,
    or in a game that is won its win probability against the optimal player), by the game
    family's ``regret`` hook: ``games`` games (5000: matches) of evaluation ``seed``.

    With ``split``, also where the gap is lost, where the regret says (the scorecard games):
    ``by_kind`` (decision kind -> mean loss per game), ``by_turn`` (the mean loss at each
    turn) and ``mistakes``, the costliest box choices (``[chosen, optimal, count, points per
    game]``, "reroll" for a hold, at most :data:`MISTAKES`); each None where it does not; and
    ``bonus_giveaway``, the share of positions in which it rerolls a sure five-of-a-kind bonus
    away (:func:`~agents.evaluation.scorecard_probes.bonus_giveaway`; None where no such bonus
    is paid)."""
    g = resolve(game)
    r = g.family.hook("regret")(agent, g, games, seed, progress=False, paired=False)
    out = {"gap": r.gap, "ci": list(r.ci), "unit": g.family.unit, "value": r.value}
    if split:
        kinds, turns = getattr(r, "kind_gaps", None), getattr(r, "turn_gaps", None)
        out["by_kind"] = None if kinds is None else {k: v[0] for k, v in kinds().items()}
        out["by_turn"] = None if turns is None else [float(x) for x in turns()]
        top = getattr(r, "top_box_mistakes", None)
        out["mistakes"] = None if top is None else [list(m) for m in top(MISTAKES)]
        probe = bonus_giveaway(agent, g)
        out["bonus_giveaway"] = None if probe is None else probe.rate
    return out
