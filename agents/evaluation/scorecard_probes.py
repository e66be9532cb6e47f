"""Probes of a scorecard policy: how it acts in positions built to ask one question.

The regret (:mod:`.scorecard_regret`) says what a policy loses on the positions its own games
reach; a rare position costs little per game even when the policy always gets it wrong.  A probe
builds many such positions directly and counts the policy's choices there.

:func:`bonus_giveaway` asks the question the scaling study's costliest mistakes raised
(``results/scaling.md``): with five of a kind in hand, the five-of-a-kind box holding 50 (so
scoring now earns the bonus, 100 points in Penta and Yahtzee) and a reroll left, does the policy
score, or reroll and give the sure bonus up?  No hold keeps all five dice, so a reroll always
risks the five of a kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_env import dice as D
from dice_env.scorecard.observation import encode_observation
from dice_env.scorecard.rules import FIVE_FIFTY, UPPER_KINDS, Rules, box_outcomes, get_rules

__all__ = ["PROBE_STATES", "BonusProbe", "bonus_giveaway", "bonus_states"]

#: positions a probe builds by default
PROBE_STATES = 4000


@dataclass(frozen=True)
class BonusProbe:
    """:func:`bonus_giveaway`'s answer: of ``states`` positions, the share ``rate`` in which
    the policy rerolled (and gave up the bonus of ``bonus`` points) instead of scoring."""

    states: int
    rerolls: int
    bonus: int

    @property
    def rate(self) -> float:
        return self.rerolls / self.states

    def format_text(self) -> str:
        """One line for a report."""
        return (f"  bonus probe: with five of a kind, the bonus live ({self.bonus} points for "
                f"scoring now) and a reroll left, it rerolls in {self.rate:.1%} of "
                f"{self.states:,} positions (the optimal player: never)")


def bonus_states(rules: Rules, n: int = PROBE_STATES,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positions a game can reach in which scoring now earns the five-of-a-kind bonus
    and a reroll is left: the dice five of a kind, the five-of-a-kind box holding 50, one or
    more other boxes open (each box open with a chance drawn per position), every filled upper
    box holding a score a game can give it (``k`` times its face, ``k`` from 0 to 5) and the
    upper total their sum.  Returns their basic observations and action masks."""
    rng = np.random.default_rng(seed)
    b, five_box = rules.n_boxes, rules.five_kind_box
    roll = np.flatnonzero(rules.tables.is_five_kind)[rng.integers(0, D.N_FACES, n)]
    open_boxes = rng.random((n, b)) < rng.uniform(0.1, 0.9, (n, 1))
    others = np.array([k for k in range(b) if k != five_box])
    open_boxes[np.arange(n), others[rng.integers(0, len(others), n)]] = True
    open_boxes[:, five_box] = False
    upper = np.zeros(n, dtype=np.int64)
    for k, kind in enumerate(UPPER_KINDS):
        if kind in rules.boxes:
            box = rules.boxes.index(kind)
            upper += np.where(open_boxes[:, box], 0, (k + 1) * rng.integers(0, D.N_DICE + 1, n))
    five_state = np.full(n, FIVE_FIFTY)
    rolls_left = rng.integers(1, rules.rolls_per_turn, n)
    legal, points, _ = box_outcomes(rules, roll, open_boxes, five_state)
    obs = encode_observation(rules, D.ROLLS[roll], roll, rolls_left, open_boxes, points, upper,
                             five_state)
    mask = np.zeros((n, D.N_HOLDS + b), dtype=bool)
    mask[:, :D.N_HOLDS] = D.CANONICAL_REROLL[roll]
    mask[:, D.N_HOLDS:] = legal
    return obs, mask


def bonus_giveaway(agent: Any, game: Any, states: int = PROBE_STATES,
                   seed: int = 0) -> BonusProbe | None:
    """How often ``agent`` (``act_batch(observations, masks)``) rerolls in :func:`bonus_states`
    instead of scoring the bonus it has in hand.  ``game``: a scorecard preset's name, its
    ``Rules``, or a resolved game (:func:`agents.games.resolve`); None for a game that is no
    scorecard game or whose rules pay no such bonus."""
    if isinstance(game, str):
        try:
            game = get_rules(game)
        except (KeyError, ValueError):
            return None
    rules = game if isinstance(game, Rules) else getattr(game, "rules", None)
    if not isinstance(rules, Rules) or rules.five_kind_bonus <= 0:
        return None
    obs, mask = bonus_states(rules, states, seed)
    actions = np.asarray(agent.act_batch(obs, mask))
    return BonusProbe(states=states, rerolls=int((actions < D.N_HOLDS).sum()),
                      bonus=int(rules.five_kind_bonus))
