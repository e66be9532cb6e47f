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

The ``"bonus"`` observation (env option ``observation="bonus"``) appends 11 entries that spell
out where the card stands against the upper bonus, the decision a policy learns slowest.
Writing ``T`` for the bonus threshold, ``need`` for the points the upper section still needs
(``T`` minus the capped upper total) and ``par`` for the par (three of the face) of the open
upper boxes, and mapping a signed quantity ``x`` to ``0.5 + 0.5 * clip(x / T, -1, 1)``:

=========================  =====  ==========================================================
``bonus_need``             1      ``need / T``
``bonus_par``              1      ``min(par / T, 1)``
``bonus_slack``            1      ``par - need`` (signed): above 0.5 the bonus is on par
``bonus_secured``          1      1 when ``need`` is 0
``bonus_reachable``        1      1 when five of a face in every open upper box still reach it
``bonus_slack_after``      6      per upper box (Aces .. Sixes): the slack after scoring the
                                  current dice there (signed); 0 for a filled box
=========================  =====  ==========================================================

Every bonus entry is a function of the basic entries (:func:`bonus_features`), so a model
trained on the ``"bonus"`` observation plays from basic observations too (the agents extend
them, see :class:`agents.policies.sb3_models.SB3Agent`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dice_env import dice as D
from dice_env.scorecard.rules import Rules, ScoreTables


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


#: the observation kinds of the scorecard envs (env option ``observation``)
OBSERVATION_KINDS = ("basic", "bonus")
#: entries the ``"bonus"`` observation appends
N_BONUS_FEATURES = 11


def check_observation_kind(kind: str) -> str:
    """``kind`` if it is one of :data:`OBSERVATION_KINDS`, else a ``ValueError`` naming them."""
    if kind not in OBSERVATION_KINDS:
        raise ValueError(f"unknown observation kind {kind!r}; use one of "
                         f"{list(OBSERVATION_KINDS)} (see dice_env.scorecard.observation)")
    return kind


@cache
def observation_size(rules: Rules, kind: str = "basic") -> int:
    """Entries of the ``kind`` observation (45 for basic Penta, 56 with the bonus entries)."""
    basic = observation_slices(rules)["turn"].stop
    return basic + (N_BONUS_FEATURES if check_observation_kind(kind) == "bonus" else 0)


#: ``(252, 11)`` the dice and face-count entries of every sorted roll.
_ROLL_FEATURES = np.concatenate([(D.ROLLS - 1) / 5.0, D.ROLL_COUNTS / 5.0],
                                axis=1).astype(np.float32)
_EYE3 = np.eye(3, dtype=np.float32)


def encode_observation(rules: Rules, dice: np.ndarray, roll: np.ndarray, rolls_left: np.ndarray,
                       open_boxes: np.ndarray, box_points: np.ndarray, upper_total: np.ndarray,
                       five_state: np.ndarray, kind: str = "basic") -> np.ndarray:
    """``(N, observation_size)`` float32 observations of ``N`` games (see the module doc).

    ``dice`` must be the sorted dice of ``roll``; the dice entries are read from a per-roll
    table, so only ``roll`` is used for them.  ``kind="bonus"`` appends :func:`bonus_features`.
    """
    s = observation_slices(rules)
    n = len(roll)
    obs = np.empty((n, observation_size(rules, kind)), dtype=np.float32)
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
    basic = s["turn"].stop
    if kind == "bonus":
        obs[:, basic:] = bonus_features(rules, obs[:, :basic])
    return obs


def _one_game_tables(rules: Rules) -> tuple:
    """The entries of :func:`encode_observation` as Python lists of float32 values, indexed
    by what they encode (built with the same numpy expressions, so they match it bit for bit):
    roll features by roll, rolls-left one-hots by rerolls left, box-point entries by points
    (capped at 50), upper progress by upper total (capped at the threshold), five-state
    one-hots, and the turn entry by the number of open boxes."""
    # cached by the rules' score tables: built once per Rules and hashed by identity, where
    # hashing the Rules themselves would cost more than a step
    return _one_game_tables_of(rules.tables)


@cache
def _one_game_tables_of(tables: ScoreTables) -> tuple:
    rules = tables.rules
    r, n, threshold = rules.rolls_per_turn, rules.n_boxes, rules.upper_bonus_threshold
    points = np.empty(51, dtype=np.float32)
    np.multiply(np.minimum(np.arange(51), 50), 1 / 50.0, out=points, casting="unsafe")
    upper = np.minimum(np.arange(threshold + 1), threshold) / threshold
    turn = (n - np.arange(n + 1)) / n
    return (_ROLL_FEATURES.tolist(), np.eye(r, dtype=np.float32).tolist(), points.tolist(),
            upper.astype(np.float32).tolist(), _EYE3.tolist(), turn.astype(np.float32).tolist())


def observation_values_one(rules: Rules, roll: int, rolls_left: int, open_boxes: list[bool],
                           box_points: list[int], upper_total: int, five_state: int) -> list[float]:
    """The basic observation of one game given as Python values, as a list of float32 values
    (``box_points`` as :func:`~dice_env.scorecard.rules.box_outcomes` gives them, 0 where not
    legal): :func:`encode_observation`'s row, bit for bit once stored as float32."""
    roll_features, rolls_left_hot, points, upper, five_hot, turn = _one_game_tables(rules)
    return (roll_features[roll]
            + rolls_left_hot[min(max(rolls_left, 0), rules.rolls_per_turn - 1)]
            + [1.0 if o else 0.0 for o in open_boxes]
            + [points[p if p < 50 else 50] for p in box_points]
            + [upper[min(upper_total, rules.upper_bonus_threshold)]]
            + five_hot[five_state]
            + [turn[sum(open_boxes)]])


def encode_observation_one(rules: Rules, roll: int, rolls_left: int, open_boxes: list[bool],
                           box_points: list[int], upper_total: int, five_state: int,
                           kind: str = "basic") -> np.ndarray:
    """:func:`encode_observation` of one game given as Python values: ``(size,)`` float32,
    equal to it bit for bit (see :func:`observation_values_one`)."""
    values = observation_values_one(rules, roll, rolls_left, open_boxes, box_points,
                                    upper_total, five_state)
    if kind == "basic":
        return np.array(values, dtype=np.float32)
    obs = np.empty(observation_size(rules, kind), dtype=np.float32)
    basic = len(values)
    obs[:basic] = values
    obs[basic:] = bonus_features(rules, obs[None, :basic])[0]
    return obs


def bonus_features(rules: Rules, obs: np.ndarray) -> np.ndarray:
    """``(N, 11)`` float32 bonus entries (see the module doc) of ``(N, basic size)`` basic
    observations: computed from the open boxes, box points and upper progress alone."""
    s = observation_slices(rules)
    obs = np.atleast_2d(np.asarray(obs, dtype=np.float32))
    t = float(rules.upper_bonus_threshold)
    faces = np.arange(1, 7, dtype=np.float32)
    upper_open = obs[:, s["open"]][:, :6] > 0.5
    points_now = np.rint(obs[:, s["box_points"]][:, :6] * 50.0)
    need = t - np.rint(obs[:, s["upper_progress"].start] * t)
    par = (upper_open * 3 * faces).sum(axis=1)
    top = (upper_open * 5 * faces).sum(axis=1)
    slack_after = (par[:, None] - 3 * faces) - np.maximum(need[:, None] - points_now, 0.0)

    def signed(x: np.ndarray) -> np.ndarray:
        return 0.5 + 0.5 * np.clip(x / t, -1.0, 1.0)

    out = np.empty((len(obs), N_BONUS_FEATURES), dtype=np.float32)
    out[:, 0] = need / t
    out[:, 1] = np.minimum(par / t, 1.0)
    out[:, 2] = signed(par - need)
    out[:, 3] = need <= 0
    out[:, 4] = top >= need
    out[:, 5:] = np.where(upper_open, signed(slack_after), 0.0)
    return out


def with_bonus_features(rules: Rules, obs: np.ndarray) -> np.ndarray:
    """Basic observations extended to the ``"bonus"`` kind (``(N, S)`` -> ``(N, S + 11)``)."""
    obs = np.atleast_2d(np.asarray(obs, dtype=np.float32))
    return np.concatenate([obs, bonus_features(rules, obs)], axis=1)


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
