"""The charts of an inspected game, as data: lines of points the page draws as they are.

Each chart is ``{"title", "x_label", "y_label", "series": [{"name", "player", "style",
"points": [[x, y, decision index], ...]}]}``; a click on a point opens that decision of that
player (``player`` -1: a reference line, not clickable).  ``style`` is ``"solid"``,
``"dashed"`` or ``"dotted"``; a ``y_label`` that starts with ``"win probability"`` is drawn in
per cent.  Each family's inspection draws its own (``Inspection.charts``): the scorecard
games the score on the card and the optimum's expectation after each turn, 5000 the win
probability against the optimal player before each decision; both the cumulative regret.
"""

from __future__ import annotations

from typing import Any

__all__ = ["series"]


def series(name: str, player: int, style: str, points: list[list[Any]]) -> dict[str, Any]:
    """One line of a chart: ``player``'s (-1 for a reference line) ``points``."""
    return {"name": name, "player": player, "style": style, "points": points}
