"""The multi-player scorecard match (Penta, Dice Poker, ...): every player has a card of their
own and the highest TOTAL wins.

The modules, by role:

* :mod:`.core` -- the match as pure state transitions, batched (:class:`MatchState`) and for
  one match in plain Python (:class:`ScorecardMatch`, the AEC env's fast path): whose turn it
  is, who won; the rules stay in :mod:`dice_env.scorecard.game`; its names are importable
  from here;
* :mod:`.observation` -- the observation of a seat; :mod:`.players` -- the opponents' turns;
  :mod:`.render` -- the text of a match; :mod:`.state` -- a match as a JSON-serialisable dict;
* :mod:`.env` and :mod:`.vector` -- the Gymnasium env ``ScorecardMatchEnv`` and its batched
  version ``ScorecardMatchVectorEnv`` (``dice_env/PentaMatch-v0``, ...).
"""

from dice_env.scorecard.match.core import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    MatchState,
    ScorecardMatch,
    apply_match_actions,
    check_num_players,
    match_action_mask,
    match_outcome,
    mover_options,
    score_margin,
    start_matches,
    winners,
)

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MatchState",
    "ScorecardMatch",
    "apply_match_actions",
    "check_num_players",
    "match_action_mask",
    "match_outcome",
    "mover_options",
    "score_margin",
    "start_matches",
    "winners",
]
