"""The PettingZoo AEC environment of the multi-player scorecard games (Penta, Dice Poker, ...).

Use it through :mod:`dice_env.multi.scorecard_v0`::

    from dice_env.multi import scorecard_v0
    env = scorecard_v0.env(game="penta", num_players=3)
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

RESET_OPTIONS = ("state",)


class ScorecardAECEnv(AECEnv):
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
        self.num_players = check_num_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        self.render_mode = render_mode
        self.reward = check_reward(reward)
        self.canonical_holds = bool(canonical_holds)
        self.illegal_action = check_illegal_action_mode(illegal_action)
        self.illegal_penalty = float(illegal_penalty)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.n_actions = N_HOLD_ACTIONS + self.rules.n_boxes
        n_obs = match_observation_size(self.rules, self.num_players)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (n_obs,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.n_actions,), dtype=np.int8),
            }) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self.np_random: np.random.Generator | None = None
        # one match at a time in Python (match.core.ScorecardMatch): the batched core's
        # numpy calls cost more than the game itself for a batch of one
        self._match = ScorecardMatch(self.rules, self.num_players)
        self._refresh()

    @property
    def _state(self) -> MatchState:
        """The match as a batch of one of the batched core (a copy)."""
        return self._match.to_state()

    def _refresh(self) -> None:
        """Cache the options of the player to move and the legal actions."""
        legal, self._points, self._bonus = self._match.mover.options()
        self._mask = self._match.action_mask(legal, self.canonical_holds)

    # -- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # -- API -------------------------------------------------------------------------------
    def observe(self, agent: str) -> dict:
        m = self._match
        obs = encode_match_observation_one(self.rules, m.cards, m.current, self._seat[agent],
                                           self._points)
        if agent == self.agent_selection:
            mask = np.array(self._mask, dtype=np.int8)
        else:
            mask = np.zeros(self.n_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions of the agent to move."""
        return np.array(self._mask, dtype=bool)

    def get_state(self) -> dict:
        """The match as a JSON-serialisable dict (see :mod:`dice_env.scorecard.match.state`)."""
        return match_state_to_dict(self.rules, self._state)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = reset_options(options, RESET_OPTIONS, unknown="warn")
        restored = None  # checked before anything changes: a refused state leaves the env be
        if options.get("state") is not None:
            restored = match_state_from_dict(self.rules, options["state"], self.num_players)
        if seed is not None or self.np_random is None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        if restored is not None:
            self._match.load(restored)
        else:
            self._match.start(self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = self._infos()
        self.agent_selection = self.possible_agents[self._match.current]
        self._refresh()
        if self.render_mode == "human":
            self.render()

    def _infos(self) -> dict[str, dict]:
        scores = [card.score_breakdown() for card in self._match.cards]
        extra = {}
        if self._match.finished():
            extra["winners"] = winners(np.array(self._match.totals()))
        return {a: {"scores": [dict(s) for s in scores], **extra} for a in self.agents}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = as_action(action, self.n_actions)  # None unless an integer in range
        if a is None or not self._mask[a]:
            if illegal_turn(self, agent, self._illegal(action)):
                self._mask = [0] * self.n_actions
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._match.apply(a, self.np_random, self._points, self._bonus)
        over = self._match.finished()
        if over:
            final = final_rewards(np.array([self._match.totals()]), self.reward)[0]
            for other in self.agents:
                self.rewards[other] = float(final[self._seat[other]])
                self.terminations[other] = True
        else:
            self.agent_selection = self.possible_agents[self._match.current]
        self.infos = self._infos()
        self._refresh()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, action: Any) -> IllegalAction:
        """An illegal ``action`` of the player to move (see :mod:`dice_env.illegal`)."""
        dice = self._match.mover.dice
        return IllegalAction(action, [x for x, ok in enumerate(self._mask) if ok],
                             self.n_actions, lambda a: describe_action(self.rules, a, dice),
                             describe_out_of_range=True)

    def render(self) -> str | None:
        """Every card side by side (``"ansi"`` returns the text, ``"human"`` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = render_match(self.rules, self._state, self.possible_agents)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> ScorecardAECEnv:
    """The unwrapped AEC env."""
    return ScorecardAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper``.

    Illegal actions are handled by the env itself (``illegal_action``), so PettingZoo's
    ``TerminateIllegalWrapper`` / ``AssertOutOfBoundsWrapper`` are not added.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
