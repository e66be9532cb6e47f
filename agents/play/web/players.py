"""The players a web server may seat: the registered names and the agents of its command line.

A request names a player; it never names a file, a model or a module.  The server builds its
mapping once, at start-up (:func:`allowed_agents`): every registered player
(:func:`agents.registry.available`; built with :func:`~agents.play.seats.make_bot`, which reads
only the committed models) and each ``--agent SPEC`` of the command line (built with
:func:`agents.load`, checked at start-up against each game).  A name outside the mapping is
refused.  The same mapping serves the Play page's bots and the inspect view.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from agents.evaluation.inspect.common import game_title
from agents.families import families
from agents.games import resolve
from agents.play.advisors import BUILD_LOCK
from agents.play.seats import make_bot

#: the games named first in the web app's menu (each one's solved tables are listed in
#: :mod:`.tables`; its family gives the game its web view, the ``"web_game"`` hook)
FIRST_WEB_GAMES = ("penta", "dice-poker", "yatzy", "yacht", "fivethousand")


def _web_game_names() -> tuple[str, ...]:
    """The games of the menu: :data:`FIRST_WEB_GAMES`, then every game of each other family
    that has a web game (the ``"web_game"`` hook; its ``"web_tables"`` hook names the tables
    its games need, or none)."""
    covered = {resolve(name).family.name for name in FIRST_WEB_GAMES}
    return FIRST_WEB_GAMES + tuple(g for f in families() if f.has_hook("web_game")
                                   and f.name not in covered for g in f.games())


#: the games the web app offers, in the order of its menu
WEB_GAME_NAMES = _web_game_names()


def _web_games() -> dict[str, tuple[str, str]]:
    games = {name: resolve(name) for name in WEB_GAME_NAMES}
    return {name: (game_title(g), g.family.name) for name, g in games.items()}


#: the games of the web app: name -> (title, family name), both from the game's family
WEB_GAMES: dict[str, tuple[str, str]] = _web_games()
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass(frozen=True)
class AgentFactory:
    """Builds one allowed player, fresh for each game: ``factory(game) -> player``.

    Attributes:
        name: what requests call it.
        spec: the registered name, or the ``--agent`` spec it was loaded from.
        games: the games of :data:`WEB_GAMES` it plays.
        registered: a registered player (else an agent of the command line).
    """

    name: str
    spec: str
    games: frozenset[str]
    registered: bool

    def plays(self, game: str) -> bool:
        """Whether it plays ``game``."""
        return game in self.games

    def __call__(self, game: str) -> Any:
        """A new player for ``game`` (``ValueError`` for a game it does not play)."""
        if game not in self.games:
            raise ValueError(f"{self.name!r} does not play {game}; it plays "
                             f"{', '.join(sorted(self.games)) or 'no game here'}")
        with BUILD_LOCK:  # a first load may solve a table with parallel kernels
            if self.registered and self.spec == "win-value":
                from agents.registry import make

                # its score-spread tables (tens of MB) are read once, shared by every game
                return make(self.spec, game, moments=_shared_moments(game))
            if self.registered:
                return make_bot(self.spec, game)
            import agents

            return agents.load(self.spec, game)


_MOMENTS: dict[str, Any] = {}


def _shared_moments(game: str) -> Any:
    """The score-spread tables of ``game``, loaded once per process (read-only: the
    win-value bots of every game share them)."""
    if game not in _MOMENTS:
        from agents.scorecard.score_spread import load_or_compute_spread

        _MOMENTS[game] = load_or_compute_spread(game)
    return _MOMENTS[game]


def _registered() -> dict[str, AgentFactory]:
    from agents.registry import available

    names: dict[str, set[str]] = {}
    for game in WEB_GAMES:
        for name in available(game):
            names.setdefault(name, set()).add(game)
    return {n: AgentFactory(n, n, frozenset(g), True) for n, g in sorted(names.items())}


def _spec_name(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` or ``SPEC`` -> ``(name, spec)``; a bare spec is named after its last
    part (``runs/my_dqn.zip`` -> ``my_dqn``, ``bots.py:greedy`` -> ``greedy``)."""
    head, sep, tail = text.partition("=")
    if sep and _NAME.match(head) and tail:
        return head, tail
    stem = text.rsplit(":", 1)[-1] if ":" in text else PurePath(text.rstrip("/\\")).stem
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", stem)[:40].strip("-.") or "agent"
    return name, text


def allowed_agents(specs: Iterable[str] = ()) -> dict[str, AgentFactory]:
    """The players a server may seat: every registered name, plus each ``--agent`` spec
    (``NAME=SPEC`` or ``SPEC``: a model zip, a training run's folder, ``module:attr`` or
    ``file.py:attr``, see :func:`agents.load`), loaded once per game now to learn which games
    it plays.

    Raises:
        ValueError: a name taken twice or by a registered player, or a spec that plays none
            of the games (the message says why for each game).
    """
    import agents

    out: dict[str, AgentFactory] = _registered()
    for text in specs:
        name, spec = _spec_name(str(text).strip())
        if spec in out and out[spec].registered:
            raise ValueError(f"--agent {text!r}: {spec!r} is a registered player, offered "
                             "without --agent")
        if name in out:
            taken = "a registered player" if out[name].registered else "another --agent"
            raise ValueError(f"--agent {text!r}: the name {name!r} is taken by {taken}; name "
                             f"it: --agent NAME={spec}")
        games, errors = set(), {}
        for game in WEB_GAMES:
            try:
                with BUILD_LOCK:
                    agents.load(spec, game)
            except Exception as exc:  # noqa: BLE001 - user code may raise anything
                errors.setdefault(" ".join(str(exc).split()), []).append(game)
            else:
                games.add(game)
        if not games:
            why = "; ".join(msg if len(errors) == 1 else f"{', '.join(g)}: {msg}"
                            for msg, g in errors.items())
            raise ValueError(f"--agent {text!r} plays none of the games: {why}")
        out[name] = AgentFactory(name, spec, frozenset(games), False)
    return out


def bot_names(agents: Mapping[str, AgentFactory], game: str) -> list[str]:
    """The names of the players of ``agents`` that play ``game``: registered first."""
    return [n for n, f in sorted(agents.items(), key=lambda kv: (not kv[1].registered, kv[0]))
            if f.plays(game)]
