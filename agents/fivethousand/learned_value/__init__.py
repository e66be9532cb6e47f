"""A learned turn-start win probability of 5000, played through an exact turn solve.

The modules, by role:

* :mod:`.turn` -- :class:`TurnModel` / :func:`build_turn_model`, the rule tables of one turn
  (the score grid, the throw distributions, what a bank of every turn total does to every pair
  of scores), built from :mod:`dice_env.fivethousand.rules` alone; :func:`solve_turns`, the
  exact within-turn solve of a batch of two-player turn-start pairs given a table ``W[x, y]``
  of the probability that the player about to start a turn at ``(x, y)`` wins (backward
  induction over the turn total); :func:`rules_of`, the supported rules of a game name.
* :mod:`.features` and :mod:`.networks` -- :func:`state_features` of a two-player turn start,
  :class:`NFeatures` of an ``N``-player one, and the torch modules over them.
* :mod:`.two_player` -- :class:`ValueModel`, the network ``W(my, opp)`` with its save / load.
* **N players** (3 to 6; each player maximises its own chance of winning, max-n):
  :mod:`.n_turns` -- :func:`n_turn_leaves` (every bank of a batch of score tuples resolved for
  ``N`` seats) and :func:`solve_n_turns` (the same backward induction with vector-valued
  leaves; the mover decides on its own component; compiled by numba in :mod:`.kernel`);
  :mod:`.n_player` -- :class:`NValueModel`, the network ``W(s_0, ..., s_{N-1}) -> P(each seat
  wins)`` of a turn start, the scores in turn order from the mover.  Its trainer is
  :func:`agents.training.learned_value.fivethousand.train_n`; the models are the committed
  ``agents/models/learned-value-fivethousand-<N>p.pt``.
* :mod:`.agent` -- :class:`LearnedValueAgent`, the player: every decision takes the best action
  of the exact turn solve with the network at the leaves (solved once per score pair or tuple,
  then cached).

The two-player trainer is :mod:`agents.training.learned_value.fivethousand`; the default model
is the committed ``agents/models/learned-value-fivethousand.pt``.  Nothing here reads the exact
solvers' tables (an import-linter contract).
"""

from agents.fivethousand.learned_value.agent import LearnedValueAgent
from agents.fivethousand.learned_value.features import (
    NFeatures,
    feature_size,
    state_features,
)
from agents.fivethousand.learned_value.n_player import (
    MAX_N_PLAYERS,
    MIN_N_PLAYERS,
    N_FORMAT_VERSION,
    N_KIND,
    NValueModel,
    check_model_players,
    load_model,
    n_player_model_path,
    train_command,
)
from agents.fivethousand.learned_value.n_turns import (
    N_NO_BANK,
    SOLVE_CHUNK,
    NTurnLeaves,
    NTurnSolution,
    leaf_values,
    n_turn_leaves,
    solve_n_turns,
    state_codes,
    states_of_codes,
)
from agents.fivethousand.learned_value.turn import (
    GAME_NAMES,
    TIE_TOL,
    TurnModel,
    TurnSolution,
    build_turn_model,
    rules_of,
    solve_turns,
    turn_start_values,
)
from agents.fivethousand.learned_value.two_player import (
    DEFAULT_MODEL_PATH,
    FORMAT_VERSION,
    ValueModel,
)

__all__ = [
    "DEFAULT_MODEL_PATH",
    "FORMAT_VERSION",
    "GAME_NAMES",
    "MAX_N_PLAYERS",
    "MIN_N_PLAYERS",
    "N_FORMAT_VERSION",
    "N_KIND",
    "N_NO_BANK",
    "SOLVE_CHUNK",
    "TIE_TOL",
    "LearnedValueAgent",
    "NFeatures",
    "NTurnLeaves",
    "NTurnSolution",
    "NValueModel",
    "TurnModel",
    "TurnSolution",
    "ValueModel",
    "build_turn_model",
    "check_model_players",
    "feature_size",
    "leaf_values",
    "load_model",
    "n_player_model_path",
    "n_turn_leaves",
    "rules_of",
    "solve_n_turns",
    "solve_turns",
    "state_codes",
    "state_features",
    "states_of_codes",
    "train_command",
    "turn_start_values",
]
