"""Plain-text drawing of a game of 5000 (the envs' ``ansi`` render, human play)."""

from __future__ import annotations

from collections.abc import Sequence

from dice_env.fivethousand import rules as R
from dice_env.fivethousand.game import FiveThousandState
from dice_env.fivethousand.rules import FiveThousandRules


def _dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def describe_event(event: dict, names: Sequence[str], you: int | None = None) -> str:
    """One event of :func:`~dice_env.fivethousand.game.step_events` in words.

    ``you``: the seat spoken to in the second person (the human of a terminal game, whose
    name is then best ``"you"``): its lines read "you bank 300 -> 800", "you are bumped ...",
    "you reach the target and win!".  ``None`` (default): every line in the third person.
    """
    def who(key: str) -> str:
        return names[event[key]]

    def verb(key: str, third: str, second: str) -> str:
        return f"{who(key)} {second if event[key] == you else third}"

    t = event["type"]
    if t == "roll":
        hot = " (hot dice!)" if event["hot_dice"] else ""
        return (f"{verb('player', 'sets', 'set')} aside {event['set_aside']}{hot}, turn total "
                f"{event['turn_total']}, {'roll' if event['player'] == you else 'rolls'} "
                f"{_dice(event['dice_thrown'])}")
    if t == "bust":
        if event["opening"]:
            return f"{verb('player', 'busts', 'bust')} on the opening throw"
        dice = " ".join(str(d) for d in event["dice"])
        lose = "lose" if event["player"] == you else "loses"
        return f"{verb('player', 'busts', 'bust')} with [{dice}] and {lose} {event['lost']}"
    if t == "bank":
        return f"{verb('player', 'banks', 'bank')} {event['points']} -> {event['score']}"
    if t == "bump":
        return (f"{verb('player', 'is', 'are')} bumped to 0 by {who('by')} "
                f"(lost {event['lost']})")
    if t == "overshoot":
        stay = "stay" if event["player"] == you else "stays"
        return (f"{verb('player', 'overshoots', 'overshoot')} with {event['points']} ({stay} at "
                f"{event['score']})")
    if t == "gift":
        return (f"{event['points']} go to {who('to')} as a gift -> {event['score']}")
    if t == "gift_lost":
        why = ("nobody has entered" if event["reason"] == "no_receiver"
               else f"{who('to')} would pass the target")
        return f"the gift of {event['points']} is lost ({why})"
    if t == "win":
        return f"{verb('player', 'reaches', 'reach')} the target and " + (
            "win!" if event["player"] == you else "wins!")
    return str(event)


def render_game(rules: FiveThousandRules, state: FiveThousandState, row: int = 0,
                names: Sequence[str] | None = None, events: Sequence[dict] = (),
                you: int | None = None) -> str:
    """Every player's score, the turn total, the dice and what happened, as text.

    ``you``: the seat spoken to in the second person (see :func:`describe_event`).
    """
    p = state.num_players
    names = list(names) if names is not None else [f"player {i}" for i in range(p)]
    head = f"5000  (target {rules.target}, entry {rules.entry}"
    head += ", choose scoring dice)" if rules.choose_scoring_dice else ")"
    lines = [head]
    for line in events:
        lines.append("  . " + describe_event(line, names, you))
    width = max(len(x) for x in names)
    cur = int(state.current[row])
    over = bool(state.finished()[row])
    for i in range(p):
        s = int(state.scores[row, i])
        mark = ">" if (i == cur and not over) else ("*" if i == state.winner[row] else " ")
        note = "" if s > 0 else "  (not entered)"
        lines.append(f"{mark} {names[i]:<{width}} {s:5d}  turns {int(state.turns[row, i])}"
                     f"{note}")
    if over:
        w = int(state.winner[row])
        lines.append(f"Game over: {names[w]} {'win' if w == you else 'wins'}.")
        return "\n".join(lines) + "\n"
    roll = int(state.roll[row])
    n = int(R.ROLL_SIZE[roll])
    dice = " ".join(f"[{int(d)}]" for d in state.dice[row, :n])
    before = int(state.turn_total[row])
    pts = int(R.ROLL_POINTS[roll])
    total = before + pts
    left = int(R.dice_left_after(n, int(R.ROLL_SCORING_DICE[roll])))
    lines.append(f"{names[cur]} rolled {dice}: {pts} points "
                 f"({_dice(int(R.ROLL_SCORING_DICE[roll]))} scoring)")
    every = " with every scoring die set aside" if rules.choose_scoring_dice else ""
    lines.append(f"Turn total {total}{every} (set aside before this roll: {before}); "
                 f"{_dice(left)} to roll on")
    refusal = R.bank_refusal(rules, int(state.scores[row, cur]), total)
    if refusal is None:
        over_by = int(state.scores[row, cur]) + total - rules.target
        lines.append("Bank: allowed" + (f" (overshoots by {over_by}: the points would be "
                                         "gifted)" if over_by > 0 else ""))
    else:
        lines.append(f"Bank: not allowed ({refusal})")
    return "\n".join(lines) + "\n"
