"""Three-player 5000: a max-n profile, evaluated exactly, and its distance from an equilibrium.

The game
--------
Three players (seats 0, 1, 2; seat 0 opens), the rules of :mod:`dice_env.fivethousand.rules`
(literal: every scoring die is set aside).  A *turn-start state* is the three scores in turn
order from the player to move, ``(a, b, c)``, each on the 2-player solver's grid (0, then
``entry`` .. ``target - 100`` by 100: 46 values, 97,336 states for 5000).  Its value is the
vector ``W[a, b, c] = (P(mover wins), P(next wins), P(the one after wins))``.  Inside a turn
the mover decides after every throw that scored, at ``(scores, turn total t, n dice left)``:
bank (when :func:`~dice_env.fivethousand.rules.bank_allowed`) or roll the ``n`` dice.  A bust
passes the turn to the next player; a bank is resolved by
:func:`~dice_env.fivethousand.rules.resolve_bank` with three seats (everyone on the banker's new
score is bumped to 0; an overshoot goes to the lowest *entered* other player -- the first
after the banker on a tie -- and is lost if nobody has entered or if it would pass the target;
exact target wins, for the receiver of a gift too).  The throws are the 2-player model's
tables (:func:`agents.solvers.fivethousand_vi.build_model`).

Each player maximises its own probability of winning (*max-n*).  With two players this is the
zero-sum game that :mod:`~agents.solvers.fivethousand_vi` solves; with three it need not have a
pure stationary equilibrium, and plain max-n value iteration need not converge: where the best
responses of a cycle of turn-start states chase each other, the greedy policies can flip for
ever.  So the player shipped is defined by a procedure, not as "the" equilibrium.

The shipped profile (``solve_three_player``)
--------------------------------------------
1. **Max-n value iteration.**  The states are grouped by the multiset of their scores (a
   *group*: the up to 6 orders of ``{a, b, c}``, made of rotation cycles
   ``(a, b, c) -> (b, c, a) -> (c, a, b)``), and groups in *levels* of equal score sum.  A
   bank raises the sum; a bust, a lost bank and entering onto an equal score keep the group;
   only bumps lead to a lower level.  A sweep visits the levels from the highest sum down;
   the groups of a level do not read each other (checked) and run in parallel.  Within a
   sweep a group is solved with the rest of the table fixed:

   a. *Rounds*: every state's turn is computed against the current values -- each decision
      the mover's best response for its own component, **ties (within 1e-12) to banking** --
      as an affine function ``C + q L`` of the value ``L`` of the state after a bust; the
      states of each rotation cycle are then solved together exactly (their decisions
      fixed).  Rounds repeat until no value of the group moves by more than the local
      tolerance (at most ``max_local`` = 40 rounds).
   b. If that did not settle, *one state at a time*: each state best-responds to the current
      values and its cycle is re-solved at once, until a whole pass changes no decision (at
      most 40 passes).  A group settled this way is an equilibrium of its own subgame.
   c. Still unsettled -- the best responses keep flipping: the group keeps, among the
      profiles of its rounds (a), the one with the smallest one-turn deviation gain against
      its own values (from the second sweep on the incoming profile is a candidate too, so
      the choice does not alternate from sweep to sweep); ties to the earliest.

   From sweep ``freeze_from`` (10) on, groups are *frozen* -- their decisions kept, their
   values only evaluated from the next sweep on: (i) a group that did not settle in the
   sweep; (ii) when the decisions of the whole table are those of ``k`` sweeps before
   (``2 <= k <= 8``: a cycle across groups, each settled but each best-responding to the
   others' last move), every group whose decisions changed in those ``k`` sweeps.  This is
   what makes the iteration stop: left free, such groups and the groups that bank into them
   chase each other for ever, sweep after sweep.  Sweeps start from ``W = 1/3`` everywhere
   and stop when no value moves by more than ``tol`` (1e-9) and every free group settled, or
   after ``max_sweeps`` (200).
2. **The policy** ``pi`` is the decisions kept for every ``(state, turn total, dice left)``
   after the last sweep (beyond the last total at which a bank changes anything, every action
   is worth a bust and ``pi`` banks where allowed).  It is deterministic: fixed sweep order,
   fixed tie rule, the parallel groups never read each other.  ``pi`` is a best response
   everywhere except in the frozen groups (up to the tolerances); the report lists them.
3. **Exact evaluation.**  ``pi`` is held fixed and evaluated with the same machinery (cycles
   solved exactly, bumps iterated) until no value moves by more than ``eval_tol`` (1e-11):
   the probabilities that each player wins under ``pi``.  It starts from the iteration's
   values when the turns under ``pi`` are checked to form an absorbing chain (from every
   state the game ends within ``N`` turns with positive probability: the fixed point is
   unique), else from ``W = 0`` (whose limit is the least fixed point, the probabilities).  Two
   independent Bellman checks (the backward turn recursion, and the forward distribution of
   where each turn ends) give the residual.  These values -- not the iteration's -- are the
   shipped player's values: ``agents.make("optimal", "fivethousand", num_players=3)`` plays
   ``pi`` and its ``advise`` gives every action's exact win probability under ``pi``.
4. **Distance from an equilibrium.**  Against those exact values, for every state: the gain of
   the mover's best one-turn deviation (every decision of one turn free, the following turns
   by ``pi``), at the turn start and at the worst single decision; over all states, and over
   the states reachable from 0-0-0 under ``pi`` with their expected visits (the turn-by-turn
   distribution of the game under ``pi``, summed).  A gain of 0 everywhere would make ``pi`` a
   subgame-perfect equilibrium (one-shot deviation principle); the report gives how far from
   0 it is, and which groups were frozen (``frozen_states``: the policy cycled there).

The same code with ``num_players=2`` solves the two-player game (the reduction check: it
reproduces :func:`~agents.solvers.fivethousand_vi.solve_two_player`'s 0.5151345761).
``choose_scoring_dice`` is not supported (the policy table holds bank / roll decisions only).

Tables are cached on disk like the 2-player ones (:mod:`agents.solvers.cache`: the key holds
``FORMAT_VERSION``, the rules and the solver's parameters; atomic writes; a corrupt or foreign
file is reported with :class:`~agents.solvers.cache.CacheCorruptionWarning` and solved again).

Public API: :func:`build_three_model`, :func:`solve_three_player`,
:func:`load_or_solve_three_player`, :class:`ThreePlayerSolution`.
"""

from __future__ import annotations

import hashlib
import os
import time
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numba
import numpy as np

from agents.solvers import cache as C
from agents.solvers import fivethousand_three_kernels as K3
from agents.solvers import fivethousand_vi as VI
from agents.solvers.fivethousand_vi import _last_change, _save, coerce_rules
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules

__all__ = [
    "FORMAT_VERSION",
    "ThreeModel",
    "ThreePlayerSolution",
    "build_three_model",
    "load_or_solve_three_player",
    "solve_three_player",
]

#: Version of the cached table's format and of the solver's semantics; part of the cache key.
FORMAT_VERSION = 1
DEFAULT_TOL = 1e-9
EVAL_TOL = 1e-11
MAX_SWEEPS = 200
MAX_LOCAL = 40
#: from this sweep on, groups whose decisions keep flipping are frozen (see _run_sweeps)
FREEZE_FROM = 10
#: the longest period of a cycle of the whole table's decisions that is looked for
CYCLE_MAX = 8
#: ties between banking and rolling on closer than this (mover's component) go to banking
TIE_TOL = VI.TIE_TOL
N_DICE = R.N_DICE
#: gains above this count as a state where the profile is not an equilibrium
GAIN_EPS = 1e-9


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ThreeModel:
    """The tables of the ``P``-player max-n kernels (``P`` = 3, or 2 for the reduction).

    Attributes:
        base: the 2-player model of the same rules (score grid, ``bank_ok``, throw tables).
        num_players: ``P``.
        st_idx: ``(S, P)`` the score indices of each state, mover first (``S = K ** P``;
            ``s = i_0 K^(P-1) + ... + i_(P-1)``).
        st0: ``(S,)`` the mover's score index; ``rot`` ``(S,)`` the state after a bust.
        bank_next: ``(S, T)`` the state after banking slot ``j`` (or ``-1 - w``: player ``w``
            of the mover's frame wins); ``j_hi`` ``(S,)`` the last slot where a bank changes
            anything.
        grp_cyc, cyc_start, cyc_states: group ``g`` holds the cycles ``grp_cyc[g] ..
            grp_cyc[g + 1]``; cycle ``c`` the states ``cyc_states[cyc_start[c] ..
            cyc_start[c + 1]]``, each the bust state of the one before.
        level_start, level_sums: level ``l`` holds the groups ``level_start[l] ..
            level_start[l + 1]`` (highest score sum first), of score sum ``level_sums[l]``.
        group_of: ``(S,)`` the group of each state.
    """

    rules: FiveThousandRules
    num_players: int
    base: VI.FiveThousandModel
    st_idx: np.ndarray
    st0: np.ndarray
    rot: np.ndarray
    bank_next: np.ndarray
    j_hi: np.ndarray
    grp_cyc: np.ndarray
    cyc_start: np.ndarray
    cyc_states: np.ndarray
    level_start: np.ndarray
    level_sums: np.ndarray
    group_of: np.ndarray = field(repr=False)

    @property
    def n_scores(self) -> int:
        return self.base.n_scores

    @property
    def n_states(self) -> int:
        return len(self.st0)

    @property
    def n_slots(self) -> int:
        return self.base.n_slots

    @property
    def n_groups(self) -> int:
        return len(self.grp_cyc) - 1

    def state_index(self, scores) -> np.ndarray:
        """Flat state indices of scores ``(..., P)`` in turn order from the mover
        (``ValueError`` for a score off the grid)."""
        s = np.asarray(scores, dtype=np.int64)
        if s.shape[-1] != self.num_players:
            raise ValueError(f"expected {self.num_players} scores per state, got shape "
                             f"{s.shape}")
        idx = self.base.index(s)
        out = np.zeros(s.shape[:-1], dtype=np.int64)
        for p in range(self.num_players):
            out = out * self.n_scores + idx[..., p]
        return out

    def scores_of(self, s) -> tuple[int, ...]:
        """The scores of state ``s``, mover first."""
        return tuple(int(x) for x in self.base.scores[self.st_idx[int(s)]])

    def kernel_tables(self) -> tuple:
        """``rot, bank_ok, bank_next, j_hi, st0`` and the throw tables, as the kernels take
        them (after the policy arguments)."""
        b = self.base
        return (self.rot, b.bank_ok, self.bank_next, self.j_hi, self.st0, b.bust_prob,
                b.grp_start, b.grp_prob, b.opt_start, b.opt_slot, b.opt_left)


@lru_cache(maxsize=4)
def _build_three_model(rules: FiveThousandRules, num_players: int) -> ThreeModel:
    if rules.choose_scoring_dice:
        raise NotImplementedError("the max-n solver covers the literal rules only "
                                  "(choose_scoring_dice=False)")
    if num_players not in (2, 3):
        raise ValueError(f"num_players must be 2 or 3, got {num_players}")
    base = VI.build_model(rules)
    p, k, n_slots = num_players, base.n_scores, base.n_slots
    n_states = k ** p
    st_idx = np.stack(np.unravel_index(np.arange(n_states), (k,) * p), axis=1).astype(np.int64)
    weights = k ** np.arange(p - 1, -1, -1, dtype=np.int64)
    st0 = np.ascontiguousarray(st_idx[:, 0])
    rot = np.roll(st_idx, -1, axis=1) @ weights
    scores = base.scores
    t = 50 * np.arange(n_slots, dtype=np.int64)

    # every allowed bank through resolve_bank, the banker in seat 0 of its own frame
    bank_next = np.full((n_states, n_slots), -1, dtype=np.int64)
    for ia in range(k):
        js = np.flatnonzero(base.bank_ok[ia])
        if js.size == 0:
            continue
        ss = np.flatnonzero(st0 == ia)
        s_rep, j_rep = np.repeat(ss, len(js)), np.tile(js, len(ss))
        out = R.resolve_bank(rules, scores[st_idx[s_rep]], np.zeros(len(s_rep), np.int64),
                             t[j_rep])
        live = out.winner < 0
        nxt = -1 - out.winner  # the winner's seat is its place in the banker's frame
        new = out.scores[live]
        if np.any((new % 100 != 0) | (new >= rules.target) | (new < 0)):
            raise RuntimeError("resolve_bank produced a score outside the solver's grid")
        nidx = base.index(new)
        nxt[live] = np.roll(nidx, -1, axis=1) @ weights  # the next player moves
        bank_next[s_rep, j_rep] = nxt
    changes = base.bank_ok[st0] & (bank_next != rot[:, None])
    j_hi = _last_change(changes)

    # beyond the target every bank must be lost (what makes the table's cap exact)
    for extra in (rules.target + 100, rules.target + 4400, 2 * rules.target + 4400):
        beyond = R.resolve_bank(rules, scores[st_idx], np.zeros(n_states, np.int64),
                                np.full(n_states, extra))
        if np.any(beyond.winner >= 0) or np.any(beyond.scores != scores[st_idx]):
            raise RuntimeError("a bank above the target changed the scores; the solver's "
                               "turn-total cap assumes it cannot")

    # groups (multisets), their rotation cycles, levels of equal score sum
    key = np.sort(st_idx, axis=1) @ weights
    sums = scores[st_idx].sum(axis=1)
    orbit = [np.arange(n_states)]
    for _ in range(p - 1):
        orbit.append(rot[orbit[-1]])
    rep = np.min(np.stack(orbit), axis=0)
    reps = np.flatnonzero(rep == np.arange(n_states))
    order = np.lexsort((reps, key[reps], -sums[reps]))  # by sum (desc), group, cycle
    reps = reps[order]
    cyc_states, cyc_start, grp_cyc, level_start, level_sums = [], [0], [], [], []
    last_key = last_sum = None
    for c, r0 in enumerate(reps.tolist()):
        if key[r0] != last_key:
            if sums[r0] != last_sum:
                level_start.append(len(grp_cyc))
                level_sums.append(int(sums[r0]))
                last_sum = sums[r0]
            grp_cyc.append(c)
            last_key = key[r0]
        x = r0
        while True:
            cyc_states.append(x)
            x = int(rot[x])
            if x == r0:
                break
        cyc_start.append(len(cyc_states))
    grp_cyc.append(len(reps))
    level_start.append(len(grp_cyc) - 1)
    cyc_states = np.array(cyc_states, dtype=np.int64)
    cyc_start = np.array(cyc_start, dtype=np.int64)
    grp_cyc = np.array(grp_cyc, dtype=np.int64)
    if len(cyc_states) != n_states:
        raise RuntimeError("the rotation cycles do not cover the states")
    group_of = np.empty(n_states, dtype=np.int64)
    for g in range(len(grp_cyc) - 1):
        group_of[cyc_states[cyc_start[grp_cyc[g]]:cyc_start[grp_cyc[g + 1]]]] = g

    # parallel safety: what a state reads at its own score sum must be in its own group
    reader = np.repeat(np.arange(n_states), n_slots).reshape(n_states, n_slots)
    ok = changes & (np.arange(n_slots)[None, :] <= j_hi[:, None]) & (bank_next >= 0)
    readers = np.concatenate([reader[ok], np.arange(n_states)])
    reads = np.concatenate([bank_next[ok], rot])
    same_level = sums[readers] == sums[reads]
    if np.any(same_level & (group_of[readers] != group_of[reads])):
        raise RuntimeError("two groups of one score-sum level read each other; the parallel "
                           "sweep would race")

    arrays = [st_idx, st0, rot, bank_next, j_hi, grp_cyc, cyc_start, cyc_states, group_of]
    for a in arrays:
        a.setflags(write=False)
    return ThreeModel(rules, p, base, st_idx, st0, np.ascontiguousarray(rot), bank_next, j_hi,
                      grp_cyc, cyc_start, cyc_states,
                      np.array(level_start, dtype=np.int64),
                      np.array(level_sums, dtype=np.int64), group_of)


def build_three_model(rules: FiveThousandRules | dict | str | None = None,
                      num_players: int = 3) -> ThreeModel:
    """The max-n tables of ``rules`` (default 5000) for ``num_players`` (3, or 2), built once."""
    return _build_three_model(coerce_rules(rules), int(num_players))


# --------------------------------------------------------------------------------------------
# The solution
# --------------------------------------------------------------------------------------------
@dataclass
class ThreePlayerSolution:
    """The shipped max-n profile of ``num_players``-player 5000 and its exact values.

    Attributes:
        rules, num_players: the game.
        values: ``(S, P)`` the exact win probabilities under the profile ``policy``, at the
            start of a turn, in turn order from the mover (see :class:`ThreeModel`).
        policy: ``(S, T, 6)`` bool, bank at ``(state, slot, dice left)``.
        vi_values: ``(S, P)`` the values the max-n iteration ended with (not the shipped
            values: see the module doc).
        gain_start, gain_decision: ``(S,)`` the mover's best one-turn deviation gain at the
            turn start / at the worst single decision of the turn.
        visits: ``(S,)`` expected visits of each turn-start state in a game from 0-0-0 under
            the profile.
        frozen: ``(S,)`` bool, the states of the frozen groups (where the max-n iteration
            cycled and the decisions were fixed; ``pi`` is a best response elsewhere).
        facts: the JSON-serialisable record (see :func:`solve_three_player`).
        source, cache_path: ``"solved"`` or ``"cache"``, and the file.
    """

    rules: FiveThousandRules
    num_players: int
    values: np.ndarray
    policy: np.ndarray
    vi_values: np.ndarray
    gain_start: np.ndarray
    gain_decision: np.ndarray
    visits: np.ndarray
    frozen: np.ndarray
    facts: dict
    source: str = "solved"
    cache_path: Path | None = None

    def __post_init__(self) -> None:
        self.model = build_three_model(self.rules, self.num_players)
        m = self.model
        shapes = {"values": (m.n_states, self.num_players),
                  "vi_values": (m.n_states, self.num_players),
                  "policy": (m.n_states, m.n_slots, N_DICE + 1),
                  "gain_start": (m.n_states,), "gain_decision": (m.n_states,),
                  "visits": (m.n_states,), "frozen": (m.n_states,)}
        for name, shape in shapes.items():
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} has shape {getattr(self, name).shape}, expected "
                                 f"{shape}")
        self.values = np.ascontiguousarray(self.values, dtype=np.float64)
        self.policy = np.ascontiguousarray(self.policy, dtype=np.bool_)
        self.frozen = np.asarray(self.frozen, dtype=bool)

    @property
    def seat_win_probabilities(self) -> np.ndarray:
        """``(P,)`` the probability that each seat wins a game from 0-0-0 (seat 0 opens)."""
        return self.values[0].copy()

    @property
    def seconds(self) -> float:
        return float(self.facts.get("seconds", 0.0))

    def win_probabilities(self, scores) -> np.ndarray:
        """Win probabilities at the start of a turn: scores ``(..., P)`` in turn order from
        the mover -> ``(..., P)`` in the same order."""
        return self.values[self.model.state_index(scores)]

    def bank_decision(self, scores, turn_total, dice_left) -> np.ndarray:
        """The profile's decision (True = bank), batched: ``scores`` ``(N, P)`` from the
        mover, ``turn_total`` with the current throw, ``dice_left`` 1..5.  Past the target
        every bank is worth a bust: True (the tie rule; whether it is allowed is the rules'
        business)."""
        s = self.model.state_index(scores)
        slot = self.model.base.slot(turn_total)
        n = np.asarray(dice_left, dtype=np.int64)
        if np.any((n < 1) | (n > N_DICE)):
            raise ValueError("dice_left must be 1..5")
        past = slot >= self.model.n_slots
        inside = self.policy[s, np.minimum(slot, self.model.n_slots - 1), n]
        return np.where(past, True, inside)

    def state_tables(self, scores) -> tuple[np.ndarray, np.ndarray]:
        """``(roll, bank)`` of one state (scores from the mover): ``roll[slot, n]`` ``(P,)``
        the win probabilities of rolling ``n`` dice on at turn total ``50 * slot`` and then
        following the profile, ``bank[slot]`` of banking there (NaN where not allowed); slot
        ``T``: any total past the target."""
        m = self.model
        s = int(m.state_index(scores))
        t, p = m.n_slots, self.num_players
        roll = np.empty((t + 1, N_DICE + 1, p))
        bank = np.empty((t + 1, p))
        K3.state_tables(s, self.values, self.policy, TIE_TOL, *m.kernel_tables(), roll, bank)
        return roll, bank


# --------------------------------------------------------------------------------------------
# Solving
# --------------------------------------------------------------------------------------------
def _run_sweeps(model: ThreeModel, w: np.ndarray, pol: np.ndarray, use_pol: bool, tol: float,
                max_sweeps: int, max_local: int, parallel: bool, progress: bool, what: str,
                freeze_from: int | None = None) -> dict:
    """Sweeps in place until no value moves by more than ``tol``; the statistics.

    The local tolerance of a group is a thousandth of the previous sweep's largest change
    (1e-4 in the first sweep), never below ``tol / 10``, as in the 2-player solver.  Max-n
    (``use_pol`` false): from sweep ``freeze_from`` on (counted from 1), groups are *frozen*
    -- their decisions kept, their values evaluated -- from the next sweep on: a group that did
    not settle in the sweep, and, when the decisions of the whole table are those of
    ``k`` sweeps before (``2 <= k <= CYCLE_MAX``), every group whose decisions changed in
    those ``k`` sweeps."""
    sweep = K3.sweep_parallel if parallel else K3.sweep_serial
    floor = tol / 10.0
    local = max(1e-4, floor)
    stats = np.zeros((model.n_groups, 5))
    frozen = np.zeros(model.n_groups, dtype=np.bool_)
    frozen_at = np.zeros(model.n_groups, dtype=np.int64)
    changes, unsettled, rounds, flipped = [], [], [], []
    history: list[tuple[bytes, np.ndarray]] = []  # (decisions digest, groups flipped)
    cycles: list[dict] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=f"5000 {model.num_players}-player {what}", unit="sweep", leave=False)
    converged = False
    try:
        for n in range(1, max_sweeps + 1):
            sweep(model.level_start, model.grp_cyc, model.cyc_start, model.cyc_states, w, pol,
                  use_pol, frozen, n > 1, local, max_local, TIE_TOL, *model.kernel_tables(),
                  stats)
            biggest = float(stats[:, 0].max())
            changes.append(biggest)
            stuck = (stats[:, 2] > 0) & ~frozen
            unsettled.append(int(stuck.sum()))
            rounds.append(int(stats[:, 1].sum()))
            flipped.append(int(np.sum(stats[:, 4] > 0)))
            if bar is not None:
                bar.update(1)
                bar.set_postfix(change=f"{biggest:.2e}", unsettled=unsettled[-1],
                                frozen=int(frozen.sum()))
            if biggest <= tol and not stuck.any():
                converged = True
                break
            if not use_pol and freeze_from is not None:
                digest = hashlib.blake2b(pol.view(np.uint8), digest_size=16).digest()
                history.append((digest, stats[:, 4] > 0))
                history = history[-(CYCLE_MAX + 1):]
                new = stuck.copy() if n >= freeze_from else np.zeros_like(stuck)
                repeat = len(history) > 1 and history[-2][0] != digest  # changed, and ...
                for k in range(2, len(history)):
                    if repeat and n >= freeze_from and history[-1 - k][0] == digest:
                        moved = np.logical_or.reduce([h[1] for h in history[-k:]]) & ~frozen
                        cycles.append({"sweep": n, "period": k, "groups": int(moved.sum())})
                        new |= moved
                        break
                frozen_at[new & ~frozen] = n
                frozen |= new
            local = max(floor, 1e-3 * biggest)
    finally:
        if bar is not None:
            bar.close()
    return {"sweeps": len(changes), "sweep_changes": changes, "unsettled_per_sweep": unsettled,
            "groups_flipped_per_sweep": flipped, "rounds_per_sweep": rounds,
            "converged": converged, "last_stats": stats.copy(), "frozen": frozen,
            "frozen_at": frozen_at, "decision_cycles": cycles}


def warm_up_kernels() -> float:
    """Compile (or load from numba's cache) the max-n kernels on a tiny game; seconds."""
    t0 = time.perf_counter()
    m = build_three_model(FiveThousandRules(target=300, entry=100), 3)
    w = np.full((m.n_states, 3), 1 / 3)
    pol = np.zeros((m.n_states, m.n_slots, N_DICE + 1), dtype=np.bool_)
    for parallel in (False, True):
        for use_pol in (False, True):
            _run_sweeps(m, w, pol, use_pol, 1e-3, 2, 2, parallel, False, "warm-up", 1)
    gains = np.empty(m.n_states)
    K3.deviation_gains(w, pol, TIE_TOL, *m.kernel_tables(), np.empty_like(w), gains,
                       gains.copy(), np.empty(m.n_states, np.int64))
    nxt = np.empty((m.n_states, m.n_slots + 1), np.int64)
    prob = np.empty((m.n_states, m.n_slots + 1))
    K3.transitions(pol, *m.kernel_tables(), nxt, prob)
    K3.occupancy(nxt, prob, 0, 1e-3, 2, np.zeros(m.n_states), np.zeros(2))
    K3.forward_values(w, nxt, prob, np.empty_like(w))
    K3.state_tables(0, w, pol, TIE_TOL, *m.kernel_tables(),
                    np.empty((m.n_slots + 1, N_DICE + 1, 3)), np.empty((m.n_slots + 1, 3)))
    return time.perf_counter() - t0


def _group_states(model: ThreeModel, groups: np.ndarray) -> list[list[tuple[int, ...]]]:
    out = []
    for g in groups.tolist():
        lo, hi = model.cyc_start[model.grp_cyc[g]], model.cyc_start[model.grp_cyc[g + 1]]
        out.append([model.scores_of(s) for s in model.cyc_states[lo:hi]])
    return out


def profile_transitions(model: ThreeModel, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(nxt, prob)`` ``(S, T + 1)``: where the turn from each state ends under ``policy``
    (:func:`~agents.solvers.fivethousand_three_kernels.transitions`)."""
    nxt = np.empty((model.n_states, model.n_slots + 1), dtype=np.int64)
    prob = np.empty((model.n_states, model.n_slots + 1))
    K3.transitions(policy, *model.kernel_tables(), nxt, prob)
    return nxt, prob


def turns_to_end(nxt: np.ndarray, prob: np.ndarray, max_turns: int = 1000) -> int | None:
    """The smallest ``N`` such that from *every* state the game ends within ``N`` turns with
    positive probability (``None`` if not within ``max_turns``).  When it exists, the turns
    under the profile form an absorbing chain: the game ends surely from every state, and the
    profile's values are the unique fixed point of its evaluation equations."""
    u = np.zeros(len(nxt))
    out = np.empty_like(u)
    for n in range(1, max_turns + 1):
        K3.ends_within(nxt, prob, u, out)
        u, out = out, u
        if u.min() > 0.0:
            return n
    return None


def analyse_profile(model: ThreeModel, values: np.ndarray, policy: np.ndarray, *,
                    occupancy_tol: float = 1e-13, max_turns: int = 100_000,
                    transitions: tuple[np.ndarray, np.ndarray] | None = None) -> dict:
    """Bellman checks, one-turn deviation gains and the occupancy of a fixed profile.

    Returns the arrays ``gain_start``, ``gain_decision``, ``flips``, ``visits`` and the facts
    (JSON-serialisable): ``residual`` (backward turn recursion), ``forward_residual``
    (forward end-of-turn distribution), the gains over all / reachable states, the reachable
    states and their expected visits, ``expected_turns`` of a game from 0-0-0 (every player's
    turns) and ``unfinished_probability`` (the probability mass still playing when the
    summation stopped).
    """
    s_n, p = values.shape
    start_value = np.empty_like(values)
    gain_start = np.empty(s_n)
    gain_decision = np.empty(s_n)
    flips = np.empty(s_n, dtype=np.int64)
    K3.deviation_gains(values, policy, TIE_TOL, *model.kernel_tables(), start_value,
                       gain_start, gain_decision, flips)
    nxt, prob = transitions if transitions is not None else profile_transitions(model, policy)
    fwd = np.empty_like(values)
    K3.forward_values(values, nxt, prob, fwd)
    visits = np.zeros(s_n)
    per_turn = np.zeros(max_turns)
    turns = K3.occupancy(nxt, prob, 0, occupancy_tol, max_turns, visits, per_turn)
    del nxt, prob
    reach = visits > 0
    gs = np.maximum(gain_start, 0.0)
    gd = np.maximum(gain_decision, 0.0)

    def where_max(gain, mask):
        i = int(np.flatnonzero(mask)[np.argmax(gain[mask])])
        return {"gain": float(gain[i]), "scores": list(model.scores_of(i)),
                "visits": float(visits[i])}

    everywhere = np.ones(s_n, dtype=bool)
    facts = {
        "residual": float(np.max(np.abs(start_value - values))),
        "forward_residual": float(np.max(np.abs(fwd - values))),
        "min_gain_start": float(gain_start.min()),
        "max_gain_start_all": where_max(gs, everywhere),
        "max_gain_decision_all": where_max(gd, everywhere),
        "max_gain_start_reachable": where_max(gs, reach),
        "max_gain_decision_reachable": where_max(gd, reach),
        "states_with_gain": int(np.sum(gs > GAIN_EPS)),
        "reachable_states_with_gain": int(np.sum(reach & (gs > GAIN_EPS))),
        "decisions_flipping": int(flips.sum()),
        "reachable_states": int(reach.sum()),
        "expected_turns": float(visits.sum()),
        "visits_at_states_with_gain": float(visits[gs > GAIN_EPS].sum()),
        "visit_weighted_gain": float(np.dot(visits, gs)),
        "unfinished_probability": float(per_turn[turns - 1]),
        "gain_eps": GAIN_EPS,
    }
    return {"gain_start": gain_start, "gain_decision": gain_decision, "flips": flips,
            "visits": visits, "facts": facts}


def solve_three_player(rules: FiveThousandRules | dict | str | None = None, *,
                       num_players: int = 3, tol: float = DEFAULT_TOL,
                       eval_tol: float = EVAL_TOL, max_sweeps: int = MAX_SWEEPS,
                       max_local: int = MAX_LOCAL, freeze_from: int = FREEZE_FROM,
                       threads: int | None = None, parallel: bool | None = None,
                       progress: bool = False) -> ThreePlayerSolution:
    """Compute the shipped max-n profile now (module doc, steps 1-4), without the cache.

    Args:
        rules: the game (default 5000; literal rules only).
        num_players: 3 (or 2: the reduction to the two-player game).
        tol, max_sweeps, max_local, freeze_from: the max-n iteration (module doc, step 1).
        eval_tol: the exact evaluation's stop.
        threads: numba threads (default: all); ``parallel``: spread the groups of a level over
            them (default: when more than one thread).  The results do not depend on either.
        progress: tqdm bars over the sweeps.

    ``facts`` of the solution: ``seat_win_probabilities`` (from 0-0-0, seat 0 opens) and
    ``sum_at_start``; ``vi`` (sweeps, converged, the largest change, the unsettled free
    groups, the groups whose decisions changed and the rounds of each sweep);
    ``vi_seat_values`` (the iteration's values at 0-0-0); ``policy_cycled`` (some group was
    frozen, or the iteration did not converge); ``frozen_groups``, ``frozen_state_count``,
    ``frozen_states`` (the scores of the states of each frozen group, mover first) and
    ``frozen_at_sweep``; ``unsettled_groups`` (in the last sweep, frozen ones included);
    ``evaluation`` (sweeps, converged); the :func:`analyse_profile` facts; the sizes;
    ``seconds`` (the whole call) and ``timings``.  ``vi["decision_cycles"]`` lists the
    cycles of the whole table's decisions that were found (sweep, period, groups frozen).
    """
    rules = coerce_rules(rules)
    t0 = time.perf_counter()
    model = build_three_model(rules, num_players)
    t1 = time.perf_counter()
    compile_s = warm_up_kernels()
    old = numba.get_num_threads()
    if threads:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        if parallel is None:
            parallel = numba.get_num_threads() > 1
        threads_used = numba.get_num_threads()
        p = model.num_players
        t2 = time.perf_counter()
        w = np.full((model.n_states, p), 1.0 / p)
        pol = np.zeros((model.n_states, model.n_slots, N_DICE + 1), dtype=np.bool_)
        vi = _run_sweeps(model, w, pol, False, tol, max_sweeps, max_local, parallel, progress,
                         "max-n iteration", freeze_from)
        t3 = time.perf_counter()
        trans = profile_transitions(model, pol)
        ends = turns_to_end(*trans)
        # absorbing: the fixed point is unique, start from the iteration's values; otherwise
        # from 0, whose limit is the least fixed point (the probabilities)
        values = w.copy() if ends is not None else np.zeros_like(w)
        ev = _run_sweeps(model, values, pol, True, eval_tol, 10 * max_sweeps, 1000, parallel,
                         progress, "policy evaluation")
        ev["start"] = "max-n values" if ends is not None else "zero"
        ev["turns_to_end"] = ends
        t4 = time.perf_counter()
        analysis = analyse_profile(model, values, pol, transitions=trans)
        del trans
        t5 = time.perf_counter()
    finally:
        numba.set_num_threads(old)
    last = vi.pop("last_stats")
    frozen = np.flatnonzero(vi.pop("frozen"))
    frozen_at = vi.pop("frozen_at")
    for key in ("last_stats", "frozen", "frozen_at", "decision_cycles"):
        ev.pop(key)
    unsettled = np.flatnonzero(last[:, 2] > 0)  # frozen groups included
    facts = {
        "num_players": p,
        "rules": rules.knobs(),
        "seat_win_probabilities": [float(x) for x in values[0]],
        "sum_at_start": float(values[0].sum()),
        "vi": vi,
        "vi_seat_values": [float(x) for x in w[0]],
        "policy_cycled": bool(frozen.size > 0 or unsettled.size > 0 or not vi["converged"]),
        "frozen_groups": int(frozen.size),
        "frozen_states": _group_states(model, frozen),
        "frozen_at_sweep": [int(x) for x in frozen_at[frozen]],
        "frozen_state_count": int(np.isin(model.group_of, frozen).sum()),
        "unsettled_groups": int(unsettled.size),
        "evaluation": ev,
        **analysis["facts"],
        "states": model.n_states,
        "groups": model.n_groups,
        "decision_states": model.n_states * model.n_slots * N_DICE,
        "tol": tol, "eval_tol": eval_tol, "max_sweeps": max_sweeps, "max_local": max_local,
        "threads": threads_used, "parallel": bool(parallel),
    }
    facts["seconds"] = time.perf_counter() - t0
    facts["timings"] = {"model": t1 - t0, "compile": compile_s, "max_n": t3 - t2,
                        "evaluation": t4 - t3, "analysis": t5 - t4}
    return ThreePlayerSolution(rules, p, values, pol, w, analysis["gain_start"],
                               analysis["gain_decision"], analysis["visits"],
                               np.isin(model.group_of, frozen), facts)


# --------------------------------------------------------------------------------------------
# The on-disk cache
# --------------------------------------------------------------------------------------------
def cache_key(rules: FiveThousandRules, num_players: int, tol: float, eval_tol: float,
              max_sweeps: int, max_local: int, freeze_from: int) -> dict:
    """The cache key: solver, format version, rules and every parameter of the procedure."""
    return {"solver": "fivethousand-maxn", "num_players": int(num_players),
            "format_version": FORMAT_VERSION, "rules": rules.knobs(), "tol": float(tol),
            "eval_tol": float(eval_tol), "max_sweeps": int(max_sweeps),
            "max_local": int(max_local), "freeze_from": int(freeze_from), "tie_tol": TIE_TOL,
            "init": "1/P"}


def _stem(rules: FiveThousandRules, num_players: int) -> str:
    return f"fivethousand-{num_players}p-maxn-t{rules.target}-e{rules.entry}"


def _from_arrays(rules, num_players, arrays, meta, path) -> ThreePlayerSolution | None:
    model = build_three_model(rules, num_players)
    try:
        shape = (model.n_states, model.n_slots, N_DICE + 1)
        bits = arrays["policy_bits"]
        if bits.dtype != np.uint8 or bits.size != (int(np.prod(shape)) + 7) // 8:
            return None
        policy = np.unpackbits(bits, count=int(np.prod(shape))).astype(bool).reshape(shape)
        sol = ThreePlayerSolution(rules, num_players, arrays["values"], policy,
                                  arrays["vi_values"], arrays["gain_start"],
                                  arrays["gain_decision"], arrays["visits"],
                                  arrays["frozen"].astype(bool), dict(meta),
                                  source="cache", cache_path=path)
    except (KeyError, ValueError):
        return None
    if not all(np.all(np.isfinite(a)) for a in (sol.values, sol.gain_start, sol.visits)):
        return None
    return sol


def load_or_solve_three_player(rules: FiveThousandRules | dict | str | None = None, *,
                               num_players: int = 3,
                               cache_dir: str | os.PathLike | None = None,
                               use_cache: bool = True, force: bool = False,
                               tol: float = DEFAULT_TOL, eval_tol: float = EVAL_TOL,
                               max_sweeps: int = MAX_SWEEPS, max_local: int = MAX_LOCAL,
                               freeze_from: int = FREEZE_FROM, threads: int | None = None,
                               progress: bool = False) -> ThreePlayerSolution:
    """The shipped profile, from the on-disk cache when a valid table is there.

    ``use_cache=False`` neither reads nor writes; ``force`` solves again and overwrites.  A
    corrupted or foreign cache file is reported with
    :class:`~agents.solvers.cache.CacheCorruptionWarning` and solved again (the 5000 solve
    takes a few minutes on two cores).
    """
    rules = coerce_rules(rules)

    def solve() -> ThreePlayerSolution:
        return solve_three_player(rules, num_players=num_players, tol=tol, eval_tol=eval_tol,
                                  max_sweeps=max_sweeps, max_local=max_local,
                                  freeze_from=freeze_from, threads=threads, progress=progress)

    if not use_cache:
        return solve()
    key = cache_key(rules, num_players, tol, eval_tol, max_sweeps, max_local, freeze_from)
    path = C.cache_path(cache_dir, _stem(rules, num_players), key)
    if not force:
        loaded = C.load_table(path, key)
        if loaded is not None:
            sol = _from_arrays(rules, num_players, *loaded, path)
            if sol is not None:
                return sol
            warnings.warn(f"ignoring cached table {path}: unexpected content; it will be "
                          "recomputed", C.CacheCorruptionWarning, stacklevel=2)
    sol = solve()
    arrays = {"values": sol.values, "vi_values": sol.vi_values,
              "policy_bits": np.packbits(sol.policy.ravel()), "gain_start": sol.gain_start,
              "gain_decision": sol.gain_decision, "visits": sol.visits,
              "frozen": sol.frozen.astype(np.uint8)}
    if _save(path, key, arrays, sol.facts):
        sol.cache_path = path
    return sol
