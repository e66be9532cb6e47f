"""my_bot.py: a policy you write yourself, played and measured by dice-env.

A policy is a plain function ``policy(observation, action_mask) -> action`` (see
``agents.load``): ``observation`` is the env's flat vector, ``action_mask`` its int8 mask of
the legal actions. This one plays Penta, Dice Poker and the Yahtzee presets (not 5000): it
keeps the dice of its most common face and rerolls the others, then scores the box that pays
most now. Measure its exact gap to the optimum:

    dice-env evaluate --agent examples/my_bot.py:policy --regret --games 200
    python examples/my_bot.py --games 200          # the same, from Python
"""

from __future__ import annotations

import argparse

import numpy as np

from dice_env.scorecard.observation import observation_slices
from dice_env.scorecard.rules import PRESETS

#: actions below 32 reroll (bit i set: hold die i of the sorted dice); 32 + k scores box k
N_HOLDS = 32
#: which preset's observation layout to read, by number of boxes (the Yahtzee presets have
#: Penta's layout: 13 boxes, 3 rolls per turn)
RULES_BY_BOXES = {13: PRESETS["penta"], 15: PRESETS["dice-poker"]}


def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """Keep the most common face (the higher one on a tie) while rerolls are left, then score
    the legal box worth the most points now."""
    parts = observation_slices(RULES_BY_BOXES[len(action_mask) - N_HOLDS])
    dice = np.rint(observation[parts["dice"]] * 5 + 1).astype(int)  # sorted faces 1..6
    rolls_left = int(np.argmax(observation[parts["rolls_left"]]))
    if rolls_left > 0:
        counts = np.bincount(dice, minlength=7)
        face = max(range(1, 7), key=lambda f: (counts[f], f))
        hold = sum(1 << i for i, d in enumerate(dice) if d == face)
        if action_mask[hold]:  # holding all five dice is no reroll: not a legal action
            return hold
    points = observation[parts["box_points"]] * 50  # what each box would score now
    boxes = np.flatnonzero(action_mask[N_HOLDS:])
    return N_HOLDS + int(boxes[np.argmax(points[boxes])])


def main() -> None:
    """Measure :func:`policy`'s exact gap to the optimal player."""
    import agents
    from agents.evaluation import optimality_gap

    parser = argparse.ArgumentParser(description="measure my_bot.policy's exact gap")
    parser.add_argument("--game", default="penta", help="penta, dice-poker or a Yahtzee preset")
    parser.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    args = parser.parse_args()
    report = optimality_gap(agents.load(policy, args.game), args.game, games=args.games, seed=0)
    print(report.format_text())


if __name__ == "__main__":
    main()
