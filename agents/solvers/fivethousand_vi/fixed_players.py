"""Exact win probabilities of two-player 5000 matches between fixed players: their bank
decisions as tables (:func:`policy_of` the optimal player's, :func:`threshold_policy` any
player's that decides from the state alone) and :func:`match_win_probabilities`."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.solvers.fivethousand_vi.model import (
    DEFAULT_TOL,
    N_DICE,
    TIE_TOL,
    FiveThousandModel,
    build_model,
)
from agents.solvers.fivethousand_vi.run import _run_vi, warm_up_kernels
from agents.solvers.fivethousand_vi.two_player import TwoPlayerSolution
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules


def policy_of(solution: TwoPlayerSolution) -> np.ndarray:
    """The optimal player's bank decisions ``(K, K, T, 6)`` bool, exactly as
    :class:`agents.fivethousand.optimal.OptimalAgent` plays (ties within ``TIE_TOL`` bank)."""
    if solution.rules.choose_scoring_dice:
        raise NotImplementedError("fixed-policy tables cover the literal rules only")
    roll, bank = solution.tables()
    t = solution.model.n_slots
    with np.errstate(invalid="ignore"):
        pol = solution.model.bank_ok[:, None, :, None] & (
            bank[:, :, :t, None] >= roll[:, :, :t, :] - TIE_TOL)
    return np.ascontiguousarray(pol)


def _representative_states(model: FiveThousandModel):
    """For every decision ``(ia, ib, j, n)`` a real 5000 position: a throw that leaves ``n``
    dice (one scoring die among ``n + 1`` thrown, or one die scoring hot dice) and the turn
    total before it.  Returns the arrays of a :class:`~dice_env.fivethousand.game.
    FiveThousandState` in decision order."""
    k, t_slots = model.n_scores, model.n_slots
    fill = {0: [], 1: [2], 2: [2, 3], 3: [2, 2, 3], 4: [2, 2, 3, 3]}
    ia, ib, j, n = (a.ravel() for a in np.meshgrid(np.arange(k), np.arange(k),
                                                   np.arange(t_slots), np.arange(1, N_DICE + 1),
                                                   indexing="ij"))
    t = 50 * j
    die = np.where(t % 100 == 50, 5, 1)
    dice = np.zeros((len(ia), N_DICE), dtype=np.int8)
    for m in range(1, N_DICE + 1):
        sel = n == m
        others = fill[m] if m < N_DICE else []
        for d in (1, 5):
            rows = sel & (die == d)
            dice[rows] = R.pad_dice([d, *others])
    roll = R.roll_index_of(dice)
    pts = R.ROLL_POINTS[roll].astype(np.int64)
    left = R.dice_left_after(R.ROLL_SIZE[roll], R.ROLL_SCORING_DICE[roll])
    assert np.array_equal(left, n) and np.all(pts == np.where(die == 5, 50, 100))
    before = np.maximum(t - pts, 0)
    return ia, ib, j, n, dice, roll, before


def threshold_policy(model: FiveThousandModel, player: Any, chunk: int = 200_000) -> np.ndarray:
    """The bank decisions ``(K, K, T, 6)`` of a player that decides from the state alone.

    The player is asked once per decision ``(my score, opponent's score, turn total, dice
    left)``, through its ``act_batch`` (or ``act``) on the observation and mask the env would
    show for a representative throw (see :func:`_representative_states`).  Exact for players
    that look only at scores, turn total and dice left, such as
    :class:`~dice_env.fivethousand.bots.ThresholdBot`; a player that looks at the faces is
    only approximated.  Decisions the rules force (no bank allowed) are rolls.
    """
    from dice_env.fivethousand import game as G
    from dice_env.fivethousand.observation import encode_observation

    rules = model.rules
    if rules.choose_scoring_dice:
        raise NotImplementedError("fixed-policy tables cover the literal rules only")
    ia, ib, j, n, dice, roll, before = _representative_states(model)
    out = np.zeros((model.n_scores, model.n_scores, model.n_slots, N_DICE + 1), dtype=bool)
    act_batch = getattr(player, "act_batch", None)
    for s in range(0, len(ia), chunk):
        sl = slice(s, s + chunk)
        m = len(ia[sl])
        st = G.FiveThousandState.empty(m, 2)
        st.scores[:, 0] = model.scores[ia[sl]]
        st.scores[:, 1] = model.scores[ib[sl]]
        st.turn_total[:] = before[sl]
        st.dice[:] = dice[sl]
        st.roll[:] = roll[sl]
        obs = encode_observation(rules, st, np.zeros(m, dtype=np.int64))
        masks = G.action_mask(rules, st)
        if act_batch is not None:
            acts = np.asarray(act_batch(obs, masks.astype(np.int8)), dtype=np.int64)
        else:
            acts = np.array([player.act(o, mk.astype(np.int8)) for o, mk in zip(obs, masks)])
        bank = (acts == R.BANK) & masks[:, R.BANK]
        out[ia[sl], ib[sl], j[sl], n[sl]] = bank
    return out


def match_win_probabilities(rules: FiveThousandRules | dict | str | None,
                            policy_a: np.ndarray | None, policy_b: np.ndarray | None, *,
                            tol: float = DEFAULT_TOL, max_sweeps: int = 2000,
                            init: float | np.ndarray = 0.5) -> dict:
    """Exact win probabilities of a two-player match between fixed players A and B.

    ``policy_a`` / ``policy_b``: bank decisions ``(K, K, T, 6)`` (from :func:`policy_of` or
    :func:`threshold_policy`), or ``None`` for a player who *best responds* to the other (the
    maximum against that fixed opponent, not the minimax policy).  ``init``: the starting
    values of both players' tables (a number, or a ``(K, K)`` table such as the optimal
    ``win``, which speeds the evaluation up).  Returns ``a_first`` (A
    opens and wins), ``b_first`` (B opens, A wins), ``a_seat_balanced`` (their mean),
    ``w_a`` / ``w_b`` (win probability of the player to move at ``[own, other]``) and
    ``sweeps``.
    """
    model = build_model(rules)
    if model.rules.choose_scoring_dice:
        raise NotImplementedError("fixed-policy evaluation covers the literal rules only")
    if policy_a is None and policy_b is None:
        raise ValueError("one player at least must be fixed; solve_two_player solves the rest")
    k = model.n_scores
    w_a = np.array(np.broadcast_to(np.asarray(init, dtype=np.float64), (k, k)))
    w_b = w_a.copy()
    warm_up_kernels()
    stats = _run_vi(model, w_a, w_b, (policy_a, policy_b), tol, max_sweeps, 100_000)
    a_first = float(w_a[0, 0])
    b_first = 1.0 - float(w_b[0, 0])
    return {"a_first": a_first, "b_first": b_first, "a_seat_balanced": (a_first + b_first) / 2,
            "w_a": w_a, "w_b": w_b, "sweeps": stats["sweeps"]}

