"""The observation of Pig, for one game and for a batch (twins side by side), and OpenSpiel's.

The envs' observation is a ``float32`` vector of ``2 * P + 2`` entries in ``[0, 1]``
(``P = num_players``), seen from one seat, players in turn order starting with that seat:

======================  ===================================================================
index                   meaning
======================  ===================================================================
``[0, P)``              scores / ``win_score`` (clipped at 1): the observer first, then the
                        players after it in turn order
``P``                   the turn total / ``win_score`` (clipped at 1)
``[P + 1, 2P + 1)``     the player to move, one-hot in the same order (all 0 once the game
                        is over)
``2P + 1``              moves taken / ``horizon`` (the time left before a draw)
======================  ===================================================================

Decisions happen only below ``win_score`` (a score there ends the game; a score plus turn
total there forces a hold), so :func:`decode_observation` reads the exact points back.

:func:`openspiel_observation_tensor` is OpenSpiel's ``ObservationTensor`` (one-hot bins of the
turn total, then of each seat's score, absolute seats), for comparisons with ``pyspiel``.
"""

from __future__ import annotations

import numpy as np

from dice_env.pig.rules import PigBatch, PigRules, PigState, is_terminal, is_terminal_batch

__all__ = ["decode_observation", "encode_observation", "encode_observation_batch",
           "num_players_of", "observation_size", "openspiel_observation_tensor"]


def observation_size(num_players: int) -> int:
    """Length of the observation vector: ``2 * num_players + 2``."""
    return 2 * num_players + 2


def num_players_of(size: int) -> int:
    """The number of players of an observation of length ``size``."""
    if size < 6 or size % 2:
        raise ValueError(f"a Pig observation has 2 * num_players + 2 entries, got {size}")
    return (size - 2) // 2


def encode_observation(rules: PigRules, state: PigState, seat: int) -> np.ndarray:
    """The observation of one game from ``seat`` (see the module docstring)."""
    p, w = rules.num_players, float(rules.win_score)
    order = [(seat + i) % p for i in range(p)]
    out = [min(state.scores[s] / w, 1.0) for s in order]
    out.append(min(state.turn_total / w, 1.0))
    over = is_terminal(rules, state)
    out.extend(0.0 if over else float(s == state.current) for s in order)
    out.append(min(state.moves / rules.horizon, 1.0))
    return np.array(out, dtype=np.float32)


def encode_observation_batch(rules: PigRules, batch: PigBatch, seats: np.ndarray) -> np.ndarray:
    """The observations of every game of ``batch``, game ``i`` from ``seats[i]``:
    ``(n, 2P + 2)`` float32, row by row what :func:`encode_observation` gives."""
    p, w = rules.num_players, float(rules.win_score)
    n = batch.n
    seats = np.asarray(seats, dtype=np.int64).reshape(n)
    order = (seats[:, None] + np.arange(p)[None, :]) % p
    out = np.empty((n, observation_size(p)), dtype=np.float32)
    out[:, :p] = np.minimum(np.take_along_axis(batch.scores, order, axis=1) / w, 1.0)
    out[:, p] = np.minimum(batch.turn_total / w, 1.0)
    live = ~is_terminal_batch(rules, batch)
    out[:, p + 1:2 * p + 1] = (order == batch.current[:, None]) & live[:, None]
    out[:, 2 * p + 1] = np.minimum(batch.moves / rules.horizon, 1.0)
    return out


def decode_observation(rules: PigRules, observations: np.ndarray) -> dict[str, np.ndarray]:
    """The points of ``(n, 2P + 2)`` observations: ``scores`` ``(n, P)`` (observer first),
    ``turn_total`` ``(n,)``, ``to_move`` (place of the player to move in that order, -1 once
    over) and ``moves`` (int64).  Exact below ``win_score`` (clipped values read as it).  The
    number of players is the observation's; ``rules`` gives ``win_score`` and ``horizon``."""
    obs = np.asarray(observations, dtype=np.float64)
    if obs.ndim == 1:
        obs = obs[None, :]
    p = num_players_of(obs.shape[1])  # the observation's, whatever rules.num_players says
    w = rules.win_score
    one_hot = obs[:, p + 1:2 * p + 1]
    return {
        "scores": np.rint(obs[:, :p] * w).astype(np.int64),
        "turn_total": np.rint(obs[:, p] * w).astype(np.int64),
        "to_move": np.where(one_hot.max(axis=1) > 0.5, one_hot.argmax(axis=1), -1),
        "moves": np.rint(obs[:, 2 * p + 1] * rules.horizon).astype(np.int64),
    }


def openspiel_observation_tensor(rules: PigRules, state: PigState) -> np.ndarray:
    """OpenSpiel's ``ObservationTensor`` of ``state`` (the same for every player): a
    ``(1 + P) x (win_score + 1)`` one-hot table, flattened -- the turn total's bin, then each
    seat's score bin (bin ``win_score`` holds every value at or above it)."""
    bins = rules.win_score + 1
    out = np.zeros((1 + rules.num_players, bins), dtype=np.float32)
    out[0, min(state.turn_total, bins - 1)] = 1.0
    for seat, score in enumerate(state.scores):
        out[1 + seat, min(score, bins - 1)] = 1.0
    return out.reshape(-1)
