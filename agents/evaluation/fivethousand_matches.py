"""Batched head-to-head games of 5000 between players, over the pure game core.

:func:`play_fivethousand_matches` seats players around many tables at once, asks each player
for all its decisions of a step in one ``act_batch`` call (``act`` row by row otherwise) and
returns who won.  Seats rotate with the game number, so every player opens equally often:
the win rates are seat-balanced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_env.fivethousand import game as G
from dice_env.fivethousand.observation import encode_observation
from dice_env.fivethousand.rules import FiveThousandRules


@dataclass
class MatchResult:
    """Outcome of a series of games.

    Attributes:
        winner: ``(n_games,)`` index (into the ``players`` list) of each game's winner, -1 for a
            game stopped by the decision cap.
        first: ``(n_games,)`` index of the player who opened each game.
        decisions: ``(n_games,)`` decisions taken in each game.
    """

    winner: np.ndarray
    first: np.ndarray
    decisions: np.ndarray

    def win_rate(self, player: int) -> float:
        return float((self.winner == player).mean())

    def win_rate_ci(self, player: int, z: float = 1.96) -> tuple[float, float, float]:
        """Win rate with a normal-approximation confidence interval ``(p, low, high)``."""
        p = self.win_rate(player)
        half = z * np.sqrt(max(p * (1 - p), 1e-12) / len(self.winner))
        return p, max(0.0, p - half), min(1.0, p + half)


def _act(player: Any, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    act_batch = getattr(player, "act_batch", None)
    if act_batch is not None:
        return np.asarray(act_batch(obs, masks), dtype=np.int64)
    act = player.act if hasattr(player, "act") else player
    return np.array([act(o, m.astype(np.int8)) for o, m in zip(obs, masks)], dtype=np.int64)


#: ``on_decision(player, rows, state, masks, actions)``: called before each step, for each
#: player with decisions in it, with the games (rows) where it decides, their states (a copy,
#: ``state.take(rows)``), masks, and the actions the player chose.
DecisionCallback = Callable[[int, np.ndarray, G.FiveThousandState, np.ndarray, np.ndarray],
                            None]


def play_fivethousand_matches(players: Sequence[Any], n_games: int, seed: int = 0,
                              rules: FiveThousandRules | None = None,
                              max_decisions: int = 20_000,
                              on_decision: DecisionCallback | None = None) -> MatchResult:
    """Play ``n_games`` games of 5000 between ``players`` (2 to 8) and return the winners.

    In game ``g`` player ``k`` sits in seat ``(k + g) % P`` (seat 0 opens), so each player
    opens ``n_games / P`` games.  A player that returns an illegal action raises
    ``ValueError``.  Games still running after ``max_decisions`` decisions count as no win.
    ``on_decision`` watches every decision (see :data:`DecisionCallback`).
    """
    rules = rules or FiveThousandRules()
    p = len(players)
    if not 2 <= p <= 8:
        raise ValueError(f"5000 is played by 2 to 8 players, got {p}")
    rng = np.random.default_rng(seed)
    games = np.arange(n_games)
    seat_of = (np.arange(p)[None, :] + games[:, None]) % p        # (n, player) -> seat
    player_at = np.argsort(seat_of, axis=1)                         # (n, seat) -> player
    state = G.FiveThousandState.empty(n_games, p)
    G.start_games(rules, state, np.ones(n_games, dtype=bool), rng)
    decisions = np.zeros(n_games, dtype=np.int64)
    rows_all = np.arange(n_games)
    for _ in range(max_decisions):
        active = ~state.finished()
        if not active.any():
            break
        masks = G.action_mask(rules, state)
        obs = encode_observation(rules, state, state.current)
        mover = player_at[rows_all, state.current]
        actions = np.zeros(n_games, dtype=np.int64)
        for k, player in enumerate(players):
            rows = np.flatnonzero(active & (mover == k))
            if rows.size == 0:
                continue
            chosen = _act(player, obs[rows], masks[rows])
            ok = (chosen >= 0) & (chosen < masks.shape[1])
            ok[ok] = masks[rows[ok], chosen[ok]]
            if not ok.all():
                bad = rows[np.flatnonzero(~ok)[0]]
                raise ValueError(f"player {k} chose the illegal action "
                                 f"{int(chosen[np.flatnonzero(~ok)[0]])} in game {bad}; legal: "
                                 f"{np.flatnonzero(masks[bad]).tolist()}")
            if on_decision is not None:
                on_decision(k, rows, state.take(rows), masks[rows], chosen)
            actions[rows] = chosen
        decisions += active
        G.step_games(rules, state, actions, rng, active)
    seat_winner = state.winner
    winner = np.where(seat_winner >= 0, player_at[rows_all, np.maximum(seat_winner, 0)], -1)
    return MatchResult(winner=winner, first=player_at[:, 0].copy(), decisions=decisions)
