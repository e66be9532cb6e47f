"""Batched evaluation of players on the scorecard games, over the pure game core.

:func:`play_scorecard_games` plays many games side by side with
:mod:`dice_env.scorecard.game` (no Gymnasium env in the loop), asking the player for all the
games' actions at once when it has ``act_batch``, and returns the final totals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dice_env.dice import DiceStream
from dice_env.scorecard import game as G
from dice_env.scorecard.observation import encode_observation
from dice_env.scorecard.rules import Rules, get_rules

__all__ = ["play_scorecard_games", "scorecard_observations"]


def _rules_of(game: str | Rules) -> Rules:
    if isinstance(game, str):
        from dice_env import SCORECARD_IDS

        game = SCORECARD_IDS.get(game, game)
    return get_rules(game)


def scorecard_observations(rules: Rules, state: G.ScorecardState,
                           box_points: np.ndarray | None = None) -> np.ndarray:
    """``(N, obs_dim)`` observations of every game, exactly as the scorecard env encodes them."""
    if box_points is None:
        box_points = G.box_options(rules, state)[1]
    return encode_observation(rules, state.dice, state.roll, state.rolls_left,
                              state.open_boxes(), box_points, state.upper_total,
                              state.five_state(rules))


def play_scorecard_games(agent: Any, game: str | Rules, n_games: int, seed: int | None = 0,
                         batch_size: int = 10_000, canonical_holds: bool = True) -> np.ndarray:
    """Play ``n_games`` complete games with ``agent`` and return their final totals.

    Games are played ``batch_size`` at a time with the batched game core.  The dice are common
    random numbers (:class:`~dice_env.dice.DiceStream`): game ``i`` draws from its own stream
    seeded by ``(seed, i)``, so every agent evaluated with the same seed meets the same dice in
    game ``i`` and differences between agents are paired.  The agent sees the same
    observations and masks as in the scorecard env (``act_batch(observations, masks)`` when it
    has it, else ``act(observation, mask)`` game by game).  An illegal action raises
    ``ValueError``.

    Args:
        agent: any :class:`agents.Agent` for this game.
        game: a preset name, a Gymnasium id (``"dice_env/Penta-v0"``) or a :class:`Rules`.
        n_games: how many games.
        seed: seed of the dice.
        batch_size: games played side by side.
        canonical_holds: the env's hold encoding (one legal hold per distinct keep).

    Returns:
        ``(n_games,)`` int64 final totals (boxes, upper bonus and five-of-a-kind bonuses).
    """
    rules = _rules_of(game)
    if n_games < 0:
        raise ValueError(f"n_games must be >= 0, got {n_games}")
    seed = 0 if seed is None else int(seed)
    totals = np.empty(n_games, dtype=np.int64)
    act_batch = getattr(agent, "act_batch", None)
    for start in range(0, n_games, batch_size):
        n = min(batch_size, n_games - start)
        rng = DiceStream(seed, np.arange(start, start + n))
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
            m = masks[rows]
            if act_batch is not None:
                chosen = np.asarray(act_batch(obs, m), dtype=np.int64)
            else:
                chosen = np.array([agent.act(o, mm.astype(np.int8))
                                   for o, mm in zip(obs, m, strict=True)], dtype=np.int64)
            if chosen.shape != (len(rows),):
                raise ValueError(f"the agent returned {chosen.shape} actions for {len(rows)} "
                                 "games")
            ok = (chosen >= 0) & (chosen < m.shape[1])
            ok[ok] = m[np.flatnonzero(ok), chosen[ok]]
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                raise ValueError(f"the agent chose the illegal action {int(chosen[bad])}; legal "
                                 f"actions were {np.flatnonzero(m[bad]).tolist()}")
            actions = np.zeros(n, dtype=np.int64)
            actions[rows] = chosen
            G.apply_actions(rules, state, actions, rng, active=active, options=outcomes)
        totals[start:start + n] = state.total(rules)
    return totals
