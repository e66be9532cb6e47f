"""A natively batched Gymnasium ``VectorEnv`` of the scorecard games.

``N`` games live in the numpy arrays of one :class:`~dice_env.scorecard.game.ScorecardState`
and advance together through the pure functions of :mod:`dice_env.scorecard.game`; the single
env plays their one-game twin (:class:`~dice_env.scorecard.game.ScorecardGame`).  A batch
of one with the same seed reproduces the single env die for die (the tests hold them to it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dice_env.errors import as_actions, reset_options, warn_unsupported_render_mode
from dice_env.illegal import IllegalAction, check_batch, flag_batch, penalize_batch
from dice_env.scorecard import game as G
from dice_env.scorecard.env import ScorecardOptions, describe_action
from dice_env.scorecard.observation import encode_observation
from dice_env.scorecard.render import render_scorecard
from dice_env.scorecard.rules import Rules, box_outcomes
from dice_env.scorecard.state import state_from_dict, state_to_dict

AUTORESET_MODES = {m.value: m for m in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)}


class ScorecardVectorEnv(ScorecardOptions, VectorEnv):
    """``num_envs`` scorecard games stepped together on numpy arrays.

    Same game, spaces, rewards and options as :class:`~dice_env.scorecard.env.ScorecardEnv`
    (``game``, ``canonical_holds``, ``illegal_action``, ``illegal_penalty``, ``max_steps``,
    ``observation`` and rule knobs), plus:

    * ``num_envs``: the batch size.
    * ``autoreset_mode``: ``"SameStep"`` (default; a finished game is reset inside the step
      that ended it, its last observation and info in ``infos["final_obs"]`` /
      ``infos["final_info"]``: what Stable-Baselines3 expects) or ``"NextStep"``
      (Gymnasium's default: the step after the end ignores the action and resets).

    ``infos`` always holds ``action_mask`` (``(N, n_actions)`` int8) and ``must_scratch``
    (``(N,)`` bool), each with its ``_key`` array; :meth:`action_masks` returns the bool mask.
    ``reset(options={"states": [d0, d1, ...]})`` starts every game from a state dict (``None``
    for a fresh game), ``reset(options={"reset_mask": m})`` resets only the games where ``m``;
    a refused state dict (``ValueError`` naming the sub-env) leaves every game as it was.

    Actions: ``np.asarray(actions)`` must hold ``num_envs`` entries (else ``ValueError``).  An
    integer array gives each game its action; an ``object`` array is read entry by entry; any
    other dtype -- floats, even whole ones, bools, strings -- holds no integer, so every entry
    is an illegal action (the rule of :mod:`dice_env.errors`, as in the single env).  Illegal
    entries are handled by ``illegal_action``: ``"penalize"`` leaves those games untouched;
    ``"raise"`` raises :class:`~dice_env.errors.IllegalActionError` naming the first illegal
    sub-env, and no game of the batch moves; ``"terminate"`` ends those games.
    """

    metadata = {"render_modes": ["ansi"], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        game: str | Rules = "penta",
        render_mode: str | None = None,
        canonical_holds: bool = True,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_steps: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        observation: str = "basic",
        **rule_overrides: Any,
    ) -> None:
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self._init_options(game, render_mode, self.metadata["render_modes"], canonical_holds,
                           illegal_action, illegal_penalty, max_steps, rule_overrides,
                           observation)
        mode = AUTORESET_MODES.get(getattr(autoreset_mode, "value", autoreset_mode))
        if mode is None:
            raise ValueError(f"autoreset_mode must be one of {list(AUTORESET_MODES)}, got "
                             f"{autoreset_mode!r}")
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.num_envs = int(num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._state = G.ScorecardState.empty(self.rules, self.num_envs)
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        self._needs_reset = np.ones(self.num_envs, dtype=bool)  # NEXT_STEP bookkeeping
        self._all = np.ones(self.num_envs, dtype=bool)
        self._all.setflags(write=False)
        self._refresh()

    # -- internals ---------------------------------------------------------------------
    def _options_of(self, state: G.ScorecardState):
        """Open boxes, five-of-a-kind state, box outcomes and action mask of a batch."""
        open_boxes = state.open_boxes()
        five = state.five_state(self.rules)
        legal, points, bonus = box_outcomes(self.rules, state.roll, open_boxes, five)
        mask = G.action_mask(self.rules, state, self.canonical_holds, legal)
        return open_boxes, five, (legal, points, bonus), mask

    def _refresh(self) -> None:
        self._open, self._five, self._outcomes, self._mask = self._options_of(self._state)

    def _encode(self, state, open_boxes, five, outcomes) -> np.ndarray:
        return encode_observation(self.rules, state.dice, state.roll, state.rolls_left,
                                  open_boxes, outcomes[1], state.upper_total, five,
                                  self.observation_kind)

    def _observations(self) -> np.ndarray:
        return self._encode(self._state, self._open, self._five, self._outcomes)

    def _infos(self) -> dict:
        return {"action_mask": self._mask.astype(np.int8), "_action_mask": self._all,
                "must_scratch": G.must_scratch(*self._outcomes[:2]), "_must_scratch": self._all}

    def _scatter(self, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
        """A ``(N, ...)`` array holding ``values`` at ``rows`` (bool) and zeros elsewhere."""
        out = np.zeros((self.num_envs, *values.shape[1:]), dtype=values.dtype)
        out[rows] = values
        return out

    def _final_infos(self, done: np.ndarray, terminated: np.ndarray, illegal: np.ndarray):
        """``final_obs`` and ``final_info`` of the games that just ended (SAME_STEP)."""
        ended = self._state.take(done)
        open_boxes, five, outcomes, mask = self._options_of(ended)
        obs = self._encode(ended, open_boxes, five, outcomes)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for j, i in enumerate(np.flatnonzero(done)):
            final_obs[i] = obs[j]
        final_info = {
            "action_mask": self._scatter(done, mask.view(np.int8)), "_action_mask": done,
            "must_scratch": self._scatter(done, G.must_scratch(*outcomes[:2])),
            "_must_scratch": done,
        }
        if terminated.any():
            ended_term = terminated[done]
            score = {k: self._scatter(terminated, v[ended_term])
                     for k, v in ended.score_breakdown(self.rules).items()}
            score.update({f"_{k}": terminated for k in list(score)})
            final_info["score"], final_info["_score"] = score, terminated
        flag_batch(final_info, illegal, done)
        return {"final_obs": final_obs, "_final_obs": done,
                "final_info": final_info, "_final_info": done}

    def _illegal(self, i: int, action: Any) -> IllegalAction:
        """Sub-env ``i``'s illegal ``action`` (see :mod:`dice_env.illegal`)."""
        dice = self._state.dice[i]
        return IllegalAction(action, np.flatnonzero(self._mask[i]).tolist(),
                             self.single_action_space.n,
                             lambda a: describe_action(self.rules, a, dice),
                             describe_out_of_range=True)

    def _reset_rows(self, rows: np.ndarray) -> None:
        G.start_games(self.rules, self._state, rows, self.np_random)
        self._steps[rows] = 0

    # -- public API --------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``(N, n_actions)`` bool mask of legal actions (what MaskablePPO asks for)."""
        return self._mask.copy()

    def get_state(self, index: int) -> dict:
        """The state dict of sub-env ``index`` (see :mod:`dice_env.scorecard.state`)."""
        return state_to_dict(self.rules, self._state, index)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = reset_options(options, ("states", "reset_mask"))
        rows = np.asarray(options.get("reset_mask", self._all), dtype=bool)
        if rows.shape != (self.num_envs,):
            raise ValueError(f"reset_mask must have shape ({self.num_envs},)")
        states = options.get("states")
        restored: dict[int, G.ScorecardState] = {}
        if states is not None:  # check every state before any game changes
            if not isinstance(states, (list, tuple)) or len(states) != self.num_envs:
                raise ValueError(f"options['states'] must be a list of {self.num_envs} entries "
                                 f"(one per sub-env, None for a fresh game), got {states!r}")
            for i, st in enumerate(states):
                if st is not None:
                    try:
                        restored[i] = state_from_dict(self.rules, st)
                    except ValueError as err:
                        raise ValueError(f"sub-env {i}: {err}") from None
        super().reset(seed=seed)  # after the checks: a refused state changes nothing
        self._reset_rows(rows)
        for i, state in restored.items():
            self._state.put([i], state)
        self._needs_reset[rows] = False
        self._refresh()
        return self._observations(), self._infos()

    def step(self, actions):
        n_actions = self.single_action_space.n
        actions, valid, raw = as_actions(actions, self.num_envs, n_actions)
        legal = valid & self._mask[np.arange(self.num_envs), actions]
        resetting = self._needs_reset  # NEXT_STEP: these rows only reset
        illegal = ~legal & ~resetting
        check_batch(self, illegal, lambda i: self._illegal(i, raw[i]), name_legal=False)

        moving = legal & ~resetting
        rewards, *_ = G.apply_actions(self.rules, self._state, actions, self.np_random, moving,
                                      self._outcomes)
        rewards = rewards.astype(np.float64)
        self._steps += ~resetting
        terminated = self._state.finished() & ~resetting
        penalize_batch(self, illegal, rewards, terminated)
        truncated = ~terminated & ~resetting & (self._steps >= self.max_steps)
        done = terminated | truncated

        extra = {}
        if resetting.any():
            self._reset_rows(resetting)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            if done.any():
                extra = self._final_infos(done, terminated, illegal)
                self._reset_rows(done)
        else:
            self._needs_reset = done.copy()
            if terminated.any():
                score = {k: np.where(terminated, v, 0)
                         for k, v in self._state.score_breakdown(self.rules).items()}
                score.update({f"_{k}": terminated for k in list(score)})
                extra = {"score": score, "_score": terminated}
        self._refresh()
        if self.autoreset_mode == AutoresetMode.NEXT_STEP and done.any():
            self._mask[done] = False
            self._mask[done, 0] = True  # any action resets the game; keep the mask non-empty
        infos = self._infos()
        flag_batch(infos, illegal, self._all)
        infos.update(extra)
        return self._observations(), rewards, terminated, truncated, infos

    def render(self) -> str | None:
        """The scorecard of sub-env 0 (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            warn_unsupported_render_mode(self.unsupported_render_mode,
                                         self._supported_render_modes)
            return None
        legal, points, _ = self._outcomes
        return render_scorecard(self.rules, self._state, points, legal,
                                self.rules.five_kind_bonus)
