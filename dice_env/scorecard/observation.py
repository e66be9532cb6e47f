"""The observation vector of the scorecard envs (single and batched), and its decoding.

Layout (float32, every entry in ``[0, 1]``), for a scorecard of ``B`` boxes and ``R`` rolls
per turn:

=========================  =====  ==========================================================
slice                      size   meaning
=========================  =====  ==========================================================
``dice``                   5      sorted dice, ``(face - 1) / 5``
``face_counts``            6      how many dice show each face, ``/ 5``
``rolls_left``             R      one-hot of the rerolls left (0 .. R-1)
``open``                   B      1 for an open box
``box_points``             B      what each box would score now (Joker applied; 0 where the
                                  box is not legal), ``/ 50``
``upper_progress``         1      upper total, capped at the bonus threshold, ``/ threshold``
``five_state``             3      one-hot: five-of-a-kind box open / holds 50 / holds 0
``turn``                   1      boxes filled ``/ B``
=========================  =====  ==========================================================

Penta (B = 13, R = 3): 45 entries; Dice Poker (B = 15): 49.  :func:`decode_observation`
recovers everything a player needs (the sorted roll, rerolls left, open boxes, the capped
upper total, the five-of-a-kind state) from one vector, so agents work from observations alone.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dice_env import dice as D
from dice_env.scorecard.rules import Rules


@cache
def observation_slices(rules: Rules) -> dict[str, slice]:
    """Name -> slice of each part of the observation vector."""
    sizes = [("dice", D.N_DICE), ("face_counts", D.N_FACES), ("rolls_left", rules.rolls_per_turn),
             ("open", rules.n_boxes), ("box_points", rules.n_boxes), ("upper_progress", 1),
             ("five_state", 3), ("turn", 1)]
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


@cache
def observation_size(rules: Rules) -> int:
    return observation_slices(rules)["turn"].stop


#: ``(252, 11)`` the dice and face-count entries of every sorted roll.
_ROLL_FEATURES = np.concatenate([(D.ROLLS - 1) / 5.0, D.ROLL_COUNTS / 5.0],
                                axis=1).astype(np.float32)
_EYE3 = np.eye(3, dtype=np.float32)


def encode_observation(rules: Rules, dice: np.ndarray, roll: np.ndarray, rolls_left: np.ndarray,
                       open_boxes: np.ndarray, box_points: np.ndarray, upper_total: np.ndarray,
                       five_state: np.ndarray) -> np.ndarray:
    """``(N, observation_size)`` float32 observations of ``N`` games (see the module doc).

    ``dice`` must be the sorted dice of ``roll``; the dice entries are read from a per-roll
    table, so only ``roll`` is used for them.
    """
    s = observation_slices(rules)
    n = len(roll)
    obs = np.empty((n, observation_size(rules)), dtype=np.float32)
    obs[:, :s["face_counts"].stop] = _ROLL_FEATURES[roll]
    r = rules.rolls_per_turn
    obs[:, s["rolls_left"]] = np.eye(r, dtype=np.float32)[np.clip(rolls_left, 0, r - 1)]
    obs[:, s["open"]] = open_boxes
    np.multiply(np.minimum(box_points, 50), 1 / 50.0, out=obs[:, s["box_points"]],
                casting="unsafe")
    obs[:, s["upper_progress"].start] = (
        np.minimum(upper_total, rules.upper_bonus_threshold) / rules.upper_bonus_threshold
    )
    obs[:, s["five_state"]] = _EYE3[five_state]
    obs[:, s["turn"].start] = (rules.n_boxes - open_boxes.sum(axis=1)) / rules.n_boxes
    return obs


def decode_observation(rules: Rules, obs: np.ndarray) -> dict[str, np.ndarray]:
    """Invert :func:`encode_observation` for what decisions need.

    Returns arrays (leading batch axis if ``obs`` is 2-D): ``dice``, ``roll``, ``rolls_left``,
    ``open`` (bool), ``upper_capped`` (upper total capped at the threshold), ``five_state``.
    """
    s = observation_slices(rules)
    o = np.asarray(obs, dtype=np.float64)
    dice = np.rint(o[..., s["dice"]] * 5 + 1).astype(np.int8)
    return {
        "dice": dice,
        "roll": D.ROLL_INDEX_BY_CODE[D.dice_code(dice)].astype(np.int64),
        "rolls_left": np.argmax(o[..., s["rolls_left"]], axis=-1),
        "open": o[..., s["open"]] > 0.5,
        "upper_capped": np.rint(o[..., s["upper_progress"].start]
                                * rules.upper_bonus_threshold).astype(np.int64),
        "five_state": np.argmax(o[..., s["five_state"]], axis=-1),
    }
