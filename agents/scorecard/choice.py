"""The scorecard players' rule for turning action values into a legal action.

:func:`best_legal_action` is shared by the optimal, learned-value and win-value players, so they
break ties alike; :func:`act_by_values` / :func:`act_batch_by_values` are their ``act`` and
``act_batch`` (the shape checks, then the best legal action of their action values).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dice_env.dice import N_HOLDS

__all__ = ["act_batch_by_values", "act_by_values", "best_legal_action"]


def best_legal_action(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Masked argmax over the last axis; ties go to scoring, then to the lowest action.

    A legal action valued ``-inf`` (impossible by the values' reckoning) stays choosable when
    it is the only legal one: it ranks above every masked-out action.
    """
    mask = np.asarray(mask).astype(bool)
    if mask.shape != values.shape:
        raise ValueError(f"action mask has shape {mask.shape}, expected {values.shape}")
    if not mask.any(axis=-1).all():
        raise ValueError("the action mask has no legal action")
    v = np.where(mask, np.where(np.isfinite(values), values, -1e300), -np.inf)
    order = np.concatenate([np.arange(N_HOLDS, v.shape[-1]), np.arange(N_HOLDS)])
    return order[np.argmax(v[..., order], axis=-1)]


def act_by_values(values_of: Callable[[np.ndarray], np.ndarray], observation: np.ndarray,
                  action_mask: np.ndarray) -> int:
    """The best legal action of one observation, valued by ``values_of(observation)``."""
    observation = np.asarray(observation)
    if observation.ndim != 1:
        raise ValueError(f"act takes one observation, got shape {observation.shape}; use "
                         "act_batch for a batch")
    return int(best_legal_action(values_of(observation), action_mask))


def act_batch_by_values(values_of: Callable[[np.ndarray], np.ndarray],
                        observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """One best legal action per row of ``observations`` / ``masks`` (``(N, ...)``), valued by
    ``values_of(observations)``."""
    observations = np.asarray(observations)
    if observations.ndim != 2:
        raise ValueError(f"act_batch takes (N, obs_dim) observations, got {observations.shape}")
    if len(observations) == 0:
        return np.zeros(0, dtype=np.int64)
    return best_legal_action(values_of(observations), masks).astype(np.int64)
