"""Drawing a scorecard game as text: every card side by side, the totals and the dice (the
options in words are :mod:`agents.play.scorecard_session`'s)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.play.scorecard_table import ScorecardTable
from dice_env import dice as D

N_HOLDS = D.N_HOLDS


def render_scorecards(table: ScorecardTable, names: Sequence[str],
                      now: int | None = None) -> str:
    """Every player's scorecard side by side; with ``now`` (the seat to move), a column of
    what that player's current roll would score in each open box (``*`` marks a legal box)."""
    rules = table.rules
    width = max(len(label) for label in rules.labels + ("upper bonus",))
    col = max(7, *(len(name) for name in names))
    states = [table.card(seat) for seat in range(len(names))]
    cards = table.breakdowns()
    head = f"  {'#':>2}  {'box':<{width}}" + "".join(f"  {name:>{col}}" for name in names)
    if now is not None:
        head += "     now"
    lines = [head]
    last_upper = int(np.flatnonzero(rules.tables.is_upper)[-1])
    legal = table.mask[N_HOLDS:] if now is not None else None
    for k, label in enumerate(rules.labels):
        row = f"  {k + 1:>2}  {label:<{width}}"
        for st in states:
            v = st["scores"][k]
            row += f"  {'.' if v is None else str(v):>{col}}"
        if now is not None and states[now]["scores"][k] is None:
            pts = int(table.box_points[k])
            row += f"  {pts:+5d} *" if legal[k] else "      -"
        lines.append(row)
        if k == last_upper:
            lines.append(f"      {'upper total':<{width}}"
                         + "".join(f"  {c['upper']:>{col}}" for c in cards))
            lines.append(f"      {'upper bonus':<{width}}"
                         + "".join(f"  {c['upper_bonus']:>{col}}" for c in cards)
                         + f"   (at {rules.upper_bonus_threshold})")
    if rules.five_kind_bonus:
        name = f"{rules.labels[rules.five_kind_box]} bonus"
        lines.append(f"      {name:<{width}}" + "".join(f"  {c['penta_bonus']:>{col}}"
                                                         for c in cards))
    lines.append(f"      {'TOTAL':<{width}}" + "".join(f"  {c['total']:>{col}}" for c in cards))
    return "\n".join(lines)


def totals_line(table: ScorecardTable, names: Sequence[str]) -> str:
    return "Totals: " + " | ".join(f"{name} {c['total']}"
                                   for name, c in zip(names, table.breakdowns(), strict=True))


def dice_lines(dice: Sequence[int]) -> str:
    faces = "".join(f"[{int(d)}] " for d in dice)
    pos = "".join(f" {i + 1}  " for i in range(len(dice)))
    return f"Dice:     {faces.rstrip()}\nPosition: {pos.rstrip()}"
