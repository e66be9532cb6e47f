"""The scorecard family (Penta, Dice Poker, the Yahtzee presets ...) as a plug-in.

:data:`FAMILY` tells :mod:`dice_env.families` which names are scorecard games (the presets of
:data:`~dice_env.scorecard.rules.PRESETS` and their Gymnasium ids), turns them into
:class:`~dice_env.scorecard.rules.Rules`, and registers the single-agent and match env ids.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from dice_env.families import GameFamily, GameRef

__all__ = ["FAMILY", "ScorecardFamily"]


class ScorecardFamily(GameFamily):
    """The scorecard games: a :class:`~dice_env.scorecard.rules.Rules` each."""

    name = "scorecard"

    def parse(self, game: Any) -> GameRef | None:
        from dice_env import SCORECARD_IDS
        from dice_env.scorecard.rules import PRESETS, Rules

        if isinstance(game, Rules):  # played by a ScorecardEnv of its own
            return GameRef(self, game, None, game.name, game)
        if not isinstance(game, str):
            return None
        if game in PRESETS:
            env_id = next((i for i, name in SCORECARD_IDS.items() if name == game), None)
            return GameRef(self, game, env_id, game, PRESETS[game])
        if game in SCORECARD_IDS:
            name = SCORECARD_IDS[game]
            return GameRef(self, name, game, name, PRESETS[name])
        return None

    def coerce_rules(self, game: Any) -> Any:
        from dice_env.scorecard.rules import coerce_rules

        return coerce_rules(game)

    def names(self) -> list[str]:
        from dice_env import SCORECARD_IDS
        from dice_env.scorecard.rules import PRESETS

        return sorted(PRESETS) + sorted(SCORECARD_IDS)

    def games(self) -> list[str]:
        from dice_env.scorecard.rules import PRESETS

        return list(PRESETS)

    def env_ids(self) -> list[str]:
        from dice_env import SCORECARD_IDS

        return list(SCORECARD_IDS)

    def match_env_ids(self) -> list[str]:
        from dice_env import SCORECARD_MATCH_IDS

        return list(SCORECARD_MATCH_IDS)

    def aec_env(self, ref: GameRef, num_players: int = 2, **kwargs: Any) -> Any:
        from dice_env.scorecard.aec import env

        return env(game=ref.rules, num_players=num_players, **kwargs)

    def env_variants(self) -> list[tuple[str, str, tuple]]:
        from dice_env import SCORECARD_IDS

        return [(name, env_id, ()) for env_id, name in SCORECARD_IDS.items()]

    def register_envs(self) -> None:
        from dice_env import SCORECARD_IDS, SCORECARD_MATCH_IDS

        for env_id, game in SCORECARD_IDS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(
                    id=env_id,
                    entry_point="dice_env.scorecard.env:ScorecardEnv",
                    vector_entry_point="dice_env.scorecard.vector:ScorecardVectorEnv",
                    kwargs={"game": game},
                )
        for env_id, game in SCORECARD_MATCH_IDS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(
                    id=env_id,
                    entry_point="dice_env.scorecard.match.env:ScorecardMatchEnv",
                    vector_entry_point="dice_env.scorecard.match.vector:ScorecardMatchVectorEnv",
                    kwargs={"game": game},
                )

    def make_env(self, ref: GameRef, **kwargs: Any) -> Any:
        if ref.env_id is None:  # rules that are no preset: an env built from them
            from dice_env.scorecard.env import ScorecardEnv

            return ScorecardEnv(game=ref.rules, **kwargs)
        return super().make_env(ref, **kwargs)


#: the scorecard family, registered by ``import dice_env``
FAMILY = ScorecardFamily()
