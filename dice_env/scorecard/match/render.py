"""Plain-text drawing of a multi-player scorecard match: every card side by side."""

from __future__ import annotations

import numpy as np

from dice_env.scorecard.game import OPEN
from dice_env.scorecard.match.core import MatchState, mover_options, winners
from dice_env.scorecard.render import MUST_SCRATCH_WARNING
from dice_env.scorecard.rules import Rules


def render_match(rules: Rules, state: MatchState, names: list[str], game: int = 0) -> str:
    """The dice on the table and every player's card of match ``game``, as text.

    One column per player (``names`` in seat order); the column of the player to move
    (marked ``>``) shows what the current roll would score in each open box (``+n``, ``*``
    when legal); the other players' open boxes show ``.``.
    """
    p = state.num_players
    rows = state.card_rows(np.array([game]))[0]
    c = state.cards
    totals = state.totals(rules)[game]
    over = bool(state.finished()[game])
    cur = int(state.current[game])
    if over:
        top = winners(totals)
        result = (f"{names[top[0]]} wins" if len(top) == 1
                  else "tie: " + ", ".join(names[s] for s in top) + " share the top")
        lines = [f"{rules.name}  game over: {result} ({int(totals.max())})"]
    else:
        mover = rows[cur]
        dice = " ".join(f"[{d}]" for d in c.dice[mover])
        lines = [f"{rules.name}  {names[cur]} to move  dice: {dice}   rerolls left: "
                 f"{int(c.rolls_left[mover])}"]
    legal, points, _ = mover_options(rules, state, np.array([game]))
    five_label = rules.labels[rules.five_kind_box] + " bonus"
    width = max(len(label) for label in (*rules.labels, "upper total", five_label))
    col = max(9, *(len(n) + 1 for n in names))
    heads = [("> " if s == cur and not over else "") + names[s] for s in range(p)]
    lines.append(" " * (width + 2) + "".join(f"{h:>{col}}" for h in heads))

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"  {label:<{width}}" + "".join(f"{x:>{col}}" for x in cells))

    last_upper = int(np.flatnonzero(rules.tables.is_upper)[-1])
    for k, label in enumerate(rules.labels):
        cells = []
        for s in range(p):
            v = int(c.scores[rows[s], k])
            if v != OPEN:
                cells.append(str(v))
            elif s == cur and not over:
                cells.append(f"*{int(points[0, k]):+d}" if legal[0, k] else "-")
            else:
                cells.append(".")
        row(label, cells)
        if k == last_upper:
            row("upper total", [str(int(c.upper_total[r])) for r in rows])
            row("upper bonus", [str(int(b)) for b in c.upper_bonus(rules)[rows]])
    if rules.five_kind_bonus:
        row(five_label, [str(int(c.five_bonus[r])) for r in rows])
    row("TOTAL", [str(int(t)) for t in totals])
    if not over and legal[0].any() and not (np.where(legal[0], points[0], 0) > 0).any():
        lines.append(MUST_SCRATCH_WARNING)
    return "\n".join(lines) + "\n"
