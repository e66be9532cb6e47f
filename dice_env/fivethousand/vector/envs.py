"""The two batched 5000 envs: :class:`FiveThousandVectorEnv` (``dice_env/FiveThousand-v0``, one
agent against bot opponents) and :class:`FiveThousandSoloVectorEnv`
(``dice_env/FiveThousandSolo-v0``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from dice_env.fivethousand.env import FiveThousandEnv
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.solo import DEFAULT_MAX_TURNS, FiveThousandSoloEnv
from dice_env.fivethousand.vector.base import FiveThousandVectorBase
from dice_env.fivethousand.vector.kernels import (
    first_illegal_kernel,
)
from dice_env.opponents import OpponentGroup, group_opponents


class FiveThousandVectorEnv(FiveThousandVectorBase):
    """``num_envs`` games of ``dice_env/FiveThousand-v0`` stepped together on numpy arrays.

    ## Description
    The game, spaces, rewards and arguments of
    :class:`~dice_env.fivethousand.env.FiveThousandEnv`: one learning agent per game against
    ``num_players - 1`` bot opponents, whose turns are played inside :meth:`step`.  The
    opponents are *batched*: in each round of the opponents' turns, every opponent object is
    asked once, with ``act_batch(observations, masks)`` (``(k, obs_dim)`` float32
    observations from its own seats and ``(k, n_actions)`` int8 masks, returning ``k``
    actions) for the ``k`` games where it is to move; a player without ``act_batch`` is asked
    game by game through ``act(observation, mask)`` (or called, if it is a plain callable).
    The default :class:`~dice_env.fivethousand.bots.ThresholdBot` is batched.

    ## Action Space
    ``MultiDiscrete`` of ``num_envs`` x ``Discrete(2)`` (``0`` roll on, ``1`` bank), or
    ``Discrete(64)`` per game with ``choose_scoring_dice`` (action ``2 * m + b``).
    ``np.asarray(actions)`` must hold ``num_envs`` entries (else ``ValueError``).  An integer
    array gives each game its action; an ``object`` array is read entry by entry with the
    single env's rule; any other dtype -- floats, even whole ones, bools, strings -- holds no
    integer, so every entry is an illegal action (see :mod:`dice_env.errors`).

    ## Observation Space
    ``Box(0, 1, (num_envs, 3 * num_players + 14), float32)``: each game seen from its agent's
    seat, the layout of :mod:`dice_env.fivethousand.observation`.

    ## Rewards
    ``+1`` when the agent wins, ``-1`` when another player does, 0 otherwise;
    ``illegal_penalty`` for an illegal action (``"penalize"`` and ``"terminate"``).

    ## Starting State
    As the single env: scores 0, seat 0 opens, the agent's seat drawn per game with
    ``agent_seat="random"``; opponents before the agent play their first turns inside the
    reset.  ``reset(options={"states": [d0, d1, ...]})`` restores games from state dicts
    (``None`` for a new game); ``reset(options={"reset_mask": m})`` resets only the games
    where ``m``.  ``reset(seed=s)`` makes the whole batch reproducible (every draw, the
    opponents' seeds included, comes from the env's generator).

    ## Episode End
    Terminated when a player reaches the target exactly (or after an illegal action under
    ``"terminate"``); truncated after ``max_turns`` turns of the agent or ``max_steps`` steps
    of that game.  Autoreset: ``"SameStep"`` (default; a finished game is reset inside the
    step that ended it, its last observation and info in ``infos["final_obs"]`` /
    ``infos["final_info"]``, what Stable-Baselines3 expects) or ``"NextStep"`` (Gymnasium's
    default: the step after the end ignores the action and resets; the mask of such a game
    allows action 0 only, so that it is never empty).

    ## Info
    ``infos["action_mask"]`` ``(num_envs, n_actions)`` int8 (and :meth:`action_masks`, bool);
    ``illegal_action`` after an illegal action; for the games that ended, ``final_info``
    (SAME_STEP; directly in ``infos`` with NEXT_STEP) holds ``action_mask``, ``scores``,
    ``agent_seat``, ``turns`` (the agent's completed turns) and ``winner`` (-1 when
    truncated), each with its ``_key`` array.  The single env's ``events`` are not produced.

    ## Arguments
    ``num_envs``, ``autoreset_mode``, and the arguments of
    :class:`~dice_env.fivethousand.env.FiveThousandEnv` (``num_players``, ``agent_seat``,
    ``opponents``, ``seed_opponents``, ``rules`` or ``target`` / ``entry`` /
    ``choose_scoring_dice``, ``render_mode`` -- which draws sub-env 0 --, ``illegal_action``,
    ``illegal_penalty``, ``max_turns``, ``max_steps``).  An illegal action under
    ``illegal_action="raise"`` raises :class:`~dice_env.errors.IllegalActionError` naming the
    sub-env, and no game moves.  With ``seed_opponents`` every reset of games (one draw per
    reset, not per game) reseeds the opponents from the env's generator, as the single env does
    at each reset.

    ## Version History
    * v0: initial version.
    """

    def __init__(
        self,
        num_envs: int = 1,
        num_players: int = 2,
        agent_seat: int | str = "random",
        opponents: Any = None,
        rules: FiveThousandRules | dict | None = None,
        target: int | None = None,
        entry: int | None = None,
        choose_scoring_dice: bool | None = None,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_turns: int | None = None,
        max_steps: int | None = 10_000,
        seed_opponents: bool = True,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
    ) -> None:
        template = FiveThousandEnv(
            num_players=num_players, agent_seat=agent_seat, opponents=opponents, rules=rules,
            target=target, entry=entry, choose_scoring_dice=choose_scoring_dice,
            render_mode=render_mode, illegal_action=illegal_action,
            illegal_penalty=illegal_penalty, max_turns=max_turns, max_steps=max_steps,
            seed_opponents=seed_opponents)
        self.agent_seat_option = template.agent_seat_option
        self.opponents = template.opponents
        self.seed_opponents = template.seed_opponents
        self._groups = group_opponents(self.opponents)
        super().__init__(num_envs, template, autoreset_mode)

    def _deal_seats(self, rows: np.ndarray) -> None:
        if self.agent_seat_option == "random":
            self._seat[rows] = self.np_random.integers(self.num_players, size=rows.size)
        else:
            self._seat[rows] = int(self.agent_seat_option)

    def _reseed_players(self) -> None:
        if self.seed_opponents:
            seeds = self.np_random.integers(0, 2**31 - 1, size=len(self.opponents))
            for opp, s in zip(self.opponents, np.atleast_1d(seeds).tolist()):
                if callable(getattr(opp, "seed", None)):
                    opp.seed(int(s))

    _rewards_every_step = False  # +1 / -1 at the end only

    def _rewards_of(self, rows: np.ndarray) -> np.ndarray:
        w = self._state.winner[rows]
        return np.where(w < 0, 0.0, np.where(w == self._seat[rows], 1.0, -1.0))

    def _player_names(self, row: int) -> list[str]:
        seat = int(self._seat[row])
        p = self.num_players
        return [f"seat {i} (you)" if i == seat else f"seat {i} (opp {(i - seat) % p - 1})"
                for i in range(p)]

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        seats = self._state.current[rows]
        obs, mask = self._observe(rows, seats, over=False)
        masks8 = mask.view(np.int8)
        if len(self._groups) == 1:  # one player (object) for every opponent: one call
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
        (as in the single env, naming the opponent and its seat, and here the sub-env)."""
        if group.act_batch is not None:
            chosen = group.act_batch(obs, masks8)
        else:
            chosen = [group.policy(o, m) for o, m in zip(obs, masks8)]
        try:
            actions = np.asarray(chosen)
            if actions.dtype != np.int64:
                actions = actions.astype(np.int64)
            actions = actions.reshape(rows.size)
            bad = first_illegal_kernel(actions, masks8)
        except (TypeError, ValueError):
            actions, bad = None, 0
        if bad >= 0:
            got = chosen[bad] if actions is not None else chosen
            seat = int(seats[bad])
            k = (seat - int(self._seat[rows[bad]])) % self.num_players - 1
            raise RuntimeError(f"sub-env {int(rows[bad])}: opponent {k} "
                               f"({self.opponents[k]!r}, seat {seat}) chose the illegal action "
                               f"{got!r}; legal: {np.flatnonzero(masks8[bad]).tolist()}")
        return actions


class FiveThousandSoloVectorEnv(FiveThousandVectorBase):
    """``num_envs`` games of ``dice_env/FiveThousandSolo-v0`` stepped together on numpy arrays.

    ## Description
    The game of :class:`~dice_env.fivethousand.solo.FiveThousandSoloEnv`: one player reaches
    exactly the target in as few turns as possible.

    ## Action Space
    ``num_envs`` x ``Discrete(2)`` (``0`` roll on, ``1`` bank), or ``Discrete(64)`` per game
    with ``choose_scoring_dice``.  Actions are read as in :class:`FiveThousandVectorEnv`.

    ## Observation Space
    ``Box(0, 1, (num_envs, 17), float32)``, the layout of
    :mod:`dice_env.fivethousand.observation` for one player.

    ## Rewards
    ``-1`` per turn ended in the step (turns that end inside a reset -- opening busts -- are
    charged on the game's first step, so an episode's return is minus its number of turns);
    ``illegal_penalty`` for an illegal action.

    ## Starting State
    Score 0 and a fresh throw of five dice; ``reset(options={"states": [...]})`` /
    ``{"reset_mask": m}`` as in :class:`FiveThousandVectorEnv`; ``reset(seed=s)`` makes the
    batch reproducible.

    ## Episode End
    Terminated at exactly the target; truncated after ``max_turns`` turns (200) or
    ``max_steps`` steps (10,000).  Autoreset ``"SameStep"`` (default, ``final_obs`` /
    ``final_info``) or ``"NextStep"``, as in :class:`FiveThousandVectorEnv`.

    ## Info
    ``action_mask`` (int8), ``illegal_action``, and for ended games ``final_info`` with
    ``action_mask``, ``scores``, ``agent_seat``, ``turns`` (the turns the game took) and
    ``winner``.

    ## Arguments
    ``num_envs``, ``autoreset_mode`` and the arguments of the single solo env (``rules`` or
    the knobs, ``render_mode``, ``illegal_action``, ``illegal_penalty``, ``max_turns``,
    ``max_steps``).

    ## Version History
    * v0: initial version.
    """

    def __init__(
        self,
        num_envs: int = 1,
        rules: FiveThousandRules | dict | None = None,
        target: int | None = None,
        entry: int | None = None,
        choose_scoring_dice: bool | None = None,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_penalty: float = -1.0,
        max_turns: int | None = DEFAULT_MAX_TURNS,
        max_steps: int | None = 10_000,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
    ) -> None:
        template = FiveThousandSoloEnv(
            rules=rules, target=target, entry=entry, choose_scoring_dice=choose_scoring_dice,
            render_mode=render_mode, illegal_action=illegal_action,
            illegal_penalty=illegal_penalty, max_turns=max_turns, max_steps=max_steps)
        super().__init__(num_envs, template, autoreset_mode)
        self._carried = np.zeros(self.num_envs, dtype=np.int64)  # turns ended inside a reset

    def _begin_step(self, moving: np.ndarray) -> None:
        super()._begin_step(moving)
        self._turns_before = self._state.turns[:, 0].copy()

    def _after_deal(self, rows: np.ndarray) -> None:
        self._carried[rows] = self._state.turns[rows, 0]  # opening busts before the decision

    def _after_restore(self, rows: np.ndarray) -> None:
        self._carried[rows] = 0

    def _rewards_of(self, rows: np.ndarray) -> np.ndarray:
        turns = self._state.turns[rows, 0] - self._turns_before[rows] + self._carried[rows]
        self._carried[rows] = 0
        return -turns.astype(np.float64)

    def _player_names(self, row: int) -> list[str]:
        return ["you"]
