"""Gymnasium registration of Pig: :func:`register_envs` registers ``dice_env/Pig-v0``.

The family plug-in calls it (``import dice_env`` registers the families); it can also be called
by hand, any number of times.
"""

from __future__ import annotations

import gymnasium

from dice_env.pig.rules import ENV_ID

__all__ = ["ENTRY_POINT", "ENV_ID", "ENV_IDS", "VECTOR_ENTRY_POINT", "register_envs"]

#: the single-agent env (one agent against bots)
ENTRY_POINT = "dice_env.pig.env:PigEnv"
#: its natively batched twin (``gymnasium.make_vec(id, vectorization_mode="vector_entry_point")``)
VECTOR_ENTRY_POINT = "dice_env.pig.vector:PigVectorEnv"
#: Gymnasium id -> (entry point, vector entry point)
ENV_IDS = {ENV_ID: (ENTRY_POINT, VECTOR_ENTRY_POINT)}


def register_envs() -> list[str]:
    """Register ``dice_env/Pig-v0`` with Gymnasium unless it already is; returns the ids."""
    for env_id, (entry_point, vector_entry_point) in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point,
                               vector_entry_point=vector_entry_point)
    return list(ENV_IDS)
