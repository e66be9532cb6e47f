"""Three-player 5000: a max-n profile, evaluated exactly, and its distance from an equilibrium.

The game
--------
Three players (seats 0, 1, 2; seat 0 opens), the rules of :mod:`dice_env.fivethousand.rules`
(literal: every scoring die is set aside).  A *turn-start state* is the three scores in turn
order from the player to move, ``(a, b, c)``, each on the 2-player solver's grid (0, then
``entry`` .. ``target - 100`` by 100: 46 values, 97,336 states for 5000).  Its value is the
vector ``W[a, b, c] = (P(mover wins), P(next wins), P(the one after wins))``.  Inside a turn
the mover decides after every throw that scored, at ``(scores, turn total t, n dice left)``:
bank (when :func:`~dice_env.fivethousand.rules.bank_allowed`) or roll the ``n`` dice.  A bust
passes the turn to the next player; a bank is resolved by
:func:`~dice_env.fivethousand.rules.resolve_bank` with three seats (everyone on the banker's new
score is bumped to 0; an overshoot goes to the lowest *entered* other player -- the first
after the banker on a tie -- and is lost if nobody has entered or if it would pass the target;
exact target wins, for the receiver of a gift too).  The throws are the 2-player model's
tables (:func:`agents.solvers.fivethousand_vi.build_model`).

Each player maximises its own probability of winning (*max-n*).  With two players this is the
zero-sum game that :mod:`~agents.solvers.fivethousand_vi` solves; with three it need not have a
pure stationary equilibrium, and plain max-n value iteration need not converge: where the best
responses of a cycle of turn-start states chase each other, the greedy policies can flip for
ever.  So the player shipped is defined by a procedure, not as "the" equilibrium.

The shipped profile (``solve_three_player``)
--------------------------------------------
1. **Max-n value iteration.**  The states are grouped by the multiset of their scores (a
   *group*: the up to 6 orders of ``{a, b, c}``, made of rotation cycles
   ``(a, b, c) -> (b, c, a) -> (c, a, b)``), and groups in *levels* of equal score sum.  A
   bank raises the sum; a bust, a lost bank and entering onto an equal score keep the group;
   only bumps lead to a lower level.  A sweep visits the levels from the highest sum down;
   the groups of a level do not read each other (checked) and run in parallel.  Within a
   sweep a group is solved with the rest of the table fixed:

   a. *Rounds*: every state's turn is computed against the current values -- each decision
      the mover's best response for its own component, **ties (within 1e-12) to banking** --
      as an affine function ``C + q L`` of the value ``L`` of the state after a bust; the
      states of each rotation cycle are then solved together exactly (their decisions
      fixed).  Rounds repeat until no value of the group moves by more than the local
      tolerance (at most ``max_local`` = 40 rounds).
   b. If that did not settle, *one state at a time*: each state best-responds to the current
      values and its cycle is re-solved at once, until a whole pass changes no decision (at
      most 40 passes).  A group settled this way is an equilibrium of its own subgame.
   c. Still unsettled -- the best responses keep flipping: the group keeps, among the
      profiles of its rounds (a), the one with the smallest one-turn deviation gain against
      its own values (from the second sweep on the incoming profile is a candidate too, so
      the choice does not alternate from sweep to sweep); ties to the earliest.

   From sweep ``freeze_from`` (10) on, groups are *frozen* -- their decisions kept, their
   values only evaluated from the next sweep on: (i) a group that did not settle in the
   sweep; (ii) when the decisions of the whole table are those of ``k`` sweeps before
   (``2 <= k <= 8``: a cycle across groups, each settled but each best-responding to the
   others' last move), every group whose decisions changed in those ``k`` sweeps.  This is
   what makes the iteration stop: left free, such groups and the groups that bank into them
   chase each other for ever, sweep after sweep.  Sweeps start from ``W = 1/3`` everywhere
   and stop when no value moves by more than ``tol`` (1e-9) and every free group settled, or
   after ``max_sweeps`` (200).
2. **The policy** ``pi`` is the decisions kept for every ``(state, turn total, dice left)``
   after the last sweep (beyond the last total at which a bank changes anything, every action
   is worth a bust and ``pi`` banks where allowed).  It is deterministic: fixed sweep order,
   fixed tie rule, the parallel groups never read each other.  ``pi`` is a best response
   everywhere except in the frozen groups (up to the tolerances); the report lists them.
3. **Exact evaluation.**  ``pi`` is held fixed and evaluated with the same machinery (cycles
   solved exactly, bumps iterated) until no value moves by more than ``eval_tol`` (1e-11):
   the probabilities that each player wins under ``pi``.  It starts from the iteration's
   values when the turns under ``pi`` are checked to form an absorbing chain (from every
   state the game ends within ``N`` turns with positive probability: the fixed point is
   unique), else from ``W = 0`` (whose limit is the least fixed point, the probabilities).  Two
   independent Bellman checks (the backward turn recursion, and the forward distribution of
   where each turn ends) give the residual.  These values -- not the iteration's -- are the
   shipped player's values: ``agents.make("optimal", "fivethousand", num_players=3)`` plays
   ``pi`` and its ``advise`` gives every action's exact win probability under ``pi``.
4. **Distance from an equilibrium.**  Against those exact values, for every state: the gain of
   the mover's best one-turn deviation (every decision of one turn free, the following turns
   by ``pi``), at the turn start and at the worst single decision; over all states, and over
   the states reachable from 0-0-0 under ``pi`` with their expected visits (the turn-by-turn
   distribution of the game under ``pi``, summed).  A gain of 0 everywhere would make ``pi`` a
   subgame-perfect equilibrium (one-shot deviation principle); the report gives how far from
   0 it is, and which groups were frozen (``frozen_states``: the policy cycled there).

The same code with ``num_players=2`` solves the two-player game (the reduction check: it
reproduces :func:`~agents.solvers.fivethousand_vi.solve_two_player`'s 0.5151345761).
``choose_scoring_dice`` is not supported (the policy table holds bank / roll decisions only).

Tables are cached on disk like the 2-player ones (:mod:`agents.solvers.cache`: the key holds
``FORMAT_VERSION``, the rules and the solver's parameters; atomic writes; a corrupt or foreign
file is reported with :class:`~agents.solvers.cache.CacheCorruptionWarning` and solved again).

The modules, by role: :mod:`.model` (the tables and the parameters), :mod:`.kernels` (the
numba kernels of the sweeps) and :mod:`.profile_kernels` (of the analysis), :mod:`.solve` (steps
1-3), :mod:`.analysis` (step 4), :mod:`.solution` (:class:`ThreePlayerSolution`) and
:mod:`.store` (the on-disk cache).

Public API: :func:`build_three_model`, :func:`solve_three_player`,
:func:`load_or_solve_three_player`, :class:`ThreePlayerSolution`.
"""

from agents.solvers.fivethousand_three.analysis import (
    analyse_profile,
    profile_transitions,
    turns_to_end,
)
from agents.solvers.fivethousand_three.model import (
    CYCLE_MAX,
    DEFAULT_TOL,
    EVAL_TOL,
    FORMAT_VERSION,
    FREEZE_FROM,
    GAIN_EPS,
    MAX_LOCAL,
    MAX_SWEEPS,
    N_DICE,
    TIE_TOL,
    ThreeModel,
    build_three_model,
)
from agents.solvers.fivethousand_three.solution import ThreePlayerSolution
from agents.solvers.fivethousand_three.solve import solve_three_player, warm_up_kernels
from agents.solvers.fivethousand_three.store import cache_key, load_or_solve_three_player

__all__ = [
    "CYCLE_MAX",
    "DEFAULT_TOL",
    "EVAL_TOL",
    "FORMAT_VERSION",
    "FREEZE_FROM",
    "GAIN_EPS",
    "MAX_LOCAL",
    "MAX_SWEEPS",
    "N_DICE",
    "TIE_TOL",
    "ThreeModel",
    "ThreePlayerSolution",
    "analyse_profile",
    "build_three_model",
    "cache_key",
    "load_or_solve_three_player",
    "profile_transitions",
    "solve_three_player",
    "turns_to_end",
    "warm_up_kernels",
]
