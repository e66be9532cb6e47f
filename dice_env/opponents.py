"""Bot opponents inside the envs, for every game family: a player as a policy, and the
opponents of a batched env grouped by player object (one ``act_batch`` call per object).

An opponent is an object with ``act(observation, action_mask)`` (and optionally
``act_batch(observations, masks)``) or a plain callable ``f(observation, action_mask)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["OpponentGroup", "Policy", "as_policy", "group_opponents"]

Policy = Callable[[np.ndarray, np.ndarray], Any]


def as_policy(player: Any) -> Policy:
    """A callable ``f(observation, action_mask) -> action`` for an agent or a plain callable."""
    act = getattr(player, "act", None)
    if callable(act):
        return act
    if callable(player):
        return player
    raise TypeError(f"an opponent must have act(observation, action_mask) or be a callable "
                    f"f(observation, action_mask) -> int, got {player!r}")


class OpponentGroup:
    """The seats of one opponent object (as opponent indices) and how to ask it."""

    def __init__(self, player: Any, indices: list[int]) -> None:
        self.player = player
        self.indices = np.array(indices, dtype=np.int64)
        act_batch = getattr(player, "act_batch", None)
        self.act_batch: Callable | None = act_batch if callable(act_batch) else None
        self.policy = as_policy(player)


def group_opponents(opponents: Sequence[Any]) -> list[OpponentGroup]:
    """The opponents grouped by object: the same player in several seats is asked once for
    all of them."""
    groups: dict[int, OpponentGroup] = {}
    for k, player in enumerate(opponents):
        if id(player) in groups:
            groups[id(player)].indices = np.append(groups[id(player)].indices, k)
        else:
            groups[id(player)] = OpponentGroup(player, [k])
    return list(groups.values())
