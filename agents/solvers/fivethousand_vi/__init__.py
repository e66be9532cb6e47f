"""Exact optimal play of 5000: two-player win probability and solo fewest turns.

The model
---------
Scores are 0 or multiples of 100 from ``entry`` to ``target - 100`` (46 values for 5000); turn
totals are multiples of 50.  A *turn-start state* is ``(my score, opponent's score)`` with the
mover about to throw five dice; a *decision* comes after every throw that scored, at
``(my score, opponent's score, turn total t with this throw, n dice to throw if rolling on)``:
bank ``t`` (when the rules allow it) or roll the ``n`` dice (five after hot dice).

* **Two players** (Neller & Presser's method for Pig): ``W[a, b]`` = probability that the
  player to move at ``(a, b)`` wins, both players playing to win::

      W[a, b] = E_throw[ bust -> 1 - W[b, a];  else decision(a, b, t, n) ]
      decision = max(bank value (if allowed), E_throw[ bust -> 1 - W[b, a]; else decision ])
      bank value = 1 if the bank reaches the target, 0 if its gift takes the opponent there,
                   else 1 - W[b', a'] with the scores (a', b') after the bank.

  Every rule of the bank -- entry, no 50s, bumping on equal scores, the overshoot gift to an
  entered opponent, lost when it would pass the target, exact target wins -- comes from
  :func:`dice_env.fivethousand.rules.bank_allowed` and :func:`~dice_env.fivethousand.rules.
  resolve_bank`, evaluated once for every (score, score, turn total) into a table; the throws
  from :func:`~dice_env.fivethousand.rules.outcome_distribution`.  Turn totals are tabulated
  up to the target: beyond the last total at which a bank can still change the scores (at
  most the target), every bank is lost and the turn is worth exactly a bust.

  The equations are cyclic (a bust hands ``(b, a)`` to the opponent; a bump knocks a score
  back to 0), so they are solved by value iteration: states are grouped in pairs
  ``{(a, b), (b, a)}`` and pairs in *levels* of equal ``a + b``.  A bank or a gift raises
  the sum, a bust or a lost gift keeps it, so only bumps lead to a lower level.  A sweep
  visits the levels from the highest sum down, iterating each pair in place (Gauss-Seidel)
  until it settles; the pairs of one level may run in parallel (they never read each other,
  which is checked when the model is built).  Sweeps repeat until no value moves by more
  than ``tol`` (1e-9).

* **Solo**: ``F[a]`` = expected turns still to play (this one included) to reach the target
  exactly from the start of a turn at score ``a``, minimised.  A turn only raises the score
  or leaves it unchanged (a bust, or an overshooting bank whose points are lost: nobody to
  gift them to), so scores are solved from the highest down, each one's self-referential
  equation by policy iteration (Newton on a concave piecewise-linear map: exact once the
  policy repeats).

* **One turn on its own**: the best probability of entering from a fresh start, and the best
  expected banked points of one turn for an entered player far from the target.

Under ``choose_scoring_dice`` a throw's options are its legal set-asides
(:data:`~dice_env.fivethousand.rules.SETASIDE_POINTS`) and the mover also picks the best one;
the state is the same.

The modules, by role (one state layout throughout): :mod:`.model` (the rule tables),
:mod:`.kernels` (the numba kernels) and :mod:`.run` (running them: sweeps, turn tables, the
warm-up), :mod:`.two_player` and :mod:`.solo` (the two solves), :mod:`.fixed_players` (exact
matches between fixed players), :mod:`.one_turn` (one turn on its own), :mod:`.store` (the
on-disk cache) and :mod:`.summary` (the record of ``dice-env solve fivethousand``).

Public API: :func:`build_model`, :func:`solve_two_player`, :func:`solve_solo`,
:func:`load_or_solve_two_player`, :func:`load_or_solve_solo`, :func:`single_turn_facts`,
:func:`match_win_probabilities` (exact win probabilities of fixed players), :func:`policy_of`,
:func:`solve_fivethousand_summary` (the JSON record of ``dice-env solve fivethousand``).
"""

from agents.solvers.cache import peak_memory_mb
from agents.solvers.fivethousand_vi.fixed_players import (
    match_win_probabilities,
    policy_of,
    threshold_policy,
)
from agents.solvers.fivethousand_vi.model import (
    DEFAULT_TOL,
    FORMAT_VERSION,
    N_DICE,
    TIE_TOL,
    FiveThousandModel,
    build_model,
)
from agents.solvers.fivethousand_vi.one_turn import single_turn_facts
from agents.solvers.fivethousand_vi.run import warm_up_kernels
from agents.solvers.fivethousand_vi.solo import SoloSolution, solve_solo
from agents.solvers.fivethousand_vi.store import (
    cache_key,
    load_or_solve_solo,
    load_or_solve_two_player,
)
from agents.solvers.fivethousand_vi.summary import (
    describe_fivethousand,
    solve_fivethousand_summary,
)
from agents.solvers.fivethousand_vi.two_player import TwoPlayerSolution, solve_two_player
from dice_env.fivethousand.rules import coerce_rules

__all__ = [
    "DEFAULT_TOL",
    "FORMAT_VERSION",
    "N_DICE",
    "TIE_TOL",
    "FiveThousandModel",
    "SoloSolution",
    "TwoPlayerSolution",
    "build_model",
    "cache_key",
    "coerce_rules",
    "describe_fivethousand",
    "load_or_solve_solo",
    "load_or_solve_two_player",
    "match_win_probabilities",
    "peak_memory_mb",
    "policy_of",
    "single_turn_facts",
    "solve_fivethousand_summary",
    "solve_solo",
    "solve_two_player",
    "threshold_policy",
    "warm_up_kernels",
]
