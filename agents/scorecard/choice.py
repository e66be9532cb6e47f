"""The scorecard players' rule for turning action values into a legal action.

:func:`best_legal_action` is shared by the optimal player (:mod:`agents.scorecard.optimal`) and the
learned-value player (:mod:`agents.scorecard.learned_value`), so both break ties alike.
"""

from __future__ import annotations

import numpy as np

from dice_env.dice import N_HOLDS

__all__ = ["best_legal_action"]


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
