"""A natively batched Gymnasium ``VectorEnv`` of the single-agent scorecard matches.

``N`` matches live in one :class:`~dice_env.scorecard.match.core.MatchState` (``N * P`` cards of
one :class:`~dice_env.scorecard.game.ScorecardState`) and advance together through the same
functions as :class:`~dice_env.scorecard.match.env.ScorecardMatchEnv`
(:mod:`dice_env.scorecard.match.core`, and :func:`~dice_env.scorecard.match.players.play_opponents`
for the opponents, who are asked once per round for all the games where they are to move).
Draws happen in the same order as in the single env, so a batch of one with the same seed
replays it die for die.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dice_env.errors import as_actions, reset_options, warn_unsupported_render_mode
from dice_env.illegal import IllegalAction, check_batch, flag_batch, penalize_batch
from dice_env.scorecard import game as G
from dice_env.scorecard.env import describe_action
from dice_env.scorecard.match.core import (
    MatchState,
    apply_match_actions,
    match_action_mask,
    mover_options,
    start_matches,
)
from dice_env.scorecard.match.env import (
    MatchOptions,
    check_restored_seat,
    final_rewards,
)
from dice_env.scorecard.match.observation import encode_match_observation
from dice_env.scorecard.match.players import play_opponents
from dice_env.scorecard.match.render import render_match
from dice_env.scorecard.match.state import match_state_from_dict, match_state_to_dict
from dice_env.scorecard.rules import Rules

AUTORESET_MODES = {m.value: m for m in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)}


class ScorecardMatchVectorEnv(MatchOptions, VectorEnv):
    """``num_envs`` matches of ``dice_env/PentaMatch-v0`` (or another preset) stepped together.

    ## Description
    The game, spaces, rewards and arguments of
    :class:`~dice_env.scorecard.match.env.ScorecardMatchEnv`: one learning agent per match
    against ``num_players - 1`` bot opponents whose turns are played inside :meth:`step`.  In
    each round of the opponents' turns, every opponent object is asked once with
    ``act_batch(observations, masks)`` for all the games where it is to move (``agents``
    players have it), or game by game through ``act`` / a plain callable.

    ## Action Space
    ``num_envs`` x ``Discrete(32 + n_boxes)``.  ``np.asarray(actions)`` must hold ``num_envs``
    entries (else ``ValueError``); an integer array gives each game its action, an ``object``
    array is read entry by entry, any other dtype holds no integer: every entry is illegal
    (the rule of :mod:`dice_env.errors`).

    ## Observation Space
    ``Box(0, 1, (num_envs, obs_dim), float32)``: each match seen from its agent's seat, the
    layout of :mod:`dice_env.scorecard.match.observation`.

    ## Rewards
    As the single env: at the end ``+1`` / ``0`` (a shared top TOTAL) / ``-1``, or the score
    difference with ``reward="score_diff"``; ``illegal_penalty`` for an illegal action.

    ## Starting State
    As the single env (the agent's seat drawn per match with ``agent_seat="random"``).
    ``reset(options={"states": [d0, d1, ...]})`` restores matches from state dicts (``None``
    for a new match); ``reset(options={"reset_mask": m})`` resets only the matches where ``m``.

    ## Episode End
    Terminated when every card is full (or on an illegal action under ``"terminate"``);
    truncated after ``max_steps`` steps of that match's agent.  Autoreset: ``"SameStep"``
    (default; a finished match is reset inside the step that ended it, its last observation
    and info in ``infos["final_obs"]`` / ``infos["final_info"]``, what Stable-Baselines3
    expects) or ``"NextStep"`` (the step after the end ignores the action and resets; the mask
    of such a match allows action 0 only, so that it is never empty).

    ## Info
    ``action_mask`` (``(N, n_actions)`` int8; :meth:`action_masks` gives it as bool) and
    ``must_scratch``, each with its ``_key`` array; ``illegal_action`` after an illegal action;
    for the matches that ended, ``final_info`` (SAME_STEP; directly in ``infos`` with
    NEXT_STEP) holds ``totals`` (``(N, P)``, seat order), ``agent_seat``, and for the matches
    played to the end ``reward_seat`` (the end-of-match reward of every seat, ``(N, P)``) and
    ``score`` (the agent's own ``upper`` / ``upper_bonus`` / ``lower`` / ``penta_bonus`` /
    ``total``, as the single-player batched env reports it).

    ## Arguments
    ``num_envs``, ``autoreset_mode``, and every argument of the single env (``game``,
    ``num_players``, ``agent_seat``, ``opponents``, ``opponent_view``, ``seed_opponents``,
    ``reward``, ``render_mode`` -- ``"ansi"`` draws sub-env 0 --, ``canonical_holds``,
    ``illegal_action``, ``illegal_penalty``, ``max_steps``, rule knobs).  Under
    ``illegal_action="raise"`` an illegal entry raises
    :class:`~dice_env.errors.IllegalActionError` naming the sub-env, and no game moves.  With
    ``seed_opponents`` every reset of games (one draw per reset, not per game) reseeds the
    opponents from the env's generator.

    ## Version History
    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 1,
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
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        **rule_overrides: Any,
    ) -> None:
        if (isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer))
                or num_envs < 1):
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self._init_match_options(game, num_players, agent_seat, opponents, reward,
                                 opponent_view, seed_opponents, render_mode,
                                 self.metadata["render_modes"], canonical_holds, illegal_action,
                                 illegal_penalty, max_steps, rule_overrides)
        mode = AUTORESET_MODES.get(getattr(autoreset_mode, "value", autoreset_mode))
        if mode is None:
            raise ValueError(f"autoreset_mode must be one of {list(AUTORESET_MODES)}, got "
                             f"{autoreset_mode!r}")
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.num_envs = n = int(num_envs)
        self.action_space = batch_space(self.single_action_space, n)
        self.observation_space = batch_space(self.single_observation_space, n)
        self._state = MatchState.empty(self.rules, n, self.num_players)
        self._seat = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._needs_reset = np.zeros(n, dtype=bool)
        self._started = False
        self._all = np.ones(n, dtype=bool)
        self._all.setflags(write=False)
        self._refresh()

    # -- internals ---------------------------------------------------------------------
    def _refresh(self) -> None:
        legal, points, _ = mover_options(self.rules, self._state)
        self._legal, self._points = legal, points
        self._mask = match_action_mask(self.rules, self._state, self.canonical_holds,
                                       box_legal=legal)
        if self._needs_reset.any():  # NEXT_STEP: any action resets; keep the mask non-empty
            self._mask[self._needs_reset] = False
            self._mask[self._needs_reset, 0] = True

    def _observations(self) -> np.ndarray:
        return encode_match_observation(self.rules, self._state, self._seat,
                                        mover_points=self._points)

    def _infos(self) -> dict:
        return {"action_mask": self._mask.astype(np.int8), "_action_mask": self._all,
                "must_scratch": G.must_scratch(self._legal, self._points),
                "_must_scratch": self._all}

    def _deal(self, rows: np.ndarray) -> None:
        """New matches in ``rows`` (bool), played up to their agents' first decisions -- what
        the single env's ``reset()`` does (opponents reseeded once for all of them)."""
        self._reseed_opponents()
        idx = np.flatnonzero(rows)
        self._seat[idx] = self._draw_seats(idx.size)
        start_matches(self.rules, self._state, rows, self.np_random)
        self._play(rows)
        self._steps[rows] = 0
        self._needs_reset[rows] = False

    def _play(self, rows: np.ndarray) -> None:
        play_opponents(self.rules, self._state, self._seat, rows, self.opponents,
                       self.np_random, self.canonical_holds, self.opponent_view)

    def _end_info(self, done: np.ndarray, finished: np.ndarray) -> dict:
        """The end-of-episode entries of the games ``done``; ``finished``: played to the end."""
        totals = self._state.totals(self.rules)
        info = {"totals": np.where(done[:, None], totals, 0), "_totals": done,
                "agent_seat": np.where(done, self._seat, 0), "_agent_seat": done}
        seat_rewards = np.where(finished[:, None], final_rewards(totals, self.reward), 0.0)
        info["reward_seat"], info["_reward_seat"] = seat_rewards, finished
        if finished.any():  # the agent's own card, as the single-player envs report it
            agent_rows = np.arange(self.num_envs) * self.num_players + self._seat
            parts = self._state.cards.score_breakdown(self.rules)
            score = {k: np.where(finished, v[agent_rows], 0) for k, v in parts.items()}
            score.update({f"_{k}": finished for k in list(score)})
            info["score"], info["_score"] = score, finished
        return info

    def _final_infos(self, done: np.ndarray, finished: np.ndarray, illegal: np.ndarray):
        obs = self._observations()
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done):
            final_obs[i] = obs[i]
        info = {"action_mask": np.where(done[:, None], self._mask, False).view(np.int8),
                "_action_mask": done, **self._end_info(done, finished)}
        flag_batch(info, illegal, done)
        return {"final_obs": final_obs, "_final_obs": done, "final_info": info,
                "_final_info": done}

    def _illegal(self, i: int, action: Any) -> IllegalAction:
        """Sub-env ``i``'s illegal ``action`` (see :mod:`dice_env.illegal`)."""
        dice = self._state.cards.dice[self._state.mover_rows()[i]]
        return IllegalAction(action, np.flatnonzero(self._mask[i]).tolist(),
                             self.single_action_space.n,
                             lambda a: describe_action(self.rules, a, dice),
                             describe_out_of_range=True)

    # -- public API --------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``(N, n_actions)`` bool masks of the legal actions (what MaskablePPO asks for)."""
        return self._mask.copy()

    def get_state(self, index: int) -> dict:
        """The state dict of sub-env ``index`` (see :mod:`dice_env.scorecard.match.state`)."""
        return {**match_state_to_dict(self.rules, self._state, int(index)),
                "agent_seat": int(self._seat[index])}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = reset_options(options, ("reset_mask", "states"))
        n = self.num_envs
        reset = np.asarray(options.get("reset_mask", self._all), dtype=bool)
        if reset.shape != (n,):
            raise ValueError(f"reset_mask must have shape ({n},), got {reset.shape}")
        given = options.get("states")
        restored: dict[int, MatchState] = {}
        if given is not None:  # check every state before any game changes
            if not isinstance(given, (list, tuple)) or len(given) != n:
                raise ValueError(f"options['states'] must be a list of {n} entries (one per "
                                 f"sub-env, None for a new match), got {given!r}")
            for i, d in enumerate(given):
                if d is None:
                    continue
                if not reset[i]:
                    raise ValueError(f"sub-env {i}: a state was given but reset_mask excludes it")
                try:
                    restored[i] = match_state_from_dict(self.rules, d, self.num_players,
                                                        extra_keys=("agent_seat",))
                    check_restored_seat(d, int(restored[i].current[0]))
                except ValueError as err:
                    raise ValueError(f"sub-env {i}: {err}") from None
        deal = reset.copy()
        deal[list(restored)] = False
        if deal.any() or not restored:
            self._deal(deal)
        else:
            self._reseed_opponents()  # as the single env's reset does
        for i, state in restored.items():
            self._state.put([i], state)
            self._seat[i] = int(state.current[0])
            self._steps[i] = 0
        self._needs_reset[reset] = False
        self._started = True
        self._refresh()
        return self._observations(), self._infos()

    def step(self, actions):
        if not self._started:
            raise RuntimeError("step() called before reset(); call reset() first")
        n, n_actions = self.num_envs, self.single_action_space.n
        actions, valid, raw = as_actions(actions, n, n_actions)
        resetting = self._needs_reset.copy()  # NEXT_STEP: these games only reset
        legal = valid & self._mask[np.arange(n), actions]
        illegal = ~legal & ~resetting
        check_batch(self, illegal, lambda i: self._illegal(i, raw[i]), name_legal=False)

        if resetting.any():
            self._deal(resetting)
        moving = legal & ~resetting
        self._steps += ~resetting
        apply_match_actions(self.rules, self._state, actions, self.np_random, moving)
        self._play(moving)
        finished = self._state.finished() & moving
        rewards = np.zeros(n, dtype=np.float64)
        if finished.any():
            seat_rewards = final_rewards(self._state.totals(self.rules), self.reward)
            rewards[finished] = seat_rewards[np.flatnonzero(finished), self._seat[finished]]
        terminated = finished.copy()
        penalize_batch(self, illegal, rewards, terminated)
        truncated = ~terminated & ~resetting & (self._steps >= self.max_steps)
        done = terminated | truncated

        extra = {}
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            if done.any():
                self._refresh()
                extra = self._final_infos(done, finished, illegal)
                self._deal(done)
        else:
            self._needs_reset = done.copy()
            if done.any():
                extra = self._end_info(done, finished)
        self._refresh()
        infos = self._infos()
        flag_batch(infos, illegal, self._all)
        infos.update(extra)
        return self._observations(), rewards, terminated, truncated, infos

    def render(self) -> str | None:
        """Every card of sub-env 0 side by side (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            warn_unsupported_render_mode(self.unsupported_render_mode,
                                         self._supported_render_modes)
            return None
        return render_match(self.rules, self._state, self._seat_names(int(self._seat[0])))
