"""The model of the 5000 solver: the rule tables its kernels read (:class:`FiveThousandModel`,
:func:`build_model`), built from :mod:`dice_env.fivethousand.rules` alone -- the score grid,
the throw groups and options, what every bank does, and the score-sum levels of the pairs
``{(a, b), (b, a)}`` the value iteration sweeps."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from agents.solvers.fivethousand_vi import kernels as K
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules

#: Version of the solved-table format and of the solver's semantics; part of the cache key.
FORMAT_VERSION = 1
DEFAULT_TOL = 1e-9
N_DICE = R.N_DICE
#: ties between banking and rolling on closer than this go to banking (the agent's rule)
TIE_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class FiveThousandModel:
    """The tables the kernels read, built from :mod:`dice_env.fivethousand.rules`.

    Attributes:
        rules: the game.
        scores: ``(K,)`` the score grid: 0, then ``min_entered_score`` .. ``target - 100``.
        score_index: ``(target // 100 + 1,)`` index of score ``s`` at ``s // 100``, -1 if
            ``s`` is not on the grid.
        n_slots: ``T = target // 50 + 1`` turn-total slots (``t = 50 j``).
        bank_ok: ``(K, T)`` bool, the mover (score index) may bank slot ``j``.
        bank_next: ``(K, K, T)`` two players: ``ib' * K + ia'`` of the state after the bank
            (seen from the opponent, who moves next), or :data:`~.kernels.WIN` /
            :data:`~.kernels.LOSS`; meaningless where the bank is not allowed.
        j_hi: ``(K, K)`` the last slot at which a bank changes the scores (-1 if none).
        solo_next: ``(K, 1, T)`` solo: the score index after a bank (itself when the points
            are lost) or ``WIN``; ``solo_j_hi`` ``(K, 1)``.
        bust_prob, grp_start, grp_prob, opt_start, opt_slot, opt_left: the throw tables (see
            :mod:`~agents.solvers.fivethousand_vi.kernels`).
        level_start, pairs_a, pairs_b, level_sums: the pairs ``{pairs_a[p], pairs_b[p]}``
            (``pairs_a <= pairs_b``) level by level, highest score sum first: level ``l`` is
            ``level_start[l] .. level_start[l + 1]``, with score sum ``level_sums[l]``.
    """

    rules: FiveThousandRules
    scores: np.ndarray
    score_index: np.ndarray
    n_slots: int
    bank_ok: np.ndarray
    bank_next: np.ndarray
    j_hi: np.ndarray
    solo_next: np.ndarray
    solo_j_hi: np.ndarray
    bust_prob: np.ndarray
    grp_start: np.ndarray
    grp_prob: np.ndarray
    opt_start: np.ndarray
    opt_slot: np.ndarray
    opt_left: np.ndarray
    level_start: np.ndarray = field(repr=False)
    pairs_a: np.ndarray = field(repr=False)
    pairs_b: np.ndarray = field(repr=False)
    level_sums: np.ndarray = field(repr=False)

    @property
    def n_scores(self) -> int:
        return len(self.scores)

    @property
    def n_states(self) -> int:
        """Turn-start states of the two-player game (``K * K``)."""
        return self.n_scores ** 2

    @property
    def n_decision_states(self) -> int:
        """Decision states ``(a, b, t, n)`` of the two-player game (``K * K * T * 5``)."""
        return self.n_states * self.n_slots * N_DICE

    def throw_tables(self) -> tuple:
        """The throw tables in the order the kernels take them."""
        return (self.bust_prob, self.grp_start, self.grp_prob, self.opt_start, self.opt_slot,
                self.opt_left)

    def index(self, scores) -> np.ndarray:
        """Score indices of scores (``ValueError`` for a score that is not on the grid)."""
        s = np.asarray(scores, dtype=np.int64)
        ok = (s >= 0) & (s <= self.rules.target - 100) & (s % 100 == 0)
        idx = np.where(ok, self.score_index[np.clip(s // 100, 0, len(self.score_index) - 1)],
                       -1)
        if np.any(idx < 0):
            bad = np.atleast_1d(s)[np.atleast_1d(idx) < 0][0]
            raise ValueError(f"{int(bad)} is not a possible score of a game in progress: 0 or "
                             f"a multiple of 100 from {self.rules.min_entered_score} to "
                             f"{self.rules.target - 100}")
        return idx

    def slot(self, turn_total) -> np.ndarray:
        """Slot of a turn total (``T`` for any total above the target)."""
        t = np.asarray(turn_total, dtype=np.int64)
        if np.any(t < 0) or np.any(t % 50):
            raise ValueError("turn totals are non-negative multiples of 50")
        return np.minimum(t // 50, self.n_slots)


def _throw_tables(rules: FiveThousandRules):
    """Groups and options of a throw of 1..5 dice (see the kernels' module doc)."""
    bust = np.zeros(N_DICE + 1)
    grp_start = [0, 0]  # n = 0 has no groups; the groups of n dice are grp_start[n]..[n+1]
    grp_prob: list[float] = []
    opt_start = [0]
    opt_slot: list[int] = []
    opt_left: list[int] = []
    for n in range(1, N_DICE + 1):
        groups: dict[tuple, float] = {}
        if not rules.choose_scoring_dice:
            od = R.outcome_distribution(n)
            for pts, left, p in zip(od.points.tolist(), od.dice_left.tolist(), od.prob.tolist()):
                if pts == 0:
                    bust[n] += p
                else:
                    key = ((pts, left),)
                    groups[key] = groups.get(key, 0.0) + p
        else:
            rolls, probs = R.throw_distribution(n)
            for r, p in zip(rolls.tolist(), probs.tolist()):
                if R.ROLL_POINTS[r] == 0:
                    bust[n] += p
                    continue
                pts = R.SETASIDE_POINTS[r]
                legal = np.flatnonzero(pts >= 0)
                left = R.dice_left_after(n, R.SETASIDE_DICE[r, legal])
                key = tuple(sorted(set(zip(pts[legal].tolist(), np.atleast_1d(left).tolist()))))
                groups[key] = groups.get(key, 0.0) + p
        for key, p in sorted(groups.items()):
            grp_prob.append(p)
            for pts, left in key:
                if pts % 50 or pts <= 0:
                    raise RuntimeError(f"a scoring throw is worth {pts}, not a positive "
                                       "multiple of 50")
                opt_slot.append(pts // 50)
                opt_left.append(int(left))
            opt_start.append(len(opt_slot))
        grp_start.append(len(grp_prob))
    total = bust[1:] + np.array([sum(grp_prob[grp_start[n]:grp_start[n + 1]])
                                 for n in range(1, N_DICE + 1)])
    if not np.allclose(total, 1.0, atol=1e-12):
        raise RuntimeError(f"throw probabilities do not sum to 1: {total}")
    i64 = np.int64
    return (bust, np.array(grp_start, dtype=i64), np.array(grp_prob),
            np.array(opt_start, dtype=i64), np.array(opt_slot, dtype=i64),
            np.array(opt_left, dtype=i64))


def _last_change(changes: np.ndarray) -> np.ndarray:
    """Index of the last True along the last axis (-1 if none)."""
    n = changes.shape[-1]
    rev = np.argmax(changes[..., ::-1], axis=-1)
    return np.where(changes.any(axis=-1), n - 1 - rev, -1).astype(np.int64)


@lru_cache(maxsize=8)
def _build_model(rules: FiveThousandRules) -> FiveThousandModel:
    target = rules.target
    low = rules.min_entered_score
    scores = np.concatenate([[0], np.arange(low, target, 100)]).astype(np.int64)
    scores = np.unique(scores)  # low may equal target: then only 0
    k = len(scores)
    score_index = np.full(target // 100 + 1, -1, dtype=np.int64)
    score_index[scores // 100] = np.arange(k)
    n_slots = target // 50 + 1
    t = 50 * np.arange(n_slots, dtype=np.int64)
    bank_ok = R.bank_allowed(rules, scores[:, None], t[None, :])

    def idx(s: np.ndarray) -> np.ndarray:
        ok = (s >= 0) & (s < target) & (s % 100 == 0)
        out = np.where(ok, score_index[np.clip(s // 100, 0, len(score_index) - 1)], -1)
        if np.any(out < 0):
            raise RuntimeError("resolve_bank produced a score outside the solver's grid")
        return out

    # two players: every allowed bank through resolve_bank
    ia, ib, j = np.nonzero(np.broadcast_to(bank_ok[:, None, :], (k, k, n_slots)))
    out = R.resolve_bank(rules, np.stack([scores[ia], scores[ib]], axis=1),
                         np.zeros(len(ia), dtype=np.int64), t[j])
    bank_next = np.full((k, k, n_slots), K.LOSS, dtype=np.int64)
    nxt = np.full(len(ia), K.LOSS, dtype=np.int64)
    live = out.winner < 0
    nxt[live] = idx(out.scores[live, 1]) * k + idx(out.scores[live, 0])
    nxt[out.winner == 0] = K.WIN
    bank_next[ia, ib, j] = nxt
    unchanged = (np.arange(k)[None, :] * k + np.arange(k)[:, None])  # [ia, ib] -> ib*k + ia
    j_hi = _last_change(bank_ok[:, None, :] & (bank_next != unchanged[:, :, None]))

    # beyond the target every bank must be lost (what makes the table's cap exact)
    a_all, b_all = np.meshgrid(scores, scores, indexing="ij")
    a_all, b_all = a_all.ravel(), b_all.ravel()
    for extra in (target + 100, target + 4400, 2 * target + 4400):
        beyond = R.resolve_bank(rules, np.stack([a_all, b_all], axis=1),
                                np.zeros(len(a_all), dtype=np.int64),
                                np.full(len(a_all), extra))
        if (np.any(beyond.winner >= 0) or np.any(beyond.scores[:, 0] != a_all)
                or np.any(beyond.scores[:, 1] != b_all)):
            raise RuntimeError("a bank above the target changed the scores; the solver's "
                               "turn-total cap assumes it cannot")

    # solo
    ia1, j1 = np.nonzero(bank_ok)
    out1 = R.resolve_bank(rules, scores[ia1][:, None], np.zeros(len(ia1), dtype=np.int64),
                          t[j1])
    solo_next = np.full((k, 1, n_slots), K.WIN, dtype=np.int64)
    live1 = out1.winner < 0
    nxt1 = np.full(len(ia1), K.WIN, dtype=np.int64)
    nxt1[live1] = idx(out1.scores[live1, 0])
    solo_next[ia1, 0, j1] = nxt1
    if np.any((nxt1 >= 0) & (nxt1 < ia1)):
        raise RuntimeError("a solo bank lowered the score; the solo solver assumes it cannot")
    solo_j_hi = _last_change(bank_ok & (solo_next[:, 0, :] != np.arange(k)[:, None]))[:, None]

    # levels of pairs {ia, ib} by score sum, and the check that makes them parallel-safe
    pa, pb = np.triu_indices(k)
    sums = scores[pa] + scores[pb]
    order = np.lexsort((pb, pa, -sums))
    pa, pb, sums = pa[order].astype(np.int64), pb[order].astype(np.int64), sums[order]
    level_sums, first = np.unique(-sums, return_index=True)
    level_start = np.append(first, len(pa)).astype(np.int64)
    level_sums = (-level_sums).astype(np.int64)
    reads_from = ia * k + ib
    ok_j = j <= j_hi[ia, ib]
    reads = np.concatenate([bank_next[ia, ib, j][ok_j & (nxt >= 0)],
                            unchanged.ravel()])
    readers = np.concatenate([reads_from[ok_j & (nxt >= 0)], np.arange(k * k)])
    ra, rb = readers // k, readers % k
    xa, xb = reads // k, reads % k
    same_pair = (np.minimum(ra, rb) == np.minimum(xa, xb)) & (np.maximum(ra, rb)
                                                              == np.maximum(xa, xb))
    same_level = scores[ra] + scores[rb] == scores[xa] + scores[xb]
    if np.any(same_level & ~same_pair):
        raise RuntimeError("two pairs of one score-sum level read each other; the parallel "
                           "sweep would race")

    throws = _throw_tables(rules)
    arrays = [scores, score_index, bank_ok, bank_next, j_hi, solo_next, solo_j_hi, *throws,
              level_start, pa, pb, level_sums]
    for a in arrays:
        a.setflags(write=False)
    return FiveThousandModel(rules, scores, score_index, n_slots, np.ascontiguousarray(bank_ok),
                             bank_next, j_hi, solo_next, solo_j_hi, *throws,
                             level_start=level_start, pairs_a=pa, pairs_b=pb,
                             level_sums=level_sums)


def build_model(rules: FiveThousandRules | dict | str | None = None) -> FiveThousandModel:
    """The kernel tables of ``rules`` (default: 5000), built once per rules."""
    return _build_model(coerce_rules(rules))
