"""The Gymnasium environment of the scorecard games (Penta, Dice Poker, Yahtzee presets)."""

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
from dice_env.illegal import IllegalAction, illegal_step
from dice_env.scorecard import game as G
from dice_env.scorecard.observation import (
    check_observation_kind,
    encode_observation_one,
    observation_size,
)
from dice_env.scorecard.render import render_scorecard
from dice_env.scorecard.rules import Rules, get_rules
from dice_env.scorecard.state import state_from_dict, state_to_dict

RESET_OPTIONS = ("state",)


def describe_action(rules: Rules, action: int, dice=None) -> str:
    """A short human description of an action, e.g. ``hold [1 1 5]`` or ``score Fours``."""
    action = int(action)
    if 0 <= action < G.N_HOLD_ACTIONS:
        positions = [i for i in range(5) if action >> i & 1]
        if dice is None:
            return f"{action} (hold positions {positions})"
        return f"{action} (hold {[int(dice[i]) for i in positions]})"
    if G.N_HOLD_ACTIONS <= action < G.N_HOLD_ACTIONS + rules.n_boxes:
        return f"{action} (score {rules.labels[action - G.N_HOLD_ACTIONS]})"
    return f"{action} (out of range)"


class ScorecardOptions:
    """The options shared by the single and the batched scorecard envs (set once, here)."""

    def _init_options(self, game: str | Rules, render_mode: str | None, supported: list[str],
                      canonical_holds: bool, illegal_action: str, illegal_penalty: float,
                      max_steps: int | None, rule_overrides: dict,
                      observation: str = "basic") -> None:
        self.observation_kind = check_observation_kind(observation)
        self.rules = get_rules(game, **rule_overrides)
        self._supported_render_modes = list(supported)
        #: a render mode that was asked for but is not supported (rendering is then off)
        self.unsupported_render_mode: str | None = None
        if render_mode is not None and render_mode not in supported:
            # Not an error, but rendering is off: see warn_unsupported_render_mode
            self.unsupported_render_mode, render_mode = render_mode, None
        self.render_mode = render_mode
        self.canonical_holds = bool(canonical_holds)
        self.illegal_action = check_illegal_action_mode(illegal_action)
        self.illegal_penalty = float(illegal_penalty)
        n = self.rules.n_boxes
        self.max_steps = int(max_steps) if max_steps is not None else (
            10 * n * self.rules.rolls_per_turn)
        self.single_action_space = spaces.Discrete(G.N_HOLD_ACTIONS + n)
        size = observation_size(self.rules, observation)
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)


class ScorecardEnv(ScorecardOptions, gym.Env):
    """A solitaire scorecard dice game: Penta, Dice Poker, or a Yahtzee preset.

    ## Description
    Five dice, a scorecard of ``n_boxes`` boxes (13 for Penta and Yahtzee, 15 for Dice Poker),
    one box filled per turn, up to three throws per turn.  The rules are those of
    docs/rules.md, including the upper bonus, the five-of-a-kind bonus and the Joker rule
    (enforced by the action mask).  See :mod:`dice_env.scorecard.rules` for the knobs.

    ## Action Space
    ``Discrete(32 + n_boxes)``.  Action ``a < 32`` rerolls, holding die ``i`` of the sorted
    dice when bit ``i`` of ``a`` is set (the dice are sorted ascending after every roll);
    action ``32 + k`` scores the current roll in box ``k`` (box order: ``env.rules.labels``).
    With ``canonical_holds=True`` (default) only one hold per distinct kept multiset is legal
    (the leftmost dice of each face); holding all five (31) is never legal.  Legal actions are
    given as an ``int8`` mask in ``info["action_mask"]`` and as a bool array by
    :meth:`action_masks` (what sb3-contrib's MaskablePPO calls).

    An action must be an integer: a Python ``int``, a numpy integer scalar or a 0-d numpy
    integer array (what ``Discrete.contains`` accepts, bools excepted).  Any other value --
    ``1.5``, ``1.0``, ``"32"``, ``True``, ``None``, ``float("inf")``, ``np.array([32])`` -- is
    never converted: it is an illegal action, handled by ``illegal_action`` like one the mask
    forbids (see :mod:`dice_env.errors`).

    ## Observation Space
    ``Box(0, 1, (obs_dim,), float32)``; the layout is documented in
    :mod:`dice_env.scorecard.observation` (sorted dice, face counts, rerolls left one-hot,
    open boxes, what each box would score now, upper progress, five-of-a-kind state, turn).
    Penta: 45 entries, Dice Poker: 49.  With ``observation="bonus"``, 11 more entries spell out
    the card against the upper bonus (points still needed, par of the open upper boxes, the
    slack, and the slack after scoring the dice in each upper box): Penta 56, Dice Poker 60.

    ## Rewards
    The points each scoring action earns, bonuses included when earned (the upper bonus on
    the action that crosses the threshold, +100 for an extra five of a kind).  Rerolls earn 0.
    The rewards of an episode sum to the final TOTAL (unless illegal actions were penalised).

    ## Starting State
    An empty scorecard and a fresh first roll; or ``reset(options={"state": d})`` with a state
    dict from :meth:`get_state` (see :mod:`dice_env.scorecard.state`).

    ## Episode End
    Terminated when every box is filled; truncated after ``max_steps`` steps (a guard against
    agents that never score, which can only happen with illegal actions under ``"penalize"``).

    ## Info
    ``action_mask`` (int8), ``must_scratch`` (True when no legal box scores above zero — the
    app's "you must scratch one" warning), ``box_points`` (what each box would score now);
    after an illegal action under ``"penalize"``/``"terminate"``, ``illegal_action``; at the
    end, ``score``: ``{"upper", "upper_bonus", "lower", "penta_bonus", "total"}``.

    ## Arguments
    * ``game``: a preset name (``"penta"``, ``"dice-poker"``, ``"yahtzee-official"``,
      ``"yahtzee-free-joker"``, ``"yahtzee-no-bonus"``) or a :class:`Rules`.
    * ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"``
      (printed after every step).  Another mode (SB3's ``make_vec_env`` asks for
      ``"rgb_array"``) is not an error, but rendering is off: ``render_mode`` is ``None``
      (the mode asked for is in ``unsupported_render_mode``) and ``render()`` warns and
      returns ``None``.
    * ``canonical_holds``: see Action Space.
    * ``illegal_action``: ``"penalize"`` (default) -- the state is untouched, the reward is
      ``illegal_penalty`` and ``info["illegal_action"]`` is set; ``"raise"`` -- an
      :class:`~dice_env.errors.IllegalActionError` naming the action and the legal ones, state
      untouched; ``"terminate"`` -- the episode ends with ``illegal_penalty``.  The default is
      ``"penalize"`` because Gymnasium's ``check_env`` (and any unmasked agent) steps with
      random actions: the env must survive them, and a penalty that leaves the game intact is
      the gentlest teacher.
    * ``illegal_penalty``: reward of an illegal action (default -1.0).
    * ``max_steps``: step limit (default ``10 * n_boxes * rolls_per_turn``).
    * ``observation``: ``"basic"`` (default) or ``"bonus"`` (see Observation Space).
    * any rule knob of :class:`Rules` as a keyword (e.g. ``upper_bonus_threshold=63``).

    ## Version History
    * v0: initial version; the ``observation="bonus"`` option added later (the default
      observation is unchanged).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        game: str | Rules = "penta",
        render_mode: str | None = None,
        canonical_holds: bool = True,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_steps: int | None = None,
        observation: str = "basic",
        **rule_overrides: Any,
    ) -> None:
        self._init_options(game, render_mode, self.metadata["render_modes"], canonical_holds,
                           illegal_action, illegal_penalty, max_steps, rule_overrides,
                           observation)
        self.action_space = self.single_action_space
        self.observation_space = self.single_observation_space
        # The game runs one step at a time in Python (game.ScorecardGame): the batched
        # core's numpy calls cost more than the game itself for a batch of one.
        self._game = G.ScorecardGame(self.rules)
        self._steps = 0
        self._done = True
        self._refresh()

    # -- internals ---------------------------------------------------------------------
    @property
    def _state(self) -> G.ScorecardState:
        """The game as a batch of one of the batched core (a copy)."""
        return self._game.to_state()

    def _refresh(self) -> None:
        """Recompute the cached box options and mask of the current state."""
        self._legal, self._points, self._bonus = self._game.options()
        self._mask = self._game.action_mask(self._legal, self.canonical_holds)

    def _observation(self) -> np.ndarray:
        g = self._game
        return encode_observation_one(self.rules, g.roll, g.rolls_left, g.open_boxes(),
                                      self._points, g.upper_total, g.five_state(),
                                      self.observation_kind)

    def _info(self) -> dict:
        info = {
            "action_mask": np.array(self._mask, dtype=np.int8),
            "must_scratch": self._game.must_scratch(self._legal, self._points),
            "box_points": np.array(self._points, dtype=np.int64),
        }
        if self._game.finished():
            info["score"] = self.score_breakdown()
        return info

    # -- public API --------------------------------------------------------------------
    def score_breakdown(self) -> dict[str, int]:
        """Upper, upper bonus, lower, five-of-a-kind bonus and TOTAL of the scorecard so far."""
        return self._game.score_breakdown()

    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions (sb3-contrib's MaskablePPO calls this)."""
        return np.array(self._mask, dtype=bool)

    def get_state(self) -> dict:
        """The game state as a JSON-serialisable dict (see :mod:`dice_env.scorecard.state`)."""
        return state_to_dict(self.rules, self._state)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = reset_options(options, RESET_OPTIONS)
        # a refused state leaves everything as it was, the generator included
        restored = (state_from_dict(self.rules, options["state"])
                    if options.get("state") is not None else None)
        super().reset(seed=seed)
        if restored is not None:
            self._game.load(restored)
        else:
            self._game.start(self.np_random)
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
        reward = self._game.apply(a, self.np_random, self._points, self._bonus)[0]
        self._refresh()
        terminated = self._game.finished()
        truncated = not terminated and self._out_of_time()
        self._done = terminated or truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), terminated, truncated, self._info()

    def _out_of_time(self) -> bool:
        """Whether the episode has taken ``max_steps`` steps."""
        return self._steps >= self.max_steps

    def _illegal(self, action: Any) -> IllegalAction:
        """An illegal ``action`` in the current state (see :mod:`dice_env.illegal`)."""
        dice = self._game.dice
        return IllegalAction(action, [x for x, ok in enumerate(self._mask) if ok],
                             self.action_space.n, lambda a: describe_action(self.rules, a, dice),
                             describe_out_of_range=True)

    def render(self) -> str | None:
        """The dice and scorecard as text (``"ansi"``), or printed (``"human"``)."""
        if self.render_mode not in ("ansi", "human"):
            warn_unsupported_render_mode(self.unsupported_render_mode,
                                         self._supported_render_modes)
            return None
        legal = np.array([self._legal], dtype=bool)
        points = np.array([self._points], dtype=np.int64)
        text = render_scorecard(self.rules, self._state, points, legal,
                                self.rules.five_kind_bonus)
        if self.render_mode == "human":
            print(text)
            return None
        return text
