"""The PettingZoo AEC environment of 5000, for self-play and human-vs-bot play.

Use it through :mod:`dice_env.multi.five_thousand_v0`::

    from dice_env.multi import five_thousand_v0
    env = five_thousand_v0.env(num_players=3)
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from dice_env.errors import as_action, check_illegal_action_mode, reset_options
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.base import RESET_OPTIONS, make_rules
from dice_env.fivethousand.observation import encode_observation_one, observation_size
from dice_env.fivethousand.render import render_game
from dice_env.fivethousand.rules import FiveThousandRules, check_num_players
from dice_env.fivethousand.single import FiveThousandGame
from dice_env.fivethousand.state import state_from_dict, state_to_dict
from dice_env.illegal import IllegalAction, illegal_turn


class FiveThousandAECEnv(AECEnv):
    """5000 (docs/rules.md, section 2) for ``num_players`` agents, ``player_0`` .. ``player_{P-1}``.

    ## Description
    The game of :class:`~dice_env.fivethousand.env.FiveThousandEnv`, every seat an agent.
    ``player_i`` sits at seat ``i``; ``player_0`` opens.  The same agent acts several times in
    a row during its turn (each roll is a decision); busts are not decisions, so after a bust
    or a bank ``agent_selection`` moves to the next player who has a roll to decide on.

    ## Action Space
    ``Discrete(2)`` (0 roll on, 1 bank), or ``Discrete(64)`` with ``choose_scoring_dice``
    (``2 * m + b``), exactly as in ``FiveThousand-v0``.  An action must be an integer: a
    Python ``int``, a numpy integer scalar or a 0-d numpy integer array (not a bool).  Any
    other value (``1.0``, ``"1"``, ``True``, ``float("inf")``, ``np.array([1])``) is never
    converted: it is an illegal action, handled by ``illegal_action`` (see
    :mod:`dice_env.errors`).  ``None`` is the action of an agent that is already done
    (PettingZoo's convention); for the agent to move it is illegal too.

    ## Observation Space
    ``Dict(observation=Box(0, 1, (3P + 14,), float32), action_mask=Box(0, 1, (n_actions,),
    int8))``.  ``observation`` is the vector of :mod:`dice_env.fivethousand.observation` from
    the observing agent's seat (its ``to_move`` one-hot says whose decision it is);
    ``action_mask`` is the legal actions for the agent to move and all zeros for the others.

    ## Rewards
    At the end of the game the winner gets ``+1`` and every other player ``-1`` -- including
    when the winning move is someone else's (an overshoot gifted onto the target): rewards are
    attributed to the agents they concern, not to the acting agent.  0 otherwise.  An illegal
    action earns ``illegal_penalty`` for the acting agent (0 for the others).

    ## Starting State
    All scores 0, ``player_0`` has thrown five dice (opening busts pass the turn on).  Or
    ``reset(options={"state": d})`` with :meth:`get_state`'s dict (``agent_seat`` is
    ignored here).  Unknown reset options only warn: PettingZoo's ``api_test`` resets with
    ``options={"options": 1}``.

    ## Episode End
    Every agent terminates when a player reaches the target exactly (or, under
    ``"terminate"``, on an illegal action).  Every agent is truncated once each player has
    completed ``max_turns`` turns (default ``None``: no cap).

    ## Info
    ``infos[agent]["events"]``: what happened since that agent's previous decision (see
    :func:`dice_env.fivethousand.game.step_events`), ``infos[agent]["illegal_action"]`` after
    its illegal action.

    ## Arguments
    * ``num_players``: 2 to 8 (default 2).
    * ``rules`` or the knobs ``target``, ``entry``, ``choose_scoring_dice``.
    * ``render_mode``: ``None``, ``"ansi"`` or ``"human"`` (prints after every step).
    * ``illegal_action``: ``"terminate"`` (default, PettingZoo's classic convention: the game
      ends, the offender gets ``illegal_penalty``, the others 0), ``"penalize"`` (state
      untouched, the offender gets ``illegal_penalty`` and acts again) or ``"raise"``
      (:class:`~dice_env.errors.IllegalActionError`, state untouched).
    * ``illegal_penalty``: -1.0.
    * ``max_turns``: see Episode End.

    ## Version History
    * v0: initial version.
    """

    metadata = {"name": "five_thousand_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, num_players: int = 2, rules: FiveThousandRules | dict | None = None,
                 target: int | None = None, entry: int | None = None,
                 choose_scoring_dice: bool | None = None, render_mode: str | None = None,
                 illegal_action: str = "terminate", illegal_penalty: float = -1.0,
                 max_turns: int | None = None) -> None:
        super().__init__()
        num_players = check_num_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        if max_turns is not None and (not isinstance(max_turns, (int, np.integer))
                                      or max_turns < 1):
            raise ValueError(f"max_turns must be a positive integer or None, got {max_turns!r}")
        self.rules = make_rules(rules, target=target, entry=entry,
                                choose_scoring_dice=choose_scoring_dice)
        self.render_mode = render_mode
        self.illegal_action = check_illegal_action_mode(illegal_action)
        self.illegal_penalty = float(illegal_penalty)
        self.max_turns = None if max_turns is None else int(max_turns)
        self.num_players = int(num_players)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        n_obs = observation_size(self.num_players)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (n_obs,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.rules.n_actions,), dtype=np.int8),
            }) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.rules.n_actions)
                              for a in self.possible_agents}
        self.np_random: np.random.Generator | None = None
        # one game at a time in Python (dice_env.fivethousand.single), as the single envs
        self._game = FiveThousandGame(self.rules, self.num_players)
        self._mask = [0] * self.rules.n_actions
        self._last_events: list[dict] = []

    @property
    def _state(self) -> G.FiveThousandState:
        """The game as a batch of one of the batched core (a copy)."""
        return self._game.to_state()

    # -- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # -- API -------------------------------------------------------------------------------
    def observe(self, agent: str) -> dict:
        g = self._game
        obs = encode_observation_one(self.rules, g.scores, g.current, g.turn_total, g.roll,
                                     g.turns, g.winner, self._seat[agent], self.max_turns)
        if agent == self.agent_selection:
            mask = np.array(self._mask, dtype=np.int8)
        else:
            mask = np.zeros(self.rules.n_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions of the agent to move."""
        return np.array(self._mask, dtype=bool)

    def get_state(self) -> dict:
        """The game as a JSON-serialisable dict (see :mod:`dice_env.fivethousand.state`)."""
        return state_to_dict(self.rules, self._state, 0)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = reset_options(options, RESET_OPTIONS, unknown="warn")
        restored = None  # checked before anything changes: a refused state leaves the env be
        if options.get("state") is not None:
            restored, _ = state_from_dict(self.rules, options["state"], self.num_players)
        if seed is not None or self.np_random is None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        events: list[dict] = []
        if restored is not None:
            self._game.load(restored)
        else:
            opening = self._game.start(self.np_random)
            events = [{"type": "bust", "player": i % self.num_players, "lost": 0,
                       "dice": None, "opening": True} for i in range(opening)]
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._pending_events = {a: [dict(e) for e in events] for a in self.agents}
        self.infos = {a: {"events": [dict(e) for e in events]} for a in self.agents}
        self._last_events = events
        self.agent_selection = self.possible_agents[self._game.current]
        self._mask = self._game.action_mask()
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = as_action(action, self.rules.n_actions)  # None unless an integer in range
        if a is None or not self._mask[a]:
            if illegal_turn(self, agent, self._illegal(action)):
                self._mask = [0] * self.rules.n_actions
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        events = self._game.step(a, self.np_random)
        self._last_events = events
        for other in self.agents:
            self._pending_events[other].extend(dict(e) for e in events)
        self._pending_events[agent] = [dict(e) for e in events]
        winner = self._game.winner
        if winner >= 0:
            for other in self.agents:
                self.rewards[other] = 1.0 if self._seat[other] == winner else -1.0
                self.terminations[other] = True
        elif self.max_turns is not None and min(self._game.turns) >= self.max_turns:
            for other in self.agents:
                self.truncations[other] = True
        self.infos = {o: {"events": list(self._pending_events[o])} for o in self.agents}
        if winner < 0:
            self.agent_selection = self.possible_agents[self._game.current]
        self._mask = self._game.action_mask()
        if self.truncations[agent]:
            self._mask = [0] * self.rules.n_actions
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, action: Any) -> IllegalAction:
        """An illegal ``action`` of the player to move (see :mod:`dice_env.illegal`)."""
        dice = self._game.thrown_dice()
        return IllegalAction(action, [x for x, ok in enumerate(self._mask) if ok],
                             self.rules.n_actions,
                             lambda a: R.describe_action(self.rules, a, dice),
                             lambda a: G.illegal_reason(self.rules, self._state, a))

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = render_game(self.rules, self._state, 0, self.possible_agents, self._last_events)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> FiveThousandAECEnv:
    """The unwrapped AEC env."""
    return FiveThousandAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper``.

    Illegal actions are handled by the env itself (``illegal_action``), so PettingZoo's
    ``TerminateIllegalWrapper`` / ``AssertOutOfBoundsWrapper`` are not added.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
