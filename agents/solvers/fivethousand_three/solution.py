"""The solved max-n profile of 5000: :class:`ThreePlayerSolution` (its exact values, decisions,
deviation gains, visits and frozen states)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.solvers.fivethousand_three import profile_kernels as K3
from agents.solvers.fivethousand_three.model import N_DICE, TIE_TOL, build_three_model
from dice_env.fivethousand.rules import FiveThousandRules


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

