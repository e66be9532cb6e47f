"""Built-in 5000 players: the default opponent of the envs, and a random player.

Both follow the project's agent protocol: ``act(observation, action_mask) -> int``,
``act_batch(observations, masks) -> np.ndarray`` and ``seed(seed)``.  They read only the
observation of their own seat (see :mod:`dice_env.fivethousand.observation`) and the mask, so
they play the single-agent envs (as opponents), the AEC env and the batched env alike.
An opponent given to an env may also be any plain callable ``f(observation, action_mask)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dice_env.dice import KEEP_INDEX_BY_COUNTS_CODE
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import decode_observation, num_players_of
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules
from dice_env.random_player import RandomPlayer


def break_even_turn_total(n_dice: int) -> float:
    """The turn total above which one more throw of ``n_dice`` loses points on average.

    ``E[points] / P(bust)``: rolling risks the turn total with probability ``P(bust)`` for an
    expected gain of ``E[points]`` (a one-step look-ahead; 37.5, 112.5, 314, 922 and 3537
    for 1 to 5 dice).
    """
    od = R.outcome_distribution(n_dice)
    return float((od.points * od.prob).sum() / od.bust_prob)


class ThresholdBot:
    """Bank once the turn total reaches a threshold that grows with the dice left.

    With ``d`` dice to roll on, the bot banks when the turn total is at least
    ``max(threshold, break_even_turn_total(d))`` rounded up to 50 (by default 300, 300, 350,
    950 and 3550 for 1 to 5 dice), and when the bank is allowed (the mask: entry, no 50s).
    It always banks a total that reaches the target exactly, and never banks an overshoot
    (that would gift the points to an opponent; rolling on can only bust, which gifts nothing).
    With ``choose_scoring_dice`` it banks the largest allowed set-aside under those rules (so
    it drops a 5 to bank a round total) and otherwise rolls on with every scoring die set aside.

    Args:
        rules: the rules of the game (for the target and the set-aside tables): a
            ``FiveThousandRules``, a dict of knobs, or ``None`` / a game name for the defaults.
        threshold: the smallest total the bot banks (300).
        thresholds: optional explicit thresholds for 1 to 5 dice left (overrides the above).
        seed: accepted for the common interface; the bot is deterministic.
    """

    def __init__(self, rules: FiveThousandRules | dict | str | None = None, threshold: int = 300,
                 thresholds: Sequence[int] | None = None, seed: int | None = None) -> None:
        self.rules = coerce_rules(rules)
        if thresholds is None:
            thresholds = [max(threshold, int(np.ceil(break_even_turn_total(d) / 50.0)) * 50)
                          for d in range(1, R.N_DICE + 1)]
        if len(thresholds) != R.N_DICE:
            raise ValueError(f"thresholds needs one value per dice left (1..5), got "
                             f"{list(thresholds)}")
        self.thresholds = np.array([0, *thresholds], dtype=np.int64)  # index = dice left

    def seed(self, seed: int | None = None) -> None:
        """Deterministic: nothing to seed."""

    def __repr__(self) -> str:
        return f"ThresholdBot(thresholds={self.thresholds[1:].tolist()})"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The bot's action for one observation and mask: :meth:`act_batch`'s choice, worked
        out for one game in plain Python (the single envs ask for it at every opponent
        decision)."""
        o = np.asarray(observation).tolist()
        mask = np.asarray(action_mask).tolist()
        target = self.rules.target

        def points(x: float) -> int:  # decode_observation's points, for one entry
            return round(x * target / 50.0) * 50

        b = 3 * num_players_of(len(o))
        need = target - points(o[0])
        limit = int(self.thresholds[min(max(round(o[b + 10] * 5), 0), R.N_DICE)])
        if not self.rules.choose_scoring_dice:
            total = points(o[b + 2])
            bank = mask[R.BANK] and total <= need and (total == need or total >= limit)
            action = R.BANK if bank else R.ROLL
        else:
            code = sum(round(o[b + 4 + f] * 5) * 6**f for f in range(6))
            roll = int(KEEP_INDEX_BY_COUNTS_CODE[code])
            before = points(o[b])
            win = good = best = -1  # the first exact win; the first largest good bank
            for m, pts in enumerate(R.SETASIDE_POINTS[roll].tolist()):
                total = before + pts
                if not mask[2 * m + R.BANK] or total > need:
                    continue
                if total == need and win < 0:
                    win = m
                if total >= limit and total > best:
                    good, best = m, total
            if win >= 0:
                action = 2 * win + R.BANK
            elif good >= 0:
                action = 2 * good + R.BANK
            else:
                action = 2 * int(R.ROLL_SCORING_MASK[roll]) + R.ROLL
        if mask[action]:
            return action
        return next((a for a, ok in enumerate(mask) if ok), 0)  # act_batch's argmax

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` ``(N, obs_dim)`` and ``masks``."""
        masks = np.asarray(masks).astype(bool)
        d = decode_observation(self.rules, observations)
        n = len(masks)
        rows = np.arange(n)
        need = self.rules.target - d["scores"][:, 0]
        limit = self.thresholds[np.clip(d["dice_left"], 0, R.N_DICE)]
        if not self.rules.choose_scoring_dice:
            total = d["turn_total"]
            bank = masks[:, R.BANK] & (total <= need) & ((total == need) | (total >= limit))
            actions = np.where(bank, R.BANK, R.ROLL)
        else:
            pts = R.SETASIDE_POINTS[d["roll"]].astype(np.int64)
            totals = d["turn_before"][:, None] + pts
            ok = masks[:, R.BANK::2] & (totals <= need[:, None])
            win = ok & (totals == need[:, None])
            good = ok & (totals >= limit[:, None])
            best_good = np.argmax(np.where(good, totals, -1), axis=1)
            actions = np.where(
                win.any(axis=1), 2 * np.argmax(win, axis=1) + R.BANK,
                np.where(good.any(axis=1), 2 * best_good + R.BANK,
                         2 * R.ROLL_SCORING_MASK[d["roll"]].astype(np.int64) + R.ROLL))
        legal = masks[rows, actions]
        return np.where(legal, actions, np.argmax(masks, axis=1)).astype(np.int64)


class RandomBot(RandomPlayer):
    """Uniformly random legal actions, from its own seedable generator."""

    def __init__(self, rules: FiveThousandRules | dict | str | None = None,
                 seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self.rules = coerce_rules(rules)


