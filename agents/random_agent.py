"""The factory's ``random`` player: uniform over the legal actions, for any game.

The implementation is :class:`dice_env.random_player.RandomPlayer` (shared with the envs'
built-in random opponent).
"""

from __future__ import annotations

from dice_env.random_player import RandomPlayer

__all__ = ["RandomAgent"]


class RandomAgent(RandomPlayer):
    """Uniformly random legal actions (see :class:`~dice_env.random_player.RandomPlayer`)."""
