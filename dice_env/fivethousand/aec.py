"""The PettingZoo AEC environment of 5000, for self-play and human-vs-bot play.

Use it through :mod:`dice_env.multi.five_thousand_v0`::

    from dice_env.multi import five_thousand_v0
    env = five_thousand_v0.env(num_players=3)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from dice_env.aec_base import DiceAECEnv, order_enforced
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.base import make_rules
from dice_env.fivethousand.observation import encode_observation_one, observation_size
from dice_env.fivethousand.render import render_game
from dice_env.fivethousand.rules import FiveThousandRules, check_num_players
from dice_env.fivethousand.single import FiveThousandGame
from dice_env.fivethousand.state import state_from_dict, state_to_dict
from dice_env.illegal import IllegalAction


class FiveThousandAECEnv(DiceAECEnv):
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
        if max_turns is not None and (not isinstance(max_turns, (int, np.integer))
                                      or max_turns < 1):
            raise ValueError(f"max_turns must be a positive integer or None, got {max_turns!r}")
        self.rules = make_rules(rules, target=target, entry=entry,
                                choose_scoring_dice=choose_scoring_dice)
        self._setup(num_players, observation_size(num_players), self.rules.n_actions,
                    render_mode, illegal_action, illegal_penalty)
        self.max_turns = None if max_turns is None else int(max_turns)
        # one game at a time in Python (dice_env.fivethousand.single), as the single envs
        self._game = FiveThousandGame(self.rules, self.num_players)
        self._last_events: list[dict] = []

    @property
    def _state(self) -> G.FiveThousandState:
        """The game as a batch of one of the batched core (a copy)."""
        return self._game.to_state()

    def get_state(self) -> dict:
        """The game as a JSON-serialisable dict (see :mod:`dice_env.fivethousand.state`)."""
        return state_to_dict(self.rules, self._state, 0)

    # -- the game (the hooks of DiceAECEnv) ------------------------------------------------
    def _restored(self, state: dict) -> G.FiveThousandState:
        return state_from_dict(self.rules, state, self.num_players)[0]

    def _start(self, restored: G.FiveThousandState | None) -> dict[str, dict]:
        events: list[dict] = []
        if restored is not None:
            self._game.load(restored)
        else:
            opening = self._game.start(self.np_random)
            events = [{"type": "bust", "player": i % self.num_players, "lost": 0,
                       "dice": None, "opening": True} for i in range(opening)]
        self._pending_events = {a: [dict(e) for e in events] for a in self.agents}
        self._last_events = events
        return {a: {"events": [dict(e) for e in events]} for a in self.agents}

    def _current(self) -> int:
        return self._game.current

    def _legal_mask(self) -> list[int]:
        return self._game.action_mask()

    def _observation(self, seat: int) -> np.ndarray:
        g = self._game
        return encode_observation_one(self.rules, g.scores, g.current, g.turn_total, g.roll,
                                      g.turns, g.winner, seat, self.max_turns)

    def _play(self, agent: str, action: int) -> None:
        events = self._game.step(action, self.np_random)
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
        self._mask = self._legal_mask()
        if self.truncations[agent]:
            self._mask = [0] * self.n_actions

    def _illegal(self, action: Any) -> IllegalAction:
        dice = self._game.thrown_dice()
        return IllegalAction(action, self._legal_actions(), self.n_actions,
                             lambda a: R.describe_action(self.rules, a, dice),
                             lambda a: G.illegal_reason(self.rules, self._state, a))

    def _render_text(self) -> str:
        return render_game(self.rules, self._state, 0, self.possible_agents, self._last_events)


def raw_env(**kwargs: Any) -> FiveThousandAECEnv:
    """The unwrapped AEC env."""
    return FiveThousandAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper`` (see
    :func:`dice_env.aec_base.order_enforced`)."""
    return order_enforced(raw_env(**kwargs))
