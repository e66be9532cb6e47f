"""What a win-maximising scorecard player must know of its opponents: the threshold to beat.

Against score-optimal opponents (whose final totals depend on neither our play nor each other's)
a match is won by ending above ``T``, the best of their final totals; a tie for the top is worth
half.  This module holds:

* :func:`threshold_utility` -- ``u(x) = P(T < x) + 1/2 P(T = x)`` for a normal threshold
  (exact step for a known one), and :func:`threshold_moments` -- the mean and spread of the
  maximum of several opponents' normals (Clark's moments);
* :func:`last_turn_gains` / :func:`two_turn_gains` -- the *exact* distribution of what a
  score-optimal card with one or two boxes open still gains (the opponents at our last two
  turns), from the DP's decisions played forward (:func:`~agents.scorecard.turn_policy.
  follow_policy`);
* :func:`last_turn_values` / :func:`last_turn_values_grid` -- our own last turn solved exactly
  against a normal threshold or against a tabulated ``u``.

Used by :mod:`agents.scorecard.win_value` (the player) and its trainer.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from agents.scorecard.score_spread import ScoreMoments, reachable_states
from agents.scorecard.turn_policy import follow_policy, solve_turn, turn_leaves
from dice_env import dice as D
from dice_env.scorecard.rules import Rules

__all__ = ["GRID", "TIE_BREAK", "last_turn_gains", "last_turn_values", "last_turn_values_grid",
           "threshold_moments", "threshold_utility", "two_turn_gains"]

#: totals are tabulated on ``0 .. GRID - 1`` for the exact last-turn threshold
GRID = 2048
#: ties in P(win) go to the higher expected total: each point is worth this much P(win)
TIE_BREAK = 1e-6

def threshold_utility(x: np.ndarray, mean: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """``u(x) = P(T < x) + 1/2 P(T = x)`` for an integer threshold ``T``: the rounding of a
    normal ``N(mean, spread)`` (``spread = 0``: ``T = mean`` exactly, then a step)."""
    x = np.asarray(x, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    spread = np.asarray(spread, dtype=np.float64)
    safe = np.maximum(spread, 1e-9)
    smooth = 0.5 * (ndtr((x - 0.5 - mean) / safe) + ndtr((x + 0.5 - mean) / safe))
    step = np.where(x > mean + 1e-9, 1.0, np.where(x < mean - 1e-9, 0.0, 0.5))
    return np.where(spread > 1e-9, smooth, step)


def threshold_moments(means: np.ndarray, stds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of the maximum of independent normals ``(N, K)`` (Clark's
    moments, folding one opponent in at a time; exact for ``K = 1``)."""
    means = np.atleast_2d(np.asarray(means, dtype=np.float64))
    stds = np.atleast_2d(np.asarray(stds, dtype=np.float64))
    m, v = means[:, 0].copy(), stds[:, 0] ** 2
    for j in range(1, means.shape[1]):
        m2, v2 = means[:, j], stds[:, j] ** 2
        a = np.sqrt(np.maximum(v + v2, 1e-12))
        alpha = (m - m2) / a
        cdf, cdf_neg = ndtr(alpha), ndtr(-alpha)
        pdf = np.exp(-0.5 * alpha * alpha) / np.sqrt(2 * np.pi)
        first = m * cdf + m2 * cdf_neg + a * pdf
        second = (m * m + v) * cdf + (m2 * m2 + v2) * cdf_neg + (m + m2) * a * pdf
        m, v = first, np.maximum(second - first * first, 0.0)
    return m, np.sqrt(v)


def _last_turn_table(moments: ScoreMoments) -> tuple[np.ndarray, np.ndarray]:
    """Every reachable card with one box open: its DP index ``(fs, rest, u)`` flattened, and
    the exact distribution ``(R, G)`` of the points its score-optimal last turn gains
    (computed once per :class:`ScoreMoments`, kept on it)."""
    table = getattr(moments, "_last_turn", None)
    if table is None:
        table = moments._last_turn = _compute_last_turn_table(moments)
    return table


def _compute_last_turn_table(moments: ScoreMoments) -> tuple[np.ndarray, np.ndarray]:
    sol = moments.solution
    rules = sol.rules
    open_, upper, five = reachable_states(sol, rules.n_boxes - 1)
    fs, rest, u, _ = moments._index(open_, upper, five)
    keys = (fs * sol.model.n_rest + rest) * (sol.model.threshold + 1) + u
    box = open_.argmax(axis=1)
    parts = []
    for i in range(0, len(upper), 256):
        sl = slice(i, i + 256)
        leaves = turn_leaves(rules, open_[sl], upper[sl], five[sl],
                             lambda rows, o, uu, f, gain: gain.astype(np.float64))
        one = np.take_along_axis(leaves, box[sl, None, None].repeat(D.N_ROLLS, 1), axis=2)
        gains = np.where(np.isfinite(one[..., 0]), one[..., 0], 0).astype(np.int64)
        width = int(gains.max()) + 1
        q = np.zeros(gains.shape + (1, width))
        np.put_along_axis(q[:, :, 0], gains[..., None], 1.0, axis=2)
        parts.append(follow_policy(one, q, rules.rolls_per_turn)[1])
    width = max(p.shape[1] for p in parts)
    pmf = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1]))) for p in parts])
    order = np.argsort(keys)
    return keys[order], pmf[order]


def last_turn_gains(moments: ScoreMoments, open_: np.ndarray, upper: np.ndarray,
                    five: np.ndarray) -> np.ndarray:
    """``(N, G)`` the exact distribution of the points gained by the score-optimal last turn
    of cards with one box open (``G`` bins: 0, 1, 2, ... points)."""
    keys, pmf = _last_turn_table(moments)
    fs, rest, u, _ = moments._index(open_, upper, five)
    m = moments.solution.model
    k = (np.asarray(fs) * m.n_rest + rest) * (m.threshold + 1) + u
    pos = np.searchsorted(keys, k)
    if np.any(pos >= len(keys)) or np.any(keys[np.minimum(pos, len(keys) - 1)] != k):
        raise ValueError("a card with one open box is not reachable")
    return pmf[pos]


def _card_keys(moments: ScoreMoments, open_, upper, five) -> np.ndarray:
    fs, rest, u, _ = moments._index(open_, upper, five)
    m = moments.solution.model
    return (np.asarray(fs) * m.n_rest + rest) * (m.threshold + 1) + u


def two_turn_gains(moments: ScoreMoments, open_: np.ndarray, upper: np.ndarray,
                   five: np.ndarray, chunk: int = 32) -> np.ndarray:
    """``(N, G)`` the exact distribution of the points gained by the score-optimal last two
    turns of cards with two boxes open: the first turn played by the DP's decisions, each of
    its outcomes followed by :func:`last_turn_gains` of the card it leaves.  Kept per card on
    ``moments`` (a match meets each card many times)."""
    memo = getattr(moments, "_two_turns", None)
    if memo is None:
        memo = moments._two_turns = {}
    keys = _card_keys(moments, open_, upper, five)
    first_of = {k: i for i, k in reversed(list(enumerate(keys.tolist())))}
    todo = np.array([first_of[k] for k in dict.fromkeys(keys.tolist()) if k not in memo],
                    dtype=np.int64)
    rules = moments.rules
    for i in range(0, len(todo), chunk):
        rows = todo[i:i + chunk]
        o, u, f = open_[rows], upper[rows], five[rows]
        boxes = np.sort(np.argsort(~o, axis=1, kind="stable")[:, :2], axis=1)  # the 2 open
        succ: dict = {}

        def value(r, o2, u2, f2, gain):
            return gain + moments.mean(o2, u2, f2)

        def code(r, o2, u2, f2, gain, succ=succ):
            pmf = last_turn_gains(moments, o2, u2, f2)
            out = np.empty(len(r))
            for j, (row, g) in enumerate(zip(pmf, gain.tolist())):
                out[j] = len(succ)
                succ[len(succ)] = np.concatenate([np.zeros(g), row])
            return out

        cols = np.repeat(boxes[:, None, :], D.N_ROLLS, 1)
        leaves = np.take_along_axis(turn_leaves(rules, o, u, f, value), cols, axis=2)
        codes = np.take_along_axis(turn_leaves(rules, o, u, f, code), cols, axis=2)
        width = max(len(v) for v in succ.values())
        table = np.zeros((len(succ), width))
        for j, v in succ.items():
            table[j, :len(v)] = v
        q = table[np.where(np.isfinite(codes), codes, 0).astype(np.int64)]
        q[~np.isfinite(leaves)] = 0.0
        pmf = follow_policy(leaves, q, rules.rolls_per_turn)[1]
        for r, row in zip(rows, pmf):
            memo[int(keys[r])] = row
    width = max(len(memo[int(k)]) for k in keys)
    out = np.zeros((len(keys), width))
    for j, k in enumerate(keys.tolist()):
        out[j, :len(memo[k])] = memo[k]
    return out


def last_turn_values(rules: Rules, open_: np.ndarray, upper: np.ndarray, five: np.ndarray,
                     delta: np.ndarray, spread: np.ndarray, chunk: int = 2_000) -> np.ndarray:
    """``(N,)`` the exact P(win) of cards with one box open, ``delta`` from a threshold
    ``N(M, spread)``: the last turn's expectimax over :func:`threshold_utility`."""
    out = []
    for i in range(0, len(delta), chunk):
        sl = slice(i, i + chunk)
        d, s = delta[sl], spread[sl]

        def leaf(r, o, u, f, gain, d=d, s=s):
            return threshold_utility(d[r] + gain, 0.0, s[r])

        out.append(solve_turn(turn_leaves(rules, open_[sl], upper[sl], five[sl], leaf),
                              rules.rolls_per_turn).start_value)
    return np.concatenate(out) if out else np.zeros(0)


def last_turn_values_grid(rules: Rules, open_: np.ndarray, upper: np.ndarray,
                          five: np.ndarray, total: np.ndarray, u: np.ndarray,
                          u_rows: np.ndarray, chunk: int = 2_000) -> np.ndarray:
    """``(N,)`` the exact P(win) of cards with one box open at TOTAL ``total``, against the
    tabulated utility ``u[u_rows[i]]`` ``(GRID,)`` of the final total (the last turn's
    expectimax; see :meth:`~agents.scorecard.win_value.WinValueAgent.exact_threshold`)."""
    out = []
    for i in range(0, len(total), chunk):
        sl = slice(i, i + chunk)
        t, ur = total[sl], u_rows[sl]

        def leaf(r, o, uu, f, gain, t=t, ur=ur):
            return u[ur[r], np.minimum(t[r] + gain, GRID - 1)] + TIE_BREAK * gain

        out.append(solve_turn(turn_leaves(rules, open_[sl], upper[sl], five[sl], leaf),
                              rules.rolls_per_turn).start_value)
    return np.concatenate(out) if out else np.zeros(0)
