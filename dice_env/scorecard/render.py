"""Plain-text drawing of a scorecard game (used by the env's ``ansi`` render and the player)."""

from __future__ import annotations

import numpy as np

from dice_env.scorecard.game import OPEN, ScorecardState, must_scratch
from dice_env.scorecard.rules import Rules

MUST_SCRATCH_WARNING = "No open box scores: you must scratch one."


def render_scorecard(rules: Rules, state: ScorecardState, box_points: np.ndarray,
                     box_legal: np.ndarray, five_bonus: int, row: int = 0) -> str:
    """The dice, rerolls left and the scorecard of game ``row``, as text.

    Open boxes show what the current roll would score there (``+n``), marked ``*`` when legal.
    """
    if state.finished()[row]:
        lines = [f"{rules.name}  game over"]
    else:
        dice = " ".join(f"[{d}]" for d in state.dice[row])
        lines = [f"{rules.name}  dice: {dice}   rerolls left: {int(state.rolls_left[row])}"]
    width = max(len(label) for label in rules.labels)
    upper = rules.tables.is_upper
    for k, label in enumerate(rules.labels):
        s = int(state.scores[row, k])
        if s == OPEN:
            mark = "*" if box_legal[row, k] else " "
            cell = f"{mark} ({int(box_points[row, k]):+d})" if box_legal[row, k] else "  ( -)"
        else:
            cell = f"{s:5d}"
        lines.append(f"  {label:<{width}} {cell}")
        if k == int(np.flatnonzero(upper)[-1]):
            ut = int(state.upper_total[row])
            ub = rules.upper_bonus if ut >= rules.upper_bonus_threshold else 0
            lines.append(f"  {'upper total':<{width}} {ut:5d}  (bonus {ub} at "
                         f"{rules.upper_bonus_threshold})")
    if five_bonus:
        lines.append(f"  {rules.labels[rules.five_kind_box] + ' bonus':<{width}} "
                     f"{int(state.five_bonus[row]):5d}")
    lines.append(f"  {'TOTAL':<{width}} {int(state.total(rules)[row]):5d}")
    legal_points = np.where(box_legal[row:row + 1], box_points[row:row + 1], 0)
    if must_scratch(box_legal[row:row + 1], legal_points)[0]:
        lines.append(MUST_SCRATCH_WARNING)
    return "\n".join(lines) + "\n"
