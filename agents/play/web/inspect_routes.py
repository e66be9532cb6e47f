"""HTTP routes of the inspect view: the page, its two static files and its JSON API.

* ``GET /inspect`` -- the page (``static/inspect.html``; it reads its query string);
* ``GET /inspect/inspect.js``, ``GET /inspect/inspect.css`` -- its script and style;
* ``GET /api/inspect/options`` -- the agents and games a request may name;
* ``GET /api/inspect?agent=NAME&game=G&seed=S[&agent2=NAME2]`` -- :func:`agents.evaluation.
  inspect.inspect` of that seed;
* ``GET /api/inspect/habits?agent=NAME&game=G&seeds=A-B`` -- :func:`~agents.evaluation.
  inspect.habits` over a bounded range of seeds.

A request names agents only by the keys of the ``agents`` mapping the server was started
with: nothing named in a request is ever loaded, imported or opened.  Every parameter is
checked; anything else is answered ``400`` with one line of JSON, ``{"error": ...}``.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from agents.evaluation.inspect import (
    MAX_HABIT_GAMES,
    MAX_SEED,
    Inspector,
    habits,
    inspect,
    inspector,
    parse_seed_range,
)
from agents.games import is_fivethousand
from agents.paths import package_data

__all__ = ["DEFAULT_GAMES", "inspect_routes"]

STATIC = package_data("play", "web", "static")
#: the games a request may name (their exact tables are cached; others would be solved)
DEFAULT_GAMES = ("penta", "dice-poker", "fivethousand")
#: inspections kept in memory (payloads of a few hundred kB)
CACHE_SIZE = 32
_SEED = re.compile(r"[0-9]{1,19}")
#: the page loads its script and style from this server and fetches only its API
PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
               "frame-ancestors 'none'; form-action 'self'")
_ASSETS = {"inspect.js": "text/javascript", "inspect.css": "text/css"}


class BadRequest(ValueError):
    """A request the API refuses (answered 400 with its message)."""


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status)


class _InspectService:
    """The agents and games the server allows, the built players and optimal players, and a
    small cache of recent answers.  One inspection runs at a time (they are CPU-bound)."""

    def __init__(self, agents: dict[str, object], games: Sequence[str]) -> None:
        self.agents = dict(agents)
        self.games = tuple(games)
        self._players: dict[tuple[str, str], Any] = {}
        self._inspectors: dict[str, Inspector] = {}
        self._cache: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()

    # -- parameters --------------------------------------------------------------------------
    @staticmethod
    def params(request: Request, allowed: Sequence[str], required: Sequence[str]
               ) -> dict[str, str]:
        query = request.query_params
        unknown = sorted(set(query.keys()) - set(allowed))
        if unknown:
            raise BadRequest(f"unknown parameter {unknown[0]!r}; expected {', '.join(allowed)}")
        out = {}
        for key in allowed:
            values = query.getlist(key)
            if len(values) > 1:
                raise BadRequest(f"parameter {key!r} given more than once")
            if values:
                out[key] = values[0]
            elif key in required:
                raise BadRequest(f"missing parameter {key!r}")
        return out

    def agent_name(self, name: str) -> str:
        if name not in self.agents:
            shown = name if len(name) <= 40 else name[:40] + "..."
            raise BadRequest(f"unknown agent {shown!r}; this server allows "
                             f"{', '.join(sorted(self.agents)) or 'none'}")
        return name

    def game_name(self, game: str) -> str:
        if game not in self.games:
            raise BadRequest(f"unknown game {game[:40]!r}; expected one of "
                             f"{', '.join(self.games)}")
        return game

    @staticmethod
    def seed(text: str) -> int:
        if not _SEED.fullmatch(text) or int(text) > MAX_SEED:
            raise BadRequest(f"seed must be an integer from 0 to {MAX_SEED}")
        return int(text)

    # -- players -----------------------------------------------------------------------------
    def player(self, name: str, game: str) -> Any:
        """The allowed agent ``name`` for ``game``: the object itself, or what its factory
        builds for the game (once)."""
        key = (name, game)
        if key not in self._players:
            entry = self.agents[name]
            if hasattr(entry, "act") or hasattr(entry, "act_batch") or not callable(entry):
                agent = entry
            else:
                try:
                    agent = entry(game)
                except (ValueError, TypeError, KeyError, FileNotFoundError, ImportError) as exc:
                    raise BadRequest(f"agent {name!r} cannot play {game}: {exc}") from None
            self._players[key] = agent
        return self._players[key]

    def inspector(self, game: str) -> Inspector:
        if game not in self._inspectors:
            self._inspectors[game] = inspector(game)
        return self._inspectors[game]

    def run(self, key: tuple, compute: Callable[[], dict]) -> dict:
        """``compute()`` under the lock, or its cached answer."""
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            try:
                out = compute()
            except BadRequest:
                raise
            except ValueError as exc:  # an agent that does not fit the game, an illegal move
                raise BadRequest(str(exc).splitlines()[0] if str(exc) else repr(exc)) from None
            self._cache[key] = out
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
            return out

    # -- answers -----------------------------------------------------------------------------
    def inspect(self, p: dict[str, str]) -> dict:
        name, game, seed = self.agent_name(p["agent"]), self.game_name(p["game"]), \
            self.seed(p["seed"])
        other = self.agent_name(p["agent2"]) if p.get("agent2") else None

        def compute() -> dict:
            agent = self.player(name, game)
            second = self.player(other, game) if other else None
            return inspect(agent, game, seed, name=name, other=second, other_name=other,
                           optimal=self.inspector(game))

        return self.run(("inspect", name, other, game, seed), compute)

    def habits(self, p: dict[str, str]) -> dict:
        name, game = self.agent_name(p["agent"]), self.game_name(p["game"])
        per_seed = 2 if is_fivethousand(game) else 1
        try:
            seeds = parse_seed_range(p["seeds"], MAX_HABIT_GAMES, per_seed)
        except ValueError as exc:
            raise BadRequest(str(exc)) from None

        def compute() -> dict:
            insp = self.inspector(game)
            found = habits(self.player(name, game), game, seeds, name=name, optimal=insp)
            return {**insp.header(), "agents": [name], "habits": [found]}

        return self.run(("habits", name, game, seeds.start, seeds.stop), compute)

    def plays(self, name: str) -> list[str]:
        """The games agent ``name`` plays, as far as its entry says (``plays(game)``)."""
        plays = getattr(self.agents[name], "plays", None)
        return [g for g in self.games if not callable(plays) or plays(g)]

    def options(self) -> dict:
        return {"agents": sorted(self.agents), "games": list(self.games),
                "plays": {name: self.plays(name) for name in sorted(self.agents)},
                "max_habit_games": MAX_HABIT_GAMES}


def inspect_routes(agents: dict[str, object], *,
                   games: Sequence[str] = DEFAULT_GAMES) -> list[BaseRoute]:
    """The routes of the inspect view (see the module docstring).

    Args:
        agents: the names a request may use -> an agent object (anything with ``act`` or
            ``act_batch``, used for every game as it is) or a factory ``game -> agent``
            (called once per game, e.g. ``lambda game: agents.load(spec, game)``).
        games: the games a request may name.
    """
    service = _InspectService(agents, games)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "inspect.html", media_type="text/html",
                            headers={"Content-Security-Policy": PAGE_POLICY})

    async def asset(request: Request) -> Response:
        name = request.url.path.rsplit("/", 1)[-1]
        return FileResponse(STATIC / name, media_type=_ASSETS[name])

    async def options(request: Request) -> Response:
        try:
            service.params(request, (), ())
        except BadRequest as exc:
            return _error(str(exc))
        return JSONResponse(service.options())

    def endpoint(method: Callable[[dict[str, str]], dict], allowed: Sequence[str],
                 required: Sequence[str]) -> Callable:
        async def handle(request: Request) -> Response:
            try:
                p = service.params(request, allowed, required)
                return JSONResponse(await run_in_threadpool(method, p))
            except BadRequest as exc:
                return _error(str(exc))
        return handle

    return [
        Route("/inspect", page, methods=["GET"]),
        *(Route(f"/inspect/{name}", asset, methods=["GET"]) for name in _ASSETS),
        Route("/api/inspect/options", options, methods=["GET"]),
        Route("/api/inspect/habits",
              endpoint(service.habits, ("agent", "game", "seeds"), ("agent", "game", "seeds")),
              methods=["GET"]),
        Route("/api/inspect",
              endpoint(service.inspect, ("agent", "game", "seed", "agent2"),
                       ("agent", "game", "seed")),
              methods=["GET"]),
    ]
