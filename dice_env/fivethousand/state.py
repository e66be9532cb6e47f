"""The JSON state dict of one game of 5000: export, validation and import.

The dict (what ``env.unwrapped.get_state()`` returns and ``reset(options={"state": ...})``
accepts)::

    {"version": 1,
     "rules": {"target": 5000, "entry": 500, "choose_scoring_dice": False},
     "num_players": 2,
     "scores": [1200, 0],        # one per seat, in turn order (seat 0 opens the game)
     "current_player": 0,        # the seat to move
     "turn_total": 300,          # points set aside this turn BEFORE the current roll
     "dice": [1, 4, 6],          # the current roll (1 to 5 faces, any order); it must score
     "turns": [4, 3],            # completed turns per seat
     "agent_seat": 0}            # single-agent envs only: the learner's seat

Required keys: ``scores``, ``current_player``, ``turn_total``, ``dice``; the others are optional
on input (``rules`` and ``num_players`` are checked against the env when given; ``turns``
defaults to zeros; ``agent_seat`` defaults to ``current_player``).  A state is always a
decision of the player to move: a finished game, or a roll that busts, cannot be restored.
The random generator is not part of the state: a restored game continues with the env's own.
Integers may be Python ints or numpy integers (not bools, not floats such as ``100.0``), lists
may be lists, tuples or 1-d numpy arrays (the rule of :mod:`dice_env.errors`, the same as the
scorecard state dicts').  Counts (``turn_total``, ``turns``) are at most :data:`MAX_COUNT`.
A malformed dict raises ``ValueError`` saying what is wrong.
"""

from __future__ import annotations

from dice_env.errors import as_int, as_list
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.game import FiveThousandState
from dice_env.fivethousand.rules import FiveThousandRules

STATE_VERSION = 1
STATE_KEYS = ("version", "rules", "num_players", "scores", "current_player", "turn_total",
              "dice", "turns", "agent_seat")
REQUIRED_KEYS = ("scores", "current_player", "turn_total", "dice")
#: The largest turn total and turn count a state may hold (far beyond any real game; the
#: bound keeps the numbers inside the env's int64 arrays).
MAX_COUNT = 10**9


def _ints(value) -> list[int | None] | None:
    """A list field as a list of ints (``None`` for an entry that is not an integer), or
    ``None`` when ``value`` is not a list."""
    items = as_list(value)
    return None if items is None else [as_int(x) for x in items]


def state_to_dict(rules: FiveThousandRules, state: FiveThousandState, row: int = 0,
                  agent_seat: int | None = None) -> dict:
    """The state dict of game ``row`` of a batch (JSON-serialisable)."""
    n = int(R.ROLL_SIZE[state.roll[row]])
    out = {
        "version": STATE_VERSION,
        "rules": rules.knobs(),
        "num_players": int(state.num_players),
        "scores": [int(s) for s in state.scores[row]],
        "current_player": int(state.current[row]),
        "turn_total": int(state.turn_total[row]),
        "dice": [int(d) for d in state.dice[row, :n]],
        "turns": [int(t) for t in state.turns[row]],
    }
    if agent_seat is not None:
        out["agent_seat"] = int(agent_seat)
    return out


def state_from_dict(rules: FiveThousandRules, data: dict,
                    num_players: int) -> tuple[FiveThousandState, int | None]:
    """A batch of one game from a state dict, after checking every field.

    Returns ``(state, agent_seat)`` (``agent_seat`` is ``None`` when the dict has none).
    """
    if not isinstance(data, dict):
        raise ValueError(f"a 5000 state must be a dict with keys {list(STATE_KEYS)}, got "
                         f"{type(data).__name__}")
    unknown = sorted(set(data) - set(STATE_KEYS))
    if unknown:
        raise ValueError(f"unknown state keys {unknown}; a 5000 state has keys "
                         f"{list(STATE_KEYS)}")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise ValueError(f"state is missing {missing}; required keys: {list(REQUIRED_KEYS)} "
                         "(get a complete one from env.unwrapped.get_state())")
    if "version" in data and as_int(data["version"]) != STATE_VERSION:
        raise ValueError(f"state['version'] is {data['version']!r}; this env reads version "
                         f"{STATE_VERSION}")
    if "rules" in data:
        if not isinstance(data["rules"], dict):
            raise ValueError(f"state['rules'] must be a dict of rule knobs such as "
                             f"{rules.knobs()}, got {data['rules']!r}")
        try:
            given = FiveThousandRules.from_knobs(data["rules"])
        except (TypeError, ValueError) as e:
            raise ValueError(f"state['rules'] is not valid: {e}") from None
        if given != rules:
            raise ValueError(f"state['rules'] is {given.knobs()} but this env plays "
                             f"{rules.knobs()}")
    p = int(num_players)
    if "num_players" in data and as_int(data["num_players"]) != p:
        raise ValueError(f"state['num_players'] is {data['num_players']!r} but this env has "
                         f"{p} players")

    scores = _ints(data["scores"])
    if scores is None or len(scores) != p:
        raise ValueError(f"state['scores'] must be a list of {p} integers (one per seat), "
                         f"got {data['scores']!r}")
    low = rules.min_entered_score
    for i, s in enumerate(scores):
        if s is None:
            raise ValueError(f"state['scores'][{i}] must be an integer, got "
                             f"{as_list(data['scores'])[i]!r}")
        if s == rules.target:
            raise ValueError(f"state['scores'][{i}] is {s}, the target: that game is over and "
                             "cannot be restored")
        if s != 0 and (s % 100 or not low <= s < rules.target):
            raise ValueError(f"state['scores'][{i}] = {s} is impossible: a score is 0 or a "
                             f"multiple of 100 from {low} to {rules.target - 100}")

    cur = as_int(data["current_player"])
    if cur is None or not 0 <= cur < p:
        raise ValueError(f"state['current_player'] must be a seat from 0 to {p - 1}, got "
                         f"{data['current_player']!r}")

    dice = _ints(data["dice"])
    if (dice is None or not 1 <= len(dice) <= R.N_DICE
            or not all(d is not None and 1 <= d <= 6 for d in dice)):
        raise ValueError(f"state['dice'] must be a list of 1 to {R.N_DICE} faces from 1 to 6 "
                         f"(the current roll), got {data['dice']!r}")
    padded = R.pad_dice(dice)
    roll = int(R.roll_index_of(padded))
    if R.ROLL_POINTS[roll] == 0:
        raise ValueError(f"state['dice'] = {sorted(dice)} scores nothing: a bust is not a "
                         "decision and cannot be restored")

    tt = as_int(data["turn_total"])
    if tt is None or not 0 <= tt <= MAX_COUNT or tt % 50:
        raise ValueError(f"state['turn_total'] must be a multiple of 50 from 0 to {MAX_COUNT} "
                         f"(the points set aside before the current roll), got "
                         f"{data['turn_total']!r}")
    if tt == 0 and len(dice) != R.N_DICE:
        raise ValueError(f"state['turn_total'] is 0 but only {len(dice)} dice were thrown: a "
                         "turn opens with five dice (and dice set aside always score)")
    if tt > 0 and tt < 50 * (R.N_DICE - len(dice)):
        raise ValueError(f"state['turn_total'] = {tt} is too small for the "
                         f"{R.N_DICE - len(dice)} dice set aside")

    turns = _ints(data.get("turns", [0] * p))
    if (turns is None or len(turns) != p
            or not all(t is not None and 0 <= t <= MAX_COUNT for t in turns)):
        raise ValueError(f"state['turns'] must be a list of {p} integers from 0 to {MAX_COUNT}, "
                         f"got {data.get('turns')!r}")

    agent_seat = data.get("agent_seat")
    if agent_seat is not None:
        agent_seat = as_int(agent_seat)
        if agent_seat is None or not 0 <= agent_seat < p:
            raise ValueError(f"state['agent_seat'] must be a seat from 0 to {p - 1}, got "
                             f"{data['agent_seat']!r}")

    state = FiveThousandState.empty(1, p)
    state.scores[0] = scores
    state.current[0] = cur
    state.turn_total[0] = tt
    state.dice[0] = padded
    state.roll[0] = roll
    state.turns[0] = turns
    return state, agent_seat
