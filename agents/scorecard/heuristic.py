"""Hand-written players of the scorecard games (Penta, Dice Poker, Yahtzee presets).

* :class:`GreedyAgent` -- rerolls toward the most common face, then scores the box worth the
  most now.  A baseline.
* :class:`HeuristicAgent` -- one-turn lookahead: it values every (roll, box) pair as the points
  now, plus the change in the chance of the upper bonus, minus what the box is expected to be
  worth later in the game (:class:`HeuristicWeights`), and plays the rest of the turn exactly
  for that value -- the holds maximise the expected best box value after the remaining rolls,
  computed with :data:`dice_env.dice.KEEP_TO_ROLL_PROB` matrix products.  No game-level DP table
  is used.
* :func:`computer_choice` -- the box the computer picks for a roll (the heuristic's choice); the
  interactive player auto-scores with it.

Both bots decide from the observation alone (:func:`~dice_env.scorecard.observation.
decode_observation`) and the action mask, one game at a time (``act``) or a whole batch at once
(``act_batch``, vectorised numpy).  Scoring goes through
:func:`~dice_env.scorecard.rules.box_outcomes`, so the Joker rule and the bonuses are the game's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

import numpy as np

from dice_env import dice as D
from dice_env.scorecard.game import N_HOLD_ACTIONS, OPEN, ScorecardState
from dice_env.scorecard.observation import decode_observation
from dice_env.scorecard.rules import (
    FIVE_FIFTY,
    FIVE_OPEN,
    FIVE_ZERO,
    LOWER_KINDS,
    UPPER_KINDS,
    Rules,
    box_outcomes,
    coerce_rules,
)

__all__ = ["GreedyAgent", "HeuristicAgent", "HeuristicWeights", "computer_choice"]

_FACE_VALUES = np.arange(1, D.N_FACES + 1, dtype=np.float64)
_FIVE_KIND_ROLLS = np.flatnonzero(D.ROLL_COUNTS.max(axis=1) == D.N_DICE)
_CHUNK = 512  # games per block in the all-rolls lookahead (bounds memory: ~40 MB a block)


def _as_rules(game: str | Rules) -> Rules:
    return coerce_rules(game)


def _bool_masks(masks: np.ndarray, n_actions: int) -> np.ndarray:
    m = np.asarray(masks).astype(bool)
    if m.ndim != 2 or m.shape[1] != n_actions:
        raise ValueError(f"masks must be (N, {n_actions}), got shape {m.shape}")
    if not m.any(axis=1).all():
        raise ValueError("some rows of the action mask have no legal action")
    return m


class _ScorecardBot:
    """Shared plumbing: rules, observation decoding, ``act`` as a batch of one."""

    def __init__(self, game: str | Rules = "penta", seed: int | None = None) -> None:
        self.rules = _as_rules(game)
        self.n_actions = N_HOLD_ACTIONS + self.rules.n_boxes

    def seed(self, seed: int | None = None) -> None:
        """The bot is deterministic: accepted for the common interface, ignored."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for one game (a legal index of ``action_mask``)."""
        obs = np.asarray(observation)[None]
        return int(self.act_batch(obs, np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions of ``N`` games: observations ``(N, obs_dim)``, masks ``(N, n_actions)``."""
        masks = _bool_masks(masks, self.n_actions)
        observations = np.asarray(observations)
        # A game with no legal box is not a decision (e.g. a finished game in a vector env
        # with NEXT_STEP autoreset, whose step only resets): take its first legal action.
        actions = np.argmax(masks, axis=1).astype(np.int64)
        rows = np.flatnonzero(masks[:, N_HOLD_ACTIONS:].any(axis=1))
        if rows.size:
            d = decode_observation(self.rules, observations[rows])
            actions[rows] = self.decide(d["roll"], d["rolls_left"], d["open"],
                                        d["upper_capped"], d["five_state"], masks[rows])
        return actions

    def decide(self, roll, rolls_left, open_boxes, upper_total, five_state,
               masks) -> np.ndarray:  # pragma: no cover - abstract
        """Actions of games that have at least one legal box (arrays with a batch axis)."""
        raise NotImplementedError


# --------------------------------------------------------------------------------------------
# Greedy


class GreedyAgent(_ScorecardBot):
    """Rerolls toward the most common face while rerolls remain, then takes the most points.

    While it may reroll, it holds every die of its most common face (the higher face on a tie)
    and rerolls the rest; it scores early only when all five dice already match.  It then scores
    the box worth the most points now (five-of-a-kind bonus included; the first such box on a
    tie).  Deterministic.
    """

    def decide(self, roll, rolls_left, open_boxes, upper_total, five_state,
               masks) -> np.ndarray:
        counts = D.ROLL_COUNTS[roll].astype(np.int64)
        # most common face, the higher one on ties
        face = D.N_FACES - 1 - np.argmax(counts[:, ::-1], axis=1)
        dice = D.ROLLS[roll]
        hold = ((dice == (face + 1)[:, None]) * (1 << np.arange(D.N_DICE))).sum(axis=1)
        keep = D.HOLD_KEEP[roll, hold]
        # the legal hold keeping the same dice (the mask may list canonical holds only)
        same = (D.HOLD_KEEP[roll] == keep[:, None]) & masks[:, :N_HOLD_ACTIONS]
        can_hold = same.any(axis=1)
        hold_action = np.argmax(same, axis=1)

        _, points, bonus = box_outcomes(self.rules, roll, open_boxes, five_state)
        value = np.where(masks[:, N_HOLD_ACTIONS:], points + bonus[:, None], -1)
        box_action = N_HOLD_ACTIONS + np.argmax(value, axis=1)
        return np.where(can_hold, hold_action, box_action).astype(np.int64)


# --------------------------------------------------------------------------------------------
# Heuristic


def _default_costs() -> dict[str, float]:
    return {
        "pair": 21.0,
        "two_pairs": 19.0,
        "three_kind": 22.0,
        "four_kind": 14.0,
        "full_house": 21.0,
        "small_straight": 27.0,
        "large_straight": 30.0,
        "five_kind": 14.0,
        "chance": 24.0,
    }


@dataclass(frozen=True)
class HeuristicWeights:
    """The knobs of :class:`HeuristicAgent` (tuned with short seeded runs on Penta).

    The value of scoring a roll in box ``k`` is ``points + five-of-a-kind bonus + upper-bonus
    shaping - cost_k``.  ``cost_k`` is what box ``k`` is expected to be worth if kept open: for a
    lower box, ``lower_costs[kind]`` early in the game, moving towards the box's single-turn
    value (the best expected score of one turn spent on that box alone) as the open boxes run
    out; for an upper box, ``upper_par`` dice of its face (likewise).  ``lower_costs`` are in
    the points of the Yahtzee family's scoring (the :class:`Rules` defaults: sums of all dice,
    Full 25, straights 30 / 40); a box that scores otherwise (Yatzy's matched dice and
    15 / 20 straights, Yacht's summed Full House ...) has its cost scaled by the ratio of its
    single-turn value to that of the same box under the default scoring, so the costs follow
    the game's score tables (the ratio is exactly 1 for the default scoring).  The upper-bonus
    shaping is ``bonus * (P_after - P_before)``, ``P`` a normal estimate of the chance of
    reaching the threshold when every open upper box gets ``upper_count_mean`` +-
    ``upper_count_sd`` dice of its face (0 when the game has no upper bonus).

    Attributes:
        lower_costs: box kind -> cost of filling it early in the game.
        upper_par: dice of its face an upper box is expected to get later.
        upper_count_mean, upper_count_sd: the bonus-probability model.
        bonus_weight: scale of the upper-bonus shaping.
        horizon: how many open boxes it takes for costs to reach their early-game values
            (they decay as ``1 - exp(-(open - 2) / horizon)`` toward the single-turn values).
    """

    lower_costs: dict[str, float] = field(default_factory=_default_costs)
    upper_par: float = 2.6
    upper_count_mean: float = 2.8
    upper_count_sd: float = 1.0
    bonus_weight: float = 0.8
    horizon: float = 3.0


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    """Standard normal CDF (Abramowitz & Stegun 7.1.26 erf, |error| < 1.5e-7)."""
    x = np.abs(z) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                          + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-x * x)
    return 0.5 * (1.0 + np.sign(z) * erf)


@cache
def _reference_single_turn_values(rolls_per_turn: int) -> dict[str, float]:
    """Box kind -> single-turn value under the default scoring (the scale of ``lower_costs``)."""
    rules = Rules("reference", UPPER_KINDS + LOWER_KINDS, UPPER_KINDS + LOWER_KINDS,
                  rolls_per_turn=rolls_per_turn)
    return dict(zip(rules.boxes, _single_turn_values(rules).tolist(), strict=True))


@cache
def _single_turn_values(rules: Rules) -> np.ndarray:
    """``(n_boxes,)``: expected points of one whole turn played for one box alone."""
    p = D.KEEP_TO_ROLL_PROB
    out = np.empty(rules.n_boxes)
    for k in range(rules.n_boxes):
        w = rules.tables.score[:, k].astype(np.float64)
        for _ in range(rules.rolls_per_turn - 1):
            w = (p @ w)[D.HOLD_KEEP].max(axis=1)
        out[k] = D.FRESH_ROLL_PROB @ w
    out.setflags(write=False)
    return out


class HeuristicAgent(_ScorecardBot):
    """A strong hand-written player: one-turn lookahead over weighted box values.

    Every (roll, open box) pair gets a value (see :class:`HeuristicWeights`); the last roll is
    scored in the box of highest value, and with rerolls left the bot takes the hold whose
    expected value after the remaining rolls (each later decision also taken optimally for these
    values) is highest -- or scores now when that is better.  The expectation is exact, computed
    with the keep -> roll probabilities of :mod:`dice_env.dice`.  Deterministic.

    Args:
        game: a preset name or a :class:`Rules`.
        seed: accepted for the common interface (the bot is deterministic).
        weights: a :class:`HeuristicWeights` (defaults: tuned on Penta).
    """

    def __init__(self, game: str | Rules = "penta", seed: int | None = None,
                 weights: HeuristicWeights | None = None) -> None:
        super().__init__(game, seed)
        self.weights = weights if weights is not None else HeuristicWeights()
        r = self.rules
        unknown = sorted(set(self.weights.lower_costs) - set(LOWER_KINDS))
        if unknown:
            raise ValueError(f"unknown box kinds in lower_costs: {unknown}; lower kinds are "
                             f"{list(LOWER_KINDS)}")
        single = _single_turn_values(r)
        self._single = single
        reference = _reference_single_turn_values(r.rolls_per_turn)
        early = np.array([self.weights.upper_par * (k + 1) if kind in UPPER_KINDS
                          else self.weights.lower_costs[kind] * (single[k] / reference[kind])
                          if kind in self.weights.lower_costs else single[k]
                          for k, kind in enumerate(r.boxes)])
        self._early = early
        self._is_upper = r.tables.is_upper.copy()
        self._upper_idx = np.flatnonzero(self._is_upper)

    # -- box values ------------------------------------------------------------------------
    def _costs(self, open_boxes: np.ndarray) -> np.ndarray:
        """``(N, n_boxes)``: what each box is expected to be worth if left open."""
        n_open = open_boxes.sum(axis=1).astype(np.float64)
        g = 1.0 - np.exp(-np.maximum(n_open - 2.0, 0.0) / self.weights.horizon)
        return self._single[None, :] + (self._early - self._single)[None, :] * g[:, None]

    def _upper_shaping(self, open_boxes: np.ndarray, upper_total: np.ndarray) -> np.ndarray:
        """``(N, 6, 6)``: bonus-chance change of scoring ``c`` dice of face ``f`` in its box."""
        w, r = self.weights, self.rules
        thr = r.upper_bonus_threshold
        open_up = open_boxes[:, self._upper_idx].astype(np.float64)  # (N, 6)
        mean_f = w.upper_count_mean * _FACE_VALUES
        var_f = (w.upper_count_sd * _FACE_VALUES) ** 2
        mu = open_up @ mean_f
        var = open_up @ var_f
        u = upper_total.astype(np.float64)

        def prob(total, mean, variance):
            sd = np.sqrt(np.maximum(variance, 1e-12))
            p = _normal_cdf((total + mean - thr + 0.5) / sd)
            return np.where(variance > 1e-9, p, (total >= thr).astype(np.float64))

        before = prob(u, mu, var)  # (N,)
        counts = np.arange(D.N_DICE + 1, dtype=np.float64)
        total_after = u[:, None, None] + _FACE_VALUES[None, :, None] * counts[None, None, :]
        mu_after = (mu[:, None] - open_up * mean_f[None, :])[:, :, None]
        var_after = (var[:, None] - open_up * var_f[None, :])[:, :, None]
        after = prob(total_after, mu_after, var_after)
        done = u >= thr
        shaping = r.upper_bonus * w.bonus_weight * (after - before[:, None, None])
        return np.where(done[:, None, None], 0.0, shaping)

    def box_values(self, rolls: np.ndarray | None, open_boxes: np.ndarray,
                   upper_total: np.ndarray, five_state: np.ndarray) -> np.ndarray:
        """Value of scoring each roll in each box, ``-inf`` where not legal.

        ``rolls`` ``(N,)`` gives ``(N, n_boxes)`` for each game's roll; ``None`` gives
        ``(N, 252, n_boxes)`` over every sorted roll.
        """
        r = self.rules
        open_boxes = np.asarray(open_boxes, dtype=bool)
        n, nb = open_boxes.shape
        upper_total = np.asarray(upper_total, dtype=np.int64)
        five_state = np.asarray(five_state, dtype=np.int64)
        if rolls is None:
            points = np.broadcast_to(r.tables.score[None].astype(np.float64),
                                     (n, D.N_ROLLS, nb)).copy()
            legal = np.broadcast_to(open_boxes[:, None, :], (n, D.N_ROLLS, nb)).copy()
            points[~legal] = 0.0
            bonus = np.zeros((n, D.N_ROLLS))
            k5 = len(_FIVE_KIND_ROLLS)
            lg, pt, bn = box_outcomes(r, np.tile(_FIVE_KIND_ROLLS, n),
                                      np.repeat(open_boxes, k5, axis=0),
                                      np.repeat(five_state, k5))
            legal[:, _FIVE_KIND_ROLLS] = lg.reshape(n, k5, nb)
            points[:, _FIVE_KIND_ROLLS] = pt.reshape(n, k5, nb)
            bonus[:, _FIVE_KIND_ROLLS] = bn.reshape(n, k5)
            lead = (slice(None), None)
        else:
            legal, points, bonus = box_outcomes(r, rolls, open_boxes, five_state)
            points = points.astype(np.float64)
            bonus = bonus.astype(np.float64)
            lead = (slice(None),)
        shaping = self._upper_shaping(open_boxes, upper_total)  # (N, 6, 6)
        value = points + bonus[..., None] - self._costs(open_boxes)[lead]
        for f, k in enumerate(self._upper_idx):
            count = np.rint(points[..., k] / (f + 1)).astype(np.int64)
            sh = shaping[:, f, :]
            value[..., k] += np.take_along_axis(
                sh, count.reshape(n, -1), axis=1).reshape(count.shape)
        return np.where(legal, value, -np.inf)

    # -- decisions -------------------------------------------------------------------------
    def decide(self, roll, rolls_left, open_boxes, upper_total, five_state,
               masks) -> np.ndarray:
        roll = np.asarray(roll, dtype=np.int64)
        rolls_left = np.asarray(rolls_left, dtype=np.int64)
        open_boxes = np.asarray(open_boxes, dtype=bool)
        upper_total = np.asarray(upper_total, dtype=np.int64)
        five_state = np.asarray(five_state, dtype=np.int64)
        n = len(roll)
        box_mask = masks[:, N_HOLD_ACTIONS:]
        hold_mask = masks[:, :N_HOLD_ACTIONS]

        now = self.box_values(roll, open_boxes, upper_total, five_state)
        # the mask has the last word on legality (a box it allows is never -inf here)
        now = np.where(box_mask, np.maximum(now, -1e9), -np.inf)
        best_box = np.argmax(now, axis=1)
        best_now = now[np.arange(n), best_box]
        actions = N_HOLD_ACTIONS + best_box

        lookahead = np.flatnonzero((rolls_left > 0) & hold_mask.any(axis=1))
        for start in range(0, len(lookahead), _CHUNK):
            rows = lookahead[start:start + _CHUNK]
            hold, value = self._best_holds(roll[rows], rolls_left[rows], open_boxes[rows],
                                           upper_total[rows], five_state[rows], hold_mask[rows])
            better = value > best_now[rows] + 1e-9
            actions[rows[better]] = hold[better]
        return actions

    def _best_holds(self, roll, rolls_left, open_boxes, upper_total, five_state, hold_mask):
        """Best legal hold and its expected value for games that may still reroll."""
        n = len(roll)
        values = self.box_values(None, open_boxes, upper_total, five_state)
        w = values.max(axis=2)  # (n, 252): best box value of each final roll
        hold = np.zeros(n, dtype=np.int64)
        best = np.full(n, -np.inf)
        p_t = D.KEEP_TO_ROLL_PROB.T
        for j in range(1, int(rolls_left.max()) + 1):
            e = w @ p_t  # (n, 462): expected value of each keep with j - 1 rerolls after it
            rows = np.flatnonzero(rolls_left == j)
            if rows.size:
                ev = e[rows[:, None], D.HOLD_KEEP[roll[rows]]]  # (m, 32)
                ev = np.where(hold_mask[rows], ev, -np.inf)
                hold[rows] = np.argmax(ev, axis=1)
                best[rows] = ev[np.arange(rows.size), hold[rows]]
            if j < rolls_left.max():
                w = e[:, D.HOLD_KEEP].max(axis=2)  # holding all five = scoring now
        return hold, best


# --------------------------------------------------------------------------------------------
# The computer's choice


def _state_arrays(rules: Rules, state: Any):
    """``(single, roll, open, upper_total, five_state)`` from any supported state form.

    The arrays have a leading batch axis; ``single`` says whether one game was given.
    """
    if isinstance(state, ScorecardState):
        return (False, state.roll, state.open_boxes(), state.upper_total,
                state.five_state(rules))
    if not isinstance(state, dict):
        raise ValueError("state must be a ScorecardState or a dict (a state dict from "
                         "env.unwrapped.get_state(), or what decode_observation returns), got "
                         f"{type(state).__name__}")
    if "roll" in state:
        raw_roll = np.asarray(state["roll"], dtype=np.int64)
        single = raw_roll.ndim == 0
        roll = np.atleast_1d(raw_roll)
    elif "dice" in state:
        dice = np.asarray(state["dice"])
        single = dice.ndim == 1
        roll = np.atleast_1d(np.asarray(D.roll_index(np.sort(dice, axis=-1)), dtype=np.int64))
    else:
        raise ValueError("state needs 'dice' (or 'roll')")
    n = len(roll)
    filled = None
    if "open" in state:
        open_boxes = np.asarray(state["open"], dtype=bool).reshape(n, -1)
    elif "scores" in state:
        raw = np.array(state["scores"], dtype=object).reshape(n, -1)
        open_boxes = np.equal(raw, None) | np.equal(raw, OPEN)
        filled = np.where(open_boxes, 0, raw).astype(np.int64)
    else:
        raise ValueError("state needs 'scores' (None for an open box) or 'open'")
    if open_boxes.shape[1] != rules.n_boxes:
        raise ValueError(f"{rules.name} has {rules.n_boxes} boxes, the state has "
                         f"{open_boxes.shape[1]}")
    if "upper_total" in state or "upper_capped" in state:
        key = "upper_total" if "upper_total" in state else "upper_capped"
        upper = np.asarray(state[key], dtype=np.int64).reshape(n)
    elif filled is not None:
        upper = filled[:, rules.tables.is_upper].sum(axis=1)
    else:
        raise ValueError("state needs 'upper_total' when it gives 'open' and not 'scores'")
    if "five_state" in state:
        five = np.asarray(state["five_state"], dtype=np.int64).reshape(n)
    elif filled is not None:
        k = rules.five_kind_box
        five = np.where(open_boxes[:, k], FIVE_OPEN,
                        np.where(filled[:, k] > 0, FIVE_FIFTY, FIVE_ZERO))
    else:
        raise ValueError("state needs 'five_state' when it gives 'open' and not 'scores'")
    return single, roll, open_boxes, upper, five


def computer_choice(rules: str | Rules, state: Any,
                    weights: HeuristicWeights | None = None) -> int | np.ndarray:
    """The box the computer scores a roll in (the :class:`HeuristicAgent`'s choice).

    Args:
        rules: the game (preset name or :class:`Rules`).
        state: the game after its roll, as a state dict (``{"dice", "scores", ...}`` from
            ``env.unwrapped.get_state()``; ``"rolls_left"`` and ``"penta_bonus"`` are not
            needed), a dict with ``roll``/``dice``, ``open``, ``upper_total`` (or
            ``upper_capped``) and ``five_state`` (what ``decode_observation`` returns), or a
            :class:`~dice_env.scorecard.game.ScorecardState`.
        weights: the heuristic's weights (default: :class:`HeuristicWeights`).

    Returns:
        The box index (``0 .. n_boxes - 1``; the action is ``32 +`` it) -- an ``int`` for one
        game, an ``(N,)`` array for a batch (a ``ScorecardState`` or batched arrays).  Always a
        legal box under the Joker rule.
    """
    r = _as_rules(rules)
    single, roll, open_boxes, upper, five = _state_arrays(r, state)
    if not open_boxes.any(axis=1).all():
        raise ValueError("the game is over: no box is open")
    bot = _heuristic_for(r) if weights is None else HeuristicAgent(r, weights=weights)
    boxes = np.argmax(bot.box_values(roll, open_boxes, upper, five), axis=1)
    return int(boxes[0]) if single else boxes


@lru_cache(maxsize=16)
def _heuristic_for(rules: Rules) -> HeuristicAgent:
    return HeuristicAgent(rules)
