"""Built-in Pig players: the "hold at 20" bot, the envs' default opponent.

It follows the project's agent protocol: ``act(observation, action_mask) -> int``,
``act_batch(observations, masks) -> np.ndarray`` and ``seed(seed)``, reading only the
observation of its own seat (:mod:`dice_env.pig.observation`) and the mask, so it plays the
single env (as an opponent), the vector env and the AEC env alike.  An opponent given to an env
may also be any plain callable ``f(observation, action_mask)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dice_env.pig import rules as R
from dice_env.pig.observation import num_players_of
from dice_env.pig.rules import PigRules, coerce_rules

__all__ = ["DEFAULT_THRESHOLD", "HoldAtBot"]

#: the classic benchmark: hold once the turn total reaches 20
DEFAULT_THRESHOLD = 20


class HoldAtBot:
    """Roll until the turn total reaches ``threshold`` (or the hold wins), then hold.

    The classic "hold at 20" strategy of Neller & Presser, which maximises the expected points of
    a turn (a roll gains 4 on average with six sides and risks the turn total with probability
    1/6: break-even at 20).  It never holds a turn total of 0.

    Args:
        rules: the rules (for ``win_score``, which scales the observation): a ``PigRules``, a
            dict of knobs, ``"pig"`` / ``None`` for the defaults, or a resolved game.
        threshold: the turn total at which it holds (a positive integer, default 20).
        seed: accepted for the common interface; the bot is deterministic.
    """

    def __init__(self, rules: Any = None, threshold: int = DEFAULT_THRESHOLD,
                 seed: int | None = None) -> None:
        self.rules: PigRules = coerce_rules(rules)
        if (isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, np.integer))
                or threshold < 1):
            raise ValueError(f"threshold must be a positive integer, got {threshold!r}")
        self.threshold = int(threshold)

    def seed(self, seed: int | None = None) -> None:
        """Deterministic: nothing to seed."""

    def __repr__(self) -> str:
        return f"HoldAtBot(threshold={self.threshold})"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Hold when the turn total reaches the threshold or the win, else roll (whatever the
        mask allows, when it allows one of them only)."""
        o = np.asarray(observation).tolist()
        mask = np.asarray(action_mask).tolist()
        p = num_players_of(len(o))
        w = self.rules.win_score
        turn = round(o[p] * w)
        hold = turn >= self.threshold or round(o[0] * w) + turn >= w
        action = R.HOLD if hold else R.ROLL
        if mask[action]:
            return action
        return R.ROLL if mask[R.ROLL] else R.HOLD

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` ``(N, 2P + 2)`` and ``masks`` ``(N, 2)``."""
        obs = np.asarray(observations, dtype=np.float64)
        masks = np.asarray(masks).astype(bool)
        p = num_players_of(obs.shape[1])
        w = self.rules.win_score
        turn = np.rint(obs[:, p] * w)
        hold = (turn >= self.threshold) | (np.rint(obs[:, 0] * w) + turn >= w)
        actions = np.where(hold, R.HOLD, R.ROLL)
        legal = masks[np.arange(len(actions)), actions]
        other = np.where(masks[:, R.ROLL], R.ROLL, R.HOLD)
        return np.where(legal, actions, other).astype(np.int64)


