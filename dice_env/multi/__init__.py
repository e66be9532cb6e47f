"""Multi-agent (PettingZoo) environments of the package.

``from dice_env.multi import five_thousand_v0; env = five_thousand_v0.env()`` gives the AEC
environment of 5000 (:class:`dice_env.fivethousand.aec.FiveThousandAECEnv`);
``from dice_env.multi import scorecard_v0; env = scorecard_v0.env(game="penta",
num_players=3)`` the one of the scorecard games (:class:`dice_env.scorecard.aec.ScorecardAECEnv`);
``from dice_env.multi import pig_v0; env = pig_v0.env(num_players=3)`` Pig's
(:class:`dice_env.pig.aec.PigAECEnv`).
"""

from dice_env.multi import five_thousand_v0, pig_v0, scorecard_v0

__all__ = ["five_thousand_v0", "pig_v0", "scorecard_v0"]
