"""5000 (docs/rules.md, section 2): rules tables, the batched game core, envs and bots.

* :mod:`~dice_env.fivethousand.rules` -- :class:`FiveThousandRules` (the knobs ``target``,
  ``entry``, ``choose_scoring_dice``), the roll-score and set-aside tables, bank legality and
  resolution (bumps, gifts), the outcome distributions a solver needs;
* :mod:`~dice_env.fivethousand.game` -- ``N`` games in numpy arrays and their transitions;
* :mod:`~dice_env.fivethousand.observation`, :mod:`~dice_env.fivethousand.state`,
  :mod:`~dice_env.fivethousand.render` -- the observation vector, the JSON state dict, text;
* :mod:`~dice_env.fivethousand.env` (``dice_env/FiveThousand-v0``),
  :mod:`~dice_env.fivethousand.solo` (``dice_env/FiveThousandSolo-v0``),
  :mod:`~dice_env.fivethousand.aec` (PettingZoo, via :mod:`dice_env.multi.five_thousand_v0`);
  :mod:`~dice_env.fivethousand.vector` -- their natively batched versions;
* :mod:`~dice_env.fivethousand.bots` -- the default :class:`~.bots.ThresholdBot` opponent
  and a :class:`~.bots.RandomBot`.
"""

from dice_env.fivethousand.rules import FiveThousandRules

__all__ = ["FiveThousandRules"]
