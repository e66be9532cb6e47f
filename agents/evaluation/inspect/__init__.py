"""An agent's games decision by decision, for the inspect view and ``dice-env replay``.

* :mod:`.games` -- the JSON-able payloads: one seed (:func:`inspect`, one or two agents on the
  same dice), an agent's costliest habits over a range of seeds (:func:`habits`), both together
  for the replay file (:func:`replay_data`); :func:`inspector` builds the game family's
  inspection (its ``"inspection"`` hook), which the code there asks for all that differs;
* :mod:`.scorecard`, :mod:`.fivethousand` -- each family's inspection and records, read off
  the regret tools' traces, and its charts;
* :mod:`.charts` -- the format of a chart;
* :mod:`.common` -- the base of an inspection, the decision table and the helpers every
  family shares.
"""

from agents.evaluation.inspect.games import (
    FORMAT,
    MAX_HABIT_GAMES,
    MAX_SEED,
    Inspector,
    habits,
    inspect,
    inspector,
    parse_seed_range,
    replay_data,
)

__all__ = ["FORMAT", "MAX_HABIT_GAMES", "MAX_SEED", "Inspector", "habits", "inspect",
           "inspector", "parse_seed_range", "replay_data"]
