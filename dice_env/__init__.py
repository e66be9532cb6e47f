"""dice-env: reinforcement-learning environments for dice games.

Importing the package registers every game family (:mod:`dice_env.families`) and so every
environment id with Gymnasium under the ``dice_env/`` namespace (see :data:`SCORECARD_IDS`,
:data:`SCORECARD_MATCH_IDS`, :data:`FIVE_THOUSAND_IDS` and :data:`PIG_IDS`).
"""

from __future__ import annotations

from dice_env.paths import configure_numba_cache

configure_numba_cache()  # before any kernel is compiled: nothing is written beside the sources

__version__ = "0.1.0"
__all__ = ["FIVE_THOUSAND_IDS", "FIVE_THOUSAND_VECTOR_ENTRY_POINTS", "PIG_IDS", "SCORECARD_IDS",
           "SCORECARD_MATCH_IDS", "__version__"]

# the id tables are the families' own (dice_env/<family>/family.py), re-exported here
from dice_env.families import register_built_in  # noqa: E402
from dice_env.fivethousand.family import (  # noqa: E402
    FIVE_THOUSAND_IDS,
    FIVE_THOUSAND_VECTOR_ENTRY_POINTS,
)
from dice_env.pig.family import PIG_IDS  # noqa: E402
from dice_env.scorecard.family import SCORECARD_IDS, SCORECARD_MATCH_IDS  # noqa: E402

register_built_in()
