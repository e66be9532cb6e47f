"""The PettingZoo AEC environment of the multi-player scorecard games (Penta, Dice Poker, ...).

Use it through :mod:`dice_env.multi.scorecard_v0`::

    from dice_env.multi import scorecard_v0
    env = scorecard_v0.env(game="penta", num_players=3)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from dice_env.aec_base import DiceAECEnv, order_enforced
from dice_env.illegal import IllegalAction
from dice_env.scorecard.env import describe_action
from dice_env.scorecard.game import N_HOLD_ACTIONS
from dice_env.scorecard.match import MatchState, ScorecardMatch, check_num_players, winners
from dice_env.scorecard.match.env import check_reward, final_rewards
from dice_env.scorecard.match.observation import (
    encode_match_observation_one,
    match_observation_size,
)
from dice_env.scorecard.match.render import render_match
from dice_env.scorecard.match.state import match_state_from_dict, match_state_to_dict
from dice_env.scorecard.rules import Rules, get_rules


class ScorecardAECEnv(DiceAECEnv):
    """A scorecard game for ``num_players`` agents, ``player_0`` .. ``player_{P-1}``.

    ## Description
    Penta, Dice Poker or a Yahtzee preset played by several people, each with a scorecard of
    their own (docs/rules.md): ``player_i`` sits at seat ``i``; players take whole turns in seat
    order (``player_0`` opens every round), so the same agent acts several times in a row
    (each throw is a decision) and ``agent_selection`` moves on when it fills a box.  The match
    ends when every card is full; the highest TOTAL wins.  The match is the one of
    :mod:`dice_env.scorecard.match` (one card per player), played one game at a time in plain
    Python (:class:`~dice_env.scorecard.match.core.ScorecardMatch`) over the single-player
    rules.

    ## Action Space
    ``Discrete(32 + n_boxes)``, the encoding of ``dice_env/Penta-v0``: ``a < 32`` rerolls
    holding die ``i`` of the sorted dice when bit ``i`` is set, ``32 + k`` scores box ``k``.
    An action must be an integer (a Python ``int``, a numpy integer scalar or a 0-d integer
    array; not a bool); any other value is an illegal action (see :mod:`dice_env.errors`).
    ``None`` is the action of an agent that is already done (PettingZoo's convention).

    ## Observation Space
    ``Dict(observation=Box(0, 1, (S + 2 + (P - 1) * (5 + n_boxes),), float32),
    action_mask=Box(0, 1, (32 + n_boxes,), int8))``.  ``observation`` is the match seen from
    the observing agent's seat (:mod:`dice_env.scorecard.match.observation`: its own card with
    the dice on the table, whether it is to move, its TOTAL, and every opponent's TOTAL, upper
    progress, five-of-a-kind state and open boxes); ``observation[:S]`` is a single-player
    observation.  ``action_mask`` holds the legal actions of the agent to move, all zeros for
    the others.

    ## Rewards
    At the end of the match (``reward="win_loss"``, default): ``+1`` to the player with the
    highest TOTAL, ``-1`` to every player below the top; players who *share* the highest TOTAL
    get ``0`` each (nobody has the highest total alone: a draw among them; a two-player match
    stays zero-sum).  With ``reward="score_diff"``: each player's TOTAL minus the best TOTAL
    among the others.  0 on every other step.  An illegal action earns ``illegal_penalty``
    for the acting agent (0 for the others).

    ## Starting State
    Empty cards, ``player_0`` has thrown.  Or ``reset(options={"state": d})`` with
    :meth:`get_state`'s dict (see :mod:`dice_env.scorecard.match.state`).  Unknown reset
    options only warn: PettingZoo's ``api_test`` resets with ``options={"options": 1}``.

    ## Episode End
    Every agent terminates when every card is full (or, under ``"terminate"``, on an illegal
    action).

    ## Info
    ``infos[agent]["scores"]``: every player's ``{"upper", "upper_bonus", "lower",
    "penta_bonus", "total"}`` in seat order; once over, ``infos[agent]["winners"]`` (the seats
    holding the top TOTAL); ``infos[agent]["illegal_action"]`` after its illegal action.

    ## Arguments
    * ``game``: a scorecard preset (``"penta"``, ``"dice-poker"``, ``"yahtzee-official"``,
      ``"yahtzee-free-joker"``, ``"yahtzee-no-bonus"``) or a
      :class:`~dice_env.scorecard.rules.Rules`; any rule knob as a keyword.
    * ``num_players``: 2 to 6 (default 2).
    * ``reward``: ``"win_loss"`` (default) or ``"score_diff"``.
    * ``render_mode``: ``None``, ``"ansi"`` (every card side by side) or ``"human"``.
    * ``canonical_holds``: as in the single-player env (default True).
    * ``illegal_action``: ``"terminate"`` (default, PettingZoo's classic convention: the match
      ends, the offender gets ``illegal_penalty``, the others 0), ``"penalize"`` (state
      untouched, the offender gets ``illegal_penalty`` and acts again) or ``"raise"``
      (:class:`~dice_env.errors.IllegalActionError`, state untouched).
    * ``illegal_penalty``: -1.0.

    ## Version History
    * v0: initial version.
    """

    metadata = {"name": "scorecard_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, game: str | Rules = "penta", num_players: int = 2,
                 reward: str = "win_loss", render_mode: str | None = None,
                 canonical_holds: bool = True, illegal_action: str = "terminate",
                 illegal_penalty: float = -1.0, **rule_overrides: Any) -> None:
        super().__init__()
        self.rules = get_rules(game, **rule_overrides)
        num_players = check_num_players(num_players)
        self._setup(num_players, match_observation_size(self.rules, num_players),
                    N_HOLD_ACTIONS + self.rules.n_boxes, render_mode, illegal_action,
                    illegal_penalty)
        self.reward = check_reward(reward)
        self.canonical_holds = bool(canonical_holds)
        # one match at a time in Python (match.core.ScorecardMatch): the batched core's
        # numpy calls cost more than the game itself for a batch of one
        self._match = ScorecardMatch(self.rules, self.num_players)
        self._mask = self._legal_mask()

    @property
    def _state(self) -> MatchState:
        """The match as a batch of one of the batched core (a copy)."""
        return self._match.to_state()

    def get_state(self) -> dict:
        """The match as a JSON-serialisable dict (see :mod:`dice_env.scorecard.match.state`)."""
        return match_state_to_dict(self.rules, self._state)

    # -- the game (the hooks of DiceAECEnv) ------------------------------------------------
    def _restored(self, state: dict) -> MatchState:
        return match_state_from_dict(self.rules, state, self.num_players)

    def _start(self, restored: MatchState | None) -> dict[str, dict]:
        if restored is not None:
            self._match.load(restored)
        else:
            self._match.start(self.np_random)
        return self._infos()

    def _current(self) -> int:
        return self._match.current

    def _legal_mask(self) -> list[int]:
        """The legal actions of the player to move (and their options, cached)."""
        legal, self._points, self._bonus = self._match.mover.options()
        return self._match.action_mask(legal, self.canonical_holds)

    def _observation(self, seat: int) -> np.ndarray:
        m = self._match
        return encode_match_observation_one(self.rules, m.cards, m.current, seat, self._points)

    def _infos(self) -> dict[str, dict]:
        scores = [card.score_breakdown() for card in self._match.cards]
        extra = {}
        if self._match.finished():
            extra["winners"] = winners(np.array(self._match.totals()))
        return {a: {"scores": [dict(s) for s in scores], **extra} for a in self.agents}

    def _play(self, agent: str, action: int) -> None:
        self._match.apply(action, self.np_random, self._points, self._bonus)
        if self._match.finished():
            final = final_rewards(np.array([self._match.totals()]), self.reward)[0]
            for other in self.agents:
                self.rewards[other] = float(final[self._seat[other]])
                self.terminations[other] = True
        else:
            self.agent_selection = self.possible_agents[self._match.current]
        self.infos = self._infos()
        self._mask = self._legal_mask()

    def _illegal(self, action: Any) -> IllegalAction:
        dice = self._match.mover.dice
        return IllegalAction(action, self._legal_actions(), self.n_actions,
                             lambda a: describe_action(self.rules, a, dice),
                             describe_out_of_range=True)

    def _render_text(self) -> str:
        """Every card side by side."""
        return render_match(self.rules, self._state, self.possible_agents)


def raw_env(**kwargs: Any) -> ScorecardAECEnv:
    """The unwrapped AEC env."""
    return ScorecardAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper`` (see
    :func:`dice_env.aec_base.order_enforced`)."""
    return order_enforced(raw_env(**kwargs))
