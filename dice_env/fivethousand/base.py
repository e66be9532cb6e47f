"""What the two single-agent 5000 envs share: state, masks, observations, state dicts,
illegal actions and rendering.  :class:`~dice_env.fivethousand.env.FiveThousandEnv` adds the
opponents, :class:`~dice_env.fivethousand.solo.FiveThousandSoloEnv` the per-turn cost."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from dice_env.errors import (
    as_action,
    check_illegal_action_mode,
    reset_options,
    warn_unsupported_render_mode,
)
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import encode_observation_one, observation_size
from dice_env.fivethousand.render import render_game
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.single import FiveThousandGame
from dice_env.fivethousand.state import state_from_dict, state_to_dict
from dice_env.illegal import IllegalAction, illegal_step

RESET_OPTIONS = ("state",)


def make_rules(rules: FiveThousandRules | dict | None, **knobs: Any) -> FiveThousandRules:
    """Rules from a ``FiveThousandRules``, a dict of knobs or keywords (not both)."""
    knobs = {k: v for k, v in knobs.items() if v is not None}
    if isinstance(rules, FiveThousandRules):
        if knobs:
            raise ValueError(f"pass either rules= or the knobs {sorted(knobs)}, not both")
        return rules
    if rules is not None and not isinstance(rules, dict):
        raise ValueError(f"rules must be a FiveThousandRules or a dict of knobs, got {rules!r}")
    return FiveThousandRules.from_knobs(rules, **knobs)


class FiveThousandBaseEnv(gym.Env):
    """Shared machinery of the single-agent 5000 envs (not registered itself)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, num_players: int, rules: FiveThousandRules | dict | None = None,
                 target: int | None = None, entry: int | None = None,
                 choose_scoring_dice: bool | None = None, render_mode: str | None = None,
                 illegal_action: str = "penalize", illegal_penalty: float = -1.0,
                 max_turns: int | None = None, max_steps: int | None = None) -> None:
        self.rules = make_rules(rules, target=target, entry=entry,
                                choose_scoring_dice=choose_scoring_dice)
        #: a render mode that was asked for but is not supported (rendering is then off)
        self.unsupported_render_mode: str | None = None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # Not an error, but rendering is off: see warn_unsupported_render_mode
            self.unsupported_render_mode, render_mode = render_mode, None
        self.render_mode = render_mode
        self.illegal_action = check_illegal_action_mode(illegal_action)
        self.illegal_penalty = float(illegal_penalty)
        if max_turns is not None and (not isinstance(max_turns, (int, np.integer))
                                      or max_turns < 1):
            raise ValueError(f"max_turns must be a positive integer or None, got {max_turns!r}")
        self.max_turns = None if max_turns is None else int(max_turns)
        if max_steps is not None and (not isinstance(max_steps, (int, np.integer))
                                      or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
        self.max_steps = None if max_steps is None else int(max_steps)
        self._steps = 0
        self.num_players = int(num_players)
        self.action_space = spaces.Discrete(self.rules.n_actions)
        self.observation_space = spaces.Box(0.0, 1.0, (observation_size(self.num_players),),
                                            dtype=np.float32)
        self.agent_seat = 0
        # The game runs one decision at a time in Python (dice_env.fivethousand.single): the
        # batched core's numpy calls cost more than the game itself for a batch of one.
        self._game = FiveThousandGame(self.rules, self.num_players)
        self._mask = [0] * self.rules.n_actions
        self._events: list[dict] = []
        self._carried_turns = 0
        self._done = True

    # -- hooks for the subclasses --------------------------------------------------------
    def _new_game(self) -> None:
        """Deal a new game into ``self._state`` (and choose ``self.agent_seat``)."""
        raise NotImplementedError

    def _reseed_players(self) -> None:
        """Reseed the opponents from the env's generator (at every reset)."""

    def _after_agent(self, events: list[dict]) -> None:
        """Play whatever happens between two decisions of the agent (the opponents)."""

    def _reward(self, turns_before: int) -> float:
        """The reward of the step that just happened."""
        raise NotImplementedError

    def _player_names(self) -> list[str]:
        return [f"player {i}" + (" (you)" if i == self.agent_seat else "")
                for i in range(self.num_players)]

    # -- internals -----------------------------------------------------------------------
    @property
    def _state(self) -> G.FiveThousandState:
        """The game as a batch of one of the batched core (a copy)."""
        return self._game.to_state()

    def _refresh(self) -> None:
        self._mask = self._game.action_mask()

    def _observe(self, seat: int) -> np.ndarray:
        """The observation of the game from ``seat``."""
        g = self._game
        return encode_observation_one(self.rules, g.scores, g.current, g.turn_total, g.roll,
                                      g.turns, g.winner, seat, self.max_turns)

    def _observation(self) -> np.ndarray:
        return self._observe(self.agent_seat)

    def _agent_turns(self) -> int:
        return self._game.turns[self.agent_seat]

    def _info(self, events: list[dict]) -> dict:
        g = self._game
        info = {
            "action_mask": np.array(self._mask, dtype=np.int8),
            "events": [dict(e) for e in events],
            "scores": list(g.scores),
            "agent_seat": int(self.agent_seat),
            "turns": self._agent_turns(),
        }
        if g.finished():
            info["winner"] = g.winner
        return info

    # -- public API ----------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions (sb3-contrib's MaskablePPO calls this)."""
        return np.array(self._mask, dtype=bool)

    def legal_actions(self) -> list[int]:
        """The legal actions, as a list of ints."""
        return [a for a, ok in enumerate(self._mask) if ok]

    def describe_action(self, action: int) -> str:
        """A short description of an action in the current state, e.g. ``1 (bank)``."""
        return R.describe_action(self.rules, action, self._game.thrown_dice())

    def get_state(self) -> dict:
        """The game as a JSON-serialisable dict (see :mod:`dice_env.fivethousand.state`)."""
        return state_to_dict(self.rules, self._state, 0, agent_seat=self.agent_seat)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = reset_options(options, RESET_OPTIONS)
        restored = None  # checked before anything changes: a refused state leaves the env be
        if options.get("state") is not None:
            restored, seat = state_from_dict(self.rules, options["state"], self.num_players)
            cur = int(restored.current[0])
            if seat is not None and seat != cur:
                raise ValueError(f"state['agent_seat'] is {seat} but seat {cur} is to move: a "
                                 "restored state must be a decision of the agent")
        super().reset(seed=seed)
        self._reseed_players()
        events: list[dict] = []
        self._carried_turns = 0  # turns that ended inside reset (opening busts), see solo
        if restored is not None:
            self._game.load(restored)
            self.agent_seat = int(restored.current[0])
        else:
            events = self._new_game()
        self._done = False
        self._steps = 0
        self._refresh()
        self._events = events
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(events)

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        a = as_action(action, self.action_space.n)  # None unless an integer in range
        if a is None or not self._mask[a]:
            return illegal_step(self, self._illegal(action), observation=self._observation,
                                info=lambda: self._info([]), out_of_time=self._out_of_time)
        self._steps += 1
        turns_before = self._agent_turns()
        events = self._game.step(a, self.np_random)
        self._after_agent(events)
        self._refresh()
        terminated = self._game.finished()
        reward = self._reward(turns_before)
        truncated = not terminated and self._out_of_time()
        self._done = terminated or truncated
        self._events = events
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info(events)

    def _out_of_time(self) -> bool:
        return ((self.max_turns is not None and self._agent_turns() >= self.max_turns)
                or (self.max_steps is not None and self._steps >= self.max_steps))

    def _illegal(self, action: Any) -> IllegalAction:
        """An illegal ``action`` of the agent (see :mod:`dice_env.illegal`)."""
        return IllegalAction(action, self.legal_actions(), self.action_space.n,
                             self.describe_action,
                             lambda a: G.illegal_reason(self.rules, self._state, a))

    def render(self) -> str | None:
        if self.render_mode not in self.metadata["render_modes"]:
            if self.unsupported_render_mode is not None:
                warn_unsupported_render_mode(self.unsupported_render_mode,
                                             self.metadata["render_modes"])
            else:
                gym.logger.warn(f"render() needs render_mode 'ansi' or 'human', not "
                                f"{self.render_mode!r}")
            return None
        text = render_game(self.rules, self._state, 0, self._player_names(), self._events)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text
