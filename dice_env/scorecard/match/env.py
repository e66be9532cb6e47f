"""``dice_env/PentaMatch-v0`` and ``dice_env/DicePokerMatch-v0``: one learning agent against
bot opponents at a multi-player scorecard game."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from dice_env.errors import as_action, as_int, reset_options, warn_unsupported_render_mode
from dice_env.illegal import IllegalAction, illegal_step
from dice_env.player_names import resolve_opponents
from dice_env.scorecard import game as G
from dice_env.scorecard.env import ScorecardOptions, describe_action
from dice_env.scorecard.match.core import (
    MatchState,
    apply_match_actions,
    check_num_players,
    match_action_mask,
    match_outcome,
    mover_options,
    score_margin,
    start_matches,
    winners,
)
from dice_env.scorecard.match.observation import encode_match_observation, match_observation_size
from dice_env.scorecard.match.players import OPPONENT_VIEWS, Opponents, play_opponents
from dice_env.scorecard.match.render import render_match
from dice_env.scorecard.match.state import match_state_from_dict, match_state_to_dict
from dice_env.scorecard.rules import PRESETS, Rules

RESET_OPTIONS = ("state",)
REWARDS = ("win_loss", "score_diff")


def final_rewards(totals: np.ndarray, reward: str) -> np.ndarray:
    """``(N, P)`` the end-of-match reward of every seat (``reward``: one of :data:`REWARDS`)."""
    return match_outcome(totals) if reward == "win_loss" else score_margin(totals)


def check_reward(reward: str) -> str:
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    return reward


class MatchOptions(ScorecardOptions):
    """The options shared by the single and the batched match envs (checked once, here)."""

    def _init_match_options(self, game: str | Rules, num_players: int, agent_seat: int | str,
                            opponents: Any, reward: str, opponent_view: str,
                            seed_opponents: bool, render_mode: str | None, supported: list[str],
                            canonical_holds: bool, illegal_action: str, illegal_penalty: float,
                            max_steps: int | None, rule_overrides: dict) -> None:
        self._init_options(game, render_mode, supported, canonical_holds, illegal_action,
                           illegal_penalty, max_steps, rule_overrides)
        self.num_players = check_num_players(num_players)
        if agent_seat != "random" and (isinstance(agent_seat, bool)
                                       or not isinstance(agent_seat, (int, np.integer))
                                       or not 0 <= agent_seat < self.num_players):
            raise ValueError(f"agent_seat must be 'random' or a seat from 0 to "
                             f"{self.num_players - 1}, got {agent_seat!r}")
        self.agent_seat_option = agent_seat if agent_seat == "random" else int(agent_seat)
        self.reward = check_reward(reward)
        if opponent_view not in OPPONENT_VIEWS:
            raise ValueError(f"opponent_view must be one of {OPPONENT_VIEWS}, got "
                             f"{opponent_view!r}")
        self.opponent_view = opponent_view
        if not isinstance(opponents, Opponents):
            opponents = Opponents(resolve_opponents(opponents, _factory_game(self.rules)),
                                  self.num_players - 1)
        self.opponents = opponents
        self.seed_opponents = bool(seed_opponents)
        self.single_observation_space = spaces.Box(
            0.0, 1.0, (match_observation_size(self.rules, self.num_players),), dtype=np.float32)

    def _reseed_opponents(self) -> None:
        if self.seed_opponents:
            self.opponents.reseed(self.np_random)

    def _draw_seats(self, k: int) -> np.ndarray:
        if self.agent_seat_option == "random":
            return self.np_random.integers(self.num_players, size=k)
        return np.full(k, self.agent_seat_option, dtype=np.int64)

    def _seat_names(self, agent_seat: int) -> list[str]:
        p = self.num_players
        return [f"seat {s} (you)" if s == agent_seat
                else f"seat {s} (opp {(s - agent_seat) % p - 1})" for s in range(p)]


class ScorecardMatchEnv(MatchOptions, gym.Env):
    """A multi-player scorecard game (Penta, Dice Poker, ...): one agent against bot opponents.

    ## Description
    ``num_players`` players, each with a scorecard of their own (docs/rules.md), take whole turns in
    seat order (seat 0 opens every round); a turn is the solitaire turn of
    :class:`~dice_env.scorecard.env.ScorecardEnv` (up to three throws, then one open box is
    filled, with the upper bonus, the five-of-a-kind bonus and the Joker rule).  The match ends
    when every card is full (13 turns each in Penta, 15 in Dice Poker); the highest TOTAL
    wins.  The agent sits at ``agent_seat``; the opponents' turns are played inside
    :meth:`step` (and inside :meth:`reset` for the seats before the agent), so the agent only
    sees its own decisions.  The rules are those of :mod:`dice_env.scorecard.game`, run on one
    card per player (:mod:`dice_env.scorecard.match.core`).

    ## Action Space
    ``Discrete(32 + n_boxes)``, the encoding of the single-player env: ``a < 32`` rerolls,
    holding die ``i`` of the sorted dice when bit ``i`` of ``a`` is set; ``32 + k`` scores box
    ``k`` (``env.rules.labels``).  Legal actions: ``info["action_mask"]`` (int8) and
    :meth:`action_masks` (bool, for MaskablePPO).  An action must be an integer (a Python
    ``int``, a numpy integer scalar or a 0-d integer array, bools excepted); any other value is
    an illegal action (see :mod:`dice_env.errors`).

    ## Observation Space
    ``Box(0, 1, (S + 2 + (num_players - 1) * (5 + n_boxes),), float32)``, documented in
    :mod:`dice_env.scorecard.match.observation`: the single-player observation of the agent's
    card (``S`` = 45 for Penta, 49 for Dice Poker), a to-move flag, the agent's TOTAL, and per
    opponent (seat order after the agent) their TOTAL, capped upper progress, five-of-a-kind
    state and open boxes.  Penta with 2 players: 65 entries.

    ## Rewards
    At the end of the match, with ``reward="win_loss"`` (default): ``+1`` when the agent alone
    has the highest TOTAL, ``-1`` when another player has a higher TOTAL, and ``0`` when the
    agent *shares* the highest TOTAL (a tie: nobody has the highest total alone; see
    :mod:`dice_env.scorecard.match.core`).  With ``reward="score_diff"``: the agent's TOTAL minus
    the best TOTAL among the opponents (in points).  0 on every other step.  An illegal action
    under ``"penalize"`` / ``"terminate"`` earns ``illegal_penalty``.

    ## Starting State
    Empty cards; seat 0 throws first.  The agent's seat is ``agent_seat`` (drawn per episode
    with ``"random"``); the opponents before it play their first turns inside :meth:`reset`.
    Or ``reset(options={"state": d})`` with :meth:`get_state`'s dict (see
    :mod:`dice_env.scorecard.match.state`): the agent takes the seat to move.

    ## Episode End
    Terminated when every card is full (or on an illegal action under ``"terminate"``);
    truncated after ``max_steps`` steps of the agent (a guard against agents that repeat illegal
    actions under ``"penalize"``).

    ## Info
    ``action_mask`` (int8), ``must_scratch``, ``box_points`` (as the single-player env),
    ``agent_seat``, ``scores`` (every player's ``{"upper", "upper_bonus", "lower",
    "penta_bonus", "total"}``, seat order); once over, ``winners`` (the seats holding the top
    TOTAL); ``illegal_action`` after an illegal action.

    ## Arguments
    * ``game``: a scorecard preset (``"penta"``, ``"dice-poker"``, ``"yahtzee-official"``,
      ...) or a :class:`~dice_env.scorecard.rules.Rules`; any rule knob as a keyword.
    * ``num_players``: 2 to 6 (default 2).
    * ``agent_seat``: the agent's seat (0 opens every round) or ``"random"`` (default).
    * ``opponents``: ``None`` (default: random players,
      :class:`~dice_env.random_player.RandomPlayer` -- pass real ones to learn anything), one
      player for every opponent, or a sequence of ``num_players - 1`` players, ``opponents[k]``
      sitting ``k + 1`` seats after the agent.  A player is any ``agents.make(name, game)``
      player (``act(observation, action_mask)``, optionally ``act_batch`` and ``seed``) or a
      plain callable ``f(observation, action_mask) -> int``.  A player may also be given by
      name, e.g. ``opponents=["heuristic", "optimal"]`` or ``opponents="heuristic"`` (names
      and players may be mixed): the name is built by a player factory, by default
      ``agents.make(name, game)`` (see :mod:`dice_env.player_names`); an unknown name raises
      ``ValueError``.  An illegal opponent action raises ``RuntimeError``.
    * ``opponent_view``: what the opponents observe: ``"card"`` (default) -- the single-player
      observation of their own card, what every player of ``dice_env/Penta-v0`` reads;
      ``"match"`` -- the match observation of their seat (for policies trained on this env).
    * ``seed_opponents``: reseed the opponents that have ``seed(int)`` from the env's generator
      at every reset (default True), so a seeded reset replays the whole episode.
    * ``reward``: ``"win_loss"`` (default) or ``"score_diff"``, see Rewards.
    * ``render_mode``: ``None``, ``"ansi"`` (every card side by side) or ``"human"``.
    * ``canonical_holds``, ``illegal_action`` (``"penalize"`` default, ``"raise"``,
      ``"terminate"``), ``illegal_penalty`` (-1.0): as in the single-player env.
    * ``max_steps``: default ``10 * n_boxes * rolls_per_turn``.

    ## Version History
    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        game: str | Rules = "penta",
        num_players: int = 2,
        agent_seat: int | str = "random",
        opponents: Any = None,
        reward: str = "win_loss",
        opponent_view: str = "card",
        seed_opponents: bool = True,
        render_mode: str | None = None,
        canonical_holds: bool = True,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_steps: int | None = None,
        **rule_overrides: Any,
    ) -> None:
        self._init_match_options(game, num_players, agent_seat, opponents, reward,
                                 opponent_view, seed_opponents, render_mode,
                                 self.metadata["render_modes"], canonical_holds, illegal_action,
                                 illegal_penalty, max_steps, rule_overrides)
        self.action_space = self.single_action_space
        self.observation_space = self.single_observation_space
        self.agent_seat = 0
        self._state = MatchState.empty(self.rules, 1, self.num_players)
        self._steps = 0
        self._done = True
        self._refresh()

    # -- internals ---------------------------------------------------------------------
    def _seats(self) -> np.ndarray:
        return np.array([self.agent_seat])

    def _refresh(self) -> None:
        legal, points, _ = mover_options(self.rules, self._state)
        self._box_legal, self._box_points = legal, points
        self._mask = match_action_mask(self.rules, self._state, self.canonical_holds,
                                       box_legal=legal)[0]

    def _observation(self) -> np.ndarray:
        return encode_match_observation(self.rules, self._state, self._seats(),
                                        mover_points=self._box_points)[0]

    def _info(self) -> dict:
        info = {
            "action_mask": self._mask.astype(np.int8),
            "must_scratch": bool(G.must_scratch(self._box_legal, self._box_points)[0]),
            "box_points": self._box_points[0].copy(),
            "agent_seat": int(self.agent_seat),
            "scores": self._state.score_breakdowns(self.rules),
        }
        if self._state.finished()[0]:
            info["winners"] = winners(self._state.totals(self.rules)[0])
        return info

    def _play_opponents(self) -> None:
        play_opponents(self.rules, self._state, self._seats(), np.ones(1, dtype=bool),
                       self.opponents, self.np_random, self.canonical_holds, self.opponent_view)

    # -- public API --------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions (sb3-contrib's MaskablePPO calls this)."""
        return self._mask.copy()

    def score_breakdowns(self) -> list[dict[str, int]]:
        """Every player's score breakdown so far, in seat order."""
        return self._state.score_breakdowns(self.rules)

    def get_state(self) -> dict:
        """The match as a JSON-serialisable dict (see :mod:`dice_env.scorecard.match.state`),
        with ``agent_seat``."""
        return {**match_state_to_dict(self.rules, self._state), "agent_seat": self.agent_seat}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = reset_options(options, RESET_OPTIONS)
        restored = None  # checked before anything changes: a refused state leaves the env be
        if options.get("state") is not None:
            restored = match_state_from_dict(self.rules, options["state"], self.num_players,
                                             extra_keys=("agent_seat",))
            check_restored_seat(options["state"], int(restored.current[0]))
        super().reset(seed=seed)
        self._reseed_opponents()
        if restored is not None:
            self._state, self.agent_seat = restored, int(restored.current[0])
        else:
            self.agent_seat = int(self._draw_seats(1)[0])
            self._state = MatchState.empty(self.rules, 1, self.num_players)
            start_matches(self.rules, self._state, np.ones(1, dtype=bool), self.np_random)
            self._play_opponents()
        self._steps = 0
        self._done = False
        self._refresh()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        a = as_action(action, self.action_space.n)  # None unless an integer in range
        if a is None or not self._mask[a]:
            return illegal_step(self, self._illegal(action),
                                observation=self._observation, info=self._info,
                                out_of_time=self._out_of_time)
        self._steps += 1
        apply_match_actions(self.rules, self._state, np.array([a]), self.np_random)
        self._play_opponents()
        self._refresh()
        terminated = bool(self._state.finished()[0])
        reward = 0.0
        if terminated:
            totals = self._state.totals(self.rules)
            reward = float(final_rewards(totals, self.reward)[0, self.agent_seat])
        truncated = not terminated and self._out_of_time()
        self._done = terminated or truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def _out_of_time(self) -> bool:
        """Whether the episode has taken ``max_steps`` steps."""
        return self._steps >= self.max_steps

    def _illegal(self, action: Any) -> IllegalAction:
        """An illegal ``action`` of the agent (see :mod:`dice_env.illegal`)."""
        dice = self._state.cards.dice[self._state.mover_rows()[0]]
        return IllegalAction(action, np.flatnonzero(self._mask).tolist(), self.action_space.n,
                             lambda a: describe_action(self.rules, a, dice),
                             describe_out_of_range=True)

    def render(self) -> str | None:
        """Every card side by side (``"ansi"`` returns the text, ``"human"`` prints it)."""
        if self.render_mode not in ("ansi", "human"):
            warn_unsupported_render_mode(self.unsupported_render_mode,
                                         self._supported_render_modes)
            return None
        text = render_match(self.rules, self._state, self._seat_names(self.agent_seat))
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text


def check_restored_seat(data: dict, current: int) -> None:
    """A restored state must be a decision of the agent: ``agent_seat``, when given, is the
    seat to move."""
    if "agent_seat" in data:
        seat = as_int(data["agent_seat"])
        if seat != current:
            raise ValueError(f"state['agent_seat'] is {data['agent_seat']!r} but seat {current} "
                             "is to move: a restored state must be a decision of the agent")


def _factory_game(rules: Rules) -> Any:
    """What a player factory is given for ``rules`` (opponents by name): the preset name, or
    the rules themselves when they are no preset."""
    return rules.name if PRESETS.get(rules.name) == rules else rules
