"""The two sets of evaluation games of a model of record: one chooses it, the other reports it.

A trained model is committed as the **median** of several training seeds, and the seed is
chosen by measuring each one's exact gap on the **selection games**; every figure published
for the committed model comes from the **report games**, a disjoint set, so that no published
number is measured on the games that chose what to publish (the winner's curse of picking a
seed on noisy measurements stays out of the report).

Scorecard games draw game ``i`` of evaluation seed ``s`` from its own dice stream
``(s, i)`` (:class:`dice_env.dice.DiceStream`): the selection games are the streams
``(SELECTION_SEED, 0 .. n-1)``, the report games ``(REPORT_SEED, 0 .. m-1)``, and no stream is
in both.  5000 matches draw every game from one generator seeded by the evaluation seed, so
the two sets are independent streams.  ``REPORT_SEED`` is far from the small seeds other
evaluations use (0, 1, 2, ...), so no table seeded by hand falls on it by chance.
"""

from __future__ import annotations

__all__ = ["REPORT_SEED", "SELECTION_SEED", "game_streams"]

#: the evaluation seed of the games that choose the committed (median) seed
SELECTION_SEED = 0
#: the evaluation seed of the games every published figure of a committed model comes from
REPORT_SEED = 1_000_003


def game_streams(seed: int, games: int) -> set[tuple[int, int]]:
    """The dice streams ``(seed, game)`` that ``games`` scorecard games of evaluation ``seed``
    draw from (game ``i`` of an evaluation is the stream ``(seed, i)``)."""
    return {(int(seed), i) for i in range(games)}
