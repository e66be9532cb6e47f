"""An agent's games decision by decision, for the inspect view and ``dice-env replay``.

* :mod:`.games` -- the JSON-able payloads: one seed (:func:`inspect`, one or two agents on the
  same dice), an agent's costliest habits over a range of seeds (:func:`habits`), both together
  for the replay file (:func:`replay_data`); :func:`inspector` builds the shared players;
* :mod:`.scorecard`, :mod:`.fivethousand` -- the records of each game family, read off the
  regret tools' traces;
* :mod:`.charts` -- the charts of one game;
* :mod:`.common` -- the decision table and helpers both families share.
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
