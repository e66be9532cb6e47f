"""The rule tables of one turn of two-player 5000 and its exact within-turn solve.

* :class:`TurnModel` / :func:`build_turn_model` -- the rule tables of one turn, built from
  :mod:`dice_env.fivethousand.rules` alone: the score grid (0, then ``entry`` .. ``target -
  100`` in steps of 100: every score a player can hold), the throw distributions per number of
  dice, and what a bank of every turn total does to every pair of scores (bank legality, bumps,
  overshoot gifts, exact-target wins, by :func:`~dice_env.fivethousand.rules.resolve_bank`).
* :func:`solve_turns` -- the exact within-turn solve of a batch of turn-start pairs
  ``(my score, opponent's score)``, given a table ``W[x, y]`` of the probability that the player
  about to start a turn at ``(x, y)`` wins.  Inside a turn the state is ``(turn total t, dice n
  to throw)``; a throw that scores nothing is a bust, worth ``1 - W[opp, my]``; a bank is worth
  1 if it reaches the target, 0 if its gift takes the opponent there, else ``1 - W[opp', my']``
  with the scores after it.  Turn totals only grow, so the values follow by backward induction
  over ``t`` from the target down (a total past the target can only be banked into a lost gift:
  it is worth exactly a bust).  The turn-start value is the roll-on value at ``(0, 5)``.
* :func:`rules_of` -- the rules of a game name, checked to be supported.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules

#: the game names the agent accepts (the literal two-player game; names in any case)
GAME_NAMES = ("fivethousand", "5000", "five-thousand", "dice_env/FiveThousand-v0")
#: codes of :attr:`TurnModel.bank_next` that are not a next state
WIN, LOSS, NO_BANK = -1, -2, -3
#: ties between banking and rolling on closer than this go to banking
TIE_TOL = 1e-12


def rules_of(game: Any = "fivethousand",
             rules: FiveThousandRules | dict | None = None) -> FiveThousandRules:
    """The rules of a game name / Gymnasium id (or explicit rules), checked to be supported.

    ``game`` is ``"fivethousand"``, ``"5000"``, ``"five-thousand"``,
    ``"dice_env/FiveThousand-v0"``, a :class:`FiveThousandRules` or a dict of knobs; ``rules``
    overrides it.  Any ``target`` and
    ``entry`` are supported; ``choose_scoring_dice=True`` and the solo game are not
    (``ValueError``).
    """
    if isinstance(game, (FiveThousandRules, dict)):
        rules = game if rules is None else rules
    elif isinstance(game, str):
        if game not in GAME_NAMES and game.lower() not in GAME_NAMES:
            if "solo" in game.lower():
                raise ValueError(f"the learned value is a two-player win probability; the solo "
                                 f"game {game!r} is not supported")
            raise ValueError(f"unknown 5000 game {game!r}; expected one of {list(GAME_NAMES)}")
    elif game is not None:
        raise ValueError(f"game must be a 5000 game name or id, a FiveThousandRules or a dict "
                         f"of knobs, got {game!r}")
    if rules is None:
        rules = FiveThousandRules()
    elif isinstance(rules, dict):
        rules = FiveThousandRules.from_knobs(rules)
    elif not isinstance(rules, FiveThousandRules):
        raise ValueError(f"rules must be a FiveThousandRules or a dict of knobs, got {rules!r}")
    if rules.choose_scoring_dice:
        raise ValueError("the learned-value player supports the literal rules only "
                         "(choose_scoring_dice=False: every scoring die is set aside)")
    return rules


@dataclass(frozen=True)
class ThrowTable:
    """The non-bust outcomes of a throw of ``n`` dice: ``dj`` points / 50, ``left`` dice a
    roll-on throws next (5 on hot dice), ``prob``; and ``bust`` the probability of a bust."""

    n: int
    dj: np.ndarray
    left: np.ndarray
    prob: np.ndarray
    bust: float


@dataclass(frozen=True, eq=False)
class TurnModel:
    """The tables of one turn of two-player 5000 (see :func:`build_turn_model`).

    Attributes:
        rules: the game.
        scores: ``(K,)`` the score grid: 0, then ``min_entered_score`` .. ``target - 100``.
        score_index: ``(target // 100 + 1,)`` index of score ``s`` at ``s // 100``, -1 off grid.
        n_slots: ``T = target // 50 + 1``: slot ``j < T`` is the turn total ``50 j``; slot
            ``T`` stands for every total past the target.
        bank_ok: ``(K, T + 1)`` bool, the mover (score index) may bank slot ``j`` (slot ``T``:
            True; whether such a bank is allowed is the action mask's business, its value is
            a bust's either way).
        bank_next: ``(K, K, T + 1)`` the result of a bank by the mover at ``(ia, ib)``:
            ``ib' * K + ia'`` (the state after it, seen by the opponent who moves next),
            :data:`WIN`, :data:`LOSS` or :data:`NO_BANK` (not allowed).
        throws: ``throws[n]`` the :class:`ThrowTable` of ``n`` dice (``throws[0]`` is None).
    """

    rules: FiveThousandRules
    scores: np.ndarray
    score_index: np.ndarray
    n_slots: int
    bank_ok: np.ndarray
    bank_next: np.ndarray
    throws: tuple

    @property
    def n_scores(self) -> int:
        """``K``, the number of scores on the grid."""
        return len(self.scores)

    def index(self, scores) -> np.ndarray:
        """Grid indices of scores (``ValueError`` for a score a player cannot hold)."""
        s = np.asarray(scores, dtype=np.int64)
        ok = (s >= 0) & (s < self.rules.target) & (s % 100 == 0)
        idx = np.where(ok, self.score_index[np.clip(s // 100, 0, len(self.score_index) - 1)],
                       -1)
        if np.any(idx < 0):
            bad = np.unique(s[idx < 0])[:5].tolist()
            raise ValueError(f"scores {bad} are not scores of a game in progress (0, or "
                             f"{self.rules.min_entered_score}..{self.rules.target - 100} in "
                             f"steps of 100)")
        return idx

    def slot(self, turn_total) -> np.ndarray:
        """The slot of turn totals: ``t // 50``, capped at ``n_slots`` (past the target)."""
        t = np.asarray(turn_total, dtype=np.int64)
        return np.where(t > self.rules.target, self.n_slots, t // 50)


@cache
def build_turn_model(rules: FiveThousandRules) -> TurnModel:
    """The :class:`TurnModel` of ``rules`` (built once per rules, a fraction of a second)."""
    rules = rules_of(rules)
    target = rules.target
    scores = np.array([0] + list(range(rules.min_entered_score, target, 100)), dtype=np.int64)
    k = len(scores)
    score_index = np.full(target // 100 + 1, -1, dtype=np.int64)
    score_index[scores // 100] = np.arange(k)
    n_slots = target // 50 + 1
    t = 50 * np.arange(n_slots, dtype=np.int64)
    bank_ok = np.ones((k, n_slots + 1), dtype=bool)
    bank_ok[:, :n_slots] = R.bank_allowed(rules, scores[:, None], t[None, :])

    bank_next = np.full((k, k, n_slots + 1), NO_BANK, dtype=np.int64)
    ia, ib, j = np.nonzero(np.broadcast_to(bank_ok[:, None, :n_slots], (k, k, n_slots)))
    out = R.resolve_bank(rules, np.stack([scores[ia], scores[ib]], axis=1),
                         np.zeros(len(ia), dtype=np.int64), t[j])
    code = np.empty(len(ia), dtype=np.int64)
    live = out.winner < 0
    new = out.scores[live]
    code[live] = score_index[new[:, 1] // 100] * k + score_index[new[:, 0] // 100]
    code[out.winner == 0] = WIN
    code[out.winner == 1] = LOSS
    bank_next[ia, ib, j] = code
    # past the target: any bank is a lost gift (scores unchanged, the opponent moves)
    bank_next[:, :, n_slots] = np.arange(k)[None, :] * k + np.arange(k)[:, None]

    throws: list = [None]
    for n in range(1, R.N_DICE + 1):
        od = R.outcome_distribution(n)
        scoring = od.points > 0
        throws.append(ThrowTable(n, (od.points[scoring] // 50).astype(np.int64),
                                 od.dice_left[scoring].astype(np.int64),
                                 od.prob[scoring].astype(np.float64),
                                 float(od.prob[~scoring].sum())))
    for arr in (scores, score_index, bank_ok, bank_next):
        arr.setflags(write=False)
    return TurnModel(rules, scores, score_index, n_slots, bank_ok, bank_next, tuple(throws))


@dataclass
class TurnSolution:
    """The exact values of one turn for a batch of ``P`` turn-start pairs.

    Attributes:
        roll: ``(P, T + 1, 6)`` the mover's win probability if they roll ``n`` dice on at turn
            total slot ``j`` and then play the turn out optimally (``n = 0`` is NaN; slot ``T``,
            past the target, is worth a bust).
        bank: ``(P, T + 1)`` the win probability of banking slot ``j`` (NaN where not allowed).
        start: ``(P,)`` the value of the turn start: ``roll[:, 0, 5]``.
    """

    roll: np.ndarray
    bank: np.ndarray
    start: np.ndarray


def bank_values(model: TurnModel, w: np.ndarray, ia, ib) -> np.ndarray:
    """``(P, T + 1)`` the mover's win probability after banking each slot (NaN: not allowed),
    the opponent then starting a turn valued by ``w``."""
    ia = np.asarray(ia, dtype=np.int64)
    ib = np.asarray(ib, dtype=np.int64)
    code = model.bank_next[ia, ib]
    flat = np.asarray(w, dtype=np.float64).ravel()
    val = 1.0 - flat[np.maximum(code, 0)]
    val = np.where(code == WIN, 1.0, val)
    val = np.where(code == LOSS, 0.0, val)
    return np.where(code == NO_BANK, np.nan, val)


def solve_turns(model: TurnModel, w: np.ndarray, ia, ib) -> TurnSolution:
    """Solve one turn exactly for the turn-start pairs ``(scores[ia], scores[ib])``.

    Args:
        model: the rule tables (:func:`build_turn_model`).
        w: ``(K, K)`` the leaves: ``w[x, y]`` the probability that the player about to start a
            turn at scores ``(x, y)`` (grid indices) wins.
        ia, ib: ``(P,)`` grid indices of the mover's and the opponent's scores.

    Returns:
        A :class:`TurnSolution` (backward induction over the turn total, vectorised over the
        pairs: ``T * 5`` steps whatever ``P``).
    """
    ia = np.atleast_1d(np.asarray(ia, dtype=np.int64))
    ib = np.atleast_1d(np.asarray(ib, dtype=np.int64))
    w = np.asarray(w, dtype=np.float64)
    k, t_slots = model.n_scores, model.n_slots
    if w.shape != (k, k):
        raise ValueError(f"w must have shape {(k, k)}, got {w.shape}")
    p = len(ia)
    bust = 1.0 - w[ib, ia]
    bank_t = np.ascontiguousarray(bank_values(model, w, ia, ib).T)      # (T + 1, P)
    best = np.full((t_slots + 1, R.N_DICE + 1, p), np.nan)             # max(roll, bank)
    roll = np.full((t_slots + 1, R.N_DICE + 1, p), np.nan)
    best[t_slots, 1:] = bust
    roll[t_slots, 1:] = bust
    for j in range(t_slots - 1, -1, -1):
        for n in range(1, R.N_DICE + 1):
            th = model.throws[n]
            nxt = best[np.minimum(j + th.dj, t_slots), th.left]         # (m, P)
            r = th.bust * bust + th.prob @ nxt
            roll[j, n] = r
            best[j, n] = np.fmax(r, bank_t[j])
    roll_p = np.ascontiguousarray(roll.transpose(2, 0, 1))
    return TurnSolution(roll_p, np.ascontiguousarray(bank_t.T), roll_p[:, 0, R.N_DICE].copy())


def turn_start_values(model: TurnModel, w: np.ndarray) -> np.ndarray:
    """``(K, K)`` the value of every turn start with ``w`` at the leaves (one Bellman backup
    of the whole table: what the trainer fits the network to)."""
    k = model.n_scores
    ia, ib = np.divmod(np.arange(k * k), k)
    return solve_turns(model, w, ia, ib).start.reshape(k, k)


