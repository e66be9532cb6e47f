"""``PigVectorEnv``: ``num_envs`` games of ``dice_env/Pig-v0`` stepped together on numpy arrays.

The games live in one :class:`~dice_env.pig.rules.PigBatch` and move by the batched rules of
:mod:`dice_env.pig.rules` (through :func:`dice_env.pig.game.step_batch`); the opponents' moves
are played inside :meth:`PigVectorEnv.step` in rounds, each opponent object asked once per round
for all the games where it is to move (``act_batch``, else ``act`` game by game).

Random draws are the single env's, in the same order (the opponents' seeds, the agent's seat,
then the dice), so a vector env of one game with the same seed replays the single env die for
die.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dice_env.errors import as_actions, reset_options, warn_unsupported_render_mode
from dice_env.illegal import IllegalAction, check_batch, flag_batch, penalize_batch
from dice_env.opponents import OpponentGroup, group_opponents
from dice_env.pig import game as G
from dice_env.pig import rules as R
from dice_env.pig.env import MAX_DEALS, PigEnv
from dice_env.pig.observation import encode_observation_batch, observation_size
from dice_env.pig.rules import PigBatch, PigRules

__all__ = ["AUTORESET_MODES", "PigVectorEnv"]

AUTORESET_MODES = {m.value: m for m in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)}




class PigVectorEnv(VectorEnv):
    """``num_envs`` games of ``dice_env/Pig-v0`` stepped together on numpy arrays.

    ## Description
    The game, spaces, rewards and arguments of :class:`~dice_env.pig.env.PigEnv`: one learning
    agent per game against ``num_players - 1`` bot opponents, whose moves are played inside
    :meth:`step`.  The opponents are *batched*: in each round every opponent object is asked
    once, with ``act_batch(observations, masks)`` (``(k, 2P + 2)`` float32 observations from its
    own seats, ``(k, 2)`` int8 masks) for the ``k`` games where it is to move; a player without
    ``act_batch`` is asked game by game (``act`` or a plain callable).  The default
    :class:`~dice_env.pig.bots.HoldAtBot` is batched.

    ## Action Space
    ``MultiDiscrete`` of ``num_envs`` x ``Discrete(2)`` (``0`` roll, ``1`` hold).
    ``np.asarray(actions)`` must hold ``num_envs`` entries (else ``ValueError``); an integer array
    gives each game its action, an ``object`` array is read entry by entry, any other dtype holds
    no integer (every entry illegal); see :mod:`dice_env.errors`.

    ## Observation Space
    ``Box(0, 1, (num_envs, 2 * num_players + 2), float32)``, each game from its agent's seat
    (:mod:`dice_env.pig.observation`).

    ## Rewards
    OpenSpiel's return of the agent when its game ends (``+1`` win, ``-1 / (num_players - 1)``
    loss, ``0`` draw), 0 before; ``illegal_penalty`` for an illegal action.

    ## Starting State
    As the single env.  ``reset(options={"states": [d0, d1, ...]})`` restores games from state
    dicts (``None`` for a new game); ``reset(options={"reset_mask": m})`` resets only the games
    where ``m``.  ``reset(seed=s)`` makes the whole batch reproducible.

    ## Episode End
    Terminated at a win, at the horizon (a draw) or after an illegal action under
    ``"terminate"``; truncated after ``max_steps`` steps of that game.  Autoreset: ``"SameStep"``
    (default; the game is dealt again inside the step that ended it, its last observation and
    info in ``infos["final_obs"]`` / ``infos["final_info"]``, what Stable-Baselines3 expects) or
    ``"NextStep"`` (Gymnasium's default: the step after the end ignores the action and resets;
    the mask of such a game allows action 0 only, so that it is never empty).

    ## Info
    ``infos["action_mask"]`` ``(num_envs, 2)`` int8 (and :meth:`action_masks`, bool);
    ``illegal_action`` after an illegal action; for the games that ended, ``final_info``
    (SAME_STEP; directly in ``infos`` with NEXT_STEP) holds ``action_mask``, ``scores``,
    ``turn_total``, ``agent_seat``, ``moves`` and ``winner`` (-1 for a draw or a truncation),
    each with its ``_key`` array.  The single env's ``events`` are not produced.

    ## Arguments
    ``num_envs``, ``autoreset_mode`` and the arguments of :class:`~dice_env.pig.env.PigEnv`
    (``render_mode`` draws sub-env 0).  An illegal action under ``illegal_action="raise"``
    raises :class:`~dice_env.errors.IllegalActionError` naming the sub-env, and no game moves.
    With ``seed_opponents`` every reset of games (one draw per reset, not per game) reseeds the
    opponents from the env's generator.

    ## Version History
    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 1,
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
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
    ) -> None:
        if (isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer))
                or int(num_envs) < 1):
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        mode = AUTORESET_MODES.get(getattr(autoreset_mode, "value", autoreset_mode))
        if mode is None:
            raise ValueError(f"autoreset_mode must be one of {list(AUTORESET_MODES)}, got "
                             f"{autoreset_mode!r}")
        # the single env validates every argument; the batch plays by the same settings
        t = PigEnv(num_players=num_players, agent_seat=agent_seat, opponents=opponents,
                   rules=rules, win_score=win_score, die_sides=die_sides, horizon=horizon,
                   piglet=piglet, render_mode=render_mode, illegal_action=illegal_action,
                   illegal_penalty=illegal_penalty, max_steps=max_steps,
                   seed_opponents=seed_opponents)
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.rules: PigRules = t.rules
        self.num_players = t.num_players
        self.render_mode = t.render_mode
        self.unsupported_render_mode = t.unsupported_render_mode
        self.illegal_action = t.illegal_action
        self.illegal_penalty = t.illegal_penalty
        self.max_steps = t.max_steps
        self.agent_seat_option = t.agent_seat_option
        self.opponents = t.opponents
        self.seed_opponents = t.seed_opponents
        self._groups = group_opponents(self.opponents)

        self.num_envs = n = int(num_envs)
        self.single_action_space = spaces.Discrete(R.N_ACTIONS)
        self.single_observation_space = spaces.Box(0.0, 1.0, (observation_size(self.num_players),),
                                                   dtype=np.float32)
        self.action_space = batch_space(self.single_action_space, n)
        self.observation_space = batch_space(self.single_observation_space, n)
        self._batch = PigBatch.empty(n, self.num_players)
        self._rows = np.arange(n)
        self._seat = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._needs_reset = np.zeros(n, dtype=bool)
        self._mask = np.zeros((n, R.N_ACTIONS), dtype=bool)
        self._mask[:, R.HOLD] = True  # a placeholder until reset(): a mask is never empty
        self._obs = np.zeros((n, observation_size(self.num_players)), dtype=np.float32)
        self._all = np.ones(n, dtype=bool)
        self._all.setflags(write=False)
        self._started = False

    # -- games -----------------------------------------------------------------------------
    def _reseed_players(self) -> None:
        if self.seed_opponents:
            seeds = self.np_random.integers(0, 2**31 - 1, size=len(self.opponents))
            for opp, s in zip(self.opponents, seeds.tolist()):
                if callable(getattr(opp, "seed", None)):
                    opp.seed(int(s))

    def _deal(self, rows: np.ndarray) -> None:
        """New games in ``rows``, played to the agent's first decision (dealt again where the
        opponents end the game first, as the single env does)."""
        for _ in range(MAX_DEALS):
            if rows.size == 0:
                return
            if self.agent_seat_option == "random":
                self._seat[rows] = self.np_random.integers(self.num_players, size=rows.size)
            else:
                self._seat[rows] = self.agent_seat_option
            self._batch.put(rows, R.initial_state(self.rules))
            self._settle(rows)
            rows = rows[R.is_terminal_batch(self.rules, self._batch.take(rows))]
        raise RuntimeError(f"the opponents ended the game before the agent's first decision "
                           f"{MAX_DEALS} times in a row ({self.rules.name}, agent_seat="
                           f"{self.agent_seat_option!r})")

    def _settle(self, rows: np.ndarray) -> None:
        """Play the opponents in ``rows`` until each game waits for its agent or is over."""
        b = self._batch
        while rows.size:
            sub = b.take(rows)
            live = ~R.is_terminal_batch(self.rules, sub) & (sub.current != self._seat[rows])
            rows = rows[live]
            if rows.size == 0:
                return
            G.step_batch(self.rules, b, rows, self._opponent_actions(rows), self.np_random)

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        sub = self._batch.take(rows)
        seats = sub.current
        obs = encode_observation_batch(self.rules, sub, seats)
        masks8 = R.action_mask_batch(self.rules, sub).astype(np.int8)
        if len(self._groups) == 1:
            return self._ask(self._groups[0], obs, masks8, rows, seats)
        actions = np.empty(rows.size, dtype=np.int64)
        which = (seats - self._seat[rows]) % self.num_players - 1  # opponent index
        for group in self._groups:
            sel = np.flatnonzero(np.isin(which, group.indices))
            if sel.size:
                actions[sel] = self._ask(group, obs[sel], masks8[sel], rows[sel], seats[sel])
        return actions

    def _ask(self, group: OpponentGroup, obs: np.ndarray, masks8: np.ndarray, rows: np.ndarray,
             seats: np.ndarray) -> np.ndarray:
        """One player's actions for its games ``rows``; an illegal one raises ``RuntimeError``
        naming the sub-env, the opponent and its seat."""
        if group.act_batch is not None:
            chosen = group.act_batch(obs, masks8)
        else:
            chosen = [group.policy(o, m) for o, m in zip(obs, masks8)]
        ints, valid, raw = as_actions(chosen if not isinstance(chosen, list)
                                      else np.array(chosen, dtype=object), rows.size,
                                      R.N_ACTIONS)
        ok = valid & masks8[np.arange(rows.size), ints].astype(bool)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            seat = int(seats[i])
            k = (seat - int(self._seat[rows[i]])) % self.num_players - 1
            raise RuntimeError(f"sub-env {int(rows[i])}: opponent {k} ({self.opponents[k]!r}, "
                               f"seat {seat}) chose the illegal action {raw[i]!r}; legal: "
                               f"{np.flatnonzero(masks8[i]).tolist()}")
        return ints

    # -- observations, masks, ends ---------------------------------------------------------
    def _refresh(self) -> None:
        self._obs = encode_observation_batch(self.rules, self._batch, self._seat)
        self._mask = R.action_mask_batch(self.rules, self._batch)
        if self._needs_reset.any():  # NEXT_STEP: any action resets; keep the mask non-empty
            self._mask[self._needs_reset] = False
            self._mask[self._needs_reset, R.ROLL] = True

    def _infos(self) -> dict:
        return {"action_mask": self._mask.astype(np.int8), "_action_mask": self._all}

    def _final(self, done: np.ndarray, illegal: np.ndarray) -> dict:
        """The last observation and info of the games ``done`` (before any reset)."""
        rows = np.flatnonzero(done)
        sub = self._batch.take(rows)
        n = self.num_envs
        final_obs = np.full(n, None, dtype=object)
        last = encode_observation_batch(self.rules, sub, self._seat[rows])
        for j, i in enumerate(rows.tolist()):
            final_obs[i] = last[j]
        info: dict[str, Any] = {}

        def put(key: str, values: np.ndarray, shape: tuple, dtype: Any) -> None:
            arr = np.zeros((n, *shape), dtype=dtype)
            arr[rows] = values
            info[key], info[f"_{key}"] = arr, done

        put("action_mask", R.action_mask_batch(self.rules, sub).astype(np.int8),
            (R.N_ACTIONS,), np.int8)
        put("scores", sub.scores, (self.num_players,), np.int64)
        put("turn_total", sub.turn_total, (), np.int64)
        put("agent_seat", self._seat[rows], (), np.int64)
        put("moves", sub.moves, (), np.int64)
        winner = np.full(n, -1, dtype=np.int64)
        winner[rows] = R.winner_batch(self.rules, sub)
        info["winner"], info["_winner"] = winner, done
        flag_batch(info, illegal, done)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            del info["action_mask"], info["_action_mask"]  # the step's own mask is the last one
            return info
        return {"final_obs": final_obs, "_final_obs": done, "final_info": info,
                "_final_info": done}

    def _illegal(self, i: int, action: Any) -> IllegalAction:
        """Sub-env ``i``'s illegal ``action`` (see :mod:`dice_env.illegal`)."""
        state = self._batch.state(i)
        return IllegalAction(action, np.flatnonzero(self._mask[i]).tolist(), R.N_ACTIONS,
                             R.describe_action, lambda a: R.illegal_reason(self.rules, state, a))

    # -- public API ------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``(num_envs, 2)`` bool masks of the legal actions (what MaskablePPO asks for)."""
        return self._mask.copy()

    def get_state(self, index: int) -> dict:
        """The state dict of sub-env ``index`` (see :func:`dice_env.pig.game.state_to_dict`)."""
        return G.state_to_dict(self.rules, self._batch.state(int(index)),
                               agent_seat=int(self._seat[index]))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Reset every game (or those of ``options["reset_mask"]``); ``options["states"]``: one
        state dict (or ``None`` for a new game) per sub-env.  A refused state (``ValueError``
        naming the sub-env) leaves every game, and the generator, as they were."""
        options = reset_options(options, ("reset_mask", "states"))
        n = self.num_envs
        reset = np.asarray(options.get("reset_mask", self._all), dtype=bool)
        if reset.shape != (n,):
            raise ValueError(f"reset_mask must have shape ({n},), got {reset.shape}")
        given = options.get("states")
        restored = {}
        if given is not None:
            if not isinstance(given, (list, tuple)) or len(given) != n:
                raise ValueError(f"options['states'] must be a list of {n} entries (one per "
                                 "sub-env, None for a new game)")
            for i, d in enumerate(given):
                if d is None:
                    continue
                if not reset[i]:
                    raise ValueError(f"sub-env {i}: a state was given but reset_mask excludes it")
                try:
                    state, seat = G.state_from_dict(self.rules, d)
                except ValueError as err:
                    raise ValueError(f"sub-env {i}: {err}") from None
                if R.is_terminal(self.rules, state):
                    raise ValueError(f"sub-env {i}: the state is a finished game")
                if seat is not None and seat != state.current:
                    raise ValueError(f"sub-env {i}: state['agent_seat'] is {seat} but seat "
                                     f"{state.current} is to move")
                restored[i] = state
        super().reset(seed=seed)
        self._reseed_players()
        deal = reset.copy()
        deal[list(restored)] = False
        self._deal(np.flatnonzero(deal))
        for i, state in restored.items():
            self._batch.put(i, state)
            self._seat[i] = state.current
        self._steps[reset] = 0
        self._needs_reset[reset] = False
        self._started = True
        self._refresh()
        return self._obs.copy(), self._infos()

    def step(self, actions):
        """Advance every game by one decision of its agent (the opponents play inside)."""
        if not self._started:
            raise RuntimeError("step() called before reset(); call reset() first")
        n = self.num_envs
        ints, valid, raw = as_actions(actions, n, R.N_ACTIONS)
        resetting = self._needs_reset.copy()
        legal = valid & self._mask[self._rows, ints]
        illegal = ~legal & ~resetting
        check_batch(self, illegal, lambda i: self._illegal(i, raw[i]))  # before any game moves
        moving = legal & ~resetting
        self._steps += ~resetting
        if resetting.any():
            self._reseed_players()
            rows = np.flatnonzero(resetting)
            self._deal(rows)
            self._steps[rows] = 0
            self._needs_reset[rows] = False
        rows = np.flatnonzero(moving)
        if rows.size:
            G.step_batch(self.rules, self._batch, rows, ints[rows], self.np_random)
            self._settle(rows)
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        over = R.is_terminal_batch(self.rules, self._batch)
        ended = moving & over
        if ended.any():
            rows = np.flatnonzero(ended)
            rewards[rows] = R.returns_batch(self.rules, self._batch.take(rows))[
                np.arange(rows.size), self._seat[rows]]
            terminated |= ended
        penalize_batch(self, illegal, rewards, terminated)
        truncated = ~terminated & ~resetting
        truncated &= (self._steps >= self.max_steps) if self.max_steps is not None else False
        done = terminated | truncated
        infos: dict[str, Any] = {}
        if done.any():
            infos.update(self._final(done, illegal))
            rows = np.flatnonzero(done)
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                self._reseed_players()
                self._deal(rows)
                self._steps[rows] = 0
            else:
                self._needs_reset[rows] = True
        self._refresh()
        infos.update(self._infos())
        flag_batch(infos, illegal, self._all)
        return self._obs.copy(), rewards, terminated, truncated, infos

    def render(self) -> str | None:
        """Sub-env 0 as text (``render_mode`` ``"ansi"`` returns it, ``"human"`` prints it)."""
        if self.render_mode not in ("ansi", "human"):
            warn_unsupported_render_mode(self.unsupported_render_mode,
                                         self.metadata["render_modes"])
            return None
        seat = int(self._seat[0])
        p = self.num_players
        names = [f"seat {i} (you)" if i == seat else f"seat {i} (opp {(i - seat) % p - 1})"
                 for i in range(p)]
        text = G.render_text(self.rules, self._batch.state(0), names)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text
