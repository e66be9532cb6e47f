"""The game a player plays, resolved once: :class:`Game` and :func:`resolve`.

Users name a game in many ways -- a scorecard preset (``"penta"``), a Gymnasium id
(``"dice_env/DicePoker-v0"``), a :class:`~dice_env.scorecard.rules.Rules`, or ``"5000"`` /
``"fivethousand"`` / a 5000 id.  The entry points (:func:`agents.make`, :func:`agents.load`)
call :func:`resolve` once and pass the :class:`Game` down, so the loaders and checks below them
never parse a game name again (:func:`resolve` returns a :class:`Game` as it is).  A
:class:`Game` knows its family, its rules, its env id and the observation and action spaces
of its env (what a trained model is checked against).

This is the bottom layer of ``agents``: it imports only ``dice_env`` and
:mod:`agents.families` (the families' hooks, found by name).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from agents.families import AgentFamily, family
from dice_env.families import GameRef

__all__ = ["Game", "describe_spaces", "games_with_spaces", "is_won", "known_games", "resolve",
           "space_key"]


@dataclass(frozen=True)
class Game(GameRef):
    """One game, as players and envs need it: a :class:`~dice_env.families.GameRef` whose
    :attr:`family` is the family's :class:`~agents.families.AgentFamily` (its players and the
    hooks of every layer).

    Attributes:
        family: the :class:`~agents.families.AgentFamily` (``game.family.name`` is
            ``"scorecard"``, ``"fivethousand"``, ...).
        spec: the game as named, for labels and saved files: the preset name or the ``Rules``
            given for a scorecard game; ``"fivethousand"`` or the 5000 Gymnasium id given (the
            single-agent and solo envs observe differently).
        env_id: the single-agent Gymnasium id, or None for a custom ``Rules`` (played by a
            :class:`~dice_env.scorecard.env.ScorecardEnv` built from it).
        name: a label for messages: the preset / rules name, ``"fivethousand"`` or the id.
        rules: the family's rules object (``Rules``, ``FiveThousandRules`` ...), parsed once
            with the name.

    Every player is built as ``Class(game, **options)`` with this object: read the rules from
    ``game.rules`` and the name given from ``game.spec``.
    """

    family: AgentFamily

    @property
    def model_name(self) -> str:
        """The file stem of the game's committed models (``agents/models/<stem>.zip``)."""
        return self.family.model_name(self)

    def make_env(self, **kwargs: Any) -> Any:
        """A fresh single-agent env of the game (``gymnasium.make`` of its id)."""
        import dice_env  # noqa: F401  (registers the ids)

        return self.family.make_env(self, **kwargs)

    def env_label(self) -> str:
        """How the game's env is named in messages."""
        return self.env_id if self.env_id is not None else f"ScorecardEnv({self.name} rules)"

    def space_keys(self, env_kwargs: dict | None = None) -> tuple[tuple, tuple]:
        """``(observation key, action key)`` (see :func:`space_key`) of the game's env."""
        kwargs = dict(env_kwargs or {})
        if self.env_id is None:
            env = self.make_env(**kwargs)
            try:
                return space_key(env.observation_space), space_key(env.action_space)
            finally:
                env.close()
        items = tuple(sorted(kwargs.items()))
        try:
            hash(items)
        except TypeError:  # unhashable option values: build it uncached
            return _registered_env_keys.__wrapped__(self.env_id, items)
        return _registered_env_keys(self.env_id, items)


def known_games() -> list[str]:
    """Every game name :func:`resolve` accepts (rules objects aside)."""
    import dice_env  # noqa: F401  (registers the families)
    from dice_env.families import known_games as names

    return names()


def resolve(game: Any) -> Game:
    """The :class:`Game` that ``game`` names (a :class:`Game` is returned as is): the one
    parser of game names (:func:`dice_env.families.resolve_game`), with the family's hooks.

    ``game`` is a preset name, a Gymnasium id, a family's rules object, ``"5000"`` ... or a
    report's label such as ``"penta 2p"`` (by its first word).  Raises ``ValueError`` listing
    the known games.
    """
    if isinstance(game, Game):
        return game
    if isinstance(game, str) and " " in game:
        game = game.split()[0]
    import dice_env  # noqa: F401  (registers the families)
    from dice_env.families import resolve_game

    ref = resolve_game(game)
    return Game(family=family(ref.family), spec=ref.spec, env_id=ref.env_id, name=ref.name,
                rules=ref.rules)


def is_won(game: Any) -> bool:
    """Whether a game of ``game`` (a name, id, label such as ``"penta 2p"`` or :class:`Game`)
    ends in a win rather than a score: its family's ``outcome`` is ``"win"`` (5000, Pig)."""
    return resolve(game).family.outcome == "win"


# -- spaces ----------------------------------------------------------------------------------

def space_key(space: Any) -> tuple:
    """What must match between a model's space and an env's: the kind and shape / size."""
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        return ("Discrete", int(space.n), int(space.start))
    if isinstance(space, spaces.Box):
        return ("Box", tuple(space.shape))
    return (type(space).__name__, repr(space))


def describe_spaces(obs_key: tuple, act_key: tuple) -> str:
    """``"observations of shape (45,) and 45 actions"`` for two :func:`space_key` values."""
    obs = (f"observations of shape {obs_key[1]}" if obs_key[0] == "Box"
           else f"{obs_key[0]} observations")
    act = f"{act_key[1]} actions" if act_key[0] == "Discrete" else f"{act_key[0]} actions"
    return f"{obs} and {act}"


@cache
def _registered_env_keys(env_id: str, kwargs: tuple = ()) -> tuple[tuple, tuple]:
    """``(observation key, action key)`` of a registered env, built once with ``gym.make``."""
    import gymnasium as gym

    import dice_env  # noqa: F401  (registers the ids)

    env = gym.make(env_id, **dict(kwargs))
    try:
        return space_key(env.observation_space), space_key(env.action_space)
    finally:
        env.close()


def games_with_spaces(obs: tuple, act: tuple) -> list[str]:
    """The known games whose env has these spaces (to say what a model was trained on)."""
    import dice_env  # noqa: F401  (registers the families)
    from dice_env.families import families

    candidates = [c for f in families() for c in f.env_variants()]
    return [name for name, env_id, kwargs in candidates
            if _registered_env_keys(env_id, kwargs) == (obs, act)]
