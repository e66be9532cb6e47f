"""A uniformly random legal player for any game of the package (it only reads the mask).

It lives with the envs so that the envs' built-in random opponents and the ``agents`` factory's
``random`` player are one implementation.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class RandomPlayer:
    """Picks uniformly among the legal actions of the mask.

    Works for every game (the observation is ignored), one game at a time (:meth:`act`) or a
    batch (:meth:`act_batch`).  Reproducible with ``seed``.

    Args:
        game: the game (accepted for the common factory signature; unused).
        seed: seed of the player's own generator.
    """

    def __init__(self, game: Any = None, seed: int | None = None) -> None:
        self.game = getattr(game, "spec", game)  # a resolved game (agents.games.Game): its name
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None = None) -> None:
        """Reseed the player's generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly random legal action (``ValueError`` if no action is legal)."""
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 0:
            raise ValueError("the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One uniformly random legal action per row of ``masks`` (``(N, n_actions)``)."""
        masks = np.asarray(masks).astype(bool)
        if masks.ndim != 2:
            raise ValueError(f"masks must be (N, n_actions), got shape {masks.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("some rows of the action mask have no legal action")
        keys = np.where(masks, self.rng.random(masks.shape), -1.0)
        return np.argmax(keys, axis=1)
