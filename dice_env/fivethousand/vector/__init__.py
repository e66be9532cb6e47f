"""Natively batched Gymnasium ``VectorEnv`` versions of the two 5000 envs.

:class:`FiveThousandVectorEnv` (``dice_env/FiveThousand-v0``: one agent against bot opponents)
and :class:`FiveThousandSoloVectorEnv` (``dice_env/FiveThousandSolo-v0``) hold ``N`` games in
the numpy arrays of one :class:`~dice_env.fivethousand.game.FiveThousandState` and advance all
of them with one ``step(actions)``; the opponents' turns are played inside the step by
*batched* players (``act_batch(observations, masks)``, one call per opponent and round).

Where the game comes from (no scoring or bank rule is written a second time here):

* **scoring** is read from the tables of :mod:`dice_env.fivethousand.rules`: the points and
  dice left of each action's set-aside (``ROLL_POINTS``, ``SETASIDE_POINTS`` and the dice left
  computed by ``dice_left_after``), a throw's roll index (``ROLL_INDEX_BY_SLOT_CODE``) and
  whether it busts (``ROLL_POINTS == 0``);
* **bank legality and bank resolution** (entry, no 50s, bumps, gifts, the win) are the rules'
  own functions ``legal_action_mask``, ``bank_allowed`` and ``resolve_bank``, called on the
  rows that need them;
* the **turn bookkeeping** of :mod:`~dice_env.fivethousand.game` (set the dice aside, throw,
  pass the dice on after a bank or a bust) and the observation layout of
  :mod:`~dice_env.fivethousand.observation` run in small numba kernels
  (:mod:`~dice_env.fivethousand.vector.kernels`) over index arrays of the rows that move,
  because an opponent's turn is a dozen small rounds per step and numpy's per-call cost would
  dominate them.  That bookkeeping is the one part written more than once
  (here, in ``game.py``, and for one game in ``single.py``); the tests hold them to the same
  game, die for die.

Random draws are numpy's and are the same calls as :func:`~dice_env.fivethousand.rules.throw_dice`
(``integers(1, 7, size=(k, 5), dtype=int8)`` for the ``k`` games that throw), the agent's seat
and the opponents' seeds are drawn as the single envs draw them, in the same order: a batch of
one with the same seed replays the single env die for die (``tests/test_fivethousand_vector.py``
checks it, and compares the outcome distributions of large batches).

The modules: :mod:`.base` (:class:`FiveThousandVectorBase`, which steps a batch through whole
opponent turns), :mod:`.envs` (the two envs, which only differ in seats, rewards and ends) and
:mod:`.kernels` (the tables and numba kernels).
"""

from dice_env.fivethousand.vector.base import AUTORESET_MODES, FiveThousandVectorBase
from dice_env.fivethousand.vector.envs import FiveThousandSoloVectorEnv, FiveThousandVectorEnv

__all__ = ["AUTORESET_MODES", "FiveThousandSoloVectorEnv", "FiveThousandVectorBase",
           "FiveThousandVectorEnv"]
