"""The model of the max-n solver of 5000: :class:`ThreeModel` (the turn-start states of ``P``
players, what every bank does, the groups of states, their rotation cycles and score-sum
levels), built from the 2-player model's tables and
:func:`~dice_env.fivethousand.rules.resolve_bank`; and the solver's parameters."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from agents.solvers import fivethousand_vi as VI
from agents.solvers.fivethousand_vi.model import _last_change
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules

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
