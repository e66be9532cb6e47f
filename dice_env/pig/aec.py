"""The PettingZoo AEC environment of Pig (2 to 10 players), for self-play and human-vs-bot
play.  Use it through :mod:`dice_env.multi.pig_v0`::

    from dice_env.multi import pig_v0
    env = pig_v0.env(num_players=3)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from dice_env.aec_base import DiceAECEnv, order_enforced
from dice_env.illegal import IllegalAction
from dice_env.pig import game as G
from dice_env.pig import rules as R
from dice_env.pig.env import make_rules
from dice_env.pig.observation import encode_observation, observation_size
from dice_env.pig.rules import PigRules, PigState

__all__ = ["PigAECEnv", "env", "raw_env"]


class PigAECEnv(DiceAECEnv):
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
        self.rules = make_rules(rules, num_players=num_players, win_score=win_score,
                                die_sides=die_sides, horizon=horizon, piglet=piglet)
        self._setup(self.rules.num_players, observation_size(self.rules.num_players),
                    R.N_ACTIONS, render_mode, illegal_action, illegal_penalty)
        self._state: PigState = R.initial_state(self.rules)
        self._last_events: list[dict] = []

    def get_state(self) -> dict:
        """The game as a JSON-serialisable dict (see :func:`dice_env.pig.game.state_to_dict`)."""
        return G.state_to_dict(self.rules, self._state)

    # -- the game (the hooks of DiceAECEnv) ------------------------------------------------
    def _restored(self, state: dict) -> PigState:
        restored, _ = G.state_from_dict(self.rules, state)
        if R.is_terminal(self.rules, restored):
            raise ValueError("the restored state is a finished game")
        return restored

    def _start(self, restored: PigState | None) -> dict[str, dict]:
        self._state = restored if restored is not None else R.initial_state(self.rules)
        self._pending_events: dict[str, list[dict]] = {a: [] for a in self.agents}
        self._last_events = []
        return {a: {"events": []} for a in self.agents}

    def _current(self) -> int:
        return self._state.current

    def _legal_mask(self) -> list[int]:
        return R.action_mask(self.rules, self._state)

    def _observation(self, seat: int) -> np.ndarray:
        return encode_observation(self.rules, self._state, seat)

    def _play(self, agent: str, action: int) -> None:
        self._state, events = G.step(self.rules, self._state, action, self.np_random)
        self._last_events = events
        for other in self.agents:
            self._pending_events[other].extend(dict(e) for e in events)
        if R.is_terminal(self.rules, self._state):
            for other, r in zip(self.agents, R.returns(self.rules, self._state)):
                self.rewards[other] = r
                self.terminations[other] = True
            self._mask = [0] * self.n_actions
        else:
            self.agent_selection = self.possible_agents[self._state.current]
            self._mask = self._legal_mask()
        self.infos = {o: {"events": list(self._pending_events[o])} for o in self.agents}
        self._pending_events[self.agent_selection] = []

    def _illegal(self, action: Any) -> IllegalAction:
        return IllegalAction(action, self._legal_actions(), R.N_ACTIONS, R.describe_action,
                             lambda x: R.illegal_reason(self.rules, self._state, x))

    def _render_text(self) -> str:
        return G.render_text(self.rules, self._state, self.possible_agents, self._last_events)


def raw_env(**kwargs: Any) -> PigAECEnv:
    """The unwrapped AEC env."""
    return PigAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper`` (see
    :func:`dice_env.aec_base.order_enforced`)."""
    return order_enforced(raw_env(**kwargs))
