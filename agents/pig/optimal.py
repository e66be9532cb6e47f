"""The optimal player of two-player Pig, from the exact table of :mod:`agents.pig.solver`.

Every decision maximises the probability of winning, both players playing optimally (Neller &
Presser's policy; against a weaker player it is not the best response, but it never does worse
than the solved value).  The table is solved once (well under a second) and cached on disk.
OpenSpiel's horizon is ignored, as by the classic optimum (see :mod:`agents.pig.solver`).
Games of three or more players are refused: Pig has no exact optimum for them here.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.pig.solver import PigSolution, check_solvable, load_or_solve
from dice_env.pig import rules as R
from dice_env.pig.game import state_from_dict
from dice_env.pig.observation import decode_observation
from dice_env.pig.rules import PigRules, coerce_rules

__all__ = ["OptimalAgent"]


class OptimalAgent:
    """The optimal player of two-player Pig (win probability; OpenSpiel's rules).

    Args:
        game: what :func:`agents.make` passes (a resolved game), ``"pig"``, ``"dice_env/Pig-v0"``,
            a ``PigRules`` or a dict of knobs.
        rules: the rules (overrides ``game``'s).
        cache_dir, use_cache: where the table is cached (default ``$DICE_ENV_CACHE``, else the
            user cache folder); ``use_cache=False`` solves in memory.
        solution: an already solved :class:`~agents.pig.solver.PigSolution` for these rules.
        seed: accepted for the common signature; the player is deterministic (ties hold, except
            with a turn total of 0, where it rolls).

    ``ValueError`` for rules of three or more players (or a ``win_score`` the solver does not
    cover), and for observations of more than two players.
    """

    name = "optimal"

    def __init__(self, game: Any = "pig", *, rules: PigRules | dict | None = None,
                 cache_dir: str | os.PathLike | None = None, use_cache: bool = True,
                 solution: PigSolution | None = None, seed: int | None = None) -> None:
        self.rules = check_solvable(coerce_rules(game if rules is None else rules))
        if solution is not None and any(getattr(solution.rules, k) != getattr(self.rules, k)
                                        for k in ("win_score", "die_sides", "piglet")):
            raise ValueError(f"the solution is for {solution.rules.name}, not {self.rules.name}")
        self._solution = solution
        self._cache_dir = cache_dir
        self._use_cache = use_cache

    @property
    def solution(self) -> PigSolution:
        """The solved table (loaded or solved on first use)."""
        if self._solution is None:
            self._solution = load_or_solve(self.rules, cache_dir=self._cache_dir,
                                           use_cache=self._use_cache)
        return self._solution

    @property
    def first_player_win_probability(self) -> float:
        """The opener's win probability, both playing optimally (0.5306 for 100 with a d6)."""
        return self.solution.first_player_win_probability

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the optimal player is deterministic."""

    def __repr__(self) -> str:
        return f"OptimalAgent(rules={self.rules.name!r})"

    def _decode(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obs = np.asarray(observations, dtype=np.float64)
        if obs.ndim != 2:
            raise ValueError(f"expected (N, obs_dim) observations, got shape {obs.shape}")
        d = decode_observation(self.rules, obs)
        p = d["scores"].shape[1]
        if p != 2:
            raise ValueError(f"the optimal Pig player plays two-player games; got a {p}-player "
                             "observation")
        if np.any(d["to_move"] != 0):
            raise ValueError("the observation is not a decision of its observer (finished game, "
                             "or another player to move)")
        return d["scores"][:, 0], d["scores"][:, 1], d["turn_total"]

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``(N, 2)`` (or ``(2,)`` for one observation) win probabilities of rolling and
        holding for the observer, who is to move; rolling is NaN where it is not legal."""
        obs = np.asarray(observations)
        vals = self.solution.action_values(*self._decode(np.atleast_2d(obs)))
        return vals[0] if obs.ndim == 1 else vals

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The optimal action of each row (``(N, 2P + 2)`` observations, ``(N, 2)`` masks)."""
        i, j, k = self._decode(observations)
        masks = np.asarray(masks).astype(bool)
        roll = self.solution.rolls(i, j, k)
        actions = np.where(roll, R.ROLL, R.HOLD)
        legal = masks[np.arange(len(actions)), actions]
        return np.where(legal, actions, np.where(masks[:, R.HOLD], R.HOLD, R.ROLL)).astype(
            np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The optimal action for one observation and mask."""
        obs = np.asarray(observation)[None, :]
        return int(self.act_batch(obs, np.asarray(action_mask)[None, :])[0])

    def advise(self, state: dict) -> dict[int, float]:
        """Every legal action of a game state (an env's ``get_state()`` dict) with the mover's
        win probability if it takes it and both then play optimally, best first."""
        st, _ = state_from_dict(self.rules, state)
        legal = R.legal_actions(self.rules, st)
        if not legal:
            raise ValueError("a finished game has no decision")
        me = st.current
        vals = self.solution.action_values(st.scores[me], st.scores[1 - me], st.turn_total)[0]
        order = sorted(legal, key=lambda a: -vals[a])
        return {int(a): float(vals[a]) for a in order}
