"""5000 players for the factory: the threshold family and the tuned ``heuristic``.

``agents.make("threshold", "fivethousand", threshold=400)`` builds a
:class:`~dice_env.fivethousand.bots.ThresholdBot` (bank once the turn total reaches a threshold
that grows with the dice left, never banking an overshoot, always banking an exact win);
``"heuristic"`` is the best member of that family found by ``dice-env report thresholds``
(its table: ``results/threshold_sweep.md``).  Both are batched (``act_batch``) and deterministic.
The ``random`` player of every game is :class:`dice_env.random_player.RandomPlayer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dice_env.fivethousand.bots import ThresholdBot

__all__ = ["HEURISTIC_THRESHOLDS", "HeuristicAgent", "ThresholdAgent"]

#: Bank thresholds for 1..5 dice left of the ``heuristic`` bot: the winner of
#: ``dice-env report thresholds`` (see ``results/threshold_sweep.md``).
HEURISTIC_THRESHOLDS: tuple[int, ...] = (100, 100, 150, 500, 1500)


class ThresholdAgent(ThresholdBot):
    """A threshold bot (see :class:`~dice_env.fivethousand.bots.ThresholdBot`).

    Args:
        game: the rules: ``"fivethousand"`` / an env id for the defaults, a
            ``FiveThousandRules`` or a dict of knobs.
        threshold: the smallest turn total banked (300); with fewer dice left the one-step
            break-even total is used when it is larger.
        thresholds: explicit thresholds for 1..5 dice left (overrides ``threshold``).
        seed: accepted for the common interface (the bot is deterministic).
    """

    def __init__(self, game: Any = None, threshold: int = 300,
                 thresholds: Sequence[int] | None = None, seed: int | None = None) -> None:
        super().__init__(game, threshold=threshold, thresholds=thresholds, seed=seed)


class HeuristicAgent(ThresholdBot):
    """The strongest threshold bot of the sweep: thresholds :data:`HEURISTIC_THRESHOLDS`."""

    def __init__(self, game: Any = None, seed: int | None = None) -> None:
        super().__init__(game, thresholds=HEURISTIC_THRESHOLDS, seed=seed)
