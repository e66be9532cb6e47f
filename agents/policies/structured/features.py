"""Per-action features of the scorecard games, read off the rules' tables (no game logic here).

A scorecard action is a hold (``a < 32``: keep the dice at the bits of ``a``, reroll the rest)
or a box (``32 + k``: score the dice in box ``k``).  :class:`ScorecardActionFeatures` turns a
batch of observations into one feature vector per hold and one per box, so that one small
network, shared across the 32 holds (and one across the boxes), scores every action from what
it does: what is learned about keeping four to a straight holds wherever the four dice sit.

Every number comes from the tables of :mod:`dice_env.dice` (the 252 rolls, the 462 keeps,
``HOLD_KEEP``: the keep each hold makes of each roll, ``KEEP_TO_ROLL_PROB``: the chance of each
roll after rerolling the rest of a keep) and of :mod:`dice_env.scorecard.rules` (the score table
``points[roll, box]``), decoded from the observation with the layout of
:mod:`dice_env.scorecard.observation`:

* **hold features** (``hold_feature_names``), for the keep ``k`` a hold makes of the current
  roll: the kept dice (count of each face, how many, the most of one face, the longest run of
  consecutive faces, their sum, how many distinct faces) and, for every open box ``b``, what one
  reroll of the other dice scores there: ``E[points(roll', b) | k]`` and
  ``P(points(roll', b) > 0 | k)``, with ``roll' ~ KEEP_TO_ROLL_PROB[k]``; for every open upper
  box the chance of three or more of its face (par toward the upper bonus); the largest of
  those expectations and chances over the open boxes; and, when the five-of-a-kind box holds
  50, the chance of five of a kind (the bonus).  These are one-step expectations of the score
  table -- what the dice can score after one reroll, the same for every player -- not values
  of states: no dynamic programming, no later turns, no optimal or learned play enters them.
* **box features** (``box_feature_names``): whether the box is open, what the current dice
  score there (the observation's points, the Joker applied), the same over the box's largest
  score, whether it would be a zero; for an upper box, the points the upper section still needs
  after scoring it, its points against par (three of its face) and the bonus slack after
  (par of the other open upper boxes minus that need), each over the bonus threshold; which
  box it is (one-hot); and, with ``bonus_now``, the five-of-a-kind bonus that scoring the dice
  earns now (the bonus ``/ 50`` when they are five of a kind and that box holds 50: the same in
  every box, so it weighs scoring now against a reroll that would give it up).
* **afterstates** (:func:`afterstate_names`, read by the network's ``afterstate_hidden``
  scorer): the scorecard a box leaves -- open boxes, upper progress, five-of-a-kind state and
  turn after scoring the dice there, the sheet's bookkeeping of that one move.

The tables are built once per :class:`~dice_env.scorecard.rules.Rules` (:func:`feature_tables`)
and held as non-persistent buffers, so a model's ``state_dict`` holds its weights only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import torch
from torch import nn

from dice_env import dice as D
from dice_env.scorecard.observation import observation_slices
from dice_env.scorecard.rules import FIVE_FIFTY, FIVE_ZERO, UPPER_KINDS, Rules

__all__ = ["FeatureTables", "PureActionFeatures", "ScorecardActionFeatures", "afterstate_names",
           "box_feature_names", "feature_tables", "hold_feature_names", "keep_statistics",
           "pure_box_feature_names", "pure_hold_feature_names"]

#: the features of the kept dice themselves (one per entry of :func:`keep_statistics`)
KEEP_NAMES = ("count_1", "count_2", "count_3", "count_4", "count_5", "count_6", "kept",
              "max_count", "longest_run", "sum", "distinct")
N_UPPER = len(UPPER_KINDS)


def hold_feature_names(rules: Rules) -> list[str]:
    """The names of the hold features, in order (``11 + 2 * n_boxes + 9`` of them)."""
    return (list(KEEP_NAMES) + [f"expected:{b}" for b in rules.boxes]
            + [f"chance:{b}" for b in rules.boxes] + [f"par_chance:{b}" for b in UPPER_KINDS]
            + ["five_bonus_chance", "best_expected", "best_chance"])


def box_feature_names(rules: Rules, bonus_now: bool = False) -> list[str]:
    """The names of the box features, in order (``7 + n_boxes`` of them: the next ones say
    which box it is; with ``bonus_now`` one more, the five-of-a-kind bonus scoring earns now)."""
    return ["open", "points", "points_of_max", "zero", "upper_need_after", "upper_vs_par",
            "upper_slack_after", *(f"is:{b}" for b in rules.boxes),
            *(["five_bonus_now"] if bonus_now else [])]


def _longest_run(counts: np.ndarray) -> np.ndarray:
    """``(K,)`` the longest run of consecutive faces present in each row of face counts."""
    best = np.zeros(len(counts), dtype=np.int64)
    run = np.zeros(len(counts), dtype=np.int64)
    for f in range(D.N_FACES):
        run = np.where(counts[:, f] > 0, run + 1, 0)
        best = np.maximum(best, run)
    return best


def afterstate_names(rules: Rules) -> list[str]:
    """The entries of :meth:`ScorecardActionFeatures.afterstates`: the scorecard a box leaves."""
    return [*(f"open:{b}" for b in rules.boxes), "upper_progress", "five_open", "five_fifty",
            "five_zero", "turn"]


def keep_statistics(counts: np.ndarray) -> np.ndarray:
    """``(K, 11)`` the kept-dice features (:data:`KEEP_NAMES`) of ``(K, 6)`` face counts, each
    scaled to ``[0, 1]``."""
    counts = np.asarray(counts, dtype=np.int64)
    faces = np.arange(1, D.N_FACES + 1)
    return np.concatenate([
        counts / D.N_DICE,
        counts.sum(axis=1, keepdims=True) / D.N_DICE,
        counts.max(axis=1, keepdims=True) / D.N_DICE,
        _longest_run(counts)[:, None] / D.N_DICE,
        (counts @ faces)[:, None] / (D.N_DICE * D.N_FACES),
        (counts > 0).sum(axis=1, keepdims=True) / D.N_DICE,
    ], axis=1)


@dataclass(frozen=True)
class FeatureTables:
    """The rule tables the features are read from (numpy, float32 unless said).

    Attributes:
        hold_table: ``(252, 32, 11 + 2B + 7)`` per roll and hold: the kept-dice features, the
            expected points ``/ 50`` and scoring chance of each box after one reroll, the chance
            of par in each upper box and of five of a kind (before the open-box / bonus masks).
        roll_by_code: ``(7776,)`` int64, the roll index of each base-6 code of five dice.
        box_max: ``(B,)`` the largest score of each box (Joker included).
        par: ``(6,)`` three times each upper face.
        canonical_of: ``(252, 32)`` int64, the canonical hold making the same keep as each hold.
    """

    hold_table: np.ndarray
    roll_by_code: np.ndarray
    box_max: np.ndarray
    par: np.ndarray
    canonical_of: np.ndarray


@cache
def _tables_of(tables) -> FeatureTables:
    score = tables.score.astype(np.float64)
    reroll = D.KEEP_TO_ROLL_PROB  # (462, 252)
    expected = reroll @ score / 50.0
    chance = reroll @ (score > 0)
    par_chance = reroll @ (D.ROLL_COUNTS >= 3)
    five = reroll @ tables.is_five_kind.astype(np.float64)
    per_keep = np.concatenate([keep_statistics(D.KEEP_COUNTS), expected, chance, par_chance,
                               five[:, None]], axis=1)
    box_max = np.maximum(tables.score.max(axis=0), tables.joker_score.max(axis=0))
    return FeatureTables(
        hold_table=per_keep[D.HOLD_KEEP].astype(np.float32),
        roll_by_code=D.ROLL_INDEX_BY_CODE.astype(np.int64),
        box_max=np.maximum(box_max, 1).astype(np.float32),
        par=(3.0 * np.arange(1, N_UPPER + 1)).astype(np.float32),
        canonical_of=np.array([[D.canonical_hold(r, h) for h in range(D.N_HOLDS)]
                               for r in range(D.N_ROLLS)], dtype=np.int64))


def feature_tables(rules: Rules) -> FeatureTables:
    """The :class:`FeatureTables` of ``rules`` (built once per rules' score tables)."""
    return _tables_of(rules.tables)


class ScorecardActionFeatures(nn.Module):
    """Observations ``(N, S)`` -> hold features (:meth:`hold_features`, the holds that need a
    logit; :meth:`dense_hold_features` all 32) and box features (:meth:`box_features`).

    No parameters: the rule tables are non-persistent buffers (they follow ``.to(device)`` but
    stay out of the ``state_dict``).  Only the basic part of an observation is read, so the
    ``"bonus"`` observation works the same.
    """

    def __init__(self, rules: Rules, reroll_features: bool = True,
                 bonus_now: bool = False) -> None:
        super().__init__()
        self.rules = rules
        #: False zeroes the hold features of what a reroll scores (expectations, chances and
        #: their maxima): the kept dice alone describe a hold (an ablation)
        self.reroll_features = bool(reroll_features)
        #: the box features end with the five-of-a-kind bonus scoring earns now
        self.bonus_now = bool(bonus_now)
        t = feature_tables(rules)
        s = observation_slices(rules)
        self.n_boxes = rules.n_boxes
        self.n_hold_features = len(hold_feature_names(rules))
        self.n_box_features = len(box_feature_names(rules, self.bonus_now))
        self._open = s["open"]
        self._points = s["box_points"]
        self._upper = s["upper_progress"].start
        self._fifty = s["five_state"].start + 1
        self._five_state = s["five_state"]
        self._turn = s["turn"].start
        self._five_box = rules.five_kind_box
        self._rolls_left = s["rolls_left"]
        self.threshold = float(rules.upper_bonus_threshold)
        for name, value in (("hold_table", t.hold_table), ("roll_by_code", t.roll_by_code),
                            ("box_max", t.box_max), ("par", t.par),
                            ("canonical_reroll", D.CANONICAL_REROLL),
                            ("canonical_of", t.canonical_of),
                            ("code_weights", 6 ** np.arange(D.N_DICE - 1, -1, -1)),
                            ("box_identity", np.eye(rules.n_boxes, dtype=np.float32)),
                            ("five_eye", np.eye(3, dtype=np.float32)),
                            ("five_bonus", rules.tables.is_five_kind.astype(np.float32)
                             * (rules.five_kind_bonus / 50.0))):
            self.register_buffer(name, torch.tensor(value), persistent=False)
        kept = torch.zeros(self.n_hold_features - 2)
        kept[:len(KEEP_NAMES)] = 1.0
        self.register_buffer("column_mask", torch.ones_like(kept) if reroll_features else kept,
                             persistent=False)

    def rolls(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N,)`` the sorted-roll index of each observation's dice."""
        digits = torch.round(obs[:, :D.N_DICE] * 5).long()
        return self.roll_by_code[(digits * self.code_weights).sum(dim=1)]

    def _hold_scale(self, obs: torch.Tensor, open_: torch.Tensor) -> torch.Tensor:
        """``(N, 11 + 2B + 7)`` the hold table's masks: the kept-dice features always, the box
        features of the open boxes, the five-of-a-kind chance while the bonus is live."""
        fifty = (obs[:, self._fifty] > 0.5).to(obs.dtype)
        scale = torch.cat([torch.ones_like(obs[:, :len(KEEP_NAMES)]), open_, open_,
                           open_[:, :N_UPPER], fifty[:, None]], dim=1)
        return scale if self.reroll_features else scale * self.column_mask

    def _with_best(self, table: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        """``table * scale`` with the best expectation and chance over the boxes appended
        (written into one buffer: these are inputs, never differentiated)."""
        b, start, n = self.n_boxes, len(KEEP_NAMES), table.shape[-1]
        out = table.new_empty((*table.shape[:-1], n + 2))
        torch.mul(table, scale, out=out[..., :n])
        torch.amax(out[..., start:start + b], dim=-1, out=out[..., n])
        torch.amax(out[..., start + b:start + 2 * b], dim=-1, out=out[..., n + 1])
        return out

    @torch.no_grad()
    def hold_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The features of the holds that need a logit: one hold per distinct keep (the
        canonical one), only where a reroll is left, never all five dice held.

        Returns ``(rows, holds, counts, features)``: ``(M,)`` the observation (ascending) and
        ``(M,)`` the hold of each listed hold, ``(N,)`` how many each observation has (so
        ``repeat_interleave(x, counts)`` spreads per-state rows over them), ``(M, Fh)`` their
        features.  Every other hold is either illegal in every mask (no reroll left, all five
        held) or makes the same keep as a listed one, hence has the same features
        (:attr:`canonical_of` maps it there).
        """
        roll, rows, holds, counts = self._listed_holds(obs)
        open_ = (obs[:, self._open] > 0.5).to(obs.dtype)
        table = torch.index_select(self.hold_table.flatten(0, 1), 0,
                                   roll[rows] * D.N_HOLDS + holds)
        scale = torch.repeat_interleave(self._hold_scale(obs, open_), counts, dim=0,
                                        output_size=len(rows))
        return rows, holds, counts, self._with_best(table, scale)

    def _listed_holds(self, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``(roll, rows, holds, counts)``: each observation's roll index, and the holds that
        need a logit (see :meth:`hold_features`)."""
        roll = self.rolls(obs)
        can_roll = obs[:, self._rolls_left].argmax(dim=1) > 0
        listed = self.canonical_reroll[roll] & can_roll[:, None]
        rows, holds = torch.nonzero(listed, as_tuple=True)
        return roll, rows, holds, listed.sum(dim=1)

    @torch.no_grad()
    def dense_hold_features(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N, 32, Fh)`` the features of every hold of every observation (for tests and
        inspection; the network computes only :meth:`hold_features`' rows)."""
        open_ = (obs[:, self._open] > 0.5).to(obs.dtype)
        return self._with_best(self.hold_table[self.rolls(obs)],
                               self._hold_scale(obs, open_)[:, None, :])

    @torch.no_grad()
    def box_features(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N, B, Fb)`` the features of every box (:func:`box_feature_names`)."""
        b, t = self.n_boxes, self.threshold
        open_ = (obs[:, self._open] > 0.5).to(obs.dtype)
        points = torch.round(obs[:, self._points] * 50)
        need = t - torch.round(obs[:, self._upper] * t)
        upper_open = open_[:, :N_UPPER]
        upper_points = points[:, :N_UPPER]
        need_after = torch.clamp(need[:, None] - upper_points, min=0.0)
        par_open = (upper_open * self.par).sum(dim=1, keepdim=True)
        slack_after = torch.clamp((par_open - self.par - need_after) / t, -1.0, 1.0)
        upper = torch.stack([need_after / t, (upper_points - self.par) / t, slack_after],
                            dim=-1) * upper_open[..., None]
        upper = torch.cat([upper, upper.new_zeros(len(obs), b - N_UPPER, 3)], dim=1)
        parts = [torch.stack([open_, points / 50, points / self.box_max,
                              open_ * (points == 0).to(obs.dtype)], dim=-1),
                 upper, self.box_identity.expand(len(obs), b, b)]
        if self.bonus_now:
            parts.append((open_ * self._bonus_now(obs)[:, None])[..., None])
        return torch.cat(parts, dim=-1)

    def _bonus_now(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N,)`` the five-of-a-kind bonus (/ 50) that scoring the dice earns now: five of a
        kind with the five-of-a-kind box holding 50."""
        fifty = (obs[:, self._fifty] > 0.5).to(obs.dtype)
        return self.five_bonus[self.rolls(obs)] * fifty

    @torch.no_grad()
    def afterstates(self, obs: torch.Tensor, rows: torch.Tensor,
                    boxes: torch.Tensor) -> torch.Tensor:
        """``(M, B + 5)`` the scorecard each listed box leaves: scoring the dice of observation
        ``rows[i]`` in box ``boxes[i]`` -- its open boxes, upper progress, five-of-a-kind state
        and turn entries, in the observation's layout, after the score sheet takes the points.
        No dice (the next turn's are not rolled yet) and no chances: the rules' bookkeeping of
        one move, what a player writes on the sheet (:func:`afterstate_names`)."""
        o = obs.index_select(0, rows)
        n, t = len(rows), self.threshold
        open_after = (o[:, self._open] > 0.5).to(obs.dtype)
        open_after[torch.arange(n), boxes] = 0.0
        points = torch.round(o[:, self._points].gather(1, boxes[:, None]).squeeze(1) * 50)
        upper = torch.round(o[:, self._upper] * t) + points * (boxes < N_UPPER).to(obs.dtype)
        upper_after = torch.clamp(upper, max=t) / t if t > 0 else torch.zeros_like(upper)
        filled = torch.where(points > 0, FIVE_FIFTY, FIVE_ZERO)
        five_after = torch.where((boxes == self._five_box)[:, None],
                                 self.five_eye[filled], o[:, self._five_state])
        turn_after = o[:, self._turn] + 1.0 / self.n_boxes
        return torch.cat([open_after, upper_after[:, None], five_after, turn_after[:, None]],
                         dim=1)

    @torch.no_grad()
    def open_box_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The features of the open boxes (no mask allows a filled one): ``(rows, boxes,
        counts, features)`` as :meth:`hold_features` gives them for the holds."""
        open_ = obs[:, self._open] > 0.5
        rows, boxes = torch.nonzero(open_, as_tuple=True)
        return rows, boxes, open_.sum(dim=1), self.box_features(obs)[rows, boxes]


#: how :class:`PureActionFeatures` can describe a hold, by the dice it keeps (see there)
HOLD_ENCODINGS = ("counts", "count-onehot", "keep")


def pure_hold_feature_names(encoding: str = "counts") -> list[str]:
    """The hold features of :class:`PureActionFeatures` under ``encoding``
    (:data:`HOLD_ENCODINGS`)."""
    faces = range(1, D.N_FACES + 1)
    if encoding == "counts":
        return [f"kept_{face}" for face in faces]
    if encoding == "count-onehot":
        return [f"kept_{face}={n}" for face in faces for n in range(D.N_DICE + 1)]
    if encoding == "keep":
        return [f"keep_{k}" for k in range(D.N_KEEPS)]
    raise ValueError(f"unknown hold encoding {encoding!r}; known: {list(HOLD_ENCODINGS)}")


def pure_box_feature_names(rules: Rules) -> list[str]:
    """The box features of :class:`PureActionFeatures`: open, what the current dice score there,
    which box it is (one-hot)."""
    return ["open", "points", *(f"is:{b}" for b in rules.boxes)]


class PureActionFeatures(ScorecardActionFeatures):
    """The actions described by what a player sees at the table, nothing made by hand (issue 45's
    pure model-free agent): a hold by the dice it keeps (wherever they sit), a box by whether it
    is open, what the current dice score there (the observation's points, the Joker applied) and
    which box it is.

    ``hold_encoding`` says how the kept dice are written (:data:`HOLD_ENCODINGS`): ``"counts"``,
    how many of each face, ``/ 5``; ``"count-onehot"``, the same one-hot per face (36 entries:
    "exactly three 6s" is one input); ``"keep"``, which of the 462 multisets of kept dice it is
    (one-hot: the network learns each keep's worth itself).

    No kept-dice statistics (runs, sums, most of a face), no reroll expectations or chances, no
    upper-bonus par or slack: what the dice can become and what a box is worth later are left
    for the network to learn.  The same interface as :class:`ScorecardActionFeatures`, so the
    structured network runs on either.

    ``bonus_now``: a box's points are all that scoring the dice there earns now, the
    five-of-a-kind bonus included (the score sheet pays both at once); no column is added.
    """

    def __init__(self, rules: Rules, hold_encoding: str = "counts",
                 bonus_now: bool = False) -> None:
        super().__init__(rules, reroll_features=False, bonus_now=bonus_now)
        self.n_hold_features = len(pure_hold_feature_names(hold_encoding))
        self.n_box_features = len(pure_box_feature_names(rules))
        if hold_encoding == "counts":
            per_keep = D.KEEP_COUNTS / D.N_DICE
        elif hold_encoding == "count-onehot":
            per_keep = np.eye(D.N_DICE + 1)[D.KEEP_COUNTS].reshape(D.N_KEEPS, -1)
        else:
            per_keep = np.eye(D.N_KEEPS)
        table = per_keep.astype(np.float32)[D.HOLD_KEEP]  # (252 rolls, 32 holds, F)
        self.register_buffer("hold_table", torch.tensor(table), persistent=False)
        #: ``"keep"``: the network is handed each listed hold's keep index instead of its
        #: one-hot row (:meth:`hold_features`; the same logits, 462 times less to move)
        self.indexed = hold_encoding == "keep"
        if self.indexed:
            self.register_buffer("hold_keep", torch.tensor(D.HOLD_KEEP, dtype=torch.int64),
                                 persistent=False)

    @torch.no_grad()
    def hold_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """As :meth:`ScorecardActionFeatures.hold_features`; under the ``"keep"`` encoding the
        features are the listed holds' keep indices ``(M,)`` (int64), which the action head
        reads as the one-hot rows they stand for."""
        if not self.indexed:
            return super().hold_features(obs)
        roll, rows, holds, counts = self._listed_holds(obs)
        return rows, holds, counts, self.hold_keep[roll[rows], holds]

    def _with_best(self, table: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return table  # the kept dice alone: nothing masked, nothing appended

    def _hold_scale(self, obs: torch.Tensor, open_: torch.Tensor) -> torch.Tensor:
        return obs.new_ones(len(obs), self.n_hold_features)

    @torch.no_grad()
    def box_features(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N, B, 2 + B)`` the features of every box (:func:`pure_box_feature_names`)."""
        b = self.n_boxes
        open_ = (obs[:, self._open] > 0.5).to(obs.dtype)
        points = obs[:, self._points]
        if self.bonus_now:
            points = points + open_ * self._bonus_now(obs)[:, None]
        return torch.cat([torch.stack([open_, points], dim=-1),
                          self.box_identity.expand(len(obs), b, b)], dim=-1)
