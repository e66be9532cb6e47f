"""dice-env: reinforcement-learning environments for five-dice games.

Importing the package registers every environment id with Gymnasium under the ``dice_env/``
namespace (see :data:`SCORECARD_IDS`, :data:`SCORECARD_MATCH_IDS` and :data:`FIVE_THOUSAND_IDS`).
"""

from __future__ import annotations

import gymnasium

from dice_env.paths import configure_numba_cache

configure_numba_cache()  # before any kernel is compiled: nothing is written beside the sources

__version__ = "0.1.0"

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


from dice_env.families import register_built_in  # noqa: E402  (after the tables above)

register_built_in()
