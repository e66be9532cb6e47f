"""The PettingZoo AEC environment of Pig (2 to 10 players), for self-play and human-vs-bot play::

    from dice_env.pig import aec
    env = aec.env(num_players=3)
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from dice_env.errors import as_action, check_illegal_action_mode, reset_options
from dice_env.illegal import IllegalAction, illegal_turn
from dice_env.pig import game as G
from dice_env.pig import rules as R
from dice_env.pig.env import RESET_OPTIONS, make_rules
from dice_env.pig.observation import encode_observation, observation_size
from dice_env.pig.rules import PigRules, PigState

__all__ = ["PigAECEnv", "env", "raw_env"]


class PigAECEnv(AECEnv):
    """Pig (OpenSpiel's ``pig``) for ``num_players`` agents, ``player_0`` .. ``player_{P-1}``.

    ## Description
    The game of :class:`~dice_env.pig.env.PigEnv`, every seat an agent.  ``player_i`` sits at
    seat ``i``; ``player_0`` opens.  The same agent acts several times in a row during its turn
    (each roll is a decision); after a hold or a 1 ``agent_selection`` moves to the next seat.

    ## Action Space
    ``Discrete(2)``: ``0`` roll, ``1`` hold (OpenSpiel's ids).  An action must be an integer
    (not a bool); any other value is an illegal action (see :mod:`dice_env.errors`).  ``None``
    is the action of an agent that is already done (PettingZoo's convention).

    ## Observation Space
    ``Dict(observation=Box(0, 1, (2P + 2,), float32), action_mask=Box(0, 1, (2,), int8))``:
    the vector of :mod:`dice_env.pig.observation` from the observing agent's seat, and the
    legal actions for the agent to move (all zeros for the others and once the game is over).

    ## Rewards
    OpenSpiel's returns at the end: the winner ``+1``, every other agent ``-1 / (P - 1)``; a
    draw at the horizon ``0`` for all.  An illegal action earns ``illegal_penalty`` for the
    acting agent (0 for the others).

    ## Starting State
    All scores 0, ``player_0`` to move.  Or ``reset(options={"state": d})`` with
    :meth:`get_state`'s dict.  Unknown reset options only warn (PettingZoo's ``api_test`` resets
    with ``options={"options": 1}``).

    ## Episode End
    Every agent terminates when a player reaches ``win_score``, when the game reaches its
    ``horizon`` (a draw), or under ``"terminate"`` on an illegal action.

    ## Info
    ``infos[agent]["events"]``: what happened since that agent's previous decision (see
    :func:`dice_env.pig.game.events_of`); ``infos[agent]["illegal_action"]`` after its illegal
    action.

    ## Arguments
    * ``num_players`` (2 to 10, default 2), ``rules`` or the knobs ``win_score``, ``die_sides``,
      ``horizon``, ``piglet`` (:class:`~dice_env.pig.rules.PigRules`).
    * ``render_mode``: ``None``, ``"ansi"`` or ``"human"``.
    * ``illegal_action``: ``"terminate"`` (default, PettingZoo's convention: the game ends, the
      offender gets ``illegal_penalty``, the others 0), ``"penalize"`` (state untouched, the
      offender gets ``illegal_penalty`` and acts again) or ``"raise"``; ``illegal_penalty``
      (-1.0).

    ## Version History
    * v0: initial version.
    """

    metadata = {"name": "pig_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, num_players: int | None = None, rules: PigRules | dict | str | None = None,
                 win_score: int | None = None, die_sides: int | None = None,
                 horizon: int | None = None, piglet: bool | None = None,
                 render_mode: str | None = None, illegal_action: str = "terminate",
                 illegal_penalty: float = -1.0) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        self.rules = make_rules(rules, num_players=num_players, win_score=win_score,
                                die_sides=die_sides, horizon=horizon, piglet=piglet)
        self.num_players = self.rules.num_players
        self.render_mode = render_mode
        self.illegal_action = check_illegal_action_mode(illegal_action)
        self.illegal_penalty = float(illegal_penalty)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        n_obs = observation_size(self.num_players)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (n_obs,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (R.N_ACTIONS,), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(R.N_ACTIONS) for a in self.possible_agents}
        self.np_random: np.random.Generator | None = None
        self._state: PigState = R.initial_state(self.rules)
        self._mask = [0] * R.N_ACTIONS
        self._last_events: list[dict] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict:
        obs = encode_observation(self.rules, self._state, self._seat[agent])
        if agent == self.agent_selection:
            mask = np.array(self._mask, dtype=np.int8)
        else:
            mask = np.zeros(R.N_ACTIONS, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions of the agent to move."""
        return np.array(self._mask, dtype=bool)

    def get_state(self) -> dict:
        """The game as a JSON-serialisable dict (see :func:`dice_env.pig.game.state_to_dict`)."""
        return G.state_to_dict(self.rules, self._state)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = reset_options(options, RESET_OPTIONS, unknown="warn")
        restored = None  # checked before anything changes: a refused state leaves the env be
        if options.get("state") is not None:
            restored, _ = G.state_from_dict(self.rules, options["state"])
            if R.is_terminal(self.rules, restored):
                raise ValueError("the restored state is a finished game")
        if seed is not None or self.np_random is None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        self._state = restored if restored is not None else R.initial_state(self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._pending_events: dict[str, list[dict]] = {a: [] for a in self.agents}
        self.infos = {a: {"events": []} for a in self.agents}
        self._last_events = []
        self.agent_selection = self.possible_agents[self._state.current]
        self._mask = R.action_mask(self.rules, self._state)
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = as_action(action, R.N_ACTIONS)  # None unless an integer in range
        if a is None or not self._mask[a]:
            illegal = IllegalAction(action, [x for x, ok in enumerate(self._mask) if ok],
                                    R.N_ACTIONS, R.describe_action,
                                    lambda x: R.illegal_reason(self.rules, self._state, x))
            if illegal_turn(self, agent, illegal):  # raises under "raise", nothing changed
                self._mask = [0] * R.N_ACTIONS
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._state, events = G.step(self.rules, self._state, a, self.np_random)
        self._last_events = events
        for other in self.agents:
            self._pending_events[other].extend(dict(e) for e in events)
        if R.is_terminal(self.rules, self._state):
            for other, r in zip(self.agents, R.returns(self.rules, self._state)):
                self.rewards[other] = r
                self.terminations[other] = True
            self._mask = [0] * R.N_ACTIONS
        else:
            self.agent_selection = self.possible_agents[self._state.current]
            self._mask = R.action_mask(self.rules, self._state)
        self.infos = {o: {"events": list(self._pending_events[o])} for o in self.agents}
        self._pending_events[self.agent_selection] = []
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = G.render_text(self.rules, self._state, self.possible_agents, self._last_events)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> PigAECEnv:
    """The unwrapped AEC env."""
    return PigAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper``.

    Illegal actions are handled by the env itself (``illegal_action``), so PettingZoo's
    ``TerminateIllegalWrapper`` / ``AssertOutOfBoundsWrapper`` are not added.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
