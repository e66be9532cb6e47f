"""What the two batched 5000 envs share: :class:`FiveThousandVectorBase` steps ``N`` games held
in one :class:`~dice_env.fivethousand.game.FiveThousandState` through the agent's action and
whole opponent turns (see :mod:`dice_env.fivethousand.vector`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dice_env.errors import as_actions, reset_options, warn_unsupported_render_mode
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.base import FiveThousandBaseEnv
from dice_env.fivethousand.observation import _roll_features, observation_size
from dice_env.fivethousand.render import render_game
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.rules import turn as T
from dice_env.fivethousand.state import state_from_dict, state_to_dict
from dice_env.fivethousand.vector.kernels import (
    encode_kernel,
    init_kernel,
    record_kernel,
    select_kernel,
    to_move_kernel,
)
from dice_env.illegal import IllegalAction, check_batch

AUTORESET_MODES = {m.value: m for m in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)}




class FiveThousandVectorBase(VectorEnv):
    """What the two batched 5000 envs share (not registered itself); see the subclasses."""

    metadata = {"render_modes": ["ansi", "human"], "autoreset_mode": AutoresetMode.SAME_STEP}
    #: False when only a game's end is rewarded (:meth:`_rewards_of` is then called for the
    #: games that ended only).
    _rewards_every_step = True

    def __init__(self, num_envs: int, template: FiveThousandBaseEnv,
                 autoreset_mode: str | AutoresetMode) -> None:
        if not isinstance(num_envs, (int, np.integer)) or int(num_envs) < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        mode = AUTORESET_MODES.get(getattr(autoreset_mode, "value", autoreset_mode))
        if mode is None:
            raise ValueError(f"autoreset_mode must be one of {list(AUTORESET_MODES)}, got "
                             f"{autoreset_mode!r}")
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        # the single env validated every argument; the batch plays by the same settings
        self.rules: FiveThousandRules = template.rules
        self.render_mode = template.render_mode
        self.unsupported_render_mode = template.unsupported_render_mode
        self.illegal_action = template.illegal_action
        self.illegal_penalty = template.illegal_penalty
        self.max_turns = template.max_turns
        self.max_steps = template.max_steps
        self.num_players = template.num_players
        self.num_envs = n = int(num_envs)
        self.single_action_space = spaces.Discrete(self.rules.n_actions)
        self.single_observation_space = spaces.Box(
            0.0, 1.0, (observation_size(self.num_players),), dtype=np.float32)
        self.action_space = batch_space(self.single_action_space, n)
        self.observation_space = batch_space(self.single_observation_space, n)

        self._tables = T.turn_tables(self.rules)
        self._features = _roll_features(self.rules)
        self._state = G.FiveThousandState.empty(n, self.num_players)
        self._rows = np.arange(n)
        self._seat = np.zeros(n, dtype=np.int64)      # the agent's seat in each game
        self._steps = np.zeros(n, dtype=np.int64)
        self._throw_n = np.zeros(n, dtype=np.int64)   # dice each row throws next (scratch)
        # scratch for what the turn kernels tell of each decision (points set aside, total,
        # outcome, receiver, bumped) and throw (bust roll, opening busts): the envs report no
        # events, only the games that end
        self._turn_scratch = [np.zeros(n, dtype=np.int64) for _ in range(4)]
        self._bumped = np.zeros((n, self.num_players), dtype=bool)
        self._bust_roll = np.zeros(n, dtype=np.int64)
        self._opening_busts = np.zeros(n, dtype=np.int64)
        self._fresh = np.zeros(n, dtype=bool)         # dealt, the agent has not decided yet
        self._needs_reset = np.zeros(n, dtype=bool)   # NEXT_STEP: reset on the next step
        self._mask = np.zeros((n, self.rules.n_actions), dtype=bool)
        self._mask[:, 0] = True  # a placeholder until reset(): a mask is never empty
        self._started = False
        self._obs = np.zeros((n, observation_size(self.num_players)), dtype=np.float32)
        self._all = np.ones(n, dtype=bool)
        self._all.setflags(write=False)
        self._no_bank = np.zeros(n, dtype=bool)
        self._no_bank.setflags(write=False)
        self._begin_step(np.zeros(n, dtype=bool))

    # -- hooks of the subclasses -----------------------------------------------------------
    def _deal_seats(self, rows: np.ndarray) -> None:
        """Choose the agent's seat in the new games of ``rows``."""
        self._seat[rows] = 0

    def _reseed_players(self) -> None:
        """Reseed the opponents from the env's generator (at every reset, as the single env)."""

    def _after_deal(self, rows: np.ndarray) -> None:
        """Bookkeeping after new games were dealt into ``rows``."""

    def _after_restore(self, rows: np.ndarray) -> None:
        """Bookkeeping after ``rows`` were restored from state dicts."""

    def _rewards_of(self, rows: np.ndarray) -> np.ndarray:
        """The rewards of ``rows``, which moved legally this step (before any reset)."""
        raise NotImplementedError

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        """The opponents' actions in ``rows`` (games where an opponent is to move)."""
        raise NotImplementedError  # pragma: no cover  (the solo env has no opponents)

    def _player_names(self, row: int) -> list[str]:
        return [f"player {i}" + (" (you)" if i == self._seat[row] else "")
                for i in range(self.num_players)]

    # -- transitions ----------------------------------------------------------------------
    def _throw(self, pending: np.ndarray) -> None:
        """``pending`` rows throw ``_throw_n`` dice, again and again while they bust
        (:func:`~dice_env.fivethousand.rules.turn.land_rows`)."""
        s = self._state
        rng = self.np_random
        while pending.size:
            faces = R.throw_faces(rng, pending.size)
            pending = T.land_rows(pending, faces, self._throw_n, s.dice, s.roll, s.current,
                                  s.turn_total, s.turns, self._bust_roll, self._opening_busts,
                                  T.INDEX_BY_CODE, T.POINTS_OF_ROLL, R.ROLL_DICE)

    def _play(self, rows: np.ndarray, actions: np.ndarray) -> None:
        """One legal decision in each game of ``rows`` (ascending), then throw on to the next
        decision: :func:`~dice_env.fivethousand.game.step_games` on those rows, through the
        same kernels (:func:`~dice_env.fivethousand.rules.turn.decide_rows`).

        A bank that ends a game ends its episode here (SAME_STEP: recorded and dealt again,
        the new game's opening throws joining this round); a game that ends before its
        agent's first decision is dealt again, as the single env does."""
        s = self._state
        t = self._tables
        won = T.decide_rows(rows, actions, self.rules.target, t.points, t.left, s.roll,
                            s.turn_total, s.current, s.scores, s.turns, s.winner, self._throw_n,
                            *self._turn_scratch, self._bumped)
        dealt = self._games_won(won) if won.size else None
        self._throw(select_kernel(rows, self._throw_n, s.winner, s.current, self._seat, False))
        if dealt is not None and dealt.size:
            self._after_deal(dealt)

    def _games_won(self, rows: np.ndarray) -> np.ndarray:
        """Games of ``rows`` just won: end their episodes, or deal again those that ended
        before the agent's first decision.  Returns the rows set up for a new game (their
        opening throws are the caller's)."""
        fresh = self._fresh[rows]
        if fresh.all():
            self._init_games(rows)
            return rows
        over = rows[~fresh]
        restarted = self._end_games(over, True)
        again = rows[fresh]
        if again.size:
            self._init_games(again)
        return rows if restarted else again

    def _init_games(self, rows: np.ndarray) -> None:
        """Set up new games in ``rows`` (the agent's seat, scores 0, seat 0 to open with five
        dice); their throws are the caller's."""
        self._deal_seats(rows)
        s = self._state
        init_kernel(rows, s.scores, s.turns, s.winner, s.turn_total, s.current, self._throw_n,
                     self._fresh, self._steps, self._needs_reset)

    def _deal(self, rows: np.ndarray) -> None:
        """New games in ``rows``, thrown to their first decision (opponents not played)."""
        self._init_games(rows)
        self._throw(rows)
        self._after_deal(rows)

    def _settle(self, rows: np.ndarray) -> None:
        """Play the opponents in ``rows`` until each game waits for its agent (or is over,
        with NEXT_STEP autoreset)."""
        s = self._state
        rows = select_kernel(rows, self._throw_n, s.winner, s.current, self._seat, True)
        while rows.size:
            self._play(rows, self._opponent_actions(rows))
            rows = select_kernel(rows, self._throw_n, s.winner, s.current, self._seat, True)

    # -- observations, masks, ends ---------------------------------------------------------
    def _observe(self, rows: np.ndarray, seats: np.ndarray,
                 over: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Observations of ``rows`` from ``seats`` and the bool masks of the players to move.

        ``over``: True if every game of ``rows`` is over, False if none is, None to check."""
        s = self._state
        if over:
            mask = np.zeros((rows.size, self.rules.n_actions), dtype=bool)
            can_bank = mask[:, 0]
        else:
            _, score_now, tt, roll = to_move_kernel(rows, s.scores, s.current, s.turn_total, s.roll)
            mask = R.legal_action_mask(self.rules, score_now, tt, roll)
            if self.rules.choose_scoring_dice:
                pts = T.POINTS_OF_ROLL[roll]
                can_bank = (pts > 0) & R.bank_allowed(self.rules, score_now, tt + pts)
            else:
                can_bank = mask[:, R.BANK]
            if over is None:
                ended = s.winner[rows] >= 0
                if ended.any():
                    mask[ended] = False
        obs = np.empty((rows.size, self.single_observation_space.shape[0]), dtype=np.float32)
        self._encode_into(obs, rows, seats, can_bank, False)
        return obs, mask

    def _encode_into(self, out: np.ndarray, rows: np.ndarray, seats: np.ndarray,
                     can_bank: np.ndarray, scatter: bool) -> None:
        s = self._state
        encode_kernel(rows, seats, s.scores, s.current, s.turn_total, s.roll, s.winner, s.turns,
                can_bank, self._features, T.POINTS_OF_ROLL, float(self.rules.target),
                float(self.max_turns or 0), out, scatter)

    def _agent_turns(self, rows: np.ndarray | None = None) -> np.ndarray:
        rows = self._rows if rows is None else rows
        return self._state.turns[rows, self._seat[rows]]

    def _out_of_time(self) -> np.ndarray:
        out = np.zeros(self.num_envs, dtype=bool)
        if self.max_turns is not None:
            out |= self._agent_turns() >= self.max_turns
        if self.max_steps is not None:
            out |= self._steps >= self.max_steps
        return out

    def _begin_step(self, moving: np.ndarray) -> None:
        n = self.num_envs
        self._moving = moving
        self._reward = np.zeros(n, dtype=np.float64)
        self._rewarded = np.zeros(n, dtype=bool)
        self._ended = np.zeros(n, dtype=bool)
        self._final: dict[str, np.ndarray] | None = None

    def _record_final(self, rows: np.ndarray, over: bool | None = None) -> None:
        """Keep the last observation and info of the games of ``rows``, which just ended
        (``over``: True if every one of them is won, None to check)."""
        n = self.num_envs
        if self._final is None:
            self._final = {
                "obs": np.empty((n, self.single_observation_space.shape[0]), dtype=np.float32),
                "action_mask": np.zeros((n, self.rules.n_actions), dtype=np.int8),
                "scores": np.zeros((n, self.num_players), dtype=np.int64),
                "agent_seat": np.zeros(n, dtype=np.int64),
                "turns": np.zeros(n, dtype=np.int64),
                "winner": np.full(n, -1, dtype=np.int64),
                "done": np.zeros(n, dtype=bool),
            }
        f = self._final
        seats = self._seat[rows]
        if over:  # no legal action, no turn entries
            self._encode_into(f["obs"], rows, seats, self._no_bank, True)
        else:
            f["obs"][rows], mask = self._observe(rows, seats, over)
            f["action_mask"][rows] = mask
        s = self._state
        record_kernel(rows, self._seat, s.scores, s.turns, s.winner, f["scores"], f["agent_seat"],
                f["turns"], f["winner"], f["done"])

    def _end_games(self, rows: np.ndarray, over: bool | None = None) -> bool:
        """The episodes of ``rows`` terminate now (``over``: True if all were won, None to
        check): reward and record them; with SAME_STEP autoreset reseed the opponents and set
        up new games (their throws are the caller's) and return True; with NEXT_STEP leave
        them for the next step and return False."""
        self._ended[rows] = True
        moved = rows[self._moving[rows]]
        if moved.size:
            self._reward[moved] = self._rewards_of(moved)
            self._rewarded[moved] = True
        self._record_final(rows, over)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            self._reseed_players()
            self._init_games(rows)
            return True
        self._needs_reset[rows] = True
        return False

    def _reset_games(self, rows: np.ndarray) -> None:
        """What the single env's ``reset()`` does to a game (its opponents play in
        :meth:`_settle`)."""
        self._reseed_players()
        self._deal(rows)

    def _refresh(self) -> None:
        self._obs, self._mask = self._observe(self._rows, self._seat)
        if self._needs_reset.any():  # NEXT_STEP: any action resets; keep the mask non-empty
            self._mask[self._needs_reset] = False
            self._mask[self._needs_reset, 0] = True

    def _infos(self) -> dict:
        return {"action_mask": self._mask.astype(np.int8), "_action_mask": self._all}

    # -- illegal actions ------------------------------------------------------------------
    def _illegal(self, i: int, action: Any) -> IllegalAction:
        """Sub-env ``i``'s illegal ``action``, the entry as it was given (see
        :mod:`dice_env.illegal`)."""
        s = self._state
        dice = s.dice[i, :int(R.ROLL_SIZE[s.roll[i]])].tolist()
        return IllegalAction(action, np.flatnonzero(self._mask[i]).tolist(),
                             self.rules.n_actions,
                             lambda a: R.describe_action(self.rules, a, dice),
                             lambda a: G.illegal_reason(self.rules, s, a, row=i))

    # -- public API -----------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``(N, n_actions)`` bool masks of the legal actions (what MaskablePPO asks for)."""
        return self._mask.copy()

    def get_state(self, index: int) -> dict:
        """The state dict of sub-env ``index`` (see :mod:`dice_env.fivethousand.state`)."""
        return state_to_dict(self.rules, self._state, int(index),
                             agent_seat=int(self._seat[index]))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Reset every game (or those of ``options["reset_mask"]``).

        ``options["states"]``: one state dict (or ``None`` for a new game) per sub-env; a game
        given a state starts from it.  Seeding reproduces the whole batch.  A refused state
        (``ValueError`` naming the sub-env) leaves every game, and the generator, as they
        were."""
        options = reset_options(options, ("reset_mask", "states"))
        n = self.num_envs
        reset = np.asarray(options.get("reset_mask", self._all), dtype=bool)
        if reset.shape != (n,):
            raise ValueError(f"reset_mask must have shape ({n},), got {reset.shape}")
        given = options.get("states")
        restored: dict[int, tuple[G.FiveThousandState, int | None]] = {}
        if given is not None:
            if not isinstance(given, (list, tuple)) or len(given) != n:
                raise ValueError(f"options['states'] must be a list of {n} entries (one per "
                                 f"sub-env, None for a new game)")
            for i, d in enumerate(given):
                if d is None:
                    continue
                if not reset[i]:
                    raise ValueError(f"sub-env {i}: a state was given but reset_mask excludes it")
                try:
                    state, seat = state_from_dict(self.rules, d, self.num_players)
                except ValueError as err:
                    raise ValueError(f"sub-env {i}: {err}") from None
                cur = int(state.current[0])
                if seat is not None and seat != cur:
                    raise ValueError(f"sub-env {i}: state['agent_seat'] is {seat} but seat {cur} "
                                     "is to move: a restored state must be a decision of the "
                                     "agent")
                restored[i] = (state, cur)
        super().reset(seed=seed)
        self._begin_step(np.zeros(n, dtype=bool))
        self._reseed_players()
        deal = reset.copy()
        deal[list(restored)] = False
        rows = np.flatnonzero(deal)
        if rows.size:
            self._deal(rows)
            self._settle(rows)
        for i, (state, seat) in restored.items():
            self._state.put([i], state)
            self._seat[i] = seat
        if restored:
            back = np.array(sorted(restored), dtype=np.int64)
            self._fresh[back] = False
            self._steps[back] = 0
            self._after_restore(back)
        self._needs_reset[reset] = False
        self._started = True
        self._refresh()
        return self._obs, self._infos()

    def step(self, actions):
        """Advance every game by one decision of its agent (the opponents play inside)."""
        if not self._started:
            raise RuntimeError("step() called before reset(); call reset() first")
        actions, valid, raw = as_actions(actions, self.num_envs, self.rules.n_actions)
        resetting = self._needs_reset.copy()
        legal = valid & self._mask[self._rows, actions]
        illegal = ~legal & ~resetting
        any_illegal = bool(illegal.any())
        check_batch(self, illegal, lambda i: self._illegal(i, raw[i]))
        moving = legal & ~resetting
        self._begin_step(moving)
        self._steps += ~resetting
        touched = moving.copy()
        if resetting.any():
            touched |= resetting
            self._reset_games(np.flatnonzero(resetting))
        if any_illegal and self.illegal_action == "terminate":
            touched |= illegal
            rows = np.flatnonzero(illegal)
            if self._end_games(rows):
                self._throw(rows)
                self._after_deal(rows)
        rows = np.flatnonzero(moving)
        self._fresh[rows] = False
        if rows.size:
            self._play(rows, actions[rows])
        self._settle(np.flatnonzero(touched))

        if self._rewards_every_step:
            rest = np.flatnonzero(moving & ~self._rewarded)
            if rest.size:
                self._reward[rest] = self._rewards_of(rest)
        rewards = self._reward
        if any_illegal:
            rewards[illegal] = self.illegal_penalty
        truncated = ~resetting & ~self._ended & self._out_of_time()
        if truncated.any():
            rows = np.flatnonzero(truncated)
            self._record_final(rows, False)
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                self._reset_games(rows)
                self._settle(rows)
            else:
                self._needs_reset[rows] = True
        terminated = self._ended
        self._refresh()
        infos = self._infos()
        if any_illegal:
            infos["illegal_action"], infos["_illegal_action"] = illegal, self._all
        if self._final is not None:
            infos.update(self._final_infos(illegal if any_illegal else None))
        return self._obs, rewards, terminated, truncated, infos

    def _final_infos(self, illegal: np.ndarray | None) -> dict:
        f = self._final
        done = f["done"]
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done).tolist():
            final_obs[i] = f["obs"][i]
        info = {}
        for key in ("action_mask", "scores", "agent_seat", "turns", "winner"):
            info[key], info[f"_{key}"] = f[key], done
        if illegal is not None:
            info["illegal_action"], info["_illegal_action"] = illegal & done, done
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            del info["action_mask"], info["_action_mask"]  # the step's own mask is the last one
            return info
        return {"final_obs": final_obs, "_final_obs": done, "final_info": info,
                "_final_info": done}

    def render(self) -> str | None:
        """Sub-env 0 as text (``render_mode`` ``"ansi"`` returns it, ``"human"`` prints it)."""
        if self.render_mode not in ("ansi", "human"):
            warn_unsupported_render_mode(self.unsupported_render_mode,
                                         self.metadata["render_modes"])
            return None
        text = render_game(self.rules, self._state, 0, self._player_names(0))
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

