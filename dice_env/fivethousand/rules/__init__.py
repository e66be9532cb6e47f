"""Rules of 5000 (docs/rules.md, section 2) as tables and pure functions; no Gymnasium here.

**Rolls as multisets.**  A throw of ``n`` dice (1 to 5) is named by the index of its multiset
in :data:`dice_env.dice.KEEPS` (the 462 multisets of 0..5 dice; index 0 is the empty set), the
*roll index*.  Dice arrays have a last axis of 5 slots, sorted ascending, with ``0`` padding the
slots of dice not thrown (``[1, 5, 6, 0, 0]`` is a throw of three dice).

**Tables** (read-only numpy arrays, indexed by roll index):

* :data:`ROLL_POINTS` ``(462,)`` -- the roll's score: the best split of its dice into singles
  (1 = 100, 5 = 50), three / four / five of a kind (100 x face, three 1s = 1100; x2; x4) and
  straights (1500).  0 is a bust.
* :data:`ROLL_SCORING_DICE` ``(462,)`` -- how many dice score in that best split (the dice the
  literal rules set aside); :data:`ROLL_SCORING_MASK` ``(462,)`` -- the same dice as a bitmask
  over the sorted dice positions.
* :data:`SETASIDE_POINTS` / :data:`SETASIDE_DICE` ``(462, 32)`` -- for the knob
  ``choose_scoring_dice``: for each bitmask ``m`` over the sorted dice positions, the points of
  setting aside exactly those dice, or ``-1`` when that is not a legal set-aside (empty, a die
  that does not score within the subset, a position past the dice thrown, or not the
  *canonical* mask of its multiset -- the leftmost dice of each face -- so that each distinct
  set-aside has exactly one action).
* :data:`THROW_PROB` ``(6, 462)`` -- the probability of each multiset when ``n`` dice are
  thrown (row ``n``; row 0 is the empty throw).
* :data:`ROLL_INDEX_BY_SLOT_CODE` ``(7**5,)`` -- the roll index of any 5-slot dice array
  (faces 0..6, any order) by its base-7 code (what :func:`roll_index_of` looks up);
  :data:`ROLL_DICE` ``(462, 5)`` -- the sorted, 0-padded dice of each roll index.

**Functions** (leading batch axis everywhere): :func:`roll_index_of`, :func:`throw_faces` (the
generator call of every throw), :func:`throw_dice`, :func:`dice_left_after`,
:func:`bank_allowed`, :func:`resolve_bank`, :func:`gift_receiver`, :func:`legal_action_mask`,
:func:`decode_actions`; for solvers :func:`outcome_distribution` (the exact distribution of
``(points, scoring dice)`` for ``n`` dice thrown, bust included) and :func:`throw_distribution`
(per multiset, for ``choose_scoring_dice``).  One game at a time: :func:`bank_allowed` on two
ints, :func:`resolve_bank_one`.  The bank rule itself is written once, for one game, in
:func:`may_bank`, :func:`bank_one` and :func:`gift_receiver_one` (of :mod:`.turn`): plain
Python for one game, compiled by numba for batches.

**The turn** (set aside, bank or roll on, throw, pass the dice) is written once in
:mod:`.turn`: scalar functions of one game, run as plain Python by the one-game path and
compiled into the row kernels of the batched core and the vector envs.

**Actions.**  Literal rules (``choose_scoring_dice=False``): ``Discrete(2)``, :data:`ROLL` (0)
rolls the non-scoring dice on (all five after hot dice), :data:`BANK` (1) banks.  With
``choose_scoring_dice=True``: ``Discrete(64)``, action ``2 * m + b`` sets aside the dice of
bitmask ``m`` (bit ``i`` = die ``i`` of the sorted roll) and then rolls on (``b = 0``) or
banks (``b = 1``).  In both encodings ``action & 1`` is "bank".

**Modules**, by role: :mod:`.knobs` (:class:`FiveThousandRules` and the constants),
:mod:`.tables` (the roll tables), :mod:`.bank` (the bank rule for batches and in words),
:mod:`.actions` (the action encodings), :mod:`.turn` (the turn and the bank rule of one game,
and their numba kernels) and :mod:`.distributions` (for solvers); the public names of all but
:mod:`.turn` are importable from here.
"""

from dice_env.fivethousand.rules.actions import (
    decode_actions,
    describe_action,
    encode_action,
    legal_action_mask,
)
from dice_env.fivethousand.rules.bank import (
    BankOutcome,
    bank_allowed,
    bank_refusal,
    gift_receiver,
    resolve_bank,
    resolve_bank_one,
)
from dice_env.fivethousand.rules.distributions import (
    OutcomeDistribution,
    all_rolls,
    outcome_distribution,
    throw_distribution,
)
from dice_env.fivethousand.rules.knobs import (
    BANK,
    BANK_OUTCOME_NAMES,
    BANKED,
    GIFT_LOST_NO_RECEIVER,
    GIFT_LOST_OVERSHOOT,
    GIFTED,
    MAX_PLAYERS,
    MIN_PLAYERS,
    N_ACTIONS_CHOOSE,
    N_ACTIONS_LITERAL,
    N_DICE,
    N_MULTISETS,
    N_SETASIDE_MASKS,
    NO_BANK,
    ROLL,
    SCORING_COMBINATIONS,
    SINGLE_POINTS,
    STRAIGHT_POINTS,
    STRAIGHTS,
    FiveThousandRules,
    check_num_players,
    coerce_rules,
    three_of_a_kind_points,
)
from dice_env.fivethousand.rules.tables import (
    ROLL_DICE,
    ROLL_INDEX_BY_SLOT_CODE,
    ROLL_POINTS,
    ROLL_SCORING_DICE,
    ROLL_SCORING_MASK,
    ROLL_SIZE,
    SETASIDE_DICE,
    SETASIDE_POINTS,
    THROW_PROB,
    dice_left_after,
    pad_dice,
    roll_index_of,
    roll_score,
    throw_dice,
    throw_faces,
)
from dice_env.fivethousand.rules.turn import bank_one, gift_receiver_one, may_bank

__all__ = [
    "check_num_players",
    "coerce_rules",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "BANK",
    "BANKED",
    "BANK_OUTCOME_NAMES",
    "BankOutcome",
    "FiveThousandRules",
    "GIFTED",
    "GIFT_LOST_NO_RECEIVER",
    "GIFT_LOST_OVERSHOOT",
    "NO_BANK",
    "N_ACTIONS_CHOOSE",
    "N_ACTIONS_LITERAL",
    "N_DICE",
    "N_MULTISETS",
    "N_SETASIDE_MASKS",
    "OutcomeDistribution",
    "ROLL",
    "ROLL_DICE",
    "ROLL_INDEX_BY_SLOT_CODE",
    "ROLL_POINTS",
    "ROLL_SCORING_DICE",
    "ROLL_SCORING_MASK",
    "ROLL_SIZE",
    "SCORING_COMBINATIONS",
    "SETASIDE_DICE",
    "SETASIDE_POINTS",
    "SINGLE_POINTS",
    "STRAIGHTS",
    "STRAIGHT_POINTS",
    "THROW_PROB",
    "all_rolls",
    "bank_allowed",
    "bank_one",
    "bank_refusal",
    "decode_actions",
    "describe_action",
    "dice_left_after",
    "encode_action",
    "gift_receiver",
    "gift_receiver_one",
    "legal_action_mask",
    "may_bank",
    "outcome_distribution",
    "pad_dice",
    "resolve_bank",
    "resolve_bank_one",
    "roll_index_of",
    "roll_score",
    "three_of_a_kind_points",
    "throw_dice",
    "throw_faces",
    "throw_distribution",
]
