"""Batched play of the scorecard games over the pure game core, for evaluation.

:func:`run_scorecard_games` plays many games side by side with
:mod:`dice_env.scorecard.game` (no Gymnasium env in the loop), asking the player for all the
games' actions at once when it has ``act_batch``.  Every decision can be watched through a
callback (the exact-regret evaluation of :mod:`agents.evaluation.scorecard_regret` does), and
the result holds each game's final card statistics.  :func:`play_scorecard_games` is the
short form that returns the final totals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dice_env.dice import DiceStream
from dice_env.scorecard import game as G
from dice_env.scorecard.observation import encode_observation
from dice_env.scorecard.rules import Rules, coerce_rules

__all__ = ["ScorecardGames", "actions_of", "play_scorecard_games",
           "run_scorecard_games", "scorecard_observations"]

#: ``on_decision(first_game, rows, state, masks, actions)``: called before each step with the
#: index of the batch's first game, the rows (within the batch) that decide, their states (a
#: copy, ``state.take(rows)``), their masks and the actions the player chose.
DecisionCallback = Callable[[int, np.ndarray, G.ScorecardState, np.ndarray, np.ndarray], None]


def scorecard_observations(rules: Rules, state: G.ScorecardState,
                           box_points: np.ndarray | None = None) -> np.ndarray:
    """``(N, obs_dim)`` observations of every game, exactly as the scorecard env encodes them."""
    if box_points is None:
        box_points = G.box_options(rules, state)[1]
    return encode_observation(rules, state.dice, state.roll, state.rolls_left,
                              state.open_boxes(), box_points, state.upper_total,
                              state.five_state(rules))


@dataclass
class ScorecardGames:
    """Final statistics of games played by :func:`run_scorecard_games` (``(n_games,)`` each).

    Attributes:
        total: final score (boxes, upper bonus and five-of-a-kind bonuses).
        upper_bonus: bool, the upper bonus was earned.
        five_kind: bool, the five-of-a-kind box holds a positive score.
        five_bonus: five-of-a-kind bonus points (extra Pentas / Yahtzees).
    """

    total: np.ndarray
    upper_bonus: np.ndarray
    five_kind: np.ndarray
    five_bonus: np.ndarray

    @classmethod
    def empty(cls, n: int) -> ScorecardGames:
        return cls(total=np.empty(n, dtype=np.int64), upper_bonus=np.empty(n, dtype=bool),
                   five_kind=np.empty(n, dtype=bool), five_bonus=np.empty(n, dtype=np.int64))

    def record(self, rules: Rules, sl: slice, state: G.ScorecardState) -> None:
        self.total[sl] = state.total(rules)
        self.upper_bonus[sl] = state.upper_total >= rules.upper_bonus_threshold
        self.five_kind[sl] = state.scores[:, rules.five_kind_box] > 0
        self.five_bonus[sl] = state.five_bonus


def actions_of(agent: Any, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The player's actions for a batch of decisions, checked for shape and legality."""
    act_batch = getattr(agent, "act_batch", None)
    if act_batch is not None:
        chosen = np.asarray(act_batch(obs, masks), dtype=np.int64)
    else:
        act = agent.act if hasattr(agent, "act") else agent
        chosen = np.array([act(o, m.astype(np.int8)) for o, m in zip(obs, masks, strict=True)],
                          dtype=np.int64)
    if chosen.shape != (len(obs),):
        raise ValueError(f"the agent returned {chosen.shape} actions for {len(obs)} games")
    ok = (chosen >= 0) & (chosen < masks.shape[1])
    ok[ok] = masks[np.flatnonzero(ok), chosen[ok]]
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"the agent chose the illegal action {int(chosen[bad])}; legal "
                         f"actions were {np.flatnonzero(masks[bad]).tolist()}")
    return chosen


def run_scorecard_games(agent: Any, game: str | Rules, n_games: int, seed: int | None = 0,
                        batch_size: int = 10_000, canonical_holds: bool = True,
                        on_decision: DecisionCallback | None = None,
                        progress: Any = None,
                        game_seeds: Sequence[int] | np.ndarray | None = None) -> ScorecardGames:
    """Play ``n_games`` complete games with ``agent``; their final statistics.

    Games are played ``batch_size`` at a time with the batched game core.  The dice are common
    random numbers (:class:`~dice_env.dice.DiceStream`): game ``i`` draws from its own stream
    seeded by ``(seed, i)``, so every agent evaluated with the same seed meets the same dice in
    game ``i`` as long as it takes the same decisions.  The agent sees the same observations
    and masks as in the scorecard env (``act_batch(observations, masks)`` when it has it, else
    ``act(observation, mask)`` game by game; a plain function ``(observation, mask) ->
    action`` works too).  An illegal action raises ``ValueError``.

    Args:
        agent: any :class:`agents.Agent` for this game.
        game: a preset name, a Gymnasium id (``"dice_env/Penta-v0"``) or a :class:`Rules`.
        n_games: how many games.
        seed: seed of the dice.
        batch_size: games played side by side.
        canonical_holds: the env's hold encoding (one legal hold per distinct keep).
        on_decision: called at every step with the decisions about to be played (see
            :data:`DecisionCallback`).
        progress: a tqdm-like bar, advanced by the games finished.
        game_seeds: one seed per game instead of ``seed``: game ``i`` is then the first game
            of the evaluation seeded ``game_seeds[i]`` (it draws from the stream
            ``(game_seeds[i], 0)``), so any set of single-seed games plays side by side.
            ``n_games`` must be its length.
    """
    rules = coerce_rules(game)
    if n_games < 0:
        raise ValueError(f"n_games must be >= 0, got {n_games}")
    if game_seeds is not None:
        game_seeds = np.asarray(game_seeds, dtype=np.int64).ravel()
        if len(game_seeds) != n_games:
            raise ValueError(f"{len(game_seeds)} game seeds for {n_games} games")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    seed = 0 if seed is None else int(seed)
    out = ScorecardGames.empty(n_games)
    for start in range(0, n_games, batch_size):
        n = min(batch_size, n_games - start)
        if game_seeds is None:
            rng = DiceStream(seed, np.arange(start, start + n))
        else:
            rng = DiceStream(game_seeds[start:start + n], np.zeros(n, dtype=np.int64))
        state = G.ScorecardState.empty(rules, n)
        G.start_games(rules, state, np.ones(n, dtype=bool), rng)
        while True:
            active = ~state.finished()
            if not active.any():
                break
            outcomes = G.box_options(rules, state)
            legal, points, _ = outcomes
            masks = G.action_mask(rules, state, canonical_holds, legal)
            rows = np.flatnonzero(active)
            obs = scorecard_observations(rules, state, points)[rows]
            chosen = actions_of(agent, obs, masks[rows])
            if on_decision is not None:
                on_decision(start, rows, state.take(rows), masks[rows], chosen)
            actions = np.zeros(n, dtype=np.int64)
            actions[rows] = chosen
            G.apply_actions(rules, state, actions, rng, active=active, options=outcomes)
        out.record(rules, slice(start, start + n), state)
        if progress is not None:
            progress.update(n)
    return out


def play_scorecard_games(agent: Any, game: str | Rules, n_games: int, seed: int | None = 0,
                         batch_size: int = 10_000, canonical_holds: bool = True) -> np.ndarray:
    """Play ``n_games`` complete games with ``agent`` and return their final totals.

    The same games as :func:`run_scorecard_games` (common random numbers: game ``i`` draws its
    dice from the stream ``(seed, i)``, so differences between agents are paired).

    Returns:
        ``(n_games,)`` int64 final totals (boxes, upper bonus and five-of-a-kind bonuses).
    """
    return run_scorecard_games(agent, game, n_games, seed, batch_size, canonical_holds).total
