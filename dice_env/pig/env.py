"""``dice_env/Pig-v0``: one learning agent against bot opponents at Pig."""

from __future__ import annotations

from collections.abc import Sequence
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
from dice_env.illegal import IllegalAction, illegal_step
from dice_env.opponents import as_policy
from dice_env.pig import game as G
from dice_env.pig import rules as R
from dice_env.pig.bots import HoldAtBot
from dice_env.pig.observation import encode_observation, observation_size
from dice_env.pig.rules import PigRules, PigState
from dice_env.player_names import resolve_opponents

__all__ = ["PigEnv", "factory_game", "make_rules"]

RESET_OPTIONS = ("state",)
#: how many times a new game is dealt when the opponents end it before the agent's first move
MAX_DEALS = 1000


def make_rules(rules: PigRules | dict | str | None, **knobs: Any) -> PigRules:
    """Rules from a ``PigRules``, a dict of knobs or ``"pig"``, and/or keyword knobs (``None``
    values ignored); a ``PigRules`` and knobs together raise ``ValueError`` unless they agree."""
    knobs = {k: v for k, v in knobs.items() if v is not None}
    if isinstance(rules, PigRules):
        if any(getattr(rules, k) != v for k, v in knobs.items()):
            raise ValueError(f"pass either rules= or the knobs {sorted(knobs)}, not both")
        return rules
    if rules is None or isinstance(rules, str):
        base = R.coerce_rules(rules).knobs()
    elif isinstance(rules, dict):
        base = dict(rules)
    else:
        raise ValueError(f"rules must be a PigRules, a dict of knobs or 'pig', got {rules!r}")
    base.update(knobs)
    return PigRules.from_knobs(base)


def factory_game(rules: PigRules) -> Any:
    """What a player factory is given for ``rules`` (opponents by name): ``"pig"`` for the
    default rules (any number of players: players read it from the observation), else the rules
    themselves (see :mod:`dice_env.player_names`)."""
    return R.NAME if rules.replace(num_players=2) == PigRules() else rules


def resolve_players(opponents: Any, rules: PigRules) -> list:
    """The ``num_players - 1`` opponents of an env: ``None`` (hold-at-20 bots), one player (or
    name) for every seat, or a sequence of players and names."""
    n_opp = rules.num_players - 1
    opponents = resolve_opponents(opponents, factory_game(rules))
    if opponents is None:
        return [HoldAtBot(rules) for _ in range(n_opp)]
    if not isinstance(opponents, Sequence) or isinstance(opponents, str):
        return [opponents] * n_opp
    if len(opponents) != n_opp:
        raise ValueError(f"opponents must be one player or a sequence of {n_opp} players "
                         f"(num_players - 1), got {len(opponents)}")
    return list(opponents)


def check_agent_seat(agent_seat: Any, num_players: int) -> int | str:
    """``"random"`` or a seat from 0 to ``num_players - 1`` (``ValueError`` otherwise)."""
    if agent_seat == "random":
        return "random"
    if (isinstance(agent_seat, (bool, np.bool_)) or not isinstance(agent_seat, (int, np.integer))
            or not 0 <= agent_seat < num_players):
        raise ValueError(f"agent_seat must be 'random' or a seat from 0 to {num_players - 1}, "
                         f"got {agent_seat!r}")
    return int(agent_seat)


def check_max_steps(max_steps: Any) -> int | None:
    """``None`` or a positive integer (``ValueError`` otherwise)."""
    if max_steps is not None and (isinstance(max_steps, (bool, np.bool_))
                                  or not isinstance(max_steps, (int, np.integer))
                                  or max_steps < 1):
        raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
    return None if max_steps is None else int(max_steps)


class PigEnv(gym.Env):
    """Pig (OpenSpiel's ``pig``): one agent against ``num_players - 1`` bot opponents.

    ## Description
    One die (``die_sides`` faces).  On its turn a player rolls as often as it likes: a 1 loses
    the turn total and ends the turn, any other face adds to it; holding banks the turn total
    and passes the die.  The first player to reach ``win_score`` (100) wins; after ``horizon``
    moves (1000 rolls and holds, all players together) the game is a draw.  The rules are
    OpenSpiel's exactly (:mod:`dice_env.pig.rules`).  The opponents' moves are played inside
    :meth:`step`: the agent only sees its own decisions; ``info["events"]`` tells what happened
    in between.

    ## Action Space
    ``Discrete(2)``: ``0`` roll, ``1`` hold (OpenSpiel's action ids).  Hold is always legal;
    roll is not when the score plus the turn total reaches ``win_score`` (the player must bank
    the win).  Legal actions: ``info["action_mask"]`` (int8) and :meth:`action_masks` (bool,
    for MaskablePPO).  An action must be an integer (a Python ``int``, a numpy integer or a 0-d
    integer array, not a bool); anything else is an illegal action (see
    :mod:`dice_env.errors`).

    ## Observation Space
    ``Box(0, 1, (2 * num_players + 2,), float32)`` from the agent's seat: the scores (the agent
    first, then the players after it in turn order) and the turn total divided by
    ``win_score``, the player to move (one-hot), and moves / ``horizon``; see
    :mod:`dice_env.pig.observation`.

    ## Rewards
    OpenSpiel's returns at the end of the game: ``+1`` when the agent wins, ``-1 / (num_players
    - 1)`` when another player wins, ``0`` for a draw at the horizon; 0 before the end.  An
    illegal action under ``"penalize"`` or ``"terminate"`` earns ``illegal_penalty``.

    ## Starting State
    All scores 0; seat 0 opens; the agent sits at ``agent_seat`` (drawn per episode with
    ``"random"``).  The opponents before the agent play their first turns inside :meth:`reset`
    (reported in ``info["events"]``); if they end the game before the agent's first decision, a
    new game is dealt.  Or ``reset(options={"state": d})`` with :meth:`get_state`'s dict, which
    must be a decision of the agent.

    ## Episode End
    Terminated when a player reaches ``win_score``, when the game reaches its ``horizon`` (a
    draw: the game's own end, part of OpenSpiel's rules, and the observation shows the time
    left), or on an illegal action under ``"terminate"``.  Truncated after ``max_steps`` steps
    of the agent (default 10,000; a guard against agents that repeat an illegal action under
    ``"penalize"``).

    ## Info
    ``action_mask`` (int8), ``events`` (since the agent's previous decision: ``roll``,
    ``bust``, ``hold``, ``win``, ``draw``; see :func:`dice_env.pig.game.events_of`; seats
    absolute), ``scores`` (by seat), ``turn_total``, ``agent_seat``, ``moves``, ``winner``
    once over (-1 for a draw), ``illegal_action`` after an illegal action.

    ## Arguments
    * ``num_players``: 2 to 10 (default 2).
    * ``agent_seat``: a seat, or ``"random"`` (default, drawn per episode).
    * ``opponents``: ``None`` (a hold-at-20 :class:`~dice_env.pig.bots.HoldAtBot` per
      opponent), one player for every opponent, or a sequence of ``num_players - 1`` players;
      ``opponents[k]`` plays the ``k + 1``-th seat after the agent.  A player has
      ``act(observation, action_mask) -> int`` or is a callable ``f(observation,
      action_mask)``; it sees its own seat's observation.  Names (``"hold-20"``, ``"optimal"``)
      are built by a player factory (:mod:`dice_env.player_names`).  An illegal opponent action
      raises ``RuntimeError``.
    * ``seed_opponents``: reseed the opponents that have ``seed(int)`` at every reset from the
      env's generator (default True).
    * ``rules`` or the knobs ``win_score`` (100), ``die_sides`` (6), ``horizon`` (1000),
      ``piglet`` (False): :class:`~dice_env.pig.rules.PigRules`.
    * ``render_mode``: ``None``, ``"ansi"`` (returns the text) or ``"human"`` (prints it).
    * ``illegal_action``: ``"penalize"`` (default: state untouched, reward ``illegal_penalty``,
      ``info["illegal_action"]``), ``"raise"`` (:class:`~dice_env.errors.IllegalActionError`,
      state untouched) or ``"terminate"``; ``illegal_penalty`` (-1.0).
    * ``max_steps``: see Episode End.

    ## Version History
    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        num_players: int | None = None,
        agent_seat: int | str = "random",
        opponents: Any = None,
        rules: PigRules | dict | str | None = None,
        win_score: int | None = None,
        die_sides: int | None = None,
        horizon: int | None = None,
        piglet: bool | None = None,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_steps: int | None = 10_000,
        seed_opponents: bool = True,
    ) -> None:
        self.rules = make_rules(rules, num_players=num_players, win_score=win_score,
                                die_sides=die_sides, horizon=horizon, piglet=piglet)
        self.num_players = self.rules.num_players
        #: a render mode that was asked for but is not supported (rendering is then off)
        self.unsupported_render_mode: str | None = None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            self.unsupported_render_mode, render_mode = render_mode, None
        self.render_mode = render_mode
        self.illegal_action = check_illegal_action_mode(illegal_action)
        self.illegal_penalty = float(illegal_penalty)
        self.max_steps = check_max_steps(max_steps)
        self.agent_seat_option = check_agent_seat(agent_seat, self.num_players)
        self.agent_seat = 0 if self.agent_seat_option == "random" else self.agent_seat_option
        self.opponents = resolve_players(opponents, self.rules)
        self._policies = [as_policy(o) for o in self.opponents]
        self.seed_opponents = bool(seed_opponents)
        self.action_space = spaces.Discrete(R.N_ACTIONS)
        self.observation_space = spaces.Box(0.0, 1.0, (observation_size(self.num_players),),
                                            dtype=np.float32)
        self._state = R.initial_state(self.rules)
        self._mask = [0] * R.N_ACTIONS
        self._events: list[dict] = []
        self._steps = 0
        self._done = True

    # -- internals -------------------------------------------------------------------------
    def _opponent_of(self, seat: int) -> int:
        """Index in :attr:`opponents` of the player at ``seat``."""
        return (seat - self.agent_seat) % self.num_players - 1

    def _player_names(self) -> list[str]:
        return [f"seat {s} (you)" if s == self.agent_seat else
                f"seat {s} (opp {self._opponent_of(s)})" for s in range(self.num_players)]

    def _observation(self) -> np.ndarray:
        return encode_observation(self.rules, self._state, self.agent_seat)

    def _info(self, events: list[dict]) -> dict:
        s = self._state
        info = {"action_mask": np.array(self._mask, dtype=np.int8),
                "events": [dict(e) for e in events], "scores": list(s.scores),
                "turn_total": s.turn_total, "agent_seat": int(self.agent_seat),
                "moves": s.moves}
        if R.is_terminal(self.rules, s):
            info["winner"] = R.winner(self.rules, s)
        return info

    def _play_opponents(self, events: list[dict]) -> None:
        """Play the opponents until the agent is to move or the game is over."""
        rules = self.rules
        while not R.is_terminal(rules, self._state) and self._state.current != self.agent_seat:
            seat = self._state.current
            mask = R.action_mask(rules, self._state)
            k = self._opponent_of(seat)
            action = self._policies[k](encode_observation(rules, self._state, seat),
                                       np.array(mask, dtype=np.int8))
            a = as_action(action, R.N_ACTIONS)
            if a is None or not mask[a]:
                raise RuntimeError(f"opponent {k} ({self.opponents[k]!r}, seat {seat}) chose "
                                   f"the illegal action {action!r}; legal: "
                                   f"{[x for x, ok in enumerate(mask) if ok]}")
            self._state, new = G.step(rules, self._state, a, self.np_random)
            events.extend(new)

    def _new_game(self) -> list[dict]:
        for _ in range(MAX_DEALS):
            if self.agent_seat_option == "random":
                self.agent_seat = int(self.np_random.integers(self.num_players))
            self._state = R.initial_state(self.rules)
            events: list[dict] = []
            self._play_opponents(events)
            if not R.is_terminal(self.rules, self._state):
                return events
        raise RuntimeError(f"the opponents ended the game before the agent's first decision "
                           f"{MAX_DEALS} times in a row ({self.rules.name}, agent_seat="
                           f"{self.agent_seat_option!r})")

    def _reseed_players(self) -> None:
        if self.seed_opponents:
            seeds = self.np_random.integers(0, 2**31 - 1, size=len(self.opponents))
            for opp, s in zip(self.opponents, seeds.tolist()):
                if callable(getattr(opp, "seed", None)):
                    opp.seed(int(s))

    # -- public API ------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions (sb3-contrib's MaskablePPO calls this)."""
        return np.array(self._mask, dtype=bool)

    def legal_actions(self) -> list[int]:
        """The legal actions, as a list of ints."""
        return [a for a, ok in enumerate(self._mask) if ok]

    @property
    def state(self) -> PigState:
        """The game (an immutable :class:`~dice_env.pig.rules.PigState`)."""
        return self._state

    def get_state(self) -> dict:
        """The game as a JSON-serialisable dict (see :func:`dice_env.pig.game.state_to_dict`)."""
        return G.state_to_dict(self.rules, self._state, agent_seat=self.agent_seat)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = reset_options(options, RESET_OPTIONS)
        restored = None  # checked before anything changes: a refused state leaves the env be
        if options.get("state") is not None:
            restored, seat = G.state_from_dict(self.rules, options["state"])
            if R.is_terminal(self.rules, restored):
                raise ValueError("the restored state is a finished game: it must be a decision "
                                 "of the agent")
            if seat is not None and seat != restored.current:
                raise ValueError(f"state['agent_seat'] is {seat} but seat {restored.current} "
                                 "is to move: a restored state must be a decision of the agent")
        super().reset(seed=seed)
        self._reseed_players()
        if restored is not None:
            self._state = restored
            self.agent_seat = restored.current
            events: list[dict] = []
        else:
            events = self._new_game()
        self._done = False
        self._steps = 0
        self._mask = R.action_mask(self.rules, self._state)
        self._events = events
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(events)

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        a = as_action(action, R.N_ACTIONS)  # None unless an integer in range
        if a is None or not self._mask[a]:
            return illegal_step(self, self._illegal(action), observation=self._observation,
                                info=lambda: self._info([]), out_of_time=self._out_of_time)
        self._steps += 1
        self._state, events = G.step(self.rules, self._state, a, self.np_random)
        self._play_opponents(events)
        self._mask = R.action_mask(self.rules, self._state)
        terminated = R.is_terminal(self.rules, self._state)
        reward = R.returns(self.rules, self._state)[self.agent_seat] if terminated else 0.0
        truncated = not terminated and self._out_of_time()
        self._done = terminated or truncated
        self._events = events
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), terminated, truncated, self._info(events)

    def _out_of_time(self) -> bool:
        return self.max_steps is not None and self._steps >= self.max_steps

    def _illegal(self, action: Any) -> IllegalAction:
        """An illegal ``action`` of the agent (see :mod:`dice_env.illegal`)."""
        return IllegalAction(action, self.legal_actions(), R.N_ACTIONS, R.describe_action,
                             lambda a: R.illegal_reason(self.rules, self._state, a))

    def render(self) -> str | None:
        if self.render_mode not in self.metadata["render_modes"]:
            if self.unsupported_render_mode is not None:
                warn_unsupported_render_mode(self.unsupported_render_mode,
                                             self.metadata["render_modes"])
            else:
                gym.logger.warn(f"render() needs render_mode 'ansi' or 'human', not "
                                f"{self.render_mode!r}")
            return None
        text = G.render_text(self.rules, self._state, self._player_names(), self._events)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text
