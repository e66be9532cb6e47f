"""Batched Pig matches with common random numbers: every seating plays the same dice.

:func:`play_matches` plays ``n_deals`` deals; each deal is played once per rotation of the
seats (``P`` games for ``P`` players), and every game of a deal reads the same die stream (its
``t``-th roll throws the deal's ``t``-th face).  Luck then cancels between the seatings, so the
players' win rates are much less noisy than over independent games (common random numbers).
The games run side by side on the batched rules of :mod:`dice_env.pig.rules`; each player is
asked once per round for all its games (``act_batch``, else ``act`` one by one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dice_env.pig import rules as R
from dice_env.pig.observation import encode_observation_batch
from dice_env.pig.rules import PigBatch, coerce_rules

__all__ = ["play_matches", "seat_decisions"]

_CHUNK = 256  # faces drawn per deal at a time


def _ask(player: Any, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    act_batch = getattr(player, "act_batch", None)
    if callable(act_batch):
        return np.asarray(act_batch(obs, masks.astype(np.int8)), dtype=np.int64).reshape(-1)
    act = getattr(player, "act", player)
    return np.array([int(act(o, m)) for o, m in zip(obs, masks.astype(np.int8))],
                    dtype=np.int64)


def seat_decisions(players: Sequence[Any], rules: Any, batch: PigBatch, live: np.ndarray,
                   seat_player: np.ndarray) -> tuple[PigBatch, np.ndarray, np.ndarray,
                                                     np.ndarray]:
    """One decision in each live game of ``batch``: every game's player to move
    (``seat_player[game, seat]`` indexes ``players``) is asked on its observation and mask.
    Returns the live games' sub-batch, their masks, who moved (index into ``players``) and the
    actions; ``ValueError`` naming the player, the action and what was legal for an illegal
    one."""
    sub = batch.take(live)
    obs = encode_observation_batch(rules, sub, sub.current)
    masks = R.action_mask_batch(rules, sub)
    who = seat_player[live, sub.current]
    actions = np.empty(live.size, dtype=np.int64)
    for k, player in enumerate(players):
        sel = np.flatnonzero(who == k)
        if sel.size:
            actions[sel] = _ask(player, obs[sel], masks[sel])
    ok = (actions >= 0) & (actions < R.N_ACTIONS)
    ok[ok] = masks[np.flatnonzero(ok), actions[ok]]
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"{players[who[bad]]!r} chose the illegal action {actions[bad]}; "
                         f"legal: {np.flatnonzero(masks[bad]).tolist()}")
    return sub, masks, who, actions


def play_matches(players: Sequence[Any], n_deals: int, *, rules: Any = None,
                 seed: int | None = 0) -> dict:
    """Play ``n_deals`` deals of Pig between ``players`` (one per seat, ``len(players)`` =
    ``rules.num_players``, which is set from it), every deal once per rotation of the seats.

    Returns a dict: ``games`` (``n_deals * P``), ``wins`` (per player, in the order given),
    ``draws`` (games that reached the horizon), ``win_rate`` (per player: wins / games),
    ``first_seat_wins`` (games won by seat 0), ``deal_win_rate`` ``(n_deals, P)`` (each
    player's wins over the deal's ``P`` games / ``P``) and ``stderr`` (per player: the standard
    error of the win rate over deals, which is what common random numbers shrink).
    ``ValueError`` on an illegal action.
    """
    p = len(players)
    rules = coerce_rules(rules).replace(num_players=p)
    if n_deals < 1:
        raise ValueError(f"n_deals must be a positive integer, got {n_deals!r}")
    rng = np.random.default_rng(seed)
    n = n_deals * p
    deal = np.tile(np.arange(n_deals), p)             # game -> its deal
    rotation = np.repeat(np.arange(p), n_deals)        # game -> its rotation
    # the player at seat s of game g: players[(s + rotation[g]) % p]
    seat_player = (np.arange(p)[None, :] + rotation[:, None]) % p
    faces = rng.integers(1, rules.die_sides + 1, size=(n_deals, _CHUNK))
    used = np.zeros(n, dtype=np.int64)                 # rolls thrown in each game
    batch = PigBatch.empty(n, p)
    while True:
        live = np.flatnonzero(~R.is_terminal_batch(rules, batch))
        if live.size == 0:
            break
        sub, masks, who, actions = seat_decisions(players, rules, batch, live, seat_player)
        roll = actions == R.ROLL
        rows = live[roll]
        if rows.size:
            while used[rows].max() >= faces.shape[1]:
                faces = np.concatenate([faces, rng.integers(1, rules.die_sides + 1,
                                                            size=(n_deals, _CHUNK))], axis=1)
            R.apply_roll_batch(rules, batch, rows, faces[deal[rows], used[rows]])
            used[rows] += 1
        if not roll.all():
            R.apply_hold_batch(rules, batch, live[~roll])
    winner = R.winner_batch(rules, batch)
    won = np.zeros((n, p), dtype=bool)
    has = winner >= 0
    won[np.flatnonzero(has), seat_player[has, winner[has]]] = True
    per_deal = np.zeros((n_deals, p))
    np.add.at(per_deal, deal, won.astype(np.float64))
    per_deal /= p
    wins = won.sum(axis=0)
    return {
        "games": int(n),
        "wins": wins.tolist(),
        "draws": int((~has).sum()),
        "win_rate": (wins / n).tolist(),
        "first_seat_wins": int((winner == 0).sum()),
        "deal_win_rate": per_deal,
        "stderr": (per_deal.std(axis=0, ddof=1) / np.sqrt(n_deals)).tolist()
        if n_deals > 1 else [float("nan")] * p,
    }
