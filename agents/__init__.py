"""Players for the dice games: optimal (DP) players, their solvers, and the other bots.

Every player implements the :class:`Agent` protocol -- ``act(observation, action_mask) -> int``,
``seed(seed)``, and optionally the vectorised ``act_batch(observations, masks)`` -- so the same
object plays the single env, each sub-env of a vector env, and sits as an opponent inside the
5000 envs.  Players are built by :func:`make`::

    import agents
    bot = agents.make("heuristic", "penta")
    action = bot.act(obs, info["action_mask"])

:func:`make` resolves the game (a scorecard preset name such as ``"penta"``, a Gymnasium id such
as ``"dice_env/Penta-v0"``, a :class:`~dice_env.scorecard.rules.Rules`, or ``"fivethousand"``)
to a game family, looks the player name up in a small registry of ``"module:Class"`` entries
imported lazily (so heavy players -- the DP ``optimal`` agent, ``ppo`` -- cost nothing until
asked for), and calls ``Class(game, **options)``.  :func:`register` adds entries.

:func:`load` builds a player from whatever a user has, without registering it: a registered
name, a stable-baselines3 model ``.zip`` (MaskablePPO, PPO, A2C, DQN; checked against the game),
``"module:attr"`` / ``"path/to/my_bot.py:MyBot"`` naming an agent class, object, factory or
policy function ``(observation, action_mask) -> action``, or such an object itself (see
:mod:`agents.policies`)::

    bot = agents.load("models/my_dqn.zip", "penta")
    bot = agents.load("my_bots.py:policy", "dice-poker")
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agents.games import resolve
from agents.registry import available, make, register

__all__ = ["Agent", "available", "load", "make", "register"]


@runtime_checkable
class Agent(Protocol):
    """What every player implements.

    ``act`` takes one observation (as the env returns it) and the action mask (bool or int8,
    ``True``/1 for a legal action) and returns a legal action index.  ``seed`` makes any random
    choices of the player reproducible (deterministic players accept and ignore it).
    Players that can decide for many games at once also provide
    ``act_batch(observations, masks) -> np.ndarray`` over a leading batch axis.
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def seed(self, seed: int | None = None) -> None: ...


def load(spec: Any, game: Any = "penta", **options: Any) -> Agent:
    """Build a player for ``game`` from ``spec``, without registering it.

    Args:
        spec: one of

            * a registered player name (``"heuristic"``, ``"ppo"``, ... see :func:`available`)
              -- built with :func:`make`;
            * the path of a stable-baselines3 / sb3-contrib model zip (MaskablePPO, PPO, A2C,
              DQN; the algorithm is detected, or given as a prefix: ``"dqn:my_dqn.zip"``) --
              an :class:`~agents.policies.sb3_models.SB3Agent`, refused if its spaces do not
              fit the game's env;
            * the folder of a ``dice-env train`` run: the policy of its latest checkpoint;
            * ``"module:attr"`` or ``"path/to/file.py:attr"`` naming an agent class (called as
              ``cls(game, **options)`` if it takes a positional argument, else
              ``cls(**options)``), an agent object (anything with ``act`` or ``act_batch``), a
              factory (0 or 1 required positional parameter, called with the game if it takes
              one) returning an agent or a policy function, or a policy function
              ``(observation, action_mask) -> action`` (wrapped in a
              :class:`~agents.policies.user_code.FunctionAgent`);
            * such an object itself.
        game: a scorecard preset name, a Gymnasium id, a ``Rules`` or ``"fivethousand"``.
        **options: passed to :func:`make`, the model loader, the class or the factory; an
            already built agent or a policy function only takes ``seed``.

    Returns:
        The player.  One with only ``act_batch`` gets an ``act`` too.

    Raises:
        ValueError: empty spec, unknown name, a file that is not a stable-baselines3 model, an
            unknown algorithm prefix, a model for another game, an attribute that is not an
            agent, unknown options, unknown game.
        FileNotFoundError: a model or ``.py`` file that does not exist.
        ImportError: a module that cannot be imported, or a missing attribute.

    Nothing heavy (torch, stable-baselines3) is imported until a model is loaded.
    """
    resolved = resolve(game)  # ValueError for an unknown game, up front
    names = available(resolved)
    if isinstance(spec, str) and spec.strip() in names:
        return make(spec.strip(), resolved, **options)
    if isinstance(spec, (str, os.PathLike)) and os.path.isdir(spec):
        # a training run's checkpoint: read by the trainer that wrote it (a layer above players)
        from agents.training.ppo.runs import run_folder_agent

        return run_folder_agent(Path(spec), resolved, **options)
    from agents.policies.specs import load_policy

    return load_policy(spec, resolved, names, options)
