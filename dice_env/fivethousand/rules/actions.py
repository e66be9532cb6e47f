"""The actions of 5000: the legal-action mask after a roll, and decoding, encoding and describing
actions in both encodings (literal ``Discrete(2)``, ``choose_scoring_dice`` ``Discrete(64)``)."""

from __future__ import annotations

import numpy as np

from dice_env.fivethousand.rules.knobs import (
    BANK,
    N_DICE,
    ROLL,
    FiveThousandRules,
)
from dice_env.fivethousand.rules.tables import (
    ROLL_POINTS,
    ROLL_SCORING_DICE,
    ROLL_SCORING_MASK,
    ROLL_SIZE,
    SETASIDE_DICE,
    SETASIDE_POINTS,
    pad_dice,
    roll_index_of,
)
from dice_env.fivethousand.rules.turn import mask_rows, turn_tables


def legal_action_mask(rules: FiveThousandRules, score, turn_total, roll) -> np.ndarray:
    """``(N, n_actions)`` bool: the legal actions after a roll (none after a bust): each
    game's :func:`~.turn.action_mask_into`.

    Args:
        score: ``(N,)`` the deciding player's score.
        turn_total: ``(N,)`` points set aside this turn *before* the current roll.
        roll: ``(N,)`` roll index of the current roll.
    """
    score, tt, roll = (np.ascontiguousarray(a, dtype=np.int64) for a in np.broadcast_arrays(
        np.atleast_1d(score), np.atleast_1d(turn_total), np.atleast_1d(roll)))
    t = turn_tables(rules)
    mask = np.zeros((len(roll), rules.n_actions), dtype=np.int8)
    mask_rows(rules.min_entered_score, score, tt, roll, t.points, t.legal, t.n_legal, mask)
    return mask.view(bool)


def decode_actions(rules: FiveThousandRules, roll, actions):
    """``(bank, points, dice_set_aside)`` of (legal) actions on rolls ``roll``, each ``(N,)``."""
    roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
    a = np.atleast_1d(np.asarray(actions, dtype=np.int64))
    bank = (a & 1) == 1
    if not rules.choose_scoring_dice:
        return bank, ROLL_POINTS[roll].astype(np.int64), ROLL_SCORING_DICE[roll].astype(np.int64)
    m = a >> 1
    return (bank, SETASIDE_POINTS[roll, m].astype(np.int64),
            SETASIDE_DICE[roll, m].astype(np.int64))


def encode_action(rules: FiveThousandRules, dice, bank: bool, set_aside=None) -> int:
    """The action that sets aside ``set_aside`` (faces; default: every scoring die) of the
    current ``dice`` (faces of the roll, any order) and then banks or rolls on.

    Raises ``ValueError`` if ``set_aside`` is not a sub-multiset of the dice, or if a set-aside
    other than all scoring dice is asked for under the literal rules.
    """
    dice_arr = pad_dice([d for d in dice if d])
    roll = int(roll_index_of(dice_arr))
    n = int(ROLL_SIZE[roll])
    if set_aside is None:
        m = int(ROLL_SCORING_MASK[roll])
    else:
        want = sorted(int(f) for f in set_aside)
        m, used = 0, set()
        for f in want:
            pos = next((i for i in range(n) if dice_arr[i] == f and i not in used), None)
            if pos is None:
                raise ValueError(f"cannot set aside {want} from the roll {dice_arr[:n].tolist()}")
            used.add(pos)
            m |= 1 << pos
        if not rules.choose_scoring_dice and m != int(ROLL_SCORING_MASK[roll]):
            raise ValueError("the literal rules set aside every scoring die; choosing a subset "
                             "needs choose_scoring_dice=True")
    if not rules.choose_scoring_dice:
        return BANK if bank else ROLL
    return 2 * m + (BANK if bank else ROLL)


def describe_action(rules: FiveThousandRules, action: int, dice=None) -> str:
    """A short description of an action, e.g. ``1 (bank)`` or ``9 (set aside [1 5], roll)``."""
    a = int(action)
    if not 0 <= a < rules.n_actions:
        return f"{a} (out of range)"
    verb = "bank" if a & 1 else "roll"
    if not rules.choose_scoring_dice:
        return f"{a} ({verb})"
    m = a >> 1
    positions = [i for i in range(N_DICE) if m >> i & 1]
    if dice is None:
        return f"{a} (set aside positions {positions}, {verb})"
    faces = [int(dice[i]) for i in positions if i < len(dice)]
    return f"{a} (set aside {faces}, {verb})"
