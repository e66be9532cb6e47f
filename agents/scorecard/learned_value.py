"""A learned value of the turn-start scorecard, played through an exact within-turn expectimax.

What this module holds:

* :func:`solve_turns` -- the exact expectimax of one turn for a batch of turn-start states
  (252 sorted rolls, 462 keeps, every reroll), given any function that values the *next*
  turn-start state.  The leaf value of scoring roll ``r`` in box ``b`` is its points, the
  five-of-a-kind bonus and the upper bonus it earns, plus the next turn-start value (0 once the
  card is full).  It returns the turn-start values (the trainer's targets) and everything needed
  for the values of one decision's actions (the player's choice).
* :func:`state_features` -- the features the network sees (documented there).
* :class:`ValueModel` -- the network: one small MLP per number of filled boxes (layer ``k`` values
  the states with ``k`` boxes filled; by default two hidden layers of 64 SiLU units on the
  ``B + T + 10`` features, about 10k weights per layer: 0.5 MB for Penta), with its save / load.
* :class:`LearnedValueAgent` -- the player: ``act`` / ``act_batch`` from env observations and
  action masks, ``state_action_values`` from a :class:`~dice_env.scorecard.game.ScorecardState`.

A turn-start state is ``(open boxes, upper total capped at the bonus threshold, five-of-a-kind
box state)``; everything else about the card (points already scored) does not change the future.
The default model of a game is ``results/models/learned-value-<game>.pt``
(``dice-env train learned-value`` writes one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.networks import mlp
from agents.paths import committed_model
from agents.scorecard.choice import act_batch_by_values, act_by_values, best_legal_action
from agents.scorecard.model_file import ModelFile
from dice_env import dice as D
from dice_env.scorecard import game as G
from dice_env.scorecard.observation import decode_observation
from dice_env.scorecard.rules import (
    FIVE_FIFTY,
    FIVE_ZERO,
    Rules,
    box_outcomes,
    coerce_rules,
    upper_bonus_earned,
)

__all__ = [
    "LearnedValueAgent",
    "TurnSolution",
    "ValueModel",
    "default_model_path",
    "solve_turns",
    "state_features",
]

N_HOLDS = D.N_HOLDS
#: ``(turn states (M,)) -> values (M,)``: ``next_value(open, upper_capped, five_state)``.
ValueFn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def default_model_path(rules: Rules) -> Path:
    """The committed ``learned-value-<game>.pt`` (package data, :mod:`agents.paths`)."""
    return committed_model(f"learned-value-{rules.name}.pt")


# -- the turn expectimax ------------------------------------------------------------------------


def _keeps_by_size() -> list[np.ndarray]:
    return [np.flatnonzero(D.KEEP_SIZES == n) for n in range(D.N_DICE + 1)]


def _keep_parents() -> np.ndarray:
    """``(462, 6)``: the keeps with one die fewer (each face the keep holds; the rows are padded
    by repeating a parent; the empty keep points to itself)."""
    out = np.zeros((D.N_KEEPS, D.N_FACES), dtype=np.int64)
    for k in range(1, D.N_KEEPS):
        parents = [int(np.flatnonzero(D.KEEP_CHILDREN[:, f] == k)[0])
                   for f in range(D.N_FACES) if D.KEEP_COUNTS[k, f] > 0]
        out[k] = (parents * D.N_FACES)[:D.N_FACES]
    return out


KEEPS_BY_SIZE = _keeps_by_size()
KEEP_PARENTS = _keep_parents()
ROLL_AS_KEEP = D.ROLL_AS_KEEP.astype(np.int64)
KEEP_CHILDREN = D.KEEP_CHILDREN.astype(np.int64)


def keep_values(roll_values: np.ndarray) -> np.ndarray:
    """``(S, 462)`` expected value of each keep, the rerolled dice landing on rolls worth
    ``roll_values`` ``(S, 252)``: built one die at a time (a keep is the mean of its six
    one-die-larger keeps), which equals ``roll_values @ KEEP_TO_ROLL_PROB.T``."""
    out = np.empty((len(roll_values), D.N_KEEPS), dtype=roll_values.dtype)
    out[:, ROLL_AS_KEEP] = roll_values
    for size in range(D.N_DICE - 1, -1, -1):
        keeps = KEEPS_BY_SIZE[size]
        out[:, keeps] = out[:, KEEP_CHILDREN[keeps]].mean(axis=2)
    return out


def best_reroll(keep_vals: np.ndarray) -> np.ndarray:
    """``(S, 252)``: the best keep each roll can reroll to (any sub-multiset of its dice,
    the whole roll included -- a pass never beats scoring or a real reroll, so it does not
    change the max)."""
    best = keep_vals.copy()
    for size in range(1, D.N_DICE + 1):
        keeps = KEEPS_BY_SIZE[size]
        best[:, keeps] = np.maximum(best[:, keeps], best[:, KEEP_PARENTS[keeps]].max(axis=2))
    return best[:, ROLL_AS_KEEP]


@dataclass(frozen=True)
class _Slots:
    """The successor turn-start states of scoring in each box, as a fixed list of *slots*.

    Scoring in upper box ``f`` (face ``f + 1``) adds ``c * (f + 1)`` to the upper total,
    ``c = 0..5``: six slots.  The five-of-a-kind box has two (it ends holding 50, or 0); any
    other box one.  ``slot = base[box] + offset(points)``.
    """

    box: np.ndarray  # (n_slots,) the box each slot fills
    upper_add: np.ndarray  # (n_slots,) points added to the upper total
    five_after: np.ndarray  # (n_slots,) the five-of-a-kind state after, -1 = unchanged
    base: np.ndarray  # (n_boxes,) first slot of each box
    face: np.ndarray  # (n_boxes,) face value of upper boxes (1 elsewhere)
    is_upper: np.ndarray  # (n_boxes,) bool
    is_five: np.ndarray  # (n_boxes,) bool

    @property
    def n(self) -> int:
        return len(self.box)


@cache
def _slots(rules: Rules) -> _Slots:
    box, add, five_after, base = [], [], [], []
    face = np.ones(rules.n_boxes, dtype=np.int64)
    is_upper = rules.tables.is_upper.copy()
    is_five = np.arange(rules.n_boxes) == rules.five_kind_box
    for b in range(rules.n_boxes):
        base.append(len(box))
        if is_upper[b]:
            face[b] = b + 1
            for c in range(D.N_DICE + 1):
                box.append(b), add.append(c * (b + 1)), five_after.append(-1)
        elif is_five[b]:
            for state in (FIVE_ZERO, FIVE_FIFTY):
                box.append(b), add.append(0), five_after.append(state)
        else:
            box.append(b), add.append(0), five_after.append(-1)
    arr = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return _Slots(arr(box), arr(add), arr(five_after), arr(base), face, is_upper, is_five)


def slot_values(rules: Rules, open_: np.ndarray, upper: np.ndarray, five: np.ndarray,
                next_value: ValueFn) -> np.ndarray:
    """``(S, n_slots)``: the upper bonus earned plus the next turn-start value of each
    successor slot of each state (0 for the slots of filled boxes)."""
    sl = _slots(rules)
    rows, cols = np.nonzero(open_[:, sl.box])
    boxes = sl.box[cols]
    o2 = open_[rows].copy()
    o2[np.arange(len(rows)), boxes] = False
    u2 = np.minimum(upper[rows] + sl.upper_add[cols], rules.upper_bonus_threshold)
    f2 = np.where(sl.five_after[cols] >= 0, sl.five_after[cols], five[rows])
    v = upper_bonus_earned(rules, upper[rows], sl.upper_add[cols]).astype(np.float64)
    live = o2.any(axis=1)
    if live.any():
        v[live] += np.asarray(next_value(o2[live], u2[live], f2[live]), dtype=np.float64)
    out = np.zeros((len(upper), sl.n))
    out[rows, cols] = v
    return out


def _slot_of(sl: _Slots, points: np.ndarray) -> np.ndarray:
    return sl.base + np.where(sl.is_upper, points // sl.face, sl.is_five & (points > 0))


@cache
def _regular_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points ``(252, B)`` and successor slots ``(252, B)`` of every roll outside the Joker
    (which only five-of-a-kind rolls can trigger), and the five-of-a-kind rolls ``(6,)``."""
    sl = _slots(rules)
    points = rules.tables.score.astype(np.int64)
    five_rolls = np.flatnonzero(rules.tables.is_five_kind)
    return points.astype(np.float64), _slot_of(sl, points), five_rolls


def box_values(rules: Rules, open_: np.ndarray, five: np.ndarray,
               slot_vals: np.ndarray) -> np.ndarray:
    """``(S, 252, n_boxes)`` leaf values of scoring every roll in every box (``-inf`` if not
    legal): box points + five-of-a-kind bonus + ``slot_vals`` of the successor (the upper
    bonus earned + the next turn-start value, see :func:`slot_values`).

    Rolls other than five of a kind score from the plain tables; the six five-of-a-kind rolls
    go through :func:`~dice_env.scorecard.rules.box_outcomes` (Joker and bonus).
    """
    sl = _slots(rules)
    points, slot, five_rolls = _regular_tables(rules)
    s, nb = open_.shape
    leaf = slot_vals[:, slot] + points
    leaf = np.where(open_[:, None, :], leaf, -np.inf)

    n5 = len(five_rolls)
    legal, pts, bonus = box_outcomes(rules, np.tile(five_rolls, s),
                                     np.repeat(open_, n5, axis=0), np.repeat(five, n5))
    state = np.repeat(np.arange(s), n5)[:, None]
    leaf5 = pts + bonus[:, None] + slot_vals[state, _slot_of(sl, pts)]
    leaf[:, five_rolls] = np.where(legal, leaf5, -np.inf).reshape(s, n5, nb)
    return leaf


def scoring_values(rules: Rules, roll: np.ndarray, open_: np.ndarray, five: np.ndarray,
                   slot_values: np.ndarray) -> np.ndarray:
    """``(N, n_boxes)`` value of scoring roll ``roll[i]`` in each box of state ``i`` (``-inf``
    if not legal), from the state's :func:`slot_values`."""
    legal, pts, bonus = box_outcomes(rules, roll, open_, five)
    rows = np.arange(len(pts))[:, None]
    vals = pts + bonus[:, None] + slot_values[rows, _slot_of(_slots(rules), pts)]
    return np.where(legal, vals, -np.inf)


@dataclass
class TurnSolution:
    """The exact expectimax of one turn for ``S`` turn-start states (values of points still to
    come in the game).

    Attributes:
        rules: the game.
        open_: ``(S, n_boxes)`` the open boxes; ``five``: ``(S,)`` five-of-a-kind states.
        slot_values: ``(S, n_slots)`` upper bonus earned plus next turn-start value of each
            successor slot (see :func:`slot_values`).
        keep_values: ``keep_values[r]`` ``(S, 462)`` for ``r >= 1``: the value of rerolling to
            each keep with ``r`` rerolls left (the new roll has ``r - 1``); ``keep_values[0]``
            is None.
        start_value: ``(S,)`` value of the turn-start state (mean over the first throw).
    """

    rules: Rules
    open_: np.ndarray
    five: np.ndarray
    slot_values: np.ndarray
    keep_values: list[np.ndarray | None]
    start_value: np.ndarray

    def take(self, rows: np.ndarray) -> TurnSolution:
        """The solutions of the given rows."""
        return TurnSolution(self.rules, self.open_[rows], self.five[rows],
                            self.slot_values[rows],
                            [None if k is None else k[rows] for k in self.keep_values],
                            self.start_value[rows])

    @staticmethod
    def concatenate(parts: list[TurnSolution]) -> TurnSolution:
        """One solution holding the rows of ``parts`` in order."""
        first = parts[0]
        cat = lambda xs: None if xs[0] is None else np.concatenate(xs)  # noqa: E731
        return TurnSolution(first.rules, cat([p.open_ for p in parts]),
                            cat([p.five for p in parts]), cat([p.slot_values for p in parts]),
                            [cat([p.keep_values[r] for p in parts])
                             for r in range(len(first.keep_values))],
                            cat([p.start_value for p in parts]))

    def action_values(self, rows: np.ndarray, roll: np.ndarray,
                      rolls_left: np.ndarray) -> np.ndarray:
        """``(N, 32 + n_boxes)``: the value of every action of the decisions ``(rows[i],
        roll[i], rolls_left[i])`` (``rows`` index the solved states), in the env's action
        encoding: hold ``h < 32`` is worth the keep it rerolls to (``-inf`` with no reroll left
        and for holding all five), ``32 + b`` scoring in box ``b`` (``-inf`` if not legal)."""
        rows, roll, rolls_left = (np.atleast_1d(np.asarray(x, dtype=np.int64))
                                  for x in (rows, roll, rolls_left))
        out = np.full((len(rows), N_HOLDS + self.rules.n_boxes), -np.inf)
        out[:, N_HOLDS:] = scoring_values(self.rules, roll, self.open_[rows], self.five[rows],
                                          self.slot_values[rows])
        for r in np.unique(rolls_left[rolls_left > 0]):
            sel = np.flatnonzero(rolls_left == r)
            keeps = D.HOLD_KEEP[roll[sel]].astype(np.int64)  # (n, 32)
            vals = np.take_along_axis(self.keep_values[r][rows[sel]], keeps, axis=1)
            vals[:, D.ALL_HELD] = -np.inf
            out[sel, :N_HOLDS] = vals
        return out


def _check_states(open_, upper, five) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    open_ = np.atleast_2d(np.asarray(open_, dtype=bool))
    upper = np.atleast_1d(np.asarray(upper, dtype=np.int64))
    five = np.atleast_1d(np.asarray(five, dtype=np.int64))
    if not len(open_) == len(upper) == len(five):
        raise ValueError("open_, upper and five must have the same length")
    if not open_.any(axis=1).all():
        raise ValueError("a turn needs at least one open box")
    return open_, upper, five


def _solve_chunk(rules: Rules, open_: np.ndarray, upper: np.ndarray, five: np.ndarray,
                 next_value: ValueFn, keep_all: bool) -> TurnSolution:
    slot_vals = slot_values(rules, open_, upper, five, next_value)
    scored = box_values(rules, open_, five, slot_vals).max(axis=2)  # (S, 252) best box now
    roll_vals, keep_vals = scored, [None]
    for _ in range(1, rules.rolls_per_turn):
        keeps = keep_values(roll_vals)
        keep_vals.append(keeps)
        roll_vals = np.maximum(scored, best_reroll(keeps))
    start = keep_values(roll_vals)[:, D.EMPTY_KEEP]
    if not keep_all:
        return TurnSolution(rules, open_[:0], five[:0], slot_vals[:0], [], start)
    return TurnSolution(rules, open_, five, slot_vals, keep_vals, start)


def solve_turns(rules: Rules, open_: np.ndarray, upper: np.ndarray, five: np.ndarray,
                next_value: ValueFn, chunk: int = 1024) -> TurnSolution:
    """The exact expectimax of one turn from ``S`` turn-start states.

    Args:
        rules: the game.
        open_: ``(S, n_boxes)`` bool, the open boxes (at least one per state).
        upper: ``(S,)`` upper totals capped at the bonus threshold.
        five: ``(S,)`` five-of-a-kind box states.
        next_value: ``next_value(open, upper, five) -> (M,)`` values the next turn-start
            states (it is never called on full cards, which are worth 0).
        chunk: states solved at a time (bounds the memory of the ``(S, 252, n_boxes)`` leaves).

    Returns:
        The :class:`TurnSolution`.
    """
    open_, upper, five = _check_states(open_, upper, five)
    return TurnSolution.concatenate([
        _solve_chunk(rules, open_[i:i + chunk], upper[i:i + chunk], five[i:i + chunk],
                     next_value, keep_all=True) for i in range(0, max(len(open_), 1), chunk)])


def turn_start_values(rules: Rules, open_: np.ndarray, upper: np.ndarray, five: np.ndarray,
                      next_value: ValueFn, chunk: int = 1024) -> np.ndarray:
    """``(S,)`` the values of turn-start states by the exact turn expectimax (the
    ``start_value`` of :func:`solve_turns`, without keeping the rest)."""
    open_, upper, five = _check_states(open_, upper, five)
    return np.concatenate([
        _solve_chunk(rules, open_[i:i + chunk], upper[i:i + chunk], five[i:i + chunk],
                     next_value, keep_all=False).start_value
        for i in range(0, max(len(open_), 1), chunk)])


# -- the value network -------------------------------------------------------------------------

#: Bump when :func:`state_features` changes (saved models record it).
FEATURE_VERSION = 1


def n_features(rules: Rules) -> int:
    """Length of :func:`state_features` for a game."""
    return rules.n_boxes + 3 + rules.upper_bonus_threshold + 1 + 6


def state_features(rules: Rules, open_: np.ndarray, upper: np.ndarray,
                   five: np.ndarray) -> np.ndarray:
    """``(M, n_features)`` float32 features of turn-start states, for threshold ``T``:

    ============================  ======  =====================================================
    feature                       size    meaning
    ============================  ======  =====================================================
    open boxes                    B       1 for an open box
    five-of-a-kind state          3       one-hot: open / holds 50 / holds 0
    upper total                   T + 1   one-hot of the upper total capped at ``T`` (the
                                          bonus edge gets a weight of its own per total)
    points needed                 1       ``(T - upper) / T`` (0 once the bonus is earned)
    bonus earned                  1       1 when ``upper >= T``
    par margin                    1       ``(3 x open upper faces - needed) / T``: above 0
                                          when three of each open face would earn the bonus
    four-of-each margin           1       the same with four of each face
    best-case margin              1       the same with five of each (below 0: bonus lost)
    bonus still possible          1       1 when the best case reaches ``T``
    ============================  ======  =====================================================
    """
    open_ = np.atleast_2d(np.asarray(open_, dtype=bool))
    upper = np.minimum(np.atleast_1d(np.asarray(upper, dtype=np.int64)),
                       rules.upper_bonus_threshold)
    five = np.atleast_1d(np.asarray(five, dtype=np.int64))
    t = rules.upper_bonus_threshold
    m, b = open_.shape
    out = np.zeros((m, n_features(rules)), dtype=np.float32)
    out[:, :b] = open_
    out[np.arange(m), b + five] = 1.0
    out[np.arange(m), b + 3 + upper] = 1.0
    needed = (t - upper).astype(np.float32)
    faces = open_[:, rules.tables.is_upper].astype(np.float32) @ np.arange(
        1, int(rules.tables.is_upper.sum()) + 1, dtype=np.float32)
    col = b + 3 + t + 1
    out[:, col] = needed / t
    out[:, col + 1] = needed == 0
    out[:, col + 2] = (3 * faces - needed) / t
    out[:, col + 3] = (4 * faces - needed) / t
    out[:, col + 4] = (5 * faces - needed) / t
    out[:, col + 5] = 5 * faces >= needed
    return out


class LayerNet(nn.Module):
    """A small MLP valuing the turn-start states with one given number of filled boxes.

    ``value = offset + scale * mlp(features)``: ``offset`` / ``scale`` (buffers) are the mean and
    spread of the layer's targets, so the MLP itself fits a unit-scale function.
    """

    def __init__(self, n_in: int, hidden: tuple[int, ...]) -> None:
        super().__init__()
        self.mlp = mlp(n_in, hidden)
        self.register_buffer("offset", torch.zeros(()))
        self.register_buffer("scale", torch.ones(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.offset + self.scale * self.mlp(x).squeeze(-1)


class ValueModel(ModelFile, nn.Module):
    """The learned turn-start value of a scorecard game: one :class:`LayerNet` per number of
    filled boxes ``k = 0 .. n_boxes - 1`` (a full card is worth 0).

    Args:
        rules: the game.
        hidden: hidden widths of each layer's MLP.
    """

    FILE_FORMAT = "learned-value"
    FEATURE_VERSION = FEATURE_VERSION

    def __init__(self, rules: Rules, hidden: tuple[int, ...] = (64, 64)) -> None:
        super().__init__()
        self.rules = rules
        self.hidden = tuple(int(h) for h in hidden)
        self.layers = nn.ModuleList(LayerNet(n_features(rules), self.hidden)
                                    for _ in range(rules.n_boxes))

    def features(self, open_, upper, five) -> torch.Tensor:
        return torch.from_numpy(state_features(self.rules, open_, upper, five))

    @torch.no_grad()
    def value(self, open_: np.ndarray, upper: np.ndarray, five: np.ndarray) -> np.ndarray:
        """``(M,)`` float64 expected points still to come from turn-start states (any mix of
        layers; 0 for full cards)."""
        open_ = np.atleast_2d(np.asarray(open_, dtype=bool))
        filled = self.rules.n_boxes - open_.sum(axis=1)
        out = np.zeros(len(open_))
        device = next(self.parameters()).device
        for k in np.unique(filled[filled < self.rules.n_boxes]):
            rows = np.flatnonzero(filled == k)
            x = self.features(open_[rows], np.asarray(upper)[rows], np.asarray(five)[rows])
            out[rows] = self.layers[int(k)](x.to(device)).double().cpu().numpy()
        return out


# -- the player ---------------------------------------------------------------------------------


class LearnedValueAgent:
    """Plays a scorecard game by exact turn expectimax over a learned turn-start value.

    Every decision solves its turn exactly (:func:`solve_turns`, 252 rolls x 462 keeps) with
    the :class:`ValueModel` valuing the next turn-start states; the turn solutions of the last
    call are kept, so the three decisions of a turn solve it once.

    Args:
        game: a preset name (``"penta"``, ``"dice-poker"``, ...), a Gymnasium id or a ``Rules``.
        model_path: the model file (default ``results/models/learned-value-<game>.pt``).
        seed: accepted for the common player signature; the player is deterministic (ties go to
            scoring, then to the lowest action).
        device: torch device of the network.
        model: an in-memory :class:`ValueModel` instead of a file (the trainer uses this).

    Raises:
        FileNotFoundError: no model file (the message says how to train one).
    """

    name = "learned-value"

    def __init__(self, game: str | Rules = "penta", model_path: str | Path | None = None,
                 seed: int | None = None, device: str = "cpu",
                 model: ValueModel | None = None) -> None:
        self.rules = coerce_rules(game)
        self.meta: dict = {}
        if model is None:
            path = Path(model_path) if model_path is not None else default_model_path(self.rules)
            if not path.is_file():
                raise FileNotFoundError(
                    f"no learned-value model for {self.rules.name!r} at {path}; train one with "
                    f"`dice-env train learned-value {self.rules.name} --export {path}`")
            model, self.meta = ValueModel.load(path, device)
        if model.rules.knobs() != self.rules.knobs():
            raise ValueError(f"the model is for {model.rules.name!r}, not {self.rules.name!r}")
        self.model = model.eval()
        self.game = self.rules.name
        self._cache_keys = np.zeros(0, dtype=np.int64)
        self._cache: TurnSolution | None = None

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the player is deterministic (for the Agent protocol)."""

    def __repr__(self) -> str:
        return f"LearnedValueAgent({self.game!r})"

    @property
    def n_actions(self) -> int:
        """Size of the action space: 32 holds + one action per box."""
        return N_HOLDS + self.rules.n_boxes

    def value(self, open_: np.ndarray, upper: np.ndarray, five: np.ndarray) -> np.ndarray:
        """The network's value of turn-start states (expected points still to come)."""
        return self.model.value(open_, upper, five)

    def clear_cache(self) -> None:
        """Forget the kept turn solutions (needed after changing the model's weights)."""
        self._cache_keys, self._cache = np.zeros(0, dtype=np.int64), None

    def _keys(self, open_: np.ndarray, upper: np.ndarray, five: np.ndarray) -> np.ndarray:
        bits = open_.astype(np.int64) @ (1 << np.arange(self.rules.n_boxes, dtype=np.int64))
        return (bits * (self.rules.upper_bonus_threshold + 1) + upper) * 3 + five

    def solve(self, open_: np.ndarray, upper: np.ndarray,
              five: np.ndarray) -> tuple[TurnSolution, np.ndarray]:
        """``(solution, rows)``: the turn solutions of distinct states, and each input state's
        row in them.  Solutions of the previous call are reused, then replaced by these."""
        open_, upper, five = _check_states(open_, upper, five)
        upper = np.minimum(upper, self.rules.upper_bonus_threshold)
        keys = self._keys(open_, upper, five)
        uniq, first, rows = np.unique(keys, return_index=True, return_inverse=True)
        pos = np.minimum(np.searchsorted(self._cache_keys, uniq), len(self._cache_keys) - 1)
        hit = (self._cache_keys[pos] == uniq) if len(self._cache_keys) else np.zeros(
            len(uniq), dtype=bool)
        miss = first[~hit]
        parts = [] if self._cache is None or not hit.any() else [self._cache.take(pos[hit])]
        if len(miss):
            parts.append(solve_turns(self.rules, open_[miss], upper[miss], five[miss],
                                     self.model.value))
        order = np.concatenate([np.flatnonzero(hit), np.flatnonzero(~hit)])
        solution = TurnSolution.concatenate(parts).take(np.argsort(order))
        self._cache_keys, self._cache = uniq, solution
        return solution, rows.reshape(-1)

    def decision_values(self, roll: np.ndarray, rolls_left: np.ndarray, open_: np.ndarray,
                        upper: np.ndarray, five: np.ndarray) -> np.ndarray:
        """``(N, 32 + n_boxes)`` values (expected points still to come) of every action of
        ``N`` decisions; ``-inf`` for boxes the rules forbid, for holds with no reroll left and
        for holding all five dice."""
        solution, rows = self.solve(open_, upper, five)
        return solution.action_values(rows, roll, rolls_left)

    # -- decisions from observations -------------------------------------------------------

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """Action values (see :meth:`decision_values`) of env observations, ``(N, obs_dim)``
        (or one ``(obs_dim,)`` observation)."""
        obs = np.asarray(observations)
        d = decode_observation(self.rules, np.atleast_2d(obs))
        vals = self.decision_values(d["roll"], d["rolls_left"], d["open"], d["upper_capped"],
                                    d["five_state"])
        return vals[0] if obs.ndim == 1 else vals

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The best legal action for one observation."""
        return act_by_values(self.action_values, observation, action_mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One best legal action per row of ``observations`` / ``masks`` (``(N, ...)``)."""
        return act_batch_by_values(self.action_values, observations, masks)

    # -- decisions from game states ----------------------------------------------------------

    def state_action_values(self, state: G.ScorecardState) -> np.ndarray:
        """``(N, n_actions)`` action values for the games of a
        :class:`~dice_env.scorecard.game.ScorecardState` (all unfinished)."""
        return self.decision_values(state.roll, state.rolls_left, state.open_boxes(),
                                    state.upper_total, state.five_state(self.rules))

    def act_states(self, state: G.ScorecardState, masks: np.ndarray) -> np.ndarray:
        """Best legal actions for the games of a ``ScorecardState``."""
        return best_legal_action(self.state_action_values(state), masks).astype(np.int64)
