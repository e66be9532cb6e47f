"""The charts of an inspected game, as data: lines of points the page draws as they are.

Each chart is ``{"title", "x_label", "y_label", "series": [{"name", "player", "style",
"points": [[x, y, decision index], ...]}]}``; a click on a point opens that decision of that
player.  Scorecard games: the score on the card and the optimum's expectation of the final
score after each turn, and the cumulative regret.  5000: the win probability against the
optimal player before each decision and the start's minus the regret so far, the cumulative
regret, and both scores.
"""

from __future__ import annotations

from typing import Any

from agents.games import FIVE_THOUSAND

__all__ = ["game_charts"]


def _series(name: str, player: int, style: str, points: list[list[Any]]) -> dict[str, Any]:
    return {"name": name, "player": player, "style": style, "points": points}


def _scorecard(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    score, regret = [], []
    for p, rec in enumerate(players):
        who = rec["agent"]
        start = [[0, rec["optimal_value"], 0]]
        turns = rec["turns"]
        score.append(_series(f"{who}: expected final score", p, "solid", start + [
            [t["turn"], t["expected"], t["decision"]] for t in turns]))
        score.append(_series(f"{who}: score on the card", p, "dashed", [[0, 0, 0]] + [
            [t["turn"], t["score"], t["decision"]] for t in turns]))
        regret.append(_series(f"{who}: regret so far", p, "solid", [[0, 0.0, 0]] + [
            [t["turn"], t["regret"], t["decision"]] for t in turns]))
    last = max((len(rec["turns"]) for rec in players), default=0)
    v0 = players[0]["optimal_value"]
    score.append(_series("optimum's expectation at the start", -1, "dotted",
                         [[0, v0, 0], [last, v0, 0]]))
    return [{"title": "Score against the optimum's expectation", "x_label": "turn",
             "y_label": "points", "series": score},
            {"title": "Cumulative regret", "x_label": "turn", "y_label": "points lost",
             "series": regret}]


def _fivethousand(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    win, regret, scores = [], [], []
    for p, rec in enumerate(players):
        who = rec["agent"]
        pts = rec["turns"]
        win.append(_series(f"{who}: win probability before the decision", p, "solid",
                           [[t["decision"] + 1, t["value"], t["decision"]] for t in pts]))
        win.append(_series(f"{who}: start's minus regret so far", p, "dashed",
                           [[t["decision"] + 1, rec["optimal_value"] - t["regret"],
                             t["decision"]] for t in pts]))
        regret.append(_series(f"{who}: regret so far", p, "solid",
                              [[t["decision"] + 1, t["regret"], t["decision"]] for t in pts]))
        scores.append(_series(f"{who}: score", p, "solid",
                              [[t["decision"] + 1, t["score"], t["decision"]] for t in pts]))
        scores.append(_series(f"optimal player (against {who})", p, "dashed",
                              [[t["decision"] + 1, t["opponent"], t["decision"]] for t in pts]))
    return [{"title": "Win probability against the optimal player", "x_label": "decision",
             "y_label": "win probability", "series": win},
            {"title": "Cumulative regret", "x_label": "decision",
             "y_label": "win probability lost", "series": regret},
            {"title": "Scores", "x_label": "decision", "y_label": "points", "series": scores}]


def game_charts(family: str, players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The charts of one game for every player's record of it (same dice, side by side)."""
    return _fivethousand(players) if family == FIVE_THOUSAND else _scorecard(players)
