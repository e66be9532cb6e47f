"""The learned-value player of 5000, :class:`LearnedValueAgent`: every decision takes the best
action of the exact turn solve with the network at the leaves (solved once per score pair or
tuple, then cached).  ``act`` / ``act_batch`` read Gymnasium observations
(``dice_env/FiveThousand-v0``, the AEC env's; literal rules); ``state_action_values`` reads a
:class:`~dice_env.fivethousand.game.FiveThousandState`.  Two players: the two-player model.
``N >= 3`` players: the N-player model where there is one (``num_players``), else the
two-player policy against the leader (the other player with the highest score) -- an
approximation that ignores the others' bumps and gifts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.fivethousand.learned_value.n_player import (
    MAX_N_PLAYERS,
    MIN_N_PLAYERS,
    NValueModel,
    check_model_players,
    load_model,
    n_player_model_path,
)
from agents.fivethousand.learned_value.n_turns import (
    solve_n_turns,
    state_codes,
    states_of_codes,
)
from agents.fivethousand.learned_value.turn import TIE_TOL, build_turn_model, rules_of, solve_turns
from agents.fivethousand.learned_value.two_player import DEFAULT_MODEL_PATH, ValueModel
from agents.games import Game
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import decode_observation, num_players_of
from dice_env.fivethousand.rules import FiveThousandRules


class _DecisionCache:
    """The N-player decisions (``bank_first`` of :class:`NTurnSolution`) of the turn-start
    states seen so far, solved in batches of new states; emptied when ``capacity`` states are
    held (about 0.6 kB each)."""

    def __init__(self, model: NValueModel, capacity: int) -> None:
        self.model = model
        self.capacity = max(int(capacity), 1)
        self.rows: dict[int, int] = {}
        t = model.turn_model.n_slots
        self.bank_first = np.zeros((min(self.capacity, 4096), t + 1, R.N_DICE + 1),
                                   dtype=np.bool_)

    def lookup(self, idx: np.ndarray) -> np.ndarray:
        """``(B,)`` rows of :attr:`bank_first` for states ``idx`` (solving the new ones)."""
        tm = self.model.turn_model
        uniq, inv = np.unique(state_codes(tm, idx), return_inverse=True)
        rows = np.fromiter((self.rows.get(c, -1) for c in uniq.tolist()), dtype=np.int64,
                           count=len(uniq))
        new = rows < 0
        if new.any():
            if len(self.rows) + int(new.sum()) > self.capacity:
                self.rows.clear()
                rows[:] = -1
                new[:] = True
            codes = uniq[new]
            sol = solve_n_turns(tm, states_of_codes(tm, codes, self.model.num_players),
                                self.model.probabilities)
            first = len(self.rows)
            need = first + len(codes)
            if need > len(self.bank_first):
                grown = np.zeros((max(need, min(2 * len(self.bank_first), self.capacity)),)
                                 + self.bank_first.shape[1:], dtype=np.bool_)
                grown[:first] = self.bank_first[:first]
                self.bank_first = grown
            self.bank_first[first:need] = sol.bank_first
            rows[new] = np.arange(first, need)
            self.rows.update(zip(codes.tolist(), range(first, need)))
        return rows[inv]


class LearnedValueAgent:
    """Plays 5000 by the exact turn solve with a learned value at the leaves.

    * **Two players**: the two-player network ``W(my, opp)`` (:class:`ValueModel`); every
      decision maximises the mover's win probability.
    * **N players** (3 to 6) with an N-player model (:class:`NValueModel`): the network gives
      every seat's win probability at the leaves, and every decision maximises the mover's own
      (max-n; :func:`solve_n_turns`).  Without one (or with ``num_players=2``): the two-player
      policy against the leader (the other player with the highest score), an approximation
      that ignores the others' bumps and gifts.

    Args:
        game: ``"fivethousand"`` / ``"5000"`` / ``"dice_env/FiveThousand-v0"`` (what
            :func:`agents.make` passes), a :class:`FiveThousandRules` or a dict of knobs.
        model_path: the checkpoint (default: the committed
            ``agents/models/learned-value-fivethousand.pt``; with ``num_players=N`` for
            ``N >= 3``, ``agents/models/learned-value-fivethousand-<N>p.pt``).  An N-player
            checkpoint given here sets ``num_players``.
        seed: accepted for the common signature; the player is deterministic (ties within
            1e-12 go to banking).
        device: torch device of the networks.
        rules: the rules (override ``game``'s); they must be the model's.
        model: an already built :class:`ValueModel` or :class:`NValueModel` (instead of
            ``model_path``; an N-player one sets ``num_players``).
        num_players: ``None`` (default): two-player games by the two-player model; games of
            ``N >= 3`` players by the N-player model at its default path if that file exists
            (for these rules; loaded on first use), else by the leader approximation.  ``2``:
            the two-player model for every table size (the leader approximation for 3+).
            ``N`` (3 to 6): the N-player model only (``FileNotFoundError``, naming the command
            that trains it, if it is missing); other table sizes are refused.
        max_cached_states: the N-player decisions are cached per turn-start state (emptied
            when this many are held).

    The two-player turn solution of a score pair is computed the first time a decision at that
    pair is asked for (batched over the new pairs of a call) and cached; so are the N-player
    decisions of a state (:class:`_DecisionCache`).
    """

    name = "learned-value"

    def __init__(self, game: Any = "fivethousand", model_path: str | Path | None = None,
                 seed: int | None = None, device: str = "cpu", *,
                 rules: FiveThousandRules | dict | None = None,
                 model: ValueModel | NValueModel | None = None,
                 num_players: int | None = None,
                 max_cached_states: int = 200_000) -> None:
        if isinstance(game, Game):  # resolved by agents.make: its name or id, parsed once
            game = game.spec
        self.rules = rules_of(game, rules)
        self.game = game if isinstance(game, str) else "fivethousand"
        if num_players is not None and num_players != 2:
            num_players = check_model_players(num_players)
        if model is None and model_path is not None and num_players is None:
            model = load_model(model_path, device=device)
        if isinstance(model, NValueModel):
            if num_players is None:
                num_players = model.num_players
            elif num_players != model.num_players:
                raise ValueError(f"the model is a {model.num_players}-player model, not a "
                                 f"{num_players}-player one")
        self.num_players = num_players
        self._device = device
        self._capacity = int(max_cached_states)
        self._n_models: dict[int, NValueModel | None] = {}
        self._n_cache: dict[int, _DecisionCache] = {}
        self.model: ValueModel | None = None
        if num_players is None or num_players == 2:
            if model is None:
                model = ValueModel.load(DEFAULT_MODEL_PATH if model_path is None else model_path,
                                        device=device)
            if not isinstance(model, ValueModel):
                raise ValueError(f"num_players=2 needs a two-player model, got {model!r}")
            if model.rules != self.rules:
                raise ValueError(f"the model was trained for {model.rules.knobs()}, not "
                                 f"{self.rules.knobs()}")
            self.model = model
        else:
            if model is None:
                model = NValueModel.load(
                    n_player_model_path(num_players) if model_path is None else model_path,
                    device=device, num_players=num_players)
            if not isinstance(model, NValueModel):
                raise ValueError(f"num_players={num_players} needs an N-player model "
                                 f"(NValueModel), got {model!r}")
            if model.rules != self.rules:
                raise ValueError(f"the model was trained for {model.rules.knobs()}, not "
                                 f"{self.rules.knobs()}")
            self._n_models[num_players] = model
        self.turn_model = build_turn_model(self.rules)
        self._seed = seed
        k, t = self.turn_model.n_scores, self.turn_model.n_slots
        self._w: np.ndarray | None = None
        if self.model is not None:
            self._roll = np.full((k * k, t + 1, R.N_DICE + 1), np.nan)
            self._bank = np.full((k * k, t + 1), np.nan)
            self._solved = np.zeros(k * k, dtype=bool)

    def __repr__(self) -> str:
        players = "" if self.num_players is None else f", num_players={self.num_players}"
        return f"LearnedValueAgent(rules={self.rules.knobs()}{players})"

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed: the player is deterministic (for the Agent protocol)."""
        self._seed = seed

    # -- the two-player model ------------------------------------------------------------------
    def _two(self) -> ValueModel:
        if self.model is None:
            raise ValueError(f"this agent plays {self.num_players}-player games only")
        return self.model

    @property
    def w_table(self) -> np.ndarray:
        """``(K, K)`` the learned two-player turn-start win probabilities on the score grid."""
        if self._w is None:
            self._w = self._two().w_table()
        return self._w

    def win_probability(self, my_score, opp_score) -> np.ndarray:
        """The learned two-player ``W``: the win probability of the player about to start a
        turn."""
        m = self.turn_model
        return self.w_table[m.index(my_score), m.index(opp_score)]

    def _pairs(self, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """Flat pair indices, solving the turns of pairs not seen before."""
        k = self.turn_model.n_scores
        pair = ia * k + ib
        new = np.unique(pair[~self._solved[pair]])
        if new.size:
            sol = solve_turns(self.turn_model, self.w_table, new // k, new % k)
            self._roll[new] = sol.roll
            self._bank[new] = sol.bank
            self._solved[new] = True
        return pair

    def values(self, my_score, opp_score, turn_before, roll) -> np.ndarray:
        """``(N, 2)`` the mover's win probability after rolling on / banking, batched, by the
        two-player model.

        ``turn_before`` is the turn total before the current throw, ``roll`` its roll index.
        NaN marks a bank the rules forbid (below the entry, a total ending in 50), except past
        the target, where any bank is worth a bust and the action mask decides.
        """
        self._two()
        m = self.turn_model
        my = np.atleast_1d(np.asarray(my_score, dtype=np.int64))
        before = np.atleast_1d(np.asarray(turn_before, dtype=np.int64))
        roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
        if np.any(R.ROLL_POINTS[roll] == 0):
            raise ValueError("a throw that scores nothing is a bust, not a decision")
        pair = self._pairs(m.index(my), m.index(opp_score))
        total = before + R.ROLL_POINTS[roll]
        slot = m.slot(total)
        left = R.dice_left_after(R.ROLL_SIZE[roll], R.ROLL_SCORING_DICE[roll])
        out = np.empty((len(my), 2))
        out[:, R.ROLL] = self._roll[pair, slot, left]
        out[:, R.BANK] = self._bank[pair, slot]
        return out

    def turn_tables(self, my_score, opp_score) -> tuple[np.ndarray, np.ndarray]:
        """The two-player turn solution of score pairs (cached): ``roll`` ``(B, T + 1, 6)`` the
        mover's win probability after rolling ``n`` dice on at turn total slot ``j``, ``bank``
        ``(B, T + 1)`` after banking there (NaN where not allowed), as :class:`TurnSolution`."""
        self._two()
        m = self.turn_model
        pair = self._pairs(m.index(np.atleast_1d(my_score)), m.index(np.atleast_1d(opp_score)))
        return self._roll[pair], self._bank[pair]

    @staticmethod
    def _opponent(scores: np.ndarray, mover: np.ndarray) -> np.ndarray:
        """The opponent's score: the other player's, or the leader's with 3+ players."""
        n, p = scores.shape
        if p == 2:
            return scores[np.arange(n), 1 - mover]
        others = np.where(np.arange(p)[None, :] == mover[:, None], -1, scores)
        return others.max(axis=1)

    # -- the N-player model --------------------------------------------------------------------
    def n_player_model(self, num_players: int) -> NValueModel | None:
        """The N-player model that plays games of ``num_players`` (None: the two-player model
        plays them, against the leader for 3+)."""
        p = int(num_players)
        if self.num_players not in (None, 2) and p != self.num_players:
            raise ValueError(f"this agent was built for {self.num_players}-player games "
                             f"(num_players={self.num_players}) but was given a {p}-player "
                             f"game")
        if p == 2 or self.num_players == 2 or not MIN_N_PLAYERS <= p <= MAX_N_PLAYERS:
            return None
        if p not in self._n_models:
            path, model = n_player_model_path(p), None
            if path.is_file():
                model = NValueModel.load(path, device=self._device, num_players=p)
                if model.rules != self.rules:
                    model = None
            self._n_models[p] = model
        return self._n_models[p]

    def _bank_first(self, model: NValueModel, idx: np.ndarray, slot: np.ndarray,
                    left: np.ndarray) -> np.ndarray:
        """``(B,)`` the N-player decisions (bank preferred) at states ``idx`` (mover first)."""
        p = model.num_players
        cache_ = self._n_cache.get(p)
        if cache_ is None or cache_.model is not model:
            cache_ = self._n_cache[p] = _DecisionCache(model, self._capacity)
        rows = cache_.lookup(idx)  # may grow the table: index it afterwards
        return cache_.bank_first[rows, slot, left]

    @staticmethod
    def _n_values(model: NValueModel, idx: np.ndarray, slot: np.ndarray,
                  left: np.ndarray) -> np.ndarray:
        """``(B, 2)`` the mover's win probability after rolling on / banking (N players; NaN
        where a bank is not allowed), solved now (not cached)."""
        uniq, inv = np.unique(state_codes(model.turn_model, idx), return_inverse=True)
        sol = solve_n_turns(model.turn_model,
                            states_of_codes(model.turn_model, uniq, model.num_players),
                            model.probabilities, tables=True)
        out = np.empty((len(idx), 2))
        out[:, R.ROLL] = sol.roll[inv, slot, left]
        out[:, R.BANK] = sol.bank[inv, slot]
        return out

    def n_values(self, scores, turn_before, roll) -> np.ndarray:
        """``(B, 2)`` the mover's win probability after rolling on / banking by the N-player
        model: ``scores`` ``(B, N)`` in points, in turn order from the mover; ``turn_before``
        the turn total before the current throw, ``roll`` its roll index."""
        s = np.atleast_2d(np.asarray(scores, dtype=np.int64))
        model = self.n_player_model(s.shape[1])
        if model is None:
            raise ValueError(f"no N-player model plays {s.shape[1]}-player games here")
        idx, slot, left = self._turn_point(s, turn_before, roll)
        return self._n_values(model, idx, slot, left)

    def _turn_point(self, scores, turn_before, roll):
        """Grid indices of mover-first scores, and the turn total's slot and the dice left."""
        m = self.turn_model
        roll = np.atleast_1d(np.asarray(roll, dtype=np.int64))
        if np.any(R.ROLL_POINTS[roll] == 0):
            raise ValueError("a throw that scores nothing is a bust, not a decision")
        idx = m.index(scores)
        total = np.atleast_1d(np.asarray(turn_before, dtype=np.int64)) + R.ROLL_POINTS[roll]
        left = R.dice_left_after(R.ROLL_SIZE[roll], R.ROLL_SCORING_DICE[roll])
        return idx, m.slot(total), np.asarray(left, dtype=np.int64)

    # -- observations and states ---------------------------------------------------------------
    def _decode(self, observations: np.ndarray):
        """``(one, p, mover-first scores, turn_before, roll)`` of observations."""
        obs = np.asarray(observations, dtype=np.float64)
        one = obs.ndim == 1
        obs = obs[None] if one else obs
        if obs.ndim != 2:
            raise ValueError(f"expected (N, obs_dim) observations, got shape {obs.shape}")
        p = num_players_of(obs.shape[1])
        if p < 2:
            raise ValueError("the learned-value player plays two or more players, not solo")
        d = decode_observation(self.rules, obs)
        mover = d["to_move"]
        if np.any(mover < 0):
            raise ValueError("an observation of a finished game has no decision")
        order = (mover[:, None] + np.arange(p)[None, :]) % p
        scores = d["scores"][np.arange(len(obs))[:, None], order]
        return one, p, scores, d["turn_before"], d["roll"]

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``(N, 2)`` (or ``(2,)`` for one observation): the mover's win probability after
        rolling on / banking, from ``FiveThousand-v0`` (or AEC) observations."""
        one, p, scores, before, roll = self._decode(observations)
        model = self.n_player_model(p)
        if model is not None:
            idx, slot, left = self._turn_point(scores, before, roll)
            vals = self._n_values(model, idx, slot, left)
        else:
            vals = self._leader_values(scores, before, roll)
        return vals[0] if one else vals

    def _leader_values(self, scores: np.ndarray, before, roll) -> np.ndarray:
        """:meth:`values` against the other player (the leader with 3+), scores mover first."""
        mover = np.zeros(len(scores), dtype=np.int64)
        return self.values(scores[:, 0], self._opponent(scores, mover), before, roll)

    @staticmethod
    def _check_masks(masks: np.ndarray, n: int) -> np.ndarray:
        masks = np.asarray(masks).astype(bool)
        if masks.shape != (n, R.N_ACTIONS_LITERAL):
            raise ValueError(f"action masks have shape {masks.shape}, expected "
                             f"{(n, R.N_ACTIONS_LITERAL)}")
        if not masks.any(axis=1).all():
            raise ValueError("some rows of the action mask have no legal action")
        return masks

    @classmethod
    def _choose(cls, values: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks).astype(bool)
        if masks.shape != values.shape:
            raise ValueError(f"action masks have shape {masks.shape}, expected {values.shape}")
        masks = cls._check_masks(masks, len(values))
        v_roll = np.where(masks[:, R.ROLL], values[:, R.ROLL], -np.inf)
        v_bank = np.where(masks[:, R.BANK], values[:, R.BANK], -np.inf)
        v_bank = np.where(masks[:, R.BANK] & np.isnan(v_bank), -np.inf, v_bank)
        bank = masks[:, R.BANK] & ((v_bank >= v_roll - TIE_TOL) | ~masks[:, R.ROLL])
        return np.where(bank, R.BANK, R.ROLL).astype(np.int64)

    @classmethod
    def _choose_n(cls, bank_first: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = cls._check_masks(masks, len(bank_first))
        bank = masks[:, R.BANK] & (bank_first | ~masks[:, R.ROLL])
        return np.where(bank, R.BANK, R.ROLL).astype(np.int64)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One legal action per row of ``observations`` ``(N, obs_dim)`` / ``masks`` ``(N, 2)``."""
        observations = np.asarray(observations)
        if observations.ndim != 2:
            raise ValueError(f"act_batch takes (N, obs_dim) observations, got "
                             f"{observations.shape}")
        if len(observations) == 0:
            return np.zeros(0, dtype=np.int64)
        _, p, scores, before, roll = self._decode(observations)
        model = self.n_player_model(p)
        if model is None:
            return self._choose(self._leader_values(scores, before, roll), masks)
        idx, slot, left = self._turn_point(scores, before, roll)
        return self._choose_n(self._bank_first(model, idx, slot, left), masks)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for one observation (as :meth:`act_batch`)."""
        observation = np.asarray(observation)
        if observation.ndim != 1:
            raise ValueError(f"act takes one observation, got shape {observation.shape}; use "
                             "act_batch for a batch")
        return int(self.act_batch(observation[None], np.asarray(action_mask)[None])[0])

    @staticmethod
    def _state_scores(state: G.FiveThousandState) -> np.ndarray:
        if np.any(state.finished()):
            raise ValueError("a finished game has no decision")
        if state.num_players < 2:
            raise ValueError("the learned-value player plays two or more players, not solo")
        order = (state.current[:, None] + np.arange(state.num_players)[None, :]) \
            % state.num_players
        return state.scores[np.arange(state.n)[:, None], order]

    def state_action_values(self, state: G.FiveThousandState) -> np.ndarray:
        """``(N, 2)`` values for the games of a ``FiveThousandState`` (exact turn totals), as
        :meth:`values`: the mover's win probability after rolling on / banking."""
        scores = self._state_scores(state)
        model = self.n_player_model(state.num_players)
        if model is not None:
            idx, slot, left = self._turn_point(scores, state.turn_total, state.roll)
            return self._n_values(model, idx, slot, left)
        my = state.scores[np.arange(state.n), state.current]
        return self.values(my, self._opponent(state.scores, state.current), state.turn_total,
                           state.roll)

    def act_states(self, state: G.FiveThousandState,
                   masks: np.ndarray | None = None) -> np.ndarray:
        """The player's actions for the games of a ``FiveThousandState``."""
        if masks is None:
            masks = G.action_mask(self.rules, state)
        model = self.n_player_model(state.num_players)
        if model is None:
            return self._choose(self.state_action_values(state), masks)
        idx, slot, left = self._turn_point(self._state_scores(state), state.turn_total,
                                           state.roll)
        return self._choose_n(self._bank_first(model, idx, slot, left), masks)
