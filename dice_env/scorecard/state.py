"""The JSON state dict of one scorecard game: export, validation and import.

The dict (what ``env.unwrapped.get_state()`` returns and ``reset(options={"state": ...})``
accepts)::

    {"game": "penta",            # preset name (optional on input; checked when given)
     "dice": [1, 2, 3, 4, 6],    # 5 faces, sorted ascending (sorted on input)
     "rolls_left": 2,            # rerolls left this turn, 0 .. rolls_per_turn - 1
     "scores": [None, 4, ...],   # one entry per box in box order; None while open
     "penta_bonus": 0}           # five-of-a-kind bonus points earned so far

Integers may be Python ints or numpy integers (not bools, not floats such as ``2.0``), lists
may be lists, tuples or 1-d numpy arrays (the rule of :mod:`dice_env.errors`).  A malformed
dict raises ``ValueError`` saying what is wrong and how to fix it.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dice_env import dice as D
from dice_env.errors import as_int, as_list
from dice_env.scorecard.game import OPEN, ScorecardState
from dice_env.scorecard.rules import Rules

STATE_KEYS = ("game", "dice", "rolls_left", "scores", "penta_bonus")


@cache
def possible_box_scores(rules: Rules) -> tuple[frozenset[int], ...]:
    """For each box, every score some roll can put there (Joker values included)."""
    t = rules.tables
    five = t.is_five_kind
    out = []
    for k in range(rules.n_boxes):
        values = set(t.score[:, k].tolist()) | {0}
        if rules.joker != "none":
            values |= set(t.joker_score[five, k].tolist())
        out.append(frozenset(values))
    return tuple(out)


def state_to_dict(rules: Rules, state: ScorecardState, row: int = 0) -> dict:
    """The state dict of game ``row`` of a batch."""
    scores = [None if s == OPEN else int(s) for s in state.scores[row].tolist()]
    return {
        "game": rules.name,
        "dice": [int(d) for d in state.dice[row]],
        "rolls_left": int(state.rolls_left[row]),
        "scores": scores,
        "penta_bonus": int(state.five_bonus[row]),
    }


def state_from_dict(rules: Rules, data: dict) -> ScorecardState:
    """A batch of one game from a state dict, after checking every field."""
    if not isinstance(data, dict):
        raise ValueError(f"a state must be a dict with keys {list(STATE_KEYS)}, got "
                         f"{type(data).__name__}")
    unknown = sorted(set(data) - set(STATE_KEYS))
    if unknown:
        raise ValueError(f"unknown state keys {unknown}; a state has keys {list(STATE_KEYS)}")
    missing = [k for k in STATE_KEYS[1:] if k not in data]
    if missing:
        raise ValueError(f"state is missing {missing}; a state has keys {list(STATE_KEYS)} "
                         "(get one from env.unwrapped.get_state())")
    if "game" in data and not (isinstance(data["game"], str) and data["game"] == rules.name):
        raise ValueError(f"state is for game {data['game']!r} but this env plays "
                         f"{rules.name!r}")

    given = data["dice"]
    dice = [as_int(d) for d in as_list(given) or []]
    if len(dice) != D.N_DICE or not all(d is not None and 1 <= d <= D.N_FACES for d in dice):
        raise ValueError(f"state['dice'] must be {D.N_DICE} integers from 1 to 6, got "
                         f"{given!r}")

    rolls_left = as_int(data["rolls_left"])
    if rolls_left is None or not 0 <= rolls_left < rules.rolls_per_turn:
        raise ValueError(f"state['rolls_left'] must be an integer from 0 to "
                         f"{rules.rolls_per_turn - 1}, got {data['rolls_left']!r}")

    scores = as_list(data["scores"])
    if scores is None or len(scores) != rules.n_boxes:
        raise ValueError(f"state['scores'] must be a list of {rules.n_boxes} entries (one per "
                         f"box: {list(rules.labels)}; None for an open box), got "
                         f"{data['scores']!r}")
    possible = possible_box_scores(rules)
    for k, given_score in enumerate(scores):
        if given_score is None:
            continue
        s = scores[k] = as_int(given_score)
        if s is None:
            raise ValueError(f"state['scores'][{k}] ({rules.labels[k]}) must be an integer or "
                             f"None, got {given_score!r}")
        if s not in possible[k]:
            raise ValueError(f"state['scores'][{k}]: no roll scores {s} in {rules.labels[k]}; "
                             f"possible scores are {sorted(possible[k])}")
    if all(s is not None for s in scores):
        raise ValueError("state['scores'] has no open box: that game is over; leave at least "
                         "one box as None")

    bonus = as_int(data["penta_bonus"])
    five_box = rules.five_kind_box
    if bonus is None or bonus < 0:
        raise ValueError(f"state['penta_bonus'] must be a non-negative integer, got "
                         f"{data['penta_bonus']!r}")
    if bonus:
        step = rules.five_kind_bonus
        if step == 0:
            raise ValueError(f"state['penta_bonus'] is {bonus} but {rules.name} has no "
                             "five-of-a-kind bonus; use 0")
        if bonus % step:
            raise ValueError(f"state['penta_bonus'] must be a multiple of {step}, got {bonus}")
        if scores[five_box] != rules.five_kind:
            raise ValueError(f"state['penta_bonus'] is {bonus} but the "
                             f"{rules.labels[five_box]} box does not hold {rules.five_kind}: "
                             "a bonus needs it")
        filled_others = sum(s is not None for k, s in enumerate(scores) if k != five_box)
        if bonus // step > filled_others:
            raise ValueError(f"state['penta_bonus'] = {bonus} needs {bonus // step} boxes "
                             f"filled besides {rules.labels[five_box]}; only {filled_others} are")

    state = ScorecardState.empty(rules, 1)
    state.dice[0] = np.sort(np.asarray(dice, dtype=np.int8))
    state.roll[0] = D.roll_index(state.dice[0])
    state.rolls_left[0] = rolls_left
    state.scores[0] = [OPEN if s is None else s for s in scores]
    upper = rules.tables.is_upper
    state.upper_total[0] = sum(s for k, s in enumerate(scores) if s is not None and upper[k])
    state.five_bonus[0] = bonus
    return state
