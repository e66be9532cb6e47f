"""Exact facts of one turn of 5000 on its own (:func:`single_turn_facts`): the best
probability of entering from a fresh start and the best expected banked points of a turn."""

from __future__ import annotations

import numpy as np

from agents.solvers.fivethousand_vi import kernels as K
from agents.solvers.fivethousand_vi.model import N_DICE, TIE_TOL, FiveThousandModel, build_model
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules


def _single_turn(model: FiveThousandModel, reward: np.ndarray, bank_ok: np.ndarray):
    dec = np.zeros((len(reward), N_DICE + 1))
    roll = np.zeros((len(reward), N_DICE + 1))
    value = K.single_turn(reward.astype(np.float64), np.ascontiguousarray(bank_ok),
                          *model.throw_tables()[1:], dec, roll)
    policy = bank_ok[:, None] & (reward[:, None] >= roll - TIE_TOL)
    policy[:, 0] = False
    return float(value), policy


def single_turn_facts(rules: FiveThousandRules | dict | str | None = None,
                      points_cap: int = 40_000) -> dict:
    """Exact single-turn facts of the rules.

    Returns a dict with:

    * ``entry_probability``: the best probability that one turn from a fresh start (score 0)
      ends with a bank that enters the game (``entry`` or more, not overshooting the target);
      ``entry_policy`` ``(T, 6)`` bool: the optimal banks at (slot, dice left).
    * ``expected_points``: the best expected banked points of one turn for an entered player
      with no target in sight (banks of 100 or more, no 50s), turn totals tabulated up to
      ``points_cap`` (any turn reaching it is counted as 0: a lower bound, and
      ``expected_points_cap_check`` is the value with half the cap -- equal to rounding);
      ``points_policy`` ``(points_cap // 50 + 1, 6)`` bool, and ``points_thresholds``: for
      1..5 dice left, the smallest turn total at which banking is optimal.
    """
    rules = coerce_rules(rules)
    model = build_model(rules)
    t = 50 * np.arange(model.n_slots)
    # entering: a bank from score 0 that moves the score (solo: an overshoot is lost)
    enters = model.bank_ok[0] & (model.solo_next[0, 0] != 0)
    entry_p, entry_policy = _single_turn(model, enters.astype(np.float64), model.bank_ok[0])

    def points(cap: int):
        slots = cap // 50 + 1
        tt = 50 * np.arange(slots)
        ok = R.bank_allowed(rules, np.full(slots, rules.min_entered_score), tt)
        return _single_turn(model, tt.astype(np.float64), ok)

    pts, pts_policy = points(points_cap)
    pts_half, _ = points(points_cap // 2)
    tt = 50 * np.arange(pts_policy.shape[0])
    thresholds = {}
    for n in range(1, N_DICE + 1):
        banked = np.flatnonzero(pts_policy[:, n] & (tt <= 20_000))
        thresholds[n] = int(tt[banked[0]]) if banked.size else None
    return {"entry_probability": entry_p, "entry_policy": entry_policy,
            "entry_policy_is_bank_when_allowed": bool(np.array_equal(
                entry_policy[:, 1:], np.broadcast_to(enters[:, None], (len(t), N_DICE)))),
            "expected_points": pts, "expected_points_cap_check": pts_half,
            "points_cap": points_cap, "points_policy": pts_policy,
            "points_thresholds": thresholds}

