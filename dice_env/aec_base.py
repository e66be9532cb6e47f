"""What the PettingZoo AEC environments of every family share: seats and spaces, the observed
action mask, seeding, the step's handling of done agents and illegal actions, rendering.

A family's AEC env (``dice_env/<family>/aec.py``) subclasses :class:`DiceAECEnv`, calls
:meth:`DiceAECEnv._setup` from its ``__init__`` and supplies the game: how to read a state
dict, start or load a game, observe it from a seat, play a legal action and render it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from dice_env.errors import as_action, check_illegal_action_mode, reset_options
from dice_env.illegal import IllegalAction, illegal_turn

__all__ = ["DiceAECEnv", "order_enforced"]


class DiceAECEnv(AECEnv):
    """A dice game for ``num_players`` agents, ``player_0`` .. ``player_{P-1}`` (``player_i`` at
    seat ``i``), the same agent acting several times in a row during its turn.

    Observations are ``Dict(observation=Box(0, 1, (n_obs,)), action_mask=Box(0, 1,
    (n_actions,), int8))``, the mask holding the legal actions of the agent to move and all
    zeros for the others.  An action must be an integer in range (not a bool); anything else,
    or a masked action, is handled by ``illegal_action`` (:func:`dice_env.illegal.illegal_turn`).
    Unknown reset options only warn (PettingZoo's ``api_test`` resets with
    ``options={"options": 1}``).

    Subclasses define ``metadata`` and the hooks below.
    """

    #: the reset options a subclass knows (``"state"``: a :meth:`get_state` dict)
    RESET_OPTIONS: Sequence[str] = ("state",)

    def _setup(self, num_players: int, n_obs: int, n_actions: int, render_mode: str | None,
               illegal_action: str, illegal_penalty: float) -> None:
        """The seats, spaces and settings every family's env has (call from ``__init__``,
        after ``super().__init__()``); arguments are checked before anything is set."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        self.illegal_action = check_illegal_action_mode(illegal_action)
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.num_players = int(num_players)
        self.n_actions = int(n_actions)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (n_obs,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.n_actions,), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self.np_random: np.random.Generator | None = None
        self._mask: list[int] = [0] * self.n_actions

    # -- what a family supplies --------------------------------------------------------------
    def _restored(self, state: dict) -> Any:
        """The game of a :meth:`get_state` dict, refused (``ValueError``) before anything
        changes."""
        raise NotImplementedError

    def _start(self, restored: Any) -> dict[str, dict]:
        """Load ``restored`` (from :meth:`_restored`), or start a new game with
        ``self.np_random``; returns every agent's info."""
        raise NotImplementedError

    def _current(self) -> int:
        """The seat to move."""
        raise NotImplementedError

    def _legal_mask(self) -> list[int]:
        """The legal actions of the seat to move, as 0 / 1 per action."""
        raise NotImplementedError

    def _observation(self, seat: int) -> np.ndarray:
        """The game seen from ``seat``."""
        raise NotImplementedError

    def _play(self, agent: str, action: int) -> None:
        """Play ``agent``'s legal ``action``: move the game and set ``rewards`` (zeroed
        before), ``terminations`` / ``truncations``, ``infos``, ``agent_selection`` and
        ``_mask``."""
        raise NotImplementedError

    def _illegal(self, action: Any) -> IllegalAction:
        """An illegal ``action`` of the seat to move (see :mod:`dice_env.illegal`)."""
        raise NotImplementedError

    def _render_text(self) -> str:
        """The table as text."""
        raise NotImplementedError

    # -- PettingZoo's API --------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict:
        if agent == self.agent_selection:
            mask = np.array(self._mask, dtype=np.int8)
        else:
            mask = np.zeros(self.n_actions, dtype=np.int8)
        return {"observation": self._observation(self._seat[agent]), "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions of the agent to move."""
        return np.array(self._mask, dtype=bool)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = reset_options(options, self.RESET_OPTIONS, unknown="warn")
        # checked before anything changes: a refused state leaves the env be
        restored = None if options.get("state") is None else self._restored(options["state"])
        if seed is not None or self.np_random is None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = self._start(restored)
        self.agent_selection = self.possible_agents[self._current()]
        self._mask = self._legal_mask()
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = as_action(action, self.n_actions)  # None unless an integer in range
        if a is None or not self._mask[a]:
            if illegal_turn(self, agent, self._illegal(action)):  # raises under "raise"
                self._mask = [0] * self.n_actions
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._play(agent, a)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _legal_actions(self) -> list[int]:
        """The actions the mask allows now."""
        return [x for x, ok in enumerate(self._mask) if ok]

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self._render_text()
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        pass


def order_enforced(raw: AECEnv) -> AECEnv:
    """``raw`` wrapped in PettingZoo's ``OrderEnforcingWrapper``.

    Illegal actions are handled by the env itself (``illegal_action``), so PettingZoo's
    ``TerminateIllegalWrapper`` / ``AssertOutOfBoundsWrapper`` are not added.
    """
    return wrappers.OrderEnforcingWrapper(raw)
