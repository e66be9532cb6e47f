"""The bot opponents of the single-agent match envs, and the loop that plays their turns.

Both :class:`~dice_env.scorecard.match.env.ScorecardMatchEnv` and its batched version play
the opponents through :func:`play_opponents` (the single env as a batch of one), so the two
ask the players the same questions in the same order and see the same dice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dice_env.errors import as_actions
from dice_env.random_player import RandomPlayer
from dice_env.scorecard.match.core import (
    MatchState,
    apply_match_actions,
    match_action_mask,
    mover_options,
)
from dice_env.scorecard.match.observation import card_observation, encode_match_observation
from dice_env.scorecard.rules import Rules

OPPONENT_VIEWS = ("card", "match")


class _Group:
    """One player object and the opponent indices it plays."""

    def __init__(self, player: Any, index: int) -> None:
        self.player = player
        self.indices = [index]
        act_batch = getattr(player, "act_batch", None)
        self.act_batch: Callable | None = act_batch if callable(act_batch) else None
        act = getattr(player, "act", None)
        self.act: Callable = act if callable(act) else player


class Opponents:
    """The ``n`` opponents of a match env; opponent ``k`` sits ``k + 1`` seats after the agent.

    ``opponents``: ``None`` (a :class:`~dice_env.random_player.RandomPlayer` each), one player
    for every opponent, or a sequence of ``n`` players.  A player is an object with
    ``act(observation, action_mask) -> int`` (and optionally ``act_batch(observations, masks)``
    and ``seed(int)``) -- every ``agents.make(name, game)`` player -- or a plain callable
    ``f(observation, action_mask) -> int``.  A player with ``act_batch`` is always asked
    through it (in the single env too, as a batch of one), one call per round for all the
    games where it is to move; the others are asked game by game.  Names are not players
    here: the match envs turn them into players first
    (:func:`dice_env.player_names.resolve_opponents`).
    """

    def __init__(self, opponents: Any, n: int) -> None:
        if opponents is None:
            opponents = [RandomPlayer() for _ in range(n)]
        elif isinstance(opponents, str):
            raise ValueError(f"opponents must be players, not a name ({opponents!r}); build one "
                             f"with agents.make({opponents!r}, game)")
        elif not isinstance(opponents, Sequence):
            opponents = [opponents] * n
        if len(opponents) != n:
            raise ValueError(f"opponents must be one player or a sequence of {n} players "
                             f"(num_players - 1), got {len(opponents)}")
        groups: dict[int, _Group] = {}
        for k, player in enumerate(opponents):
            if not callable(getattr(player, "act", None)) and not callable(player):
                raise TypeError(f"opponent {k} must have act(observation, action_mask) or be a "
                                f"callable f(observation, action_mask) -> int, got {player!r}")
            if id(player) in groups:
                groups[id(player)].indices.append(k)
            else:
                groups[id(player)] = _Group(player, k)
        self.players = list(opponents)
        self._groups = list(groups.values())

    def reseed(self, rng: np.random.Generator) -> None:
        """Reseed every player that has ``seed(int)`` from ``rng`` (one draw per player)."""
        seeds = rng.integers(0, 2**31 - 1, size=len(self.players))
        for player, s in zip(self.players, np.atleast_1d(seeds).tolist()):
            if callable(getattr(player, "seed", None)):
                player.seed(int(s))

    def actions(self, which: np.ndarray, obs: np.ndarray, masks: np.ndarray,
                where: Callable[[int], str]) -> np.ndarray:
        """The actions of opponents ``which[i]`` seeing ``obs[i]`` with the bool ``masks[i]``.

        An illegal action (or a value that is no action, see :mod:`dice_env.errors`) raises
        ``RuntimeError`` naming the opponent; ``where(i)`` says where it played.
        """
        out = np.empty(len(which), dtype=np.int64)
        masks8 = masks.view(np.int8)
        n_actions = masks.shape[1]
        for group in self._groups:
            if len(self._groups) == 1:
                sel = np.arange(len(which))
            else:
                sel = np.flatnonzero(np.isin(which, group.indices))
            if not sel.size:
                continue
            if group.act_batch is not None:
                chosen = group.act_batch(obs[sel], masks8[sel])
            else:
                chosen = [group.act(obs[i], masks8[i]) for i in sel]
            try:
                ints, valid, raw = as_actions(chosen, sel.size, n_actions)
            except ValueError:
                raise RuntimeError(f"opponent {int(which[sel[0]])} ({group.player!r}) returned "
                                   f"{chosen!r}, not one action per game ({sel.size})") from None
            bad = np.flatnonzero(~(valid & masks[sel, ints]))
            if bad.size:
                i = sel[bad[0]]
                got = chosen[bad[0]] if isinstance(chosen, list) else raw[bad[0]]
                raise RuntimeError(f"opponent {int(which[i])} ({group.player!r}, {where(i)}) "
                                   f"chose the illegal action {got!r}; legal: "
                                   f"{np.flatnonzero(masks[i]).tolist()}")
            out[sel] = ints
        return out


def play_opponents(rules: Rules, state: MatchState, agent_seat: np.ndarray, games: np.ndarray,
                   opponents: Opponents, rng, canonical_holds: bool = True,
                   view: str = "card") -> None:
    """Play the opponents in the matches ``games`` (bool) until each waits for its agent (at
    ``agent_seat``) or is over.

    ``view``: ``"card"`` -- each opponent sees the single-player observation of its own card
    (what the ``agents`` players of ``dice_env/Penta-v0`` read); ``"match"`` -- the match
    observation of its seat (:mod:`dice_env.scorecard.match.observation`).
    """
    p = state.num_players
    while True:
        waiting = games & ~state.finished() & (state.current != agent_seat)
        if not waiting.any():
            return
        g = np.flatnonzero(waiting)
        seats = state.current[g]
        legal, points, _ = mover_options(rules, state, g)
        masks = match_action_mask(rules, state, canonical_holds, g, box_legal=legal)
        encode = card_observation if view == "card" else encode_match_observation
        obs = encode(rules, state, seats, g, points)
        which = (seats - agent_seat[g]) % p - 1

        def where(i: int, seats: np.ndarray = seats, g: np.ndarray = g) -> str:
            return f"seat {int(seats[i])} of sub-env {int(g[i])}"

        actions = np.zeros(state.n, dtype=np.int64)
        actions[g] = opponents.actions(which, obs, masks, where)
        apply_match_actions(rules, state, actions, rng, waiting)
