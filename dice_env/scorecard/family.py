"""The scorecard family (Penta, Dice Poker, the Yahtzee presets ...) as a plug-in.

:data:`FAMILY` tells :mod:`dice_env.families` which names are scorecard games (the presets of
:data:`~dice_env.scorecard.rules.PRESETS` and their Gymnasium ids), turns them into
:class:`~dice_env.scorecard.rules.Rules`, and registers the single-agent and match env ids.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from dice_env.families import GameFamily, GameRef

__all__ = ["FAMILY", "SCORECARD_IDS", "SCORECARD_MATCH_IDS", "ScorecardFamily"]

#: Gymnasium id -> scorecard preset name.
SCORECARD_IDS = {
    "dice_env/Penta-v0": "penta",
    "dice_env/DicePoker-v0": "dice-poker",
    "dice_env/YahtzeeOfficial-v0": "yahtzee-official",
    "dice_env/YahtzeeFreeJoker-v0": "yahtzee-free-joker",
    "dice_env/YahtzeeNoBonus-v0": "yahtzee-no-bonus",
    "dice_env/Yatzy-v0": "yatzy",
    "dice_env/Yacht-v0": "yacht",
}

#: Gymnasium id -> scorecard preset of the multi-player matches (one agent against bots).
SCORECARD_MATCH_IDS = {
    "dice_env/PentaMatch-v0": "penta",
    "dice_env/DicePokerMatch-v0": "dice-poker",
    "dice_env/YatzyMatch-v0": "yatzy",
    "dice_env/YachtMatch-v0": "yacht",
}


class ScorecardFamily(GameFamily):
    """The scorecard games: a :class:`~dice_env.scorecard.rules.Rules` each."""

    name = "scorecard"

    def parse(self, game: Any) -> GameRef | None:
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
        from dice_env.scorecard.rules import PRESETS

        return sorted(PRESETS) + sorted(SCORECARD_IDS)

    def games(self) -> list[str]:
        from dice_env.scorecard.rules import PRESETS

        return list(PRESETS)

    def env_ids(self) -> list[str]:
        return list(SCORECARD_IDS)

    def match_env_ids(self) -> list[str]:
        return list(SCORECARD_MATCH_IDS)

    def aec_env(self, ref: GameRef, num_players: int = 2, **kwargs: Any) -> Any:
        from dice_env.scorecard.aec import env

        return env(game=ref.rules, num_players=num_players, **kwargs)

    def env_variants(self) -> list[tuple[str, str, tuple]]:
        return [(name, env_id, ()) for env_id, name in SCORECARD_IDS.items()]

    def register_envs(self) -> None:
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
