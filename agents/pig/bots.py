"""Pig players for the factory: the hold-at bots.

``HoldAtAgent(game, threshold=20)`` holds once the turn total reaches ``threshold`` (or the hold
wins): with the default threshold it is the classic "hold at 20" bot of Neller & Presser, the
envs' default opponent (:class:`dice_env.pig.bots.HoldAtBot`, which it extends).  Batched
(``act_batch``) and deterministic.  The ``random`` player of every game is
:class:`dice_env.random_player.RandomPlayer`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dice_env.pig.bots import DEFAULT_THRESHOLD, HoldAtBot

__all__ = ["DEFAULT_THRESHOLD", "HoldAtAgent"]


class HoldAtAgent(HoldAtBot):
    """Hold once the turn total reaches ``threshold`` (default 20), or when the hold wins.

    Args:
        game: the game, as :func:`agents.make` passes it (a resolved game, ``"pig"``, a
            ``PigRules`` or a dict of knobs): its ``win_score`` scales the observation.
        threshold: the turn total at which the bot holds (a positive integer).
        seed: accepted for the common interface (the bot is deterministic).
    """

    name = "hold-at"

    def __init__(self, game: Any = "pig", threshold: int = DEFAULT_THRESHOLD,
                 seed: int | None = None) -> None:
        super().__init__(game, threshold=threshold, seed=seed)

    def __repr__(self) -> str:
        return f"HoldAtAgent(threshold={self.threshold})"

    def roll_table(self) -> np.ndarray:
        """``(W, W, W)`` bool: whether the bot rolls with its score ``i``, the opponent's ``j``
        and turn total ``k`` (two players), for
        :func:`agents.pig.solver.fixed_policy_win_probability`."""
        w = self.rules.win_score
        i = np.arange(w)[:, None, None]
        k = np.arange(w)[None, None, :]
        return np.broadcast_to((k < self.threshold) & (i + k < w), (w, w, w)).copy()
