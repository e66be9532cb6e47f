"""The optimal player of 5000, and batched matches to check it.

:class:`OptimalAgent` plays from the exact tables of :mod:`agents.solvers.fivethousand_vi`
(solved once, then loaded from the on-disk cache):

* **two players** -- every decision maximises the probability of winning, both players
  playing optimally (the minimax policy; against a weaker player it is not the best
  response, but it never loses more than the solved value);
* **solo** -- every decision minimises the expected number of turns to reach the target
  exactly;
* **three players** -- the max-n profile of :mod:`agents.solvers.fivethousand_three`: every
  player maximises its own probability of winning, with the bank rules of three players
  (bumps, the gift to the lowest entered other player).  Three-player max-n has no exact
  "optimum" (a pure equilibrium need not exist); the agent plays that module's *shipped*
  profile, whose exact win probabilities it reports, and whose distance from an equilibrium
  (the most a player gains by deviating for one turn) is measured there;
* **four or more players** (and three with ``num_players=2``) -- *no exact solution*: the
  agent plays the two-player optimal policy against one opponent standing for the table (by
  default the leader, the other player with the highest score).  A strong bot, not an optimal
  one: it ignores the other opponents' bumps and gifts.

It reads Gymnasium observations (``FiveThousand-v0``, ``FiveThousandSolo-v0``, the AEC env's
``"observation"``), decides for the player to move, and follows the project's agent protocol
(``act``, ``act_batch``, ``seed``).  :meth:`OptimalAgent.advise` lists the legal actions of an
env state dict with their win probability (or expected turns).

:func:`play_solo_games` plays many solo games at once on the batched game core; matches of two
or more players are played by
:func:`agents.evaluation.fivethousand_matches.play_fivethousand_matches`.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import numpy as np

from agents.games import Game
from agents.solvers import fivethousand_three as TP
from agents.solvers import fivethousand_vi as VI
from dice_env import dice as D
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import (
    decode_observation,
    encode_observation,
    num_players_of,
    observation_slices,
)
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules

__all__ = ["OptimalAgent", "play_solo_games"]

MODES = ("auto", "two-player", "solo")
TABLES = (None, 2, 3)
MULTI_OPPONENTS = ("leader", "next", "last")
SOLO_ID = "dice_env/FiveThousandSolo-v0"
_KEEP_BY_CODE = D.KEEP_INDEX_BY_COUNTS_CODE
_slices = cache(observation_slices)




class OptimalAgent:
    """The optimal player of 5000 (two players: win probability; solo: fewest turns; three
    players: the max-n profile).

    Args:
        game: ``"fivethousand"`` (or ``"5000"``), a Gymnasium id (``"dice_env/FiveThousand-v0"``,
            ``"dice_env/FiveThousandSolo-v0"``), a :class:`FiveThousandRules` or a dict of knobs
            -- what :func:`agents.make` passes.
        rules: the rules (overrides ``game``'s); default 5000 with ``entry`` 500.
        mode: ``"auto"`` (default: solo for one-player observations, a table of two or three
            players otherwise), ``"two-player"`` or ``"solo"`` (refuse the other kind; with
            ``"two-player"`` observations of two or more players are accepted).
        num_players: which table plays games of two or more players.  ``None`` (default):
            the two-player table for two players, the exact three-player table
            (:mod:`agents.solvers.fivethousand_three`) for three (literal rules; with
            ``choose_scoring_dice`` the two-player table against ``multi_opponent``), the
            two-player table against ``multi_opponent`` for four or more.  ``2``: the
            two-player table for every table size (the behaviour before the three-player
            table: three players are played against the leader too).  ``3``: the
            three-player table; any other number of players is refused (``ValueError``).
        cache_dir, use_cache: where solved tables are cached (default ``$DICE_ENV_CACHE``,
            else the user cache folder); ``use_cache=False`` solves in memory.
        two_player, solo, three_player: already solved tables for these rules (skip loading).
        multi_opponent: when the two-player table plays three or more players, the opponent
            it plays against: ``"leader"`` (default: the highest score among the others), ``"next"``
            (the next seat) or ``"last"`` (the seat before).
        progress: show a progress bar if a solve is needed.
        seed: accepted for the common signature; the player is deterministic (ties within
            1e-12 go to banking, then to the lowest action).

    Tables are loaded (or solved, then cached) on first use: a few seconds for the two-player
    and solo tables of 5000, a few minutes for the three-player one (about 4 on two cores).
    """

    name = "optimal"

    def __init__(self, game: Any = "fivethousand", *, rules: FiveThousandRules | dict | None = None,
                 mode: str = "auto", cache_dir: str | os.PathLike | None = None,
                 use_cache: bool = True, two_player: VI.TwoPlayerSolution | None = None,
                 solo: VI.SoloSolution | None = None, multi_opponent: str = "leader",
                 num_players: int | None = None,
                 three_player: TP.ThreePlayerSolution | None = None,
                 progress: bool = False, seed: int | None = None) -> None:
        if isinstance(game, Game):  # resolved by agents.make: its name or id, parsed once
            game = game.spec
        self.rules = coerce_rules(game if rules is None else rules)
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if multi_opponent not in MULTI_OPPONENTS:
            raise ValueError(f"multi_opponent must be one of {MULTI_OPPONENTS}, got "
                             f"{multi_opponent!r}")
        if num_players not in TABLES:
            raise ValueError(f"num_players must be None (auto), 2 or 3, got {num_players!r}")
        if num_players == 3 and mode == "solo":
            raise ValueError("num_players=3 and mode='solo' contradict each other")
        if num_players == 3 and self.rules.choose_scoring_dice:
            raise ValueError("the three-player table covers the literal rules only "
                             "(choose_scoring_dice=False)")
        if three_player is not None and three_player.num_players != 3:
            raise ValueError("three_player must be a three-player solution")
        for sol in (two_player, solo, three_player):
            if sol is not None and sol.rules != self.rules:
                raise ValueError(f"the solution is for {sol.rules.knobs()}, not "
                                 f"{self.rules.knobs()}")
        self.mode = mode
        self.game = game if isinstance(game, str) else "fivethousand"
        self.multi_opponent = multi_opponent
        self._cache_dir = cache_dir
        self._use_cache = use_cache
        self._progress = progress
        self._two = two_player
        self._solo = solo
        self._three = three_player
        self.num_players = num_players
        self.model = VI.build_model(self.rules)

    # -- tables --------------------------------------------------------------------------------
    @property
    def two_player(self) -> VI.TwoPlayerSolution:
        """The two-player solution (loaded or solved on first use)."""
        if self._two is None:
            self._two = VI.load_or_solve_two_player(self.rules, cache_dir=self._cache_dir,
                                                    use_cache=self._use_cache,
                                                    progress=self._progress)
        return self._two

    @property
    def solo(self) -> VI.SoloSolution:
        """The solo solution (loaded or solved on first use)."""
        if self._solo is None:
            self._solo = VI.load_or_solve_solo(self.rules, cache_dir=self._cache_dir,
                                               use_cache=self._use_cache)
        return self._solo

    @property
    def three_player(self) -> TP.ThreePlayerSolution:
        """The three-player profile (loaded or solved on first use)."""
        if self._three is None:
            self._three = TP.load_or_solve_three_player(self.rules, cache_dir=self._cache_dir,
                                                        use_cache=self._use_cache,
                                                        progress=self._progress)
        return self._three

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the optimal player is deterministic (for the Agent protocol)."""

    def __repr__(self) -> str:
        tables = "" if self.num_players is None else f", num_players={self.num_players}"
        return f"OptimalAgent(rules={self.rules.knobs()}, mode={self.mode!r}{tables})"

    @property
    def first_player_win_probability(self) -> float:
        """Probability that the opener of a two-player game wins, both playing optimally."""
        return self.two_player.first_player_win_probability

    @property
    def expected_turns(self) -> float:
        """Expected turns of a solo game under the optimal policy."""
        return self.solo.expected_turns

    def win_probability(self, my_score, opp_score) -> np.ndarray | float:
        """Two players: win probability of the player to move at the start of a turn."""
        return self.two_player.win_probability(my_score, opp_score)

    def expected_turns_from(self, score) -> np.ndarray | float:
        """Solo: expected turns still to play from the start of a turn at ``score``."""
        return self.solo.expected_turns_from(score)

    # -- values --------------------------------------------------------------------------------
    def _solo_mode(self, num_players: int) -> bool:
        solo = num_players == 1
        if solo and self.mode == "two-player":
            raise ValueError("this agent was built for two-player games (mode='two-player') but "
                             "was given a one-player observation")
        if not solo and self.mode == "solo":
            raise ValueError(f"this agent was built for solo games (mode='solo') but was given a "
                             f"{num_players}-player observation")
        return solo

    def _uses_three(self, num_players: int) -> bool:
        """Whether games of ``num_players`` are played from the three-player table."""
        if self.num_players == 3 and num_players != 3:
            raise ValueError(f"this agent was built for three-player games (num_players=3) but "
                             f"was given a {num_players}-player game")
        return (num_players == 3 and self.num_players != 2
                and not self.rules.choose_scoring_dice)

    def _opponent(self, scores: np.ndarray, mover: np.ndarray) -> np.ndarray:
        """The score standing for the opponents (``scores`` in turn order of the observer)."""
        n, p = scores.shape
        rows = np.arange(n)
        if p == 2:
            return scores[rows, 1 - mover]
        if self.multi_opponent == "next":
            return scores[rows, (mover + 1) % p]
        if self.multi_opponent == "last":
            return scores[rows, (mover - 1) % p]
        others = np.where(np.arange(p)[None, :] == mover[:, None], -1, scores)
        return others.max(axis=1)

    def values(self, my_score, opp_score, turn_before, roll) -> np.ndarray:
        """``(N, n_actions)`` values of every action, batched.

        Two players (``opp_score`` given): the mover's win probability after the action;
        solo (``opp_score=None``): expected turns still to play, the current one included.
        ``turn_before`` is the turn total before the current throw, ``roll`` its roll index
        (:func:`dice_env.fivethousand.rules.roll_index_of`).  NaN marks actions the rules
        forbid (a bank below the entry or ending in 50; a set-aside that is not legal),
        except past the target, where any bank is worth a bust and the mask decides.
        """
        my = np.atleast_1d(np.asarray(my_score, dtype=np.int64))
        before = np.atleast_1d(np.asarray(turn_before, dtype=np.int64))
        roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
        if np.any(R.ROLL_POINTS[roll] == 0):
            raise ValueError("a throw that scores nothing is a bust, not a decision")
        m = self.model
        ia = m.index(my)
        n_thrown = R.ROLL_SIZE[roll].astype(np.int64)
        if self.rules.choose_scoring_dice:
            pts = R.SETASIDE_POINTS[roll].astype(np.int64)  # (N, 32)
            legal = pts >= 0
            left = R.dice_left_after(n_thrown[:, None], R.SETASIDE_DICE[roll].astype(np.int64))
        else:
            pts = R.ROLL_POINTS[roll].astype(np.int64)[:, None]
            legal = np.ones_like(pts, dtype=bool)
            left = R.dice_left_after(n_thrown, R.ROLL_SCORING_DICE[roll].astype(np.int64))[:, None]
        slot = m.slot(before[:, None] + np.maximum(pts, 0))
        left = np.clip(left, 1, R.N_DICE)
        if opp_score is None:
            roll_tab, bank_tab = self.solo.tables()
            ia_ = ia[:, None]
            v_roll = roll_tab[ia_, slot, left]
            v_bank = bank_tab[ia_, slot]
        else:
            ib = m.index(np.atleast_1d(np.asarray(opp_score, dtype=np.int64)))
            roll_tab, bank_tab = self.two_player.tables()
            ia_, ib_ = ia[:, None], ib[:, None]
            v_roll = roll_tab[ia_, ib_, slot, left]
            v_bank = bank_tab[ia_, ib_, slot]
        # past the target every bank is worth a bust; whether it is allowed (a total ending
        # in 50?) is the mask's business, since observations clip such totals
        ok_bank = R.bank_allowed(self.rules, my[:, None], before[:, None] + np.maximum(pts, 0))
        ok_bank |= slot == m.n_slots
        out = np.full((len(my), self.rules.n_actions), np.nan)
        out[:, R.ROLL::2] = np.where(legal, v_roll, np.nan)
        out[:, R.BANK::2] = np.where(legal & ok_bank, v_bank, np.nan)
        return out

    def _decoded(self, observations: np.ndarray):
        obs = np.asarray(observations, dtype=np.float64)
        if obs.ndim != 2:
            raise ValueError(f"expected (N, obs_dim) observations, got shape {obs.shape}")
        p = num_players_of(obs.shape[1])
        d = decode_observation(self.rules, obs)
        mover = d["to_move"]
        if np.any(mover < 0):
            raise ValueError("an observation of a finished game has no decision")
        return p, d, mover

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``(N, n_actions)`` (or ``(n_actions,)`` for one observation): win probability of
        the player to move after each action (two or more players; three players: under the
        three-player profile, see :meth:`values3`), or expected turns still to play (solo).
        NaN for actions the rules forbid."""
        obs = np.asarray(observations)
        one = obs.ndim == 1
        p, d, mover = self._decoded(obs[None] if one else obs)
        rows = np.arange(len(mover))
        my = d["scores"][rows, mover]
        if self._uses_three(p):
            vals = self.values3(_from_mover(d["scores"], mover), d["turn_before"], d["roll"])
        elif self._solo_mode(p):
            vals = self.values(my, None, d["turn_before"], d["roll"])
        else:
            vals = self.values(my, self._opponent(d["scores"], mover), d["turn_before"],
                               d["roll"])
        return vals[0] if one else vals

    def _choose(self, values: np.ndarray, masks: np.ndarray, minimise: bool) -> np.ndarray:
        masks = np.asarray(masks).astype(bool)
        if masks.shape != values.shape:
            raise ValueError(f"action masks have shape {masks.shape}, expected {values.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("some rows of the action mask have no legal action")
        key = -values if minimise else values
        key = np.where(masks & np.isfinite(key), key, -np.inf)
        best = key.max(axis=1, keepdims=True)
        near = masks & (key >= best - VI.TIE_TOL)
        near |= masks & ~np.isfinite(best)  # nothing finite: any legal action
        is_bank = (np.arange(values.shape[1]) & 1) == R.BANK
        return np.argmax(near * (1 + is_bank[None, :]), axis=1).astype(np.int64)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One optimal legal action per row of ``observations`` ``(N, obs_dim)`` / ``masks``."""
        observations = np.asarray(observations)
        if observations.ndim != 2:
            raise ValueError(f"act_batch takes (N, obs_dim) observations, got "
                             f"{observations.shape}")
        if len(observations) == 0:
            return np.zeros(0, dtype=np.int64)
        p = num_players_of(observations.shape[1])
        if self._uses_three(p):
            _, d, mover = self._decoded(observations)
            return self._act3(_from_mover(d["scores"], mover), d["turn_before"], d["roll"],
                              masks)
        vals = self.action_values(observations)
        return self._choose(vals, masks, minimise=p == 1)

    # -- three players -------------------------------------------------------------------------
    def values3(self, scores, turn_before, roll) -> np.ndarray:
        """``(N, n_actions)`` three players: the mover's exact win probability after each
        action, everyone then playing the three-player profile.

        ``scores`` ``(N, 3)`` in turn order from the mover, ``turn_before`` the turn total
        before the current throw, ``roll`` its roll index.  NaN for a bank the rules forbid
        (past the target every bank is worth a bust and the mask decides).  Where the profile
        is not an equilibrium (see :mod:`agents.solvers.fivethousand_three`) the profile's own
        action may be worth a little less than the best value shown.
        """
        scores = np.atleast_2d(np.asarray(scores, dtype=np.int64))
        before = np.atleast_1d(np.asarray(turn_before, dtype=np.int64))
        roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
        t, left = _turn_total_and_left(roll, before)
        sol = self.three_player
        m = sol.model
        states = m.state_index(scores)
        slot = m.base.slot(t)
        out = np.full((len(states), self.rules.n_actions), np.nan)
        tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for i, s in enumerate(states.tolist()):
            if s not in tables:
                tables[s] = sol.state_tables(scores[i])
            roll_tab, bank_tab = tables[s]
            out[i, R.ROLL] = roll_tab[slot[i], left[i], 0]
            if slot[i] == m.n_slots or R.bank_allowed(self.rules, int(scores[i, 0]), int(t[i])):
                out[i, R.BANK] = bank_tab[slot[i], 0]
        return out

    def _act3(self, scores, turn_before, roll, masks) -> np.ndarray:
        """The three-player profile's actions (its table, not the argmax of :meth:`values3`)."""
        masks = np.asarray(masks).astype(bool)
        scores = np.atleast_2d(np.asarray(scores, dtype=np.int64))
        if masks.shape != (len(scores), self.rules.n_actions):
            raise ValueError(f"action masks have shape {masks.shape}, expected "
                             f"{(len(scores), self.rules.n_actions)}")
        if not masks.any(axis=1).all():
            raise ValueError("some rows of the action mask have no legal action")
        t, left = _turn_total_and_left(np.atleast_1d(np.asarray(roll, dtype=np.int64)),
                                       np.atleast_1d(np.asarray(turn_before, dtype=np.int64)))
        bank = self.three_player.bank_decision(scores, t, left)
        can_bank, can_roll = masks[:, R.BANK], masks[:, R.ROLL]
        return np.where(can_bank & (bank | ~can_roll), R.BANK, R.ROLL).astype(np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The optimal legal action for one observation (the same as :meth:`act_batch`)."""
        observation = np.asarray(observation)
        if observation.ndim != 1:
            raise ValueError(f"act takes one observation, got shape {observation.shape}; use "
                             "act_batch for a batch")
        if not self.rules.choose_scoring_dice:
            fast = self._act_literal(observation, action_mask)
            if fast is not None:
                return fast
        return int(self.act_batch(observation[None], np.asarray(action_mask)[None])[0])

    def _act_literal(self, obs: np.ndarray, action_mask: np.ndarray) -> int | None:
        """:meth:`act` under the literal rules with scalar arithmetic (a few microseconds);
        ``None`` when the observation needs the general path (or is invalid)."""
        p, rem = divmod(len(obs) - 14, 3)
        mask = np.asarray(action_mask)
        if rem or p < 1 or mask.shape != (2,):
            return None
        sl = _slices(p)
        o = obs.tolist()
        to_move = o[sl["to_move"]]
        mover = max(range(p), key=to_move.__getitem__)
        if to_move[mover] < 0.5:
            return None
        target = self.rules.target
        scores = [int(round(x * target / 50.0)) * 50 for x in o[sl["score"]]]
        before = int(round(o[sl["turn_before"].start] * target / 50.0)) * 50
        code = sum(int(round(c * 5)) * 6**f for f, c in enumerate(o[sl["face_counts"]]))
        roll = int(_KEEP_BY_CODE[code])
        pts = int(R.ROLL_POINTS[roll])
        if pts == 0:
            return None
        if self._uses_three(p):
            return self._act_literal3(scores, mover, before, roll, mask)
        m = self.model
        solo = self._solo_mode(p)
        me = scores[mover]
        if solo:
            opp = None
        elif p == 2:
            opp = scores[1 - mover]
        else:
            opp = int(self._opponent(np.array([scores]), np.array([mover]))[0])
        if not all(s % 100 == 0 and 0 <= s < target and m.score_index[s // 100] >= 0
                   for s in ([me] if opp is None else [me, opp])):
            return None
        t = before + pts
        slot = min(t // 50, m.n_slots)
        n = int(R.ROLL_SIZE[roll]) - int(R.ROLL_SCORING_DICE[roll])
        left = n if n > 0 else R.N_DICE
        ia = int(m.score_index[me // 100])
        if solo:
            roll_tab, bank_tab = self.solo.tables()
            v_roll, v_bank = roll_tab[ia, slot, left], bank_tab[ia, slot]
            v_roll, v_bank = -v_roll, -v_bank  # fewer turns is better
        else:
            ib = int(m.score_index[opp // 100])
            roll_tab, bank_tab = self.two_player.tables()
            v_roll, v_bank = roll_tab[ia, ib, slot, left], bank_tab[ia, ib, slot]
        can_roll, can_bank = bool(mask[R.ROLL]), bool(mask[R.BANK])
        if can_bank and (not can_roll or not v_bank < v_roll - VI.TIE_TOL):
            if np.isfinite(v_bank) or not can_roll:
                return R.BANK
        if can_roll:
            return R.ROLL
        return None

    def _act_literal3(self, scores: list[int], mover: int, before: int, roll: int,
                      mask: np.ndarray) -> int | None:
        """:meth:`_act_literal` of three players: the profile's decision, looked up."""
        sol = self.three_player
        m = sol.model
        target = self.rules.target
        order = [scores[(mover + k) % 3] for k in range(3)]
        if not all(s % 100 == 0 and 0 <= s < target and m.base.score_index[s // 100] >= 0
                   for s in order):
            return None
        ia, ib, ic = (int(m.base.score_index[s // 100]) for s in order)
        t = before + int(R.ROLL_POINTS[roll])
        n = int(R.ROLL_SIZE[roll]) - int(R.ROLL_SCORING_DICE[roll])
        left = n if n > 0 else R.N_DICE
        slot = t // 50
        k = m.n_scores
        bank = True if slot >= m.n_slots else bool(sol.policy[(ia * k + ib) * k + ic, slot,
                                                               left])
        can_roll, can_bank = bool(mask[R.ROLL]), bool(mask[R.BANK])
        if can_bank and (bank or not can_roll):
            return R.BANK
        if can_roll:
            return R.ROLL
        return None

    # -- decisions from game states ------------------------------------------------------------
    def state_action_values(self, state: G.FiveThousandState) -> np.ndarray:
        """``(N, n_actions)`` values for the games of a :class:`~dice_env.fivethousand.game.
        FiveThousandState` (exact turn totals, no observation needed); as
        :meth:`action_values`."""
        rows = np.arange(state.n)
        if np.any(state.finished()):
            raise ValueError("a finished game has no decision")
        my = state.scores[rows, state.current]
        if self._uses_three(state.num_players):
            return self.values3(_from_mover(state.scores, state.current), state.turn_total,
                                state.roll)
        if self._solo_mode(state.num_players):
            return self.values(my, None, state.turn_total, state.roll)
        return self.values(my, self._opponent(state.scores, state.current), state.turn_total,
                           state.roll)

    def act_states(self, state: G.FiveThousandState, masks: np.ndarray | None = None
                   ) -> np.ndarray:
        """Optimal actions for the games of a ``FiveThousandState``."""
        if masks is None:
            masks = G.action_mask(self.rules, state)
        if self._uses_three(state.num_players):
            if np.any(state.finished()):
                raise ValueError("a finished game has no decision")
            return self._act3(_from_mover(state.scores, state.current), state.turn_total,
                              state.roll, masks)
        return self._choose(self.state_action_values(state), masks,
                            minimise=state.num_players == 1)

    def advise(self, state: dict) -> dict[int, float]:
        """Every legal action of a game state with its value, best first.

        Args:
            state: the env's state dict (``env.unwrapped.get_state()``, see
                :mod:`dice_env.fivethousand.state`): ``scores``, ``current_player``,
                ``turn_total`` (before the current throw), ``dice``, ...

        Returns:
            ``{action: value}`` for every legal action: with two players the probability that
            the player to move wins if they take it and both then play optimally; solo the
            expected number of turns still to play, the current one included; with three
            players (unless ``num_players=2``) the exact probability that the player to move
            wins if they take it and everyone then plays the three-player profile; with four
            or more the two-player value against the opponent standing for the table (see
            ``multi_opponent``) -- a guide, not an exact value.
        """
        from dice_env.fivethousand.state import state_from_dict

        p = len(state.get("scores", [])) if isinstance(state, dict) else 0
        st, _ = state_from_dict(self.rules, state, max(p, 1))
        vals = self.state_action_values(st)[0]
        mask = G.action_mask(self.rules, st)[0]
        legal = np.flatnonzero(mask)
        sign = 1.0 if p == 1 else -1.0
        order = legal[np.argsort(sign * vals[legal], kind="stable")]
        return {int(a): float(vals[a]) for a in order}


def _from_mover(scores: np.ndarray, mover: np.ndarray) -> np.ndarray:
    """``(N, P)`` scores in turn order from the mover (``scores`` in some turn order, ``mover``
    the mover's place in it)."""
    scores = np.asarray(scores)
    p = scores.shape[1]
    cols = (np.asarray(mover)[:, None] + np.arange(p)[None, :]) % p
    return np.take_along_axis(scores, cols, axis=1)


def _turn_total_and_left(roll: np.ndarray, before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The turn total with the current throw and the dice a roll-on throws (literal rules)."""
    if np.any(R.ROLL_POINTS[roll] == 0):
        raise ValueError("a throw that scores nothing is a bust, not a decision")
    t = before + R.ROLL_POINTS[roll].astype(np.int64)
    left = R.dice_left_after(R.ROLL_SIZE[roll].astype(np.int64),
                             R.ROLL_SCORING_DICE[roll].astype(np.int64))
    return t, np.clip(left, 1, R.N_DICE)


# ------------------------------------------------------------------------------------------
# Solo games (two or more players: agents.evaluation.fivethousand_matches.play_fivethousand_matches)
# ------------------------------------------------------------------------------------------
def play_solo_games(player: Any, n_games: int, *, rules: FiveThousandRules | dict | None = None,
                    seed: int | None = 0, max_steps: int = 100_000,
                    on_decision: Any = None) -> np.ndarray:
    """Play ``n_games`` solo games side by side on the game core; the turns each took.

    Dice from ``numpy.random.default_rng(seed)``; the player sees the solo env's observation
    (``act_batch`` for all the games at once, else ``act`` one by one).  The count includes
    the winning turn and turns lost to opening busts, as the solo env's return does.  An
    illegal action raises ``ValueError``.  ``on_decision(0, rows, state, masks, actions)``
    watches every decision, as in :func:`agents.evaluation.fivethousand_matches.
    play_fivethousand_matches`.
    """
    rules = VI.coerce_rules(rules)
    rng = np.random.default_rng(seed)
    state = G.FiveThousandState.empty(n_games, 1)
    G.start_games(rules, state, np.ones(n_games, dtype=bool), rng)
    act_batch = getattr(player, "act_batch", None)
    for _ in range(max_steps):
        rows = np.flatnonzero(~state.finished())
        if rows.size == 0:
            break
        masks = G.action_mask(rules, state)[rows]
        obs = encode_observation(rules, state, 0)[rows]
        if act_batch is not None:
            chosen = np.asarray(act_batch(obs, masks.astype(np.int8)), dtype=np.int64)
        else:
            chosen = np.array([int(player.act(o, m.astype(np.int8)))
                               for o, m in zip(obs, masks)], dtype=np.int64)
        ok = (chosen >= 0) & (chosen < masks.shape[1])
        ok[ok] = masks[np.flatnonzero(ok), chosen[ok]]
        if not ok.all():
            raise ValueError(f"{player!r} chose an illegal action")
        if on_decision is not None:
            on_decision(0, rows, state.take(rows), masks, chosen)
        actions = np.zeros(n_games, dtype=np.int64)
        actions[rows] = chosen
        G.step_games(rules, state, actions, rng, active=~state.finished())
    else:
        raise RuntimeError(f"solo games still running after {max_steps} steps")
    return state.turns[:, 0].copy()
