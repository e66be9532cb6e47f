"""What ``agents`` asks of a game family: one object of hooks per family.

``dice_env`` registers each family's rules and envs (:mod:`dice_env.families`).  ``agents``
extends each with an :class:`AgentFamily`: the family's players, what a result of one of its
games is (points, or a win), and *hooks*, the family's code for each layer above (its exact
regret, its inspection, its terminal and web games ...).  The shared layers call
``game.family.hook("regret")(...)`` and never test a family's name; a family's hooks live in
its own modules.

A hook is named ``"module:attribute"`` and imported on first use, so a family object can name
code in every layer without the layers importing each other (the same lazy entry points as
the player registry).  :data:`HOOKS` lists every hook a layer may ask for, with what it must
be; a family that lacks one gets a ``ValueError`` saying so, which the layers turn into
"not available for this game".

The built-in families are :data:`BUILT_IN`; :func:`register_family` adds another.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from dice_env.families import GameFamily, GameRef
from dice_env.families import family as env_family

__all__ = ["BUILT_IN", "HOOKS", "AgentFamily", "IllegalMove", "families", "family",
           "register_family"]

#: Every hook the shared layers may ask of a family, and what it must be.
HOOKS: dict[str, str] = {
    # solvers
    "solvable_games": "f() -> the names `dice-env solve` takes for the family's games",
    "solve_record": ("f(game, *, cache_dir, use_cache, force, threads, progress) -> the JSON "
                     "record of `dice-env solve GAME --json`"),
    "describe_solve": "f(record) -> its human-readable lines",
    "optimal_report": ("f(games, seed, *, cache_dir, threads, progress) -> (markdown section, "
                       "data) of results/optimal.md (the scorecard presets have the main table)"),
    # evaluation
    "evaluate_players": "f(players, game, label, games, seed, opponents, roster) -> rows",
    "regret": ("f(agent, game, games, seed, *, name, progress, dice_averaged, paired) -> "
               "a GapEstimate (.gap, .ci, .value)"),
    "inspection": "f(game, optimal=None) -> an Inspection of the game (inspect, habits)",
    # play
    "make_bot": "f(name, game) -> a bot for a person's game (default: the registry's make)",
    "terminal_game": ("f(game, term, opponents, seed, *, advise, people, auto_seconds) -> a "
                      "game with play() -> exit status"),
    "web_game": "f(game, request, bot_factory, auto_seconds, title) -> a web game",
    "web_tables": ("f(game, opponents, advisor, people, win_models, *, inspection=False) -> "
                   "table names (with inspection, opponents are the inspected agents)"),
    "web_moves": "the tuple of move kinds the web page may send",
    # (a terminal or web game refuses a move the rules forbid now with IllegalMove, below)
    # policies and training
    "observation_adapter": "f(game, obs_key) -> observation extender or None",
    "structured_heads": "f(n_obs, rules, **options) -> the structured network's body",
    "structured_defaults": "the structured network's options and their defaults",
    "structured_rules": "f(env_id, env_kwargs) -> the rules spec a structured policy saves",
    "train_learned_value": "f(game, seed, minutes, folder, **options) -> the model's path",
    "ppo_evaluation": ("f(player, game, eval) -> the metrics (a dict: mean_score or win_rate, "
                       "sem) of a policy evaluated while `dice-env train` trains it; eval: the "
                       "config's eval section"),
}


class IllegalMove(ValueError):
    """A move the rules refuse now, in a person's game (a family's terminal or web game): the
    message says why (a person reads it), ``legal`` lists the moves that are allowed, in words.
    The web app answers it with a 409 and the game is unchanged.  Defined here, below every
    family, so that a family's own game models raise the one class the web app catches."""

    def __init__(self, message: str, legal: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.legal = list(legal)


class AgentFamily(GameFamily):
    """A game family as ``agents`` sees it: the ``dice_env`` family and its hooks.

    Args:
        env: the ``dice_env`` family (:class:`~dice_env.families.GameFamily`); its ``parse``,
            ``coerce_rules``, ``names`` and ``make_env`` are this object's too.
        players: player name -> ``"module:Class"`` (built as ``Class(game, **options)``).
        hooks: hook name (see :data:`HOOKS`) -> ``"module:attribute"``.
        outcome: ``"score"`` (a game ends in points, players are compared by their mean) or
            ``"win"`` (a game is won or lost: players are compared by win probability).
        seats_per_seed: games a dice seed plays when players are compared (1; 2 when two
            players swap seats on the same dice).
        title: the game family's name for people.
    """

    def __init__(self, env: GameFamily, *, players: dict[str, str], hooks: dict[str, str],
                 outcome: str, seats_per_seed: int = 1, title: str = "") -> None:
        if outcome not in ("score", "win"):
            raise ValueError(f"outcome must be 'score' or 'win', got {outcome!r}")
        unknown = sorted(set(hooks) - set(HOOKS))
        if unknown:
            raise ValueError(f"unknown hooks {unknown}; known hooks: {sorted(HOOKS)}")
        self.env = env
        self.name = env.name
        self.players = dict(players)
        self.hooks = dict(hooks)
        self.outcome = outcome
        self.seats_per_seed = int(seats_per_seed)
        self.title = title or env.name

    # -- what a result is --------------------------------------------------------------------

    @property
    def unit(self) -> str:
        """``"points"`` or ``"win probability"``: the unit of a result and of a regret."""
        return "points" if self.outcome == "score" else "win probability"

    @property
    def digits(self) -> int:
        """Decimals a result is printed with (2 for points, 4 for a probability)."""
        return 2 if self.outcome == "score" else 4

    def model_name(self, game: GameRef) -> str:
        """The file stem of the game's committed models (``agents/models/<stem>.zip``)."""
        return game.name

    def __reduce__(self) -> tuple:  # pickled (to worker processes) as a reference
        return (family, (self.name,))

    # -- the dice_env family's part ------------------------------------------------------------

    def parse(self, game: Any) -> GameRef | None:
        return self.env.parse(game)

    def coerce_rules(self, game: Any) -> Any:
        return self.env.coerce_rules(game)

    def names(self) -> list[str]:
        return self.env.names()

    def games(self) -> list[str]:
        return self.env.games()

    def env_ids(self) -> list[str]:
        return self.env.env_ids()

    def match_env_ids(self) -> list[str]:
        return self.env.match_env_ids()

    def env_variants(self) -> list[tuple[str, str, tuple]]:
        return self.env.env_variants()

    def aec_env(self, ref: GameRef, num_players: int = 2, **kwargs: Any) -> Any:
        return self.env.aec_env(ref, num_players, **kwargs)

    def register_envs(self) -> None:
        self.env.register_envs()

    def make_env(self, ref: GameRef, **kwargs: Any) -> Any:
        return self.env.make_env(ref, **kwargs)

    # -- hooks ----------------------------------------------------------------------------------

    def has_hook(self, name: str) -> bool:
        """Whether the family provides the hook ``name``."""
        return name in self.hooks

    def hook(self, name: str) -> Any:
        """The hook ``name`` (imported on first use).

        ``ValueError`` when the family has none (``KeyError``-like, with the family named),
        ``ImportError`` when its module cannot be imported.
        """
        if name not in HOOKS:
            raise ValueError(f"unknown hook {name!r}; known hooks: {sorted(HOOKS)}")
        try:
            entry = self.hooks[name]
        except KeyError:
            raise ValueError(f"{self.title} has no {name!r} (not available for this game)"
                             ) from None
        module, _, attr = entry.partition(":")
        return getattr(importlib.import_module(module), attr)


#: The families of this package: ``"module:attribute"`` of each :class:`AgentFamily`.
BUILT_IN = {
    "scorecard": "agents.scorecard.family:FAMILY",
    "fivethousand": "agents.fivethousand.family:FAMILY",
    "pig": "agents.pig.family:FAMILY",
}

_FAMILIES: dict[str, AgentFamily] = {}


def register_family(obj: AgentFamily, overwrite: bool = False) -> AgentFamily:
    """Add a family of players and hooks (its ``dice_env`` family must be registered)."""
    if not isinstance(obj, AgentFamily):
        raise TypeError(f"expected an AgentFamily, got {obj!r}")
    env_family(obj.name)  # ValueError when dice_env does not know the family
    if obj.name in _FAMILIES and _FAMILIES[obj.name] is not obj and not overwrite:
        raise ValueError(f"game family {obj.name!r} is already registered; pass "
                         "overwrite=True to replace it")
    _FAMILIES[obj.name] = obj
    return obj


def family(name: str | GameFamily) -> AgentFamily:
    """The :class:`AgentFamily` called ``name`` (or of a ``dice_env`` family object)."""
    if isinstance(name, AgentFamily):
        return name
    if isinstance(name, GameFamily):
        name = name.name
    if name not in _FAMILIES and name in BUILT_IN:
        module, _, attr = BUILT_IN[name].partition(":")
        register_family(getattr(importlib.import_module(module), attr))
    try:
        return _FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown game family {name!r}; known families: "
                         f"{names()}") from None


def names() -> list[str]:
    """The names of the families (built-in and registered)."""
    return list(dict.fromkeys([*BUILT_IN, *_FAMILIES]))


def families() -> list[AgentFamily]:
    """Every family (built-in and registered)."""
    return [family(n) for n in names()]
