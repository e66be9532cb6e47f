"""The game a player plays, resolved once: :class:`Game` and :func:`resolve`.

Users name a game in many ways -- a scorecard preset (``"penta"``), a Gymnasium id
(``"dice_env/DicePoker-v0"``), a :class:`~dice_env.scorecard.rules.Rules`, or ``"5000"`` /
``"fivethousand"`` / a 5000 id.  The entry points (:func:`agents.make`, :func:`agents.load`)
call :func:`resolve` once and pass the :class:`Game` down, so the loaders and checks below them
never parse a game name again (:func:`resolve` returns a :class:`Game` as it is).  A
:class:`Game` knows its family, its rules, its env id and the observation and action spaces
of its env (what a trained model is checked against).

This is the bottom layer of ``agents``: it imports only ``dice_env``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

__all__ = ["FAMILIES", "FIVE_THOUSAND", "SCORECARD", "Game", "describe_spaces", "games_with_spaces",
           "is_fivethousand", "known_games", "resolve", "space_key"]

SCORECARD = "scorecard"
FIVE_THOUSAND = "fivethousand"
FAMILIES = (SCORECARD, FIVE_THOUSAND)

#: the names of 5000 (besides its Gymnasium ids)
FIVE_THOUSAND_NAMES = ("fivethousand", "5000", "five-thousand")
#: the default single-agent env of 5000
FIVE_THOUSAND_ID = "dice_env/FiveThousand-v0"


@dataclass(frozen=True)
class Game:
    """One game, as players and envs need it.

    Attributes:
        family: ``"scorecard"`` or ``"fivethousand"``.
        spec: what players are built with (``Class(spec, **options)``): the preset name or the
            ``Rules`` given for a scorecard game; ``"fivethousand"`` or the 5000 Gymnasium id
            given (the single-agent and solo envs observe differently).
        env_id: the single-agent Gymnasium id, or None for a custom ``Rules`` (played by a
            :class:`~dice_env.scorecard.env.ScorecardEnv` built from it).
        name: a label for messages: the preset / rules name, ``"fivethousand"`` or the id.
        scorecard_rules: the scorecard :class:`~dice_env.scorecard.rules.Rules`, parsed once
            with the name (None for 5000); read it as :attr:`rules`.
    """

    family: str
    spec: Any
    env_id: str | None
    name: str
    scorecard_rules: Any = field(default=None, repr=False, compare=False)

    @property
    def rules(self) -> Any:
        """The scorecard :class:`~dice_env.scorecard.rules.Rules` (``ValueError`` for 5000)."""
        if self.family != SCORECARD:
            raise ValueError(f"{self.name} is not a scorecard game; it has no scorecard rules")
        return self.scorecard_rules

    @property
    def model_name(self) -> str:
        """The file stem of the game's committed models (``agents/models/<stem>.zip``)."""
        if self.family == SCORECARD:
            return self.name
        return FIVE_THOUSAND if self.env_id == FIVE_THOUSAND_ID else "fivethousand-solo"

    def make_env(self, **kwargs: Any) -> Any:
        """A fresh single-agent env of the game (``gymnasium.make`` of its id)."""
        if self.env_id is None:
            from dice_env.scorecard.env import ScorecardEnv

            return ScorecardEnv(game=self.spec, **kwargs)
        import gymnasium as gym

        import dice_env  # noqa: F401  (registers the ids)

        return gym.make(self.env_id, **kwargs)

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


def is_fivethousand(game: Any) -> bool:
    """Whether ``game`` (a name, id, ``Rules`` or :class:`Game`) is of the 5000 family.

    A report's label such as ``"penta 2p"`` counts by its first word.  ``ValueError`` for an
    unknown game.
    """
    if isinstance(game, str) and " " in game:
        game = game.split()[0]
    return resolve(game).family == FIVE_THOUSAND


def known_games() -> list[str]:
    """Every game name :func:`resolve` accepts (``Rules`` objects aside)."""
    from dice_env import FIVE_THOUSAND_IDS, SCORECARD_IDS
    from dice_env.scorecard.rules import PRESETS

    return (sorted(PRESETS) + sorted(SCORECARD_IDS) + list(FIVE_THOUSAND_NAMES)
            + sorted(FIVE_THOUSAND_IDS))


def resolve(game: Any) -> Game:
    """The :class:`Game` that ``game`` names (a :class:`Game` is returned as is).

    Raises ``ValueError`` listing the known games.
    """
    if isinstance(game, Game):
        return game
    return _parse(game)


def _parse(game: Any) -> Game:
    """The :class:`Game` a name, id or ``Rules`` stands for (what :func:`resolve` does once)."""
    from dice_env import FIVE_THOUSAND_IDS, SCORECARD_IDS
    from dice_env.scorecard.rules import PRESETS, Rules

    if isinstance(game, Rules):  # played by a ScorecardEnv of its own
        return Game(SCORECARD, game, None, game.name, game)
    if isinstance(game, str):
        if game in PRESETS:
            env_id = next((i for i, name in SCORECARD_IDS.items() if name == game), None)
            return Game(SCORECARD, game, env_id, game, PRESETS[game])
        if game in SCORECARD_IDS:
            name = SCORECARD_IDS[game]
            return Game(SCORECARD, name, game, name, PRESETS[name])
        if game.lower() in FIVE_THOUSAND_NAMES:
            return Game(FIVE_THOUSAND, FIVE_THOUSAND, FIVE_THOUSAND_ID, FIVE_THOUSAND)
        if game in FIVE_THOUSAND_IDS:
            return Game(FIVE_THOUSAND, game, game, game)
    raise ValueError(f"unknown game {game!r}; known games: {known_games()}")


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
    from dice_env import SCORECARD_IDS

    candidates = [(name, env_id, ()) for env_id, name in SCORECARD_IDS.items()]
    candidates.append((FIVE_THOUSAND, FIVE_THOUSAND_ID, ()))
    candidates += [(f"fivethousand ({k} players)", FIVE_THOUSAND_ID, (("num_players", k),))
                   for k in range(3, 9)]
    candidates.append(("fivethousand solo", "dice_env/FiveThousandSolo-v0", ()))
    return [name for name, env_id, kwargs in candidates
            if _registered_env_keys(env_id, kwargs) == (obs, act)]
