"""The analysis of a fixed max-n profile of 5000: where its turns end
(:func:`profile_transitions`), whether its chain is absorbing (:func:`turns_to_end`), and its
Bellman checks, one-turn deviation gains and occupancy (:func:`analyse_profile`)."""

from __future__ import annotations

import numpy as np

from agents.solvers.fivethousand_three import profile_kernels as K3
from agents.solvers.fivethousand_three.model import GAIN_EPS, TIE_TOL, ThreeModel


def _group_states(model: ThreeModel, groups: np.ndarray) -> list[list[tuple[int, ...]]]:
    out = []
    for g in groups.tolist():
        lo, hi = model.cyc_start[model.grp_cyc[g]], model.cyc_start[model.grp_cyc[g + 1]]
        out.append([model.scores_of(s) for s in model.cyc_states[lo:hi]])
    return out


def profile_transitions(model: ThreeModel, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(nxt, prob)`` ``(S, T + 1)``: where the turn from each state ends under ``policy``
    (:func:`~agents.solvers.fivethousand_three.profile_kernels.transitions`)."""
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

