"""The inputs of the learned-value networks of 5000: :func:`state_features` of a two-player
turn start ``(my score, opponent's score)``, and :class:`NFeatures` of an ``N``-player one."""

from __future__ import annotations

import numpy as np

from agents.fivethousand.learned_value.turn import build_turn_model
from dice_env.fivethousand.rules import FiveThousandRules

#: the features: coarse score buckets of this width, fine one-hots of the points still needed
#: up to this many points
BUCKET_POINTS = 500
FINE_NEED_POINTS = 2000
#: and a one-hot of the score difference when at most this many points (the bump ridges)
DIFF_POINTS = 2000


def feature_size(rules: FiveThousandRules) -> int:
    """The length of :func:`state_features`' rows."""
    per_player = 3 + rules.target // BUCKET_POINTS + FINE_NEED_POINTS // 100
    return 2 * per_player + 2 + 2 * (DIFF_POINTS // 100) + 1


def _player_features(rules: FiveThousandRules, s: np.ndarray) -> list[np.ndarray]:
    target = float(rules.target)
    entered = s > 0
    need = np.where(entered, rules.target - s, rules.target)
    cols = [s / target, entered.astype(np.float64),
            np.where(entered, np.log(need / target), 0.0) / np.log(100.0 / target)]
    buckets = np.minimum(s // BUCKET_POINTS, rules.target // BUCKET_POINTS - 1)
    cols += [(entered & (buckets == i)).astype(np.float64)
             for i in range(rules.target // BUCKET_POINTS)]
    cols += [(entered & (need == 100 * i)).astype(np.float64)
             for i in range(1, FINE_NEED_POINTS // 100 + 1)]
    return cols


def state_features(rules: FiveThousandRules, my_score, opp_score) -> np.ndarray:
    """``(N, F)`` float32 features of turn-start pairs (scores in points).

    Per player (the mover first, then the opponent): the score / target; entered (score > 0);
    ``log(points needed / target) / log(100 / target)`` (0 far away, 1 when 100 is needed;
    0 if not entered); a one-hot of the coarse score bucket (``BUCKET_POINTS`` wide, entered
    players only); a one-hot of the points still needed when at most ``FINE_NEED_POINTS``
    (the end game, where exact totals matter).  Then the score difference / target, both
    entered, and a one-hot of the opponent's lead ``opp - my`` when at most ``DIFF_POINTS``
    either way (a bank of exactly the lead bumps the opponent back to 0: sharp ridges).
    """
    a = np.atleast_1d(np.asarray(my_score, dtype=np.int64))
    b = np.atleast_1d(np.asarray(opp_score, dtype=np.int64))
    cols = _player_features(rules, a) + _player_features(rules, b)
    cols += [(a - b) / float(rules.target), ((a > 0) & (b > 0)).astype(np.float64)]
    cols += [(b - a == 100 * i).astype(np.float64)
             for i in range(-(DIFF_POINTS // 100), DIFF_POINTS // 100 + 1)]
    return np.stack(cols, axis=1).astype(np.float32)


class NFeatures:
    """The inputs of the ``N``-player network, from turn-start states as grid indices ``(B, N)``
    in turn order from the mover.

    The order of play matters (who moves next, who receives a gift on a tie), so the seats are
    never sorted: seat ``k`` is the ``k``-th player after the mover.  Two parts:

    * **dense** ``(B, 3N + N(N-1)/2)``: per seat the score / target, entered (score > 0) and
      ``log(points needed / target) / log(100 / target)`` (0 if not entered; as in
      :func:`state_features`); per pair of seats ``i < j`` the difference ``s_j - s_i`` /
      target.
    * **categorical** ``(B, N + N(N-1)/2 + N)``, rows of one embedding table summed into the
      first hidden layer (a linear layer over one-hot inputs, computed by lookup): per seat its
      exact score (a grid index: every bucket and "points still needed" indicator at once);
      per pair ``i < j`` the difference ``s_j - s_i`` in steps of 100 when at most
      ``DIFF_POINTS`` either way, else "far below" / "far above" (a bank of exactly a
      difference bumps: the sharp ridges of the value); per seat ``b``, who would receive its
      overshoot gift (nobody, or the ``r``-th player after ``b``: the lowest entered other
      player, the first after ``b`` on a tie).
    """

    def __init__(self, rules: FiveThousandRules, num_players: int) -> None:
        self.rules = rules
        self.num_players = n = int(num_players)
        self.turn_model = m = build_turn_model(rules)
        k, target = m.n_scores, float(rules.target)
        s = m.scores
        entered = s > 0
        need = np.where(entered, rules.target - s, rules.target)
        self.score_dense = np.stack(
            [s / target, entered.astype(np.float64),
             np.where(entered, np.log(need / target), 0.0) / np.log(100.0 / target)],
            axis=1).astype(np.float32)
        self.pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        self.diff_span = DIFF_POINTS // 100
        self.diff_rows = 2 * self.diff_span + 3
        self.pair_offset = n * k
        self.gift_offset = self.pair_offset + len(self.pairs) * self.diff_rows
        self.n_rows = self.gift_offset + n * n
        self.n_dense = 3 * n + len(self.pairs)
        self.n_cat = n + len(self.pairs) + n

    def encode(self, idx) -> tuple[np.ndarray, np.ndarray]:
        """``(dense float32 (B, n_dense), categorical int64 (B, n_cat))`` of states ``idx``."""
        idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
        n, k = self.num_players, self.turn_model.n_scores
        if idx.shape[1] != n:
            raise ValueError(f"expected {n} scores per state, got shape {idx.shape}")
        s = self.turn_model.scores[idx]
        b = len(idx)
        dense = np.empty((b, self.n_dense), dtype=np.float32)
        dense[:, :3 * n] = self.score_dense[idx].reshape(b, 3 * n)
        cat = np.empty((b, self.n_cat), dtype=np.int64)
        cat[:, :n] = idx + k * np.arange(n)
        span = self.diff_span
        for m, (i, j) in enumerate(self.pairs):
            d = s[:, j] - s[:, i]
            dense[:, 3 * n + m] = d / float(self.rules.target)
            bucket = np.clip(d // 100, -span - 1, span + 1) + span + 1
            cat[:, n + m] = self.pair_offset + m * self.diff_rows + bucket
        big = np.iinfo(np.int64).max
        low = np.where(s > 0, s, big)
        for banker in range(n):
            order = (banker + 1 + np.arange(n - 1)) % n
            vals = low[:, order]
            first = np.argmin(vals, axis=1)             # ties: the first in turn order
            rel = np.where(vals[np.arange(b), first] == big, 0, first + 1)
            cat[:, n + len(self.pairs) + banker] = self.gift_offset + banker * n + rel
        return dense, cat

