"""The optimal player of the scorecard games (Penta, Dice Poker, Yahtzee presets), and its advice.

:class:`OptimalAgent` plays every decision to maximise the expected final score, from the exact
DP table of :mod:`agents.solvers.scorecard_dp` (solved once, then loaded from the on-disk
cache).  Within a turn nothing is stored: the values of the current decision's actions are
recomputed from the table on demand (a few microseconds with the numba kernels), so the agent
holds only the state-value table (about 0.8 MB for 13 boxes, 25 MB for 15).

* :meth:`OptimalAgent.act` / :meth:`OptimalAgent.act_batch` -- decide from Gymnasium
  observations and action masks (one game, or a batch);
* :meth:`OptimalAgent.advise` -- every legal action of an env state dict with its expected
  final score;
* :func:`simulate_optimal_games` -- many games at once on the pure game core, with the
  statistics of ``dice-env report optimal`` (:mod:`agents.evaluation.optimal_play`).
"""

from __future__ import annotations

import os

import numpy as np

from agents.scorecard.choice import act_batch_by_values, act_by_values, best_legal_action
from agents.solvers import scorecard_dp as DP
from agents.solvers import scorecard_kernels as K
from dice_env import dice as D
from dice_env.scorecard import game as G
from dice_env.scorecard.observation import decode_observation
from dice_env.scorecard.rules import Rules, coerce_rules

__all__ = ["OptimalAgent", "simulate_optimal_games"]

N_HOLDS = D.N_HOLDS


class OptimalAgent:
    """Expected-score-optimal player of a scorecard game.

    Args:
        game: a preset name (``"penta"``, ``"dice-poker"``, ``"yahtzee-official"``,
            ``"yahtzee-free-joker"``, ``"yahtzee-no-bonus"``), a Gymnasium id
            (``"dice_env/Penta-v0"``) or a :class:`~dice_env.scorecard.rules.Rules`.
        cache_dir: where solved tables are cached (default ``$DICE_ENV_CACHE``, else the user
            cache folder).
        use_cache: ``False`` solves in memory without reading or writing the cache.
        solution: an already solved :class:`~agents.solvers.scorecard_dp.ScorecardSolution`
            for these rules (skips loading).
        progress: show a progress bar if a solve is needed.
        seed: accepted for the common player signature; the optimal player is deterministic
            (ties go to scoring, then to the lowest action).

    The first agent for a game solves it (about a second for 13 boxes, a few for 15, plus a
    one-time numba compilation) and caches the table on disk; later agents load it.
    """

    name = "optimal"

    def __init__(self, game: str | Rules = "penta", *, cache_dir: str | os.PathLike | None = None,
                 use_cache: bool = True, solution: DP.ScorecardSolution | None = None,
                 progress: bool = False, seed: int | None = None) -> None:
        self.rules = coerce_rules(game)
        if solution is None:
            solution = DP.load_or_solve_scorecard(self.rules, cache_dir=cache_dir,
                                                  use_cache=use_cache, progress=progress)
        elif solution.rules != self.rules:
            raise ValueError(f"the solution is for {solution.rules.name!r}, not "
                             f"{self.rules.name!r}")
        self.solution = solution
        self.game = self.rules.name
        self._model = solution.model
        self._tables = self._model.kernel_tables() + self._model.query_tables()
        self._bits = 1 << np.arange(self.rules.n_boxes, dtype=np.int64)
        # act() asks one decision at a time; batches (action_values) compile on first use
        DP.warm_up_kernels(self._model, solver=False, queries=True, batched=False)

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the optimal player is deterministic (for the Agent protocol)."""

    def __repr__(self) -> str:
        return f"OptimalAgent({self.game!r}, expected score {self.expected_score:.4f})"

    @property
    def expected_score(self) -> float:
        """The optimal expected final score of a new game."""
        return self.solution.expected_score

    @property
    def n_actions(self) -> int:
        """Size of the action space: 32 holds + one action per box."""
        return N_HOLDS + self.rules.n_boxes

    # -- decisions from observations -------------------------------------------------------

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``(N, n_actions)`` (or ``(n_actions,)`` for one observation): expected points still
        to come after each action (``-inf`` for boxes the rules forbid and for holds after the
        last throw).  Points already scored are not included: they do not change the choice.
        """
        obs = np.asarray(observations)
        d = decode_observation(self.rules, obs)
        vals = self.solution.action_values(d["roll"], d["rolls_left"], d["open"],
                                           d["upper_capped"], d["five_state"])
        return vals[0] if obs.ndim == 1 else vals

    def _values_one(self, obs: np.ndarray) -> np.ndarray:
        """The fast path of :meth:`act`: one decision, no thread pool, few numpy calls."""
        d = decode_observation(self.rules, obs)
        m = self._model
        full = int(self._bits[~d["open"]].sum())
        fs = int(d["five_state"])
        u = int(d["upper_capped"])
        if ((full >> m.five_box) & 1) != (fs != 0) or not m.reachable[full & 63, u]:
            raise ValueError("inconsistent observation (five-of-a-kind state or upper total)")
        out = np.empty(self.n_actions)
        K.action_values_one(fs, int(m.rest_index[full]), full, u, int(d["roll"]),
                            int(d["rolls_left"]), self.solution.values, *self._tables, out)
        return np.where(out <= K.NEG, -np.inf, out)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The optimal legal action for one observation (ties: score rather than reroll)."""
        return act_by_values(self._values_one, observation, action_mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One optimal legal action per row of ``observations`` / ``masks`` (``(N, ...)``).

        Large batches are evaluated in parallel on all numba threads.
        """
        return act_batch_by_values(self.action_values, observations, masks)

    # -- decisions from game states ----------------------------------------------------------

    def state_action_values(self, state: G.ScorecardState) -> np.ndarray:
        """``(N, n_actions)`` expected points still to come after each action, for the games
        of a :class:`~dice_env.scorecard.game.ScorecardState` (all must be unfinished)."""
        u = np.minimum(state.upper_total, self.rules.upper_bonus_threshold)
        return self.solution.action_values(state.roll, state.rolls_left, state.open_boxes(),
                                           u, state.five_state(self.rules))

    def act_states(self, state: G.ScorecardState, masks: np.ndarray) -> np.ndarray:
        """Optimal actions for the games of a ``ScorecardState`` (no observations needed)."""
        return best_legal_action(self.state_action_values(state), masks).astype(np.int64)

    def advise(self, state: dict, canonical_holds: bool = True) -> dict[int, float]:
        """Every legal action of a game state with its expected final score.

        Args:
            state: the env's state dict, ``{"game", "dice", "rolls_left", "scores",
                "penta_bonus"}`` (see :mod:`dice_env.scorecard.state`; ``env.unwrapped.
                get_state()`` returns one).
            canonical_holds: list one hold per distinct kept multiset (the env's default
                mask) or all 31 holds.

        Returns:
            ``{action: expected final score}`` -- points already on the card (bonuses
            included) plus the expected points to come if that action is taken and the game
            is then played optimally -- for every legal action, best first.  Actions are those
            of the env: ``h < 32`` rerolls holding the dice at the set bits ``h`` of the
            sorted dice, ``32 + k`` scores box ``k``.
        """
        from dice_env.scorecard.state import state_from_dict

        st = state_from_dict(self.rules, state)
        mask = G.action_mask(self.rules, st, canonical_holds)[0]
        values = self.state_action_values(st)[0] + float(st.total(self.rules)[0])
        legal = np.flatnonzero(mask)
        order = legal[np.argsort(-values[legal], kind="stable")]
        return {int(a): float(values[a]) for a in order}


def simulate_optimal_games(agent: OptimalAgent, n_games: int, seed: int | None = 0,
                           batch_size: int = 20_000, canonical_holds: bool = True,
                           progress: bool = False) -> dict[str, np.ndarray]:
    """Play ``n_games`` games with ``agent`` on the batched game core.

    The dice come from ``numpy.random.default_rng(seed)``; games are played ``batch_size`` at
    a time.  Returns ``(n_games,)`` arrays: ``total`` (final score), ``upper_bonus`` (bool:
    bonus earned), ``five_kind`` (bool: the five-of-a-kind box holds its 50), ``five_bonus``
    (five-of-a-kind bonus points).
    """
    rules = agent.rules
    rng = np.random.default_rng(seed)
    out = {"total": np.empty(n_games, dtype=np.int64),
           "upper_bonus": np.empty(n_games, dtype=bool),
           "five_kind": np.empty(n_games, dtype=bool),
           "five_bonus": np.empty(n_games, dtype=np.int64)}
    bar = None
    if progress:
        from agents.progress import progress_bar

        bar = progress_bar(total=n_games, desc=f"play {rules.name}", unit="game", leave=False)
    try:
        for start in range(0, n_games, batch_size):
            n = min(batch_size, n_games - start)
            state = G.ScorecardState.empty(rules, n)
            G.start_games(rules, state, np.ones(n, dtype=bool), rng)
            while True:
                active = ~state.finished()
                if not active.any():
                    break
                rows = np.flatnonzero(active)
                sub = state.take(rows)
                masks = G.action_mask(rules, sub, canonical_holds)
                actions = np.zeros(n, dtype=np.int64)
                actions[rows] = agent.act_states(sub, masks)
                G.apply_actions(rules, state, actions, rng, active=active)
            sl = slice(start, start + n)
            out["total"][sl] = state.total(rules)
            out["upper_bonus"][sl] = ((state.upper_total >= rules.upper_bonus_threshold)
                                      & (rules.upper_bonus > 0))
            out["five_kind"][sl] = state.scores[:, rules.five_kind_box] > 0
            out["five_bonus"][sl] = state.five_bonus
            if bar is not None:
                bar.update(n)
    finally:
        if bar is not None:
            bar.close()
    return out

