"""Pig as a plug-in game family (see :mod:`dice_env.families`).

:data:`FAMILY` tells the registry that ``"pig"`` and ``dice_env/Pig-v0`` name Pig, turns names
and knobs into :class:`~dice_env.pig.rules.PigRules`, registers the env id and builds the
PettingZoo AEC env.
"""

from __future__ import annotations

from typing import Any

from dice_env.families import GameFamily, GameRef
from dice_env.pig.registration import ENV_IDS
from dice_env.pig.rules import ENV_ID, NAME, PigRules

__all__ = ["FAMILY", "PIG_IDS", "PigFamily"]

#: Gymnasium id -> entry point of the Pig environments (one agent against bots).
PIG_IDS = {env_id: entry for env_id, (entry, _) in ENV_IDS.items()}


class PigFamily(GameFamily):
    """Pig: one :class:`~dice_env.pig.rules.PigRules` (knobs aside)."""

    name = "pig"

    def parse(self, game: Any) -> GameRef | None:
        if isinstance(game, PigRules):  # knobs changed: no registered game (yet)
            return GameRef(self, NAME, ENV_ID, NAME, game) if game == PigRules() else None
        if isinstance(game, str) and (game.strip().lower() == NAME or game == ENV_ID):
            return GameRef(self, NAME, ENV_ID, NAME, PigRules())
        return None

    def coerce_rules(self, game: Any) -> PigRules:
        from dice_env.pig.rules import coerce_rules

        return coerce_rules(game)

    def names(self) -> list[str]:
        return [NAME, ENV_ID]

    def games(self) -> list[str]:
        return [NAME]

    def env_ids(self) -> list[str]:
        return [ENV_ID]

    def register_envs(self) -> None:
        from dice_env.pig.registration import register_envs

        register_envs()

    def aec_env(self, ref: GameRef, num_players: int = 2, **kwargs: Any) -> Any:
        from dice_env.pig.aec import env

        return env(rules={**ref.rules.knobs(), "num_players": num_players}, **kwargs)


#: the Pig family, registered by ``import dice_env``
FAMILY = PigFamily()
