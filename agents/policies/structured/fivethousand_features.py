"""Per-action features of 5000, read off the rules' tables (no game logic is run here).

An action of 5000 is a *set-aside option* ``j`` and a flag ``b``: action ``2 j + b`` sets the
option's scoring dice aside and then banks (``b = 1``) or rolls on (``b = 0``).  Under the
literal rules there is one option (every scoring die: ``Discrete(2)``, 0 rolls on, 1 banks);
with ``choose_scoring_dice`` the options are the 32 bitmasks ``m`` over the sorted dice
(``Discrete(64)``, only the legal set-asides of the roll listed).
:class:`FiveThousandActionFeatures` turns a batch of observations into one feature vector per
action, so that one small network, shared by every action, scores each from what it does.

Every number is decoded from the observation (:mod:`dice_env.fivethousand.observation`: the
scores, who moves, the turn total before the roll and the roll's face counts) and read from the
tables of :mod:`dice_env.fivethousand.rules` (``ROLL_POINTS``, ``SETASIDE_POINTS`` /
``SETASIDE_DICE``, :func:`~dice_env.fivethousand.rules.dice_left_after`, the bank rule and
:func:`~dice_env.fivethousand.rules.outcome_distribution`, the distribution of one throw).
No value of a state enters them -- no dynamic programming, no optimal player, nothing learned:

* **common** (every action of an option): the points the set-aside adds, the dice it sets
  aside, whether it takes every scoring die, the points it leaves on the table, the turn total
  ``T`` after it, the player's distance to the target after banking ``T``, whether ``T`` may be
  banked, whether it ends in 50;
* **bank** (zero for a roll-on): the flag itself; whether the bank wins (exactly the target),
  overshoots, enters the player; how many opponents it bumps; the player's score after it and
  the lead over the best opponent after it (bumps and gifts applied); the points an overshoot
  gifts to an opponent, whether that gift wins for them, whether the overshoot's points are
  lost;
* **roll-on** (zero for a bank): the flag itself; the dice the next throw has (hot dice: 5),
  whether they are hot dice, the same one-hot; and what one throw of them does under the
  rules (``throw_features``): its bust chance, expected points, the turn total at risk
  (bust chance x ``T``), the chance that it leaves a total the player may bank, that it brings
  the player exactly to the target with a bank, that a bank then overshoots; and what the
  roll-on forgoes: a legal bank, a winning bank.

The one-throw features are what the dice can do on the next throw -- the same for every player
and every strategy -- as the scorecard policy's reroll expectations are (with
``choose_scoring_dice`` they take the throw's best score, the literal rules' set-aside).
Points are in thousands, scores and distances over the target.  The tables are built once per
rules (:func:`option_tables`) and held as non-persistent buffers, so a model's ``state_dict``
holds its weights only.  The decoding is exact while the turn total stays below the target (the
observation clips it there), as :func:`~dice_env.fivethousand.observation.decode_observation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import torch
from torch import nn

from dice_env import dice as D
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import observation_slices
from dice_env.fivethousand.rules import FiveThousandRules

__all__ = ["COMMON_NAMES", "FiveThousandActionFeatures", "OptionTables", "feature_names",
           "option_tables"]

#: points are given in thousands in the features
POINT_SCALE = 1000.0
#: the features every action of a set-aside option has
COMMON_NAMES = ("points", "dice_set_aside", "all_scoring", "points_left_behind", "turn_total",
                "to_target", "bank_allowed", "ends_in_50")
#: the features of a bank (zero for a roll-on)
BANK_NAMES = ("bank", "bank_wins", "bank_overshoots", "bank_enters", "bank_bumps",
              "score_after", "lead_after", "gift", "gift_wins", "gift_lost")
#: the features of a roll-on (zero for a bank); the six ``THROW_NAMES`` are the one-throw ones
ROLL_NAMES = ("roll", "dice_left", "hot_dice", "left_1", "left_2", "left_3", "left_4", "left_5")
THROW_NAMES = ("bust_chance", "expected_points", "at_risk", "bankable_chance", "exact_chance",
               "overshoot_chance")
FORGO_NAMES = ("passes_bank", "passes_win")
#: the static part of an option's features (per roll and option, from the tables)
_STATIC = ("points", "dice_set_aside", "all_scoring", "points_left_behind", "dice_left",
           "hot_dice", "left_1", "left_2", "left_3", "left_4", "left_5", "bust_chance",
           "expected_points")


def feature_names() -> list[str]:
    """The names of the action features, in order (34: common, bank, roll-on)."""
    return [*COMMON_NAMES, *BANK_NAMES, *ROLL_NAMES, *THROW_NAMES, *FORGO_NAMES]


@dataclass(frozen=True)
class OptionTables:
    """The rule tables the features are read from, per roll index (462) and option ``j``.

    Attributes:
        legal: ``(462, J)`` bool, the legal set-asides of each roll (the roll scores, and
            under ``choose_scoring_dice`` ``SETASIDE_POINTS >= 0``).
        points: ``(462, J)`` float32, the points of the set-aside (0 where not legal).
        dice_left: ``(462, J)`` int64, the dice a roll-on then throws (5 on hot dice).
        static: ``(462, J, 13)`` float32, the option's features that depend on the roll alone
            (:data:`_STATIC`).
        next_points, next_prob: ``(6, K)`` float32, for ``d`` dice thrown (row ``d``; row 0
            empty) the distinct points of one throw (0 = bust) and their probabilities
            (:func:`~dice_env.fivethousand.rules.outcome_distribution`, padded with 0).
    """

    legal: np.ndarray
    points: np.ndarray
    dice_left: np.ndarray
    static: np.ndarray
    next_points: np.ndarray
    next_prob: np.ndarray


@cache
def option_tables(rules: FiveThousandRules) -> OptionTables:
    """The :class:`OptionTables` of ``rules`` (built once per rules)."""
    size = R.ROLL_SIZE.astype(np.int64)[:, None]
    best = R.ROLL_POINTS.astype(np.float64)[:, None]
    if rules.choose_scoring_dice:
        legal = R.SETASIDE_POINTS >= 0
        points = np.where(legal, R.SETASIDE_POINTS, 0).astype(np.float64)
        dice = np.where(legal, R.SETASIDE_DICE, 0).astype(np.int64)
        all_scoring = (np.arange(R.N_SETASIDE_MASKS)[None, :]
                       == R.ROLL_SCORING_MASK.astype(np.int64)[:, None])
    else:
        legal = (R.ROLL_POINTS > 0)[:, None]
        points = best.copy()
        dice = R.ROLL_SCORING_DICE.astype(np.int64)[:, None]
        all_scoring = np.ones_like(legal)
    left = np.where(legal, R.dice_left_after(size, dice), 0).astype(np.int64)
    n_out = max(len(R.outcome_distribution(d).points) for d in range(1, R.N_DICE + 1))
    next_points = np.zeros((R.N_DICE + 1, n_out))
    next_prob = np.zeros((R.N_DICE + 1, n_out))
    bust, expected = np.zeros(R.N_DICE + 1), np.zeros(R.N_DICE + 1)
    for d in range(1, R.N_DICE + 1):
        o = R.outcome_distribution(d)
        next_points[d, :len(o.points)] = o.points
        next_prob[d, :len(o.prob)] = o.prob
        bust[d], expected[d] = o.bust_prob, float(o.points @ o.prob)
    one_hot = np.eye(R.N_DICE + 1)[left][..., 1:]  # (462, J, 5), all 0 where not legal
    static = np.concatenate([
        np.stack([points / POINT_SCALE, dice / R.N_DICE, all_scoring & legal,
                  np.where(legal, best - points, 0) / POINT_SCALE, left / R.N_DICE,
                  legal & (dice == size)], axis=-1),
        one_hot, np.stack([bust[left] * legal, expected[left] / POINT_SCALE], axis=-1)],
        axis=-1)
    return OptionTables(legal=legal, points=points.astype(np.float32), dice_left=left,
                        static=static.astype(np.float32),
                        next_points=next_points.astype(np.float32),
                        next_prob=next_prob.astype(np.float32))


class FiveThousandActionFeatures(nn.Module):
    """Observations ``(N, 3P + 14)`` -> the features of their actions
    (:meth:`listed_features`, the legal set-asides' actions; :meth:`dense_features` all).

    No parameters: the rule tables are non-persistent buffers.  The player deciding is the
    one the ``to_move`` entries name (the observer, for every observation a player is given);
    the others are its opponents.

    Args:
        rules: the 5000 rules (target, entry, choose_scoring_dice).
        num_players: players of the observation (``P``; 1 for the solo env).
        throw_features: False zeroes the one-throw features (an ablation: the roll-on is then
            described by the dice it throws alone).
    """

    def __init__(self, rules: FiveThousandRules, num_players: int,
                 throw_features: bool = True) -> None:
        super().__init__()
        self.rules = rules
        self.num_players = int(num_players)
        self.throw_features = bool(throw_features)
        self.n_options = R.N_SETASIDE_MASKS if rules.choose_scoring_dice else 1
        self.n_actions = rules.n_actions
        self.n_features = len(feature_names())
        s = observation_slices(self.num_players)
        self._scores, self._entered, self._to_move = s["score"], s["entered"], s["to_move"]
        self._turn_before = s["turn_before"].start
        self._counts = s["face_counts"]
        self.target = float(rules.target)
        self.entry = float(max(rules.entry, 100))
        t = option_tables(rules)
        for name, value in (("legal", t.legal), ("points", t.points),
                            ("dice_left", t.dice_left), ("static", t.static),
                            ("next_points", t.next_points), ("next_prob", t.next_prob),
                            ("roll_by_counts", D.KEEP_INDEX_BY_COUNTS_CODE.astype(np.int64)),
                            ("count_weights", 6 ** np.arange(D.N_FACES, dtype=np.int64))):
            self.register_buffer(name, torch.tensor(value), persistent=False)

    def rolls(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N,)`` the roll index (:data:`dice_env.dice.KEEPS`) of each observation's dice."""
        counts = torch.round(obs[:, self._counts] * D.N_DICE).long()
        return self.roll_by_counts[(counts * self.count_weights).sum(dim=1)]

    def _points(self, x: torch.Tensor) -> torch.Tensor:
        """Points from entries over the target (multiples of 50, as the encoding rounds)."""
        return torch.round(x * (self.target / 50.0)) * 50.0

    @torch.no_grad()
    def listed_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The features of the actions of every legal set-aside of each observation.

        Returns ``(rows, options, counts, features)``: ``(M,)`` the observation (ascending) and
        ``(M,)`` the option of each listed set-aside, ``(N,)`` how many each observation has,
        and ``(M, 2, F)`` the features of its roll-on (``[:, 0]``, action ``2 j``) and its
        bank (``[:, 1]``, action ``2 j + 1``).  An option not listed is illegal in every mask
        (its dice do not score).
        """
        roll = self.rolls(obs)
        listed = self.legal[roll]
        rows, options = torch.nonzero(listed, as_tuple=True)
        return rows, options, listed.sum(dim=1), self._features(obs, roll, rows, options)

    @torch.no_grad()
    def dense_features(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N, A, F)`` the features of every action (for tests and inspection; the network
        computes :meth:`listed_features` only).  Rows of options that are not legal hold
        what the tables give them (zero points and dice)."""
        n, j = len(obs), self.n_options
        rows = torch.arange(n, device=obs.device).repeat_interleave(j)
        options = torch.arange(j, device=obs.device).repeat(n)
        return self._features(obs, self.rolls(obs), rows, options).reshape(n, 2 * j, -1)

    def _features(self, obs: torch.Tensor, roll: torch.Tensor, rows: torch.Tensor,
                  options: torch.Tensor) -> torch.Tensor:
        """``(M, 2, F)`` the features of the set-asides ``options`` of observations ``rows``."""
        target = self.target
        # -- the state, per observation, then gathered to the listed rows
        scores = self._points(obs[:, self._scores])
        mover = obs[:, self._to_move] > 0.5
        none = ~mover.any(dim=1, keepdim=True)  # a finished game: read it from the observer
        mover = mover | (none & (torch.arange(self.num_players, device=obs.device) == 0))
        own = (scores * mover).sum(dim=1)
        opponent = ~mover
        entered = obs[:, self._entered] > 0.5
        receivers = opponent & entered
        receiver = torch.where(receivers, scores, torch.full_like(scores, 2 * target))
        receiver = receiver.amin(dim=1)  # the gift receiver's score (the lowest entered one)
        has_receiver = receivers.any(dim=1)
        before = self._points(obs[:, self._turn_before])
        s, sc, opp = own[rows], scores[rows], opponent[rows]
        r, has_r = receiver[rows], has_receiver[rows]
        r_roll = roll[rows]
        points = self.points[r_roll, options]
        total = before[rows] + points
        need = torch.where(s > 0, torch.full_like(s, 100.0), torch.full_like(s, self.entry))
        allowed = (total >= need) & (torch.remainder(total, 100.0) == 0)
        static = self.static[r_roll, options]  # (M, 13)
        # -- common
        after = s + total
        common = torch.stack([
            static[:, 0], static[:, 1], static[:, 2], static[:, 3], total / POINT_SCALE,
            torch.clamp((target - after) / target, -1.0, 1.0), allowed.float(),
            (torch.remainder(total, 100.0) != 0).float()], dim=1)
        # -- a bank
        over = after > target
        wins = after == target
        bumped = opp & (sc == after[:, None]) & ~over[:, None]
        gift_total = r + total
        gifted = over & has_r & (gift_total <= target)
        new_own = torch.where(over, s, after)
        best_opp = torch.where(opp & ~bumped, sc, torch.zeros_like(sc)).amax(dim=1)
        best_opp = torch.maximum(best_opp, torch.where(gifted, gift_total, torch.zeros_like(r)))
        bank = torch.stack([
            torch.ones_like(s), wins.float(), over.float(), (s == 0).float(),
            bumped.sum(dim=1).float(), new_own / target, (new_own - best_opp) / target,
            torch.where(gifted, total, torch.zeros_like(total)) / POINT_SCALE,
            (gifted & (gift_total == target)).float(), (over & ~gifted).float()], dim=1)
        # -- a roll-on: the dice it throws and what one throw of them does
        roll_on = [torch.ones_like(s), static[:, 4], static[:, 5], static[:, 6:11]]
        if self.throw_features:
            left = self.dice_left[r_roll, options]
            outcome, prob = self.next_points[left], self.next_prob[left]  # (M, K)
            new_total = total[:, None] + outcome
            scored = outcome > 0
            bankable = scored & (new_total >= need[:, None]) \
                & (torch.remainder(new_total, 100.0) == 0)
            reach = s[:, None] + new_total
            throw = torch.stack([
                static[:, 11], static[:, 12], static[:, 11] * total / POINT_SCALE,
                (prob * bankable).sum(dim=1), (prob * (scored & (reach == target))).sum(dim=1),
                (prob * (scored & (reach > target))).sum(dim=1)], dim=1)
        else:
            throw = s.new_zeros(len(s), len(THROW_NAMES))
        roll_on += [throw, torch.stack([allowed.float(), (allowed & wins).float()], dim=1)]
        roll_on = torch.cat([x if x.dim() == 2 else x[:, None] for x in roll_on], dim=1)
        out = s.new_zeros(len(s), 2, self.n_features)
        n_c, n_b = len(COMMON_NAMES), len(BANK_NAMES)
        out[:, :, :n_c] = common[:, None, :]
        out[:, 1, n_c:n_c + n_b] = bank
        out[:, 0, n_c + n_b:] = roll_on
        return out
