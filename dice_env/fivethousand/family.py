"""5000 as a plug-in game family.

:data:`FAMILY` tells :mod:`dice_env.families` which names are 5000 (``"fivethousand"``,
``"5000"``, ``"five-thousand"`` and the Gymnasium ids), turns them into
:class:`~dice_env.fivethousand.rules.FiveThousandRules`, and registers the env ids.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from dice_env.families import GameFamily, GameRef

__all__ = ["DEFAULT_ENV_ID", "FAMILY", "FIVE_THOUSAND_IDS", "FIVE_THOUSAND_VECTOR_ENTRY_POINTS",
           "FiveThousandFamily", "NAMES"]

#: Gymnasium id -> entry point of the 5000 environments.
FIVE_THOUSAND_IDS = {
    "dice_env/FiveThousand-v0": "dice_env.fivethousand.env:FiveThousandEnv",
    "dice_env/FiveThousandSolo-v0": "dice_env.fivethousand.solo:FiveThousandSoloEnv",
}

#: Gymnasium id -> vector entry point (the natively batched env) of the 5000 environments.
FIVE_THOUSAND_VECTOR_ENTRY_POINTS = {
    "dice_env/FiveThousand-v0": "dice_env.fivethousand.vector:FiveThousandVectorEnv",
    "dice_env/FiveThousandSolo-v0": "dice_env.fivethousand.vector:FiveThousandSoloVectorEnv",
}

#: the names of 5000 (besides its Gymnasium ids); the first is the canonical one
NAMES = ("fivethousand", "5000", "five-thousand")
#: the default single-agent env of 5000
DEFAULT_ENV_ID = "dice_env/FiveThousand-v0"


class FiveThousandFamily(GameFamily):
    """5000: one :class:`~dice_env.fivethousand.rules.FiveThousandRules` (knobs aside)."""

    name = "fivethousand"

    def parse(self, game: Any) -> GameRef | None:
        from dice_env.fivethousand.rules import FiveThousandRules

        if isinstance(game, FiveThousandRules):  # knobs changed: no registered game (yet)
            return (GameRef(self, NAMES[0], DEFAULT_ENV_ID, NAMES[0], game)
                    if game == FiveThousandRules() else None)
        if not isinstance(game, str):
            return None
        if game.lower() in NAMES:
            return GameRef(self, NAMES[0], DEFAULT_ENV_ID, NAMES[0], FiveThousandRules())
        if game in FIVE_THOUSAND_IDS:  # the solo env observes differently: the id is the spec
            return GameRef(self, game, game, game, FiveThousandRules())
        return None

    def coerce_rules(self, game: Any) -> Any:
        from dice_env.fivethousand.rules import coerce_rules

        return coerce_rules(game)

    def names(self) -> list[str]:
        return list(NAMES) + sorted(FIVE_THOUSAND_IDS)

    def games(self) -> list[str]:
        return [NAMES[0]]

    def aec_env(self, ref: GameRef, num_players: int = 2, **kwargs: Any) -> Any:
        from dice_env.fivethousand.aec import env

        return env(num_players=num_players, rules=ref.rules, **kwargs)

    def env_ids(self) -> list[str]:
        return list(FIVE_THOUSAND_IDS)

    def env_variants(self) -> list[tuple[str, str, tuple]]:
        from dice_env.fivethousand.rules.knobs import MAX_PLAYERS

        return ([(NAMES[0], DEFAULT_ENV_ID, ())]
                + [(f"fivethousand ({k} players)", DEFAULT_ENV_ID, (("num_players", k),))
                   for k in range(3, MAX_PLAYERS + 1)]
                + [("fivethousand solo", "dice_env/FiveThousandSolo-v0", ())])

    def register_envs(self) -> None:
        for env_id, entry_point in FIVE_THOUSAND_IDS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(id=env_id, entry_point=entry_point,
                                   vector_entry_point=FIVE_THOUSAND_VECTOR_ENTRY_POINTS[env_id])


#: the 5000 family, registered by ``import dice_env``
FAMILY = FiveThousandFamily()
