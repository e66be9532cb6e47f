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
:mod:`agents.loading`)::

    bot = agents.load("models/my_dqn.zip", "penta")
    bot = agents.load("my_bots.py:policy", "dice-poker")
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "available", "game_family", "load", "make", "register", "resolve_game"]


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


SCORECARD = "scorecard"
FIVE_THOUSAND = "fivethousand"
FAMILIES = (SCORECARD, FIVE_THOUSAND)

#: game family -> player name -> ``"module:Class"``.
_REGISTRY: dict[str, dict[str, str]] = {
    SCORECARD: {
        "random": "agents.random_agent:RandomAgent",
        "greedy": "agents.scorecard_bots:GreedyAgent",
        "heuristic": "agents.scorecard_bots:HeuristicAgent",
        "optimal": "agents.optimal:OptimalAgent",
        "ppo": "agents.ppo:PPOAgent",
        "learned-value": "agents.scorecard.learned_value:LearnedValueAgent",
    },
    FIVE_THOUSAND: {
        "random": "agents.fivethousand_bots:RandomAgent",
        "threshold": "agents.fivethousand_bots:ThresholdAgent",
        "heuristic": "agents.fivethousand_bots:HeuristicAgent",
        "optimal": "agents.optimal_fivethousand:OptimalAgent",
        "ppo": "agents.ppo:PPOAgent",
        "learned-value": "agents.fivethousand.learned_value:LearnedValueAgent",
    },
}

_FIVE_THOUSAND_NAMES = ("fivethousand", "5000", "five-thousand")


def _scorecard_ids() -> dict[str, str]:
    from dice_env import SCORECARD_IDS

    return SCORECARD_IDS


def _five_thousand_ids() -> dict[str, str]:
    from dice_env import FIVE_THOUSAND_IDS

    return FIVE_THOUSAND_IDS


def _known_games() -> list[str]:
    from dice_env.scorecard.rules import PRESETS

    return (sorted(PRESETS) + sorted(_scorecard_ids()) + list(_FIVE_THOUSAND_NAMES)
            + sorted(_five_thousand_ids()))


def resolve_game(game: Any) -> tuple[str, Any]:
    """``(family, game)``: the game family and the game as its players are built with.

    Scorecard games resolve to their preset name (a :class:`Rules` is passed through as is);
    5000 games to ``"fivethousand"``, or to the Gymnasium id when one was given (the single-agent
    and solo envs may observe differently).  Raises ``ValueError`` listing the known games.
    """
    from dice_env.scorecard.rules import PRESETS, Rules

    if isinstance(game, Rules):
        return SCORECARD, game
    if isinstance(game, str):
        if game in PRESETS:
            return SCORECARD, game
        ids = _scorecard_ids()
        if game in ids:
            return SCORECARD, ids[game]
        if game.lower() in _FIVE_THOUSAND_NAMES:
            return FIVE_THOUSAND, FIVE_THOUSAND
        if game in _five_thousand_ids():
            return FIVE_THOUSAND, game
    raise ValueError(f"unknown game {game!r}; known games: {_known_games()}")


def game_family(game: Any) -> str:
    """``"scorecard"`` or ``"fivethousand"`` (``ValueError`` for an unknown game)."""
    return resolve_game(game)[0]


def available(game: Any | None = None) -> dict[str, list[str]] | list[str]:
    """The registered player names: of one game, or ``{family: names}`` for all."""
    if game is None:
        return {family: sorted(names) for family, names in _REGISTRY.items()}
    return sorted(_REGISTRY[game_family(game)])


def register(name: str, family: str, entry_point: str, overwrite: bool = False) -> None:
    """Register a player: ``entry_point`` is ``"module:Class"``, imported on first use.

    The class is called as ``Class(game, **options)`` (see :func:`make`).  Re-registering a
    name with another entry point needs ``overwrite=True``.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown game family {family!r}; known families: {list(FAMILIES)}")
    module_name, sep, attr = entry_point.partition(":")
    if not (module_name and sep and attr):
        raise ValueError(f"entry_point must look like 'package.module:Class', got {entry_point!r}")
    current = _REGISTRY[family].get(name)
    if current is not None and current != entry_point and not overwrite:
        raise ValueError(f"player {name!r} is already registered for {family} as {current!r}; "
                         "pass overwrite=True to replace it")
    _REGISTRY[family][name] = entry_point


def _load(entry_point: str):
    module_name, _, attr = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise ImportError(f"the player module {module_name!r} (entry {entry_point!r}) is "
                              "not available yet") from exc
        raise
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"{module_name!r} has no {attr!r} (entry {entry_point!r})") from None


def _check_options(cls, name: str, options: dict) -> None:
    """``ValueError`` for options the constructor cannot take (the game is its first argument)."""
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):  # no introspectable signature: let the class decide
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    accepted = [p.name for p in params[1:]
                if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              inspect.Parameter.KEYWORD_ONLY)]
    bad = sorted(set(options) - set(accepted))
    if bad:
        raise ValueError(f"unknown options {bad} for player {name!r}; it accepts: {accepted}")


def make(name: str, game: Any = "penta", **options: Any) -> Agent:
    """Build the player ``name`` for ``game``.

    Args:
        name: a registered player (``random``, ``greedy``, ``heuristic``, ``optimal`` for the
            scorecard games; ``random``, ``threshold``, ``heuristic`` for 5000; see
            :func:`available`).
        game: a scorecard preset name (``"penta"``, ``"dice-poker"``, ``"yahtzee-official"``,
            ...), a Gymnasium id (``"dice_env/Penta-v0"``, ``"dice_env/FiveThousand-v0"``, ...),
            a :class:`~dice_env.scorecard.rules.Rules`, or ``"fivethousand"``.
        **options: passed to the player's constructor (e.g. ``seed=0``).

    Returns:
        The player, built as ``Class(game, **options)`` where ``game`` is the scorecard preset
        name (or the ``Rules`` given), or for 5000 ``"fivethousand"`` / the Gymnasium id given.

    Raises:
        ValueError: unknown game, unknown player for that game, or options the player does not
            take -- the message lists what exists.
        ImportError: the player is registered but its module is not available.
    """
    family, resolved = resolve_game(game)
    entries = _REGISTRY[family]
    if name not in entries:
        raise ValueError(f"unknown player {name!r} for {family} game {game!r}; "
                         f"known players: {sorted(entries)}")
    cls = _load(entries[name])
    _check_options(cls, name, options)
    return cls(resolved, **options)


def load(spec: Any, game: Any = "penta", **options: Any) -> Agent:
    """Build a player for ``game`` from ``spec``: a registered name, a stable-baselines3 model
    path (``"dqn:my.zip"`` to name the algorithm), ``"module:attr"`` /
    ``"path/to/file.py:attr"``, or an agent object, class, factory or policy function.

    See :func:`agents.loading.load` (imported on first use: torch and stable-baselines3 only
    load with a model).
    """
    from agents.loading import load as load_spec

    return load_spec(spec, game, **options)
