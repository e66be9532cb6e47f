"""Playing Pig: a step with its die throw, for one game and for a batch, its events, state
dicts and the text rendering.  The rules themselves are :mod:`dice_env.pig.rules`'.

Random draws: a roll throws ``rng.integers(1, die_sides + 1)`` (one game) or
``rng.integers(1, die_sides + 1, size=k)`` for the ``k`` games of a batch that roll, in row
order -- the same numbers for a batch of one, so a seeded single env and a seeded vector env of
one game play the same dice.  A roll that reaches the horizon still throws (its face unread),
so that both paths stay in step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dice_env.errors import as_int, as_list
from dice_env.pig import rules as R
from dice_env.pig.rules import PigBatch, PigRules, PigState

__all__ = ["events_of", "render_text", "state_from_dict", "state_to_dict", "step",
           "step_batch", "throw"]


def throw(rules: PigRules, rng: np.random.Generator) -> int:
    """One throw of the die."""
    return int(rng.integers(1, rules.die_sides + 1))


def events_of(rules: PigRules, before: PigState, action: int, face: int,
              after: PigState) -> list[dict]:
    """What a move did, as event dicts (seats absolute):

    * ``{"type": "roll", "player", "face", "turn_total"}`` -- a roll that scored;
    * ``{"type": "bust", "player", "face": 1, "lost"}`` -- a 1: the turn total is lost;
    * ``{"type": "hold", "player", "banked", "score"}`` -- a hold;
    * ``{"type": "win", "player"}`` -- after the hold that reached ``win_score``;
    * ``{"type": "draw", "moves"}`` -- the move reached the horizon without a winner.
    """
    p = before.current
    events: list[dict] = []
    if action == R.HOLD:
        events.append({"type": "hold", "player": p, "banked": before.turn_total,
                       "score": after.scores[p]})
    elif after.moves < rules.horizon:
        if face == R.BUST_FACE:
            events.append({"type": "bust", "player": p, "face": face,
                           "lost": before.turn_total})
        else:
            events.append({"type": "roll", "player": p, "face": face,
                           "turn_total": after.turn_total})
    w = R.winner(rules, after)
    if w >= 0:
        events.append({"type": "win", "player": w})
    elif after.moves >= rules.horizon:
        events.append({"type": "draw", "moves": after.moves})
    return events


def step(rules: PigRules, state: PigState, action: int,
         rng: np.random.Generator) -> tuple[PigState, list[dict]]:
    """Play a legal ``action`` in one game (a roll throws the die from ``rng``): the new state
    and :func:`events_of` the move."""
    face = throw(rules, rng) if action == R.ROLL else 0
    after = R.apply_action(rules, state, action, face)
    return after, events_of(rules, state, action, face, after)


def step_batch(rules: PigRules, batch: PigBatch, rows: np.ndarray, actions: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
    """Play legal ``actions`` in the games ``rows`` (distinct, ascending) of ``batch``, in
    place: the batched twin of :func:`step`.  Returns the faces thrown (0 for a hold),
    aligned with ``rows``."""
    rows = np.asarray(rows, dtype=np.int64)
    actions = np.asarray(actions, dtype=np.int64)
    faces = np.zeros(rows.size, dtype=np.int64)
    roll = actions == R.ROLL
    if roll.any():
        faces[roll] = rng.integers(1, rules.die_sides + 1, size=int(roll.sum()))
        R.apply_roll_batch(rules, batch, rows[roll], faces[roll])
    if not roll.all():
        R.apply_hold_batch(rules, batch, rows[~roll])
    return faces


# ------------------------------------------------------------------------------------------
# State dicts
# ------------------------------------------------------------------------------------------
def state_to_dict(rules: PigRules, state: PigState, agent_seat: int | None = None) -> dict:
    """The game as a JSON-serialisable dict: ``scores``, ``turn_total``, ``current_player``,
    ``moves`` (and ``agent_seat`` if given)."""
    d: dict[str, Any] = {"scores": list(state.scores), "turn_total": state.turn_total,
                         "current_player": state.current, "moves": state.moves}
    if agent_seat is not None:
        d["agent_seat"] = int(agent_seat)
    return d


def state_from_dict(rules: PigRules, d: Any) -> tuple[PigState, int | None]:
    """The :class:`~dice_env.pig.rules.PigState` of a dict of :func:`state_to_dict`, and its
    ``agent_seat`` (None if absent).  ``moves`` defaults to 0, ``turn_total`` to 0,
    ``current_player`` to 0.  ``ValueError`` naming the bad field otherwise."""
    if not isinstance(d, dict):
        raise ValueError(f"a Pig state must be a dict, got {type(d).__name__}")
    known = {"scores", "turn_total", "current_player", "moves", "agent_seat"}
    extra = sorted(set(d) - known)
    if extra:
        raise ValueError(f"unknown Pig state fields {extra}; known: {sorted(known)}")
    p = rules.num_players
    scores = as_list(d.get("scores"))
    if scores is None or len(scores) != p:
        raise ValueError(f"state['scores'] must be a list of {p} scores, got "
                         f"{d.get('scores')!r}")
    ints = [as_int(s) for s in scores]
    if any(s is None or s < 0 for s in ints):
        raise ValueError(f"state['scores'] must hold non-negative integers, got {scores!r}")

    def field(name: str, lo: int, hi: int, default: int = 0) -> int:
        v = d.get(name, default)
        x = as_int(v)
        if x is None or not lo <= x <= hi:
            raise ValueError(f"state[{name!r}] must be an integer from {lo} to {hi}, got {v!r}")
        return x

    turn_total = field("turn_total", 0, 10**9)
    current = field("current_player", 0, p - 1)
    moves = field("moves", 0, rules.horizon)
    seat = None if d.get("agent_seat") is None else field("agent_seat", 0, p - 1)
    return PigState(tuple(ints), turn_total, current, moves), seat


# ------------------------------------------------------------------------------------------
# Text
# ------------------------------------------------------------------------------------------
def describe_event(e: dict, names: list[str]) -> str:
    """One event as a line of text."""
    kind = e["type"]
    if kind == "roll":
        return f"{names[e['player']]} rolls {e['face']}: turn total {e['turn_total']}"
    if kind == "bust":
        return f"{names[e['player']]} rolls a 1 and loses {e['lost']}"
    if kind == "hold":
        return f"{names[e['player']]} holds {e['banked']}: score {e['score']}"
    if kind == "win":
        return f"{names[e['player']]} wins"
    return f"draw: the horizon of {e['moves']} moves is reached"


def render_text(rules: PigRules, state: PigState, names: list[str] | None = None,
                events: list[dict] | None = None) -> str:
    """The game as text: the rules line, each player's score (the player to move marked, with
    the turn total), then the events given."""
    names = names or [f"player {i}" for i in range(rules.num_players)]
    over = R.is_terminal(rules, state)
    lines = [f"Pig: first to {rules.win_score} with a d{rules.die_sides}"
             + (" (piglet)" if rules.piglet else "")
             + f", move {state.moves}/{rules.horizon}"]
    width = max(len(n) for n in names)
    for seat, score in enumerate(state.scores):
        mark = ""
        if not over and seat == state.current:
            mark = f"  <- to move, turn total {state.turn_total}"
        lines.append(f"  {names[seat]:<{width}}  {score:>5}{mark}")
    if over:
        w = R.winner(rules, state)
        lines.append(f"  game over: {names[w]} wins" if w >= 0 else "  game over: a draw")
    for e in events or []:
        lines.append("  " + describe_event(e, names))
    return "\n".join(lines) + "\n"
