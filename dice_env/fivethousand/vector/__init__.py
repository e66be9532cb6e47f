"""Natively batched Gymnasium ``VectorEnv`` versions of the two 5000 envs.

:class:`FiveThousandVectorEnv` (``dice_env/FiveThousand-v0``: one agent against bot opponents)
and :class:`FiveThousandSoloVectorEnv` (``dice_env/FiveThousandSolo-v0``) hold ``N`` games in
the numpy arrays of one :class:`~dice_env.fivethousand.game.FiveThousandState` and advance all
of them with one ``step(actions)``; the opponents' turns are played inside the step by
*batched* players (``act_batch(observations, masks)``, one call per opponent and round).

Where the game comes from (no rule is written a second time here): the **turn** -- set the
dice aside, bank (bumps, gifts, the win) or roll on, throw, pass the dice on after a bank or a
bust -- and the legal-action masks are the kernels of :mod:`dice_env.fivethousand.rules.turn`
(``decide_rows``, ``land_rows``, ``mask_rows``), the batched core's own, run over index arrays
of the rows that move because an opponent's turn is a dozen small rounds per step and numpy's
per-call cost would dominate them.  The observation layout of
:mod:`~dice_env.fivethousand.observation` and the envs' plumbing (new games, records, the rows
to play) are small numba kernels of :mod:`.kernels`.

Random draws are numpy's, the generator call of every throw
(:func:`~dice_env.fivethousand.rules.throw_faces` for the ``k`` games that throw); the agent's
seat and the opponents' seeds are drawn as the single envs draw them, in the same order: a batch
of one with the same seed replays the single env die for die
(``tests/test_fivethousand_vector.py`` checks it, and compares the outcome distributions of
large batches).

The modules: :mod:`.base` (:class:`FiveThousandVectorBase`, which steps a batch through whole
opponent turns), :mod:`.envs` (the two envs, which only differ in seats, rewards and ends) and
:mod:`.kernels` (the envs' numba kernels).
"""

from dice_env.fivethousand.vector.base import AUTORESET_MODES, FiveThousandVectorBase
from dice_env.fivethousand.vector.envs import FiveThousandSoloVectorEnv, FiveThousandVectorEnv

__all__ = ["AUTORESET_MODES", "FiveThousandSoloVectorEnv", "FiveThousandVectorBase",
           "FiveThousandVectorEnv"]
