"""The JSON state dict of one multi-player scorecard match: export, validation and import.

The dict (what ``get_state()`` of the match envs returns and ``reset(options={"state": ...})``
accepts)::

    {"game": "penta",              # preset name (optional on input; checked when given)
     "current_player": 1,          # the seat to move, 0 .. P-1
     "dice": [1, 2, 3, 4, 6],      # the dice on the table (the roll of the player to move)
     "rolls_left": 2,              # rerolls left in this turn
     "cards": [                    # one per seat, in seat order
        {"scores": [None, 4, ...], "penta_bonus": 0},
        ...]}

Each card is checked by the single-player state check
(:func:`~dice_env.scorecard.state.state_from_dict`: box values some roll can score, a
consistent five-of-a-kind bonus); a card may be full (a player who has played every turn
while later seats finish the round).  The cards must follow from whole turns in seat order:
with seat ``c`` to move with ``t`` boxes filled, seats before ``c`` have filled ``t + 1`` boxes
and seats after it ``t``.  The single-agent match env adds ``"agent_seat"`` (optional on input;
it must be the seat to move).  A malformed dict raises ``ValueError`` saying what is wrong.
"""

from __future__ import annotations

import numpy as np

from dice_env.errors import as_int, as_list
from dice_env.scorecard.game import OPEN, ScorecardState
from dice_env.scorecard.match.core import MatchState
from dice_env.scorecard.rules import Rules
from dice_env.scorecard.state import possible_box_scores, state_from_dict

MATCH_STATE_KEYS = ("game", "current_player", "dice", "rolls_left", "cards")
CARD_KEYS = ("scores", "penta_bonus")


def match_state_to_dict(rules: Rules, state: MatchState, game: int = 0) -> dict:
    """The state dict of match ``game`` of a batch."""
    p = state.num_players
    mover = int(state.mover_rows(np.array([game]))[0])
    c = state.cards
    cards = []
    for row in range(game * p, game * p + p):
        scores = [None if s == OPEN else int(s) for s in c.scores[row].tolist()]
        cards.append({"scores": scores, "penta_bonus": int(c.five_bonus[row])})
    return {"game": rules.name, "current_player": int(state.current[game]),
            "dice": [int(d) for d in c.dice[mover]], "rolls_left": int(c.rolls_left[mover]),
            "cards": cards}


def _card(rules: Rules, card, seat: int, dice, rolls_left) -> ScorecardState:
    """Seat ``seat``'s card as a batch of one (checked by the single-player state check)."""
    if not isinstance(card, dict) or set(card) != set(CARD_KEYS):
        raise ValueError(f"cards[{seat}] must be a dict with keys {list(CARD_KEYS)}, got "
                         f"{card!r}")
    data = {"dice": dice, "rolls_left": rolls_left, **card}
    scores = as_list(card["scores"])
    full = (scores is not None and len(scores) == rules.n_boxes
            and all(s is not None for s in scores))
    try:
        if not full:
            return state_from_dict(rules, data)
        # state_from_dict refuses a full card (a solitaire game would be over): check the card
        # with Aces opened (one box fewer counts for the bonus), then put Aces back.
        aces = as_int(scores[0])
        if aces is None or aces not in possible_box_scores(rules)[0]:
            raise ValueError(f"state['scores'][0] ({rules.labels[0]}) must be one of "
                             f"{sorted(possible_box_scores(rules)[0])}, got {scores[0]!r}")
        bonus = as_int(card["penta_bonus"])
        step = rules.five_kind_bonus
        probe_bonus = card["penta_bonus"]
        if bonus is not None and step and bonus == step * (rules.n_boxes - 1):
            probe_bonus = bonus - step
        state = state_from_dict(rules, dict(data, scores=[None, *scores[1:]],
                                            penta_bonus=probe_bonus))
    except ValueError as err:
        raise ValueError(f"cards[{seat}]: {err}") from None
    state.scores[0, 0] = aces
    state.upper_total[0] += aces
    state.five_bonus[0] = bonus
    return state


def match_state_from_dict(rules: Rules, data: dict, num_players: int,
                          extra_keys: tuple[str, ...] = ()) -> MatchState:
    """A batch of one match from a state dict, after checking every field.

    ``extra_keys`` are keys the caller reads itself (they are allowed and ignored here)."""
    known = MATCH_STATE_KEYS + tuple(extra_keys)
    if not isinstance(data, dict):
        raise ValueError(f"a match state must be a dict with keys {list(known)}, got "
                         f"{type(data).__name__}")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown state keys {unknown}; a match state has keys {list(known)}")
    missing = [k for k in MATCH_STATE_KEYS[1:] if k not in data]
    if missing:
        raise ValueError(f"state is missing {missing}; a match state has keys "
                         f"{list(MATCH_STATE_KEYS)} (get one from env.unwrapped.get_state())")
    if "game" in data and not (isinstance(data["game"], str) and data["game"] == rules.name):
        raise ValueError(f"state is for game {data['game']!r} but this env plays "
                         f"{rules.name!r}")
    current = as_int(data["current_player"])
    if current is None or not 0 <= current < num_players:
        raise ValueError(f"state['current_player'] must be a seat from 0 to {num_players - 1}, "
                         f"got {data['current_player']!r}")
    cards = as_list(data["cards"])
    if cards is None or len(cards) != num_players:
        raise ValueError(f"state['cards'] must be a list of {num_players} cards (one per seat), "
                         f"got {data['cards']!r}")
    idle_rolls = rules.rolls_per_turn - 1  # what a player holds until their turn comes
    parsed = [_card(rules, card, s, data["dice"],
                    data["rolls_left"] if s == current else idle_rolls)
              for s, card in enumerate(cards)]

    filled = [int((p.scores[0] != OPEN).sum()) for p in parsed]
    t = filled[current]
    if t == rules.n_boxes:
        raise ValueError(f"the player to move (seat {current}) has no open box: that match is "
                         "over; leave at least one box of the player to move as None")
    expected = [t + 1 if s < current else t for s in range(num_players)]
    if filled != expected:
        raise ValueError(f"players take whole turns in seat order: with seat {current} to move "
                         f"and {t} of its boxes filled, the cards must have {expected} boxes "
                         f"filled (seat order), got {filled}")

    state = MatchState.empty(rules, 1, num_players)
    for s, card in enumerate(parsed):
        state.cards.put([s], card)
    state.current[0] = current
    return state
