"""The exact turn of ``N``-player 5000 (3 to 6; each player maximises its own chance of
winning, max-n) with vector-valued leaves: :func:`n_turn_leaves` (every bank of a batch of
score tuples resolved for ``N`` seats) and :func:`solve_n_turns` (the backward induction, the
mover deciding on its own component; compiled by numba in
:mod:`~agents.fivethousand.learned_value.kernel`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from agents.fivethousand.learned_value.kernel import solve_n_kernel
from agents.fivethousand.learned_value.turn import TIE_TOL, TurnModel, build_turn_model
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules

#: :attr:`NTurnLeaves.bank` code of a slot where the mover may not bank (``-1 - w`` is a win of
#: seat ``w`` of the mover's frame, ``>= 0`` a leaf state)
N_NO_BANK = -1000
#: states whose turn is solved in one go (bounds the memory of the leaves and bank values)
SOLVE_CHUNK = 4096


@cache
def _flat_throws(rules: FiveThousandRules) -> tuple[np.ndarray, ...]:
    """The turn model's throw tables as flat arrays for the compiled solve: ``start`` (the
    outcomes of ``n`` dice are ``start[n] .. start[n + 1]``), ``dj``, ``left``, ``prob``, and
    ``bust[n]``."""
    m = build_turn_model(rules)
    start, dj, left, prob = [0, 0], [], [], []
    bust = np.zeros(R.N_DICE + 1)
    for n in range(1, R.N_DICE + 1):
        th = m.throws[n]
        dj += th.dj.tolist()
        left += th.left.tolist()
        prob += th.prob.tolist()
        start.append(len(dj))
        bust[n] = th.bust
    return (np.array(start, dtype=np.int64), np.array(dj, dtype=np.int64),
            np.array(left, dtype=np.int64), np.array(prob, dtype=np.float64), bust)


def state_codes(model: TurnModel, idx: np.ndarray) -> np.ndarray:
    """``(B,)`` the code of turn-start states given as grid indices ``(B, N)`` (mover first):
    ``idx[:, 0] K^(N-1) + ... + idx[:, N-1]``."""
    idx = np.asarray(idx, dtype=np.int64)
    code = np.zeros(idx.shape[:-1], dtype=np.int64)
    for p in range(idx.shape[-1]):
        code = code * model.n_scores + idx[..., p]
    return code


def states_of_codes(model: TurnModel, codes: np.ndarray, num_players: int) -> np.ndarray:
    """The inverse of :func:`state_codes`: ``(B, N)`` grid indices."""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.empty(codes.shape + (num_players,), dtype=np.int64)
    for p in range(num_players - 1, -1, -1):
        codes, out[..., p] = np.divmod(codes, model.n_scores)
    return out


@dataclass
class NTurnLeaves:
    """Where the turns of ``B`` turn-start states of ``N``-player 5000 can end.

    Attributes:
        states: ``(L, N)`` the distinct turn-start states after those turns (grid indices, the
            *next* mover first: the seat after the one whose turn it was).
        bust: ``(B,)`` the row of ``states`` after a bust (the scores unchanged).
        bank: ``(B, T)`` after a bank of slot ``j``: a row of ``states``; ``-1 - w`` when seat
            ``w`` (of the mover's frame) reaches the target (the banker, or the receiver of a
            gift); :data:`N_NO_BANK` where the mover may not bank that total.
    """

    states: np.ndarray
    bust: np.ndarray
    bank: np.ndarray


def n_turn_leaves(model: TurnModel, idx: np.ndarray) -> NTurnLeaves:
    """The :class:`NTurnLeaves` of turn-start states ``idx`` ``(B, N)`` (grid indices, mover
    first): every allowed bank resolved by :func:`~dice_env.fivethousand.rules.resolve_bank`
    with ``N`` seats (bumps of everyone on the banker's new score, the overshoot gift to the
    lowest entered other player, exact-target wins)."""
    idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
    b, t_slots = len(idx), model.n_slots
    ok = model.bank_ok[idx[:, 0], :t_slots]
    row, j = np.nonzero(ok)
    out = R.resolve_bank(model.rules, model.scores[idx[row]], 0, 50 * j)
    live = out.winner < 0
    after = np.roll(out.scores[live], -1, axis=1)             # the next player moves
    codes = np.concatenate([state_codes(model, np.roll(idx, -1, axis=1)),
                            state_codes(model, model.score_index[after // 100])])
    uniq, inv = np.unique(codes, return_inverse=True)
    bank = np.full((b, t_slots), N_NO_BANK, dtype=np.int64)
    bank[row[live], j[live]] = inv[b:]
    bank[row[~live], j[~live]] = -1 - out.winner[~live]
    return NTurnLeaves(states_of_codes(model, uniq, idx.shape[1]), inv[:b].copy(), bank)


def leaf_values(leaves: NTurnLeaves, next_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(bust (B, N), bank (B, T, N))``: the win probabilities of every seat, in the mover's
    frame, after a bust and after banking each slot (NaN where not allowed), given
    ``next_values`` ``(L, N)``: the values of ``leaves.states`` in the next mover's frame."""
    v = np.roll(np.asarray(next_values, dtype=np.float64), 1, axis=1)  # to the mover's frame
    n = v.shape[1]
    bust = v[leaves.bust]
    code = leaves.bank
    bank = v[np.maximum(code, 0)]
    won = (code < 0) & (code > N_NO_BANK)
    bank[won] = np.eye(n)[-1 - code[won]]
    bank[code == N_NO_BANK] = np.nan
    return np.ascontiguousarray(bust), np.ascontiguousarray(bank)



@dataclass
class NTurnSolution:
    """The exact turns of ``B`` turn-start states of ``N``-player 5000 for given leaves.

    Attributes:
        start: ``(B, N)`` the win probability of every seat (mover's frame) at the turn start.
        bank_first: ``(B, T + 1, 6)`` bool, the mover's decision after a throw that leaves
            turn total slot ``j`` and ``n`` dice to roll on: bank (True) or roll on; ties
            within 1e-12 go to banking, and a bank the rules forbid is never chosen (slot
            ``T``, past the target, banks: any action there is worth a bust).
        roll, bank: with ``tables``: ``(B, T + 1, 6)`` the mover's win probability after
            rolling on, ``(B, T + 1)`` after banking (NaN where not allowed); else None.
    """

    start: np.ndarray
    bank_first: np.ndarray
    roll: np.ndarray | None = None
    bank: np.ndarray | None = None


def solve_n_turns(model: TurnModel, idx, value_fn, tables: bool = False) -> NTurnSolution:
    """Solve the turns of turn-start states ``idx`` ``(B, N)`` (grid indices, mover first)
    exactly, every seat maximising its own win probability -- here the mover, who alone
    decides in its turn.

    ``value_fn(states)`` gives the leaves: ``(L, N)`` grid indices (mover first) -> ``(L, N)``
    the probability that each seat of that frame wins from the start of that turn (the
    network, or any table).  Inside the turn the state is ``(turn total slot j, dice n)``; a
    bust hands the turn on with the scores unchanged, a bank is resolved by
    :func:`n_turn_leaves`; turn totals only grow, so backward induction over ``j`` from the
    target down gives every value (a total past the target is worth a bust: a bank there is
    a lost gift).  The mover's decision compares its own component only; the vectors carry
    what the chosen actions give everyone.  Runs in chunks of :data:`SOLVE_CHUNK` states.
    """
    idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
    b, p = idx.shape
    t_slots = model.n_slots
    start = np.empty((b, p))
    pol = np.zeros((b, t_slots + 1, R.N_DICE + 1), dtype=np.bool_)
    roll = np.full((b, t_slots + 1, R.N_DICE + 1), np.nan) if tables else None
    bank = np.full((b, t_slots + 1), np.nan) if tables else None
    dummy_r, dummy_b = np.empty((0, 0, 0)), np.empty((0, 0))
    throws = _flat_throws(model.rules)
    for lo in range(0, b, SOLVE_CHUNK):
        hi = min(lo + SOLVE_CHUNK, b)
        leaves = n_turn_leaves(model, idx[lo:hi])
        vals = np.asarray(value_fn(leaves.states), dtype=np.float64)
        if vals.shape != leaves.states.shape:
            raise ValueError(f"value_fn returned shape {vals.shape}, expected "
                             f"{leaves.states.shape}")
        bust_val, bank_val = leaf_values(leaves, vals)
        solve_n_kernel(bust_val, bank_val, *throws, TIE_TOL, start[lo:hi], pol[lo:hi],
                        roll[lo:hi] if tables else dummy_r, bank[lo:hi] if tables else dummy_b,
                        tables)
    return NTurnSolution(start, pol, roll, bank)


