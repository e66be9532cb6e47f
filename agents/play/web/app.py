"""The web app: :func:`create_app` builds the Starlette application.

Routes (every ``/api`` answer is JSON; an error is ``{"error": "one line"}`` with a 4xx):

* ``GET /`` -- the Play page; ``GET /static/...`` -- its scripts and styles (only files of
  this package's ``static/`` folder);
* ``GET /api/health`` -- ``{"status": "ok", "games": n, "max_games": m}``;
* ``GET /api/config`` -- the games, the bots each one may seat, ``auto_seconds``;
* ``POST /api/games`` ``{"game", "opponents"?, "seed"?, "advisor"?}`` -- a new game:
  201 ``{"id", "state", "frames"}`` (503 when ``max_games`` are live);
* ``GET /api/games/{id}`` -- ``{"id", "state"}``;
* ``POST /api/games/{id}/move`` -- a move (see :func:`~agents.play.web.validation.parse_move`):
  ``{"id", "state", "frames", "messages", "verdict"}``; an illegal move is a 409 naming the
  legal ones (``"legal": [...]``) and changes nothing;
* ``POST /api/games/{id}/advisor`` ``{"on": bool}`` -- the advisor on or off: ``{"id",
  "state"}``;
* ``DELETE /api/games/{id}`` -- 204;
* the inspect view's routes (:func:`agents.play.web.inspect_routes.inspect_routes`).

``state`` is the view of :mod:`.scorecard_view` or :mod:`.fivethousand_view`; ``frames`` the
bots' decisions since, for the page to replay.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents.paths import package_data
from agents.play.advisors import BUILD_LOCK
from agents.play.seats import IllegalMove
from agents.play.web.players import WEB_GAMES, AgentFactory, allowed_agents, bot_names
from agents.play.web.sessions import Entry, GameStore, StoreFull
from agents.play.web.validation import (
    MAX_OPPONENTS,
    ApiError,
    NewGame,
    parse_advisor,
    parse_move,
    parse_new_game,
    read_json,
)

STATIC = package_data("play", "web", "static")
log = logging.getLogger("dice_env.web")
#: the Play page may load only this server's own files
PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
               "frame-ancestors 'none'; form-action 'self'")
#: how long a request waits for another request on the same game
LOCK_SECONDS = 30.0
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                    "X-Frame-Options": "DENY"}


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    if key not in headers:
                        headers[key] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status,
                        headers={"Cache-Control": "no-store"})


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"Cache-Control": "no-store"})


@contextmanager
def _locked(entry: Entry) -> Iterator[None]:
    """Hold a game's lock (requests on one game take turns); a 409 if another request keeps
    it longer than :data:`LOCK_SECONDS`."""
    if not entry.lock.acquire(timeout=LOCK_SECONDS):
        raise ApiError(409, "the game is busy with another request; try again")
    try:
        yield
    finally:
        entry.lock.release()


def _new_game(spec: NewGame, agents: Mapping[str, AgentFactory], auto_seconds: float) -> Any:
    """Build the game a checked request asks for (the bots from ``agents`` only)."""
    title, family = WEB_GAMES[spec.game]

    def bot(name: str, game: str) -> Any:
        return agents[name](game)

    if family == "scorecard":
        from agents.play.scorecard_session import ScorecardSession
        from agents.play.web.scorecard_view import ScorecardWebGame
        from dice_env.scorecard.rules import get_rules

        session = ScorecardSession(get_rules(spec.game), spec.opponents, spec.seed,
                                   spec.advisor, bot_factory=bot)
        return ScorecardWebGame(session, title, auto_seconds)
    from agents.play.fivethousand_session import FiveThousandSession
    from agents.play.web.fivethousand_view import FiveThousandWebGame

    return FiveThousandWebGame(FiveThousandSession(spec.opponents, spec.seed, spec.advisor,
                                                   bot_factory=bot), title)


def create_app(agents: Mapping[str, AgentFactory] | None = None, *, auto_seconds: float = 3.0,
               max_games: int = 100, ttl: float = 3600.0,
               allowed_hosts: Sequence[str] | None = None) -> Starlette:
    """The web app.

    Args:
        agents: the players it may seat, by name (:func:`~agents.play.web.players.
            allowed_agents`; default: the registered players only).  Requests name players
            from here and nothing else; the inspect view gets the same mapping.
        auto_seconds: after the last roll of a scorecard turn, the page scores the computer's
            choice after this many seconds without a click or a key (0: never).
        max_games: how many games may live at once (a new one beyond: 503).
        ttl: seconds after its last request that a game is dropped.
        allowed_hosts: the ``Host`` headers answered (default: any); a server bound to the
            loopback passes its own names, so that other sites cannot reach it through DNS
            rebinding.
    """
    from agents.play.web.inspect_routes import inspect_routes

    if auto_seconds < 0:
        raise ValueError("auto_seconds must be 0 (off) or more")
    agents = dict(allowed_agents() if agents is None else agents)
    store = GameStore(max_games, ttl)
    bots = {game: bot_names(agents, game) for game in WEB_GAMES}

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={
            "Content-Security-Policy": PAGE_POLICY, "Cache-Control": "no-store"})

    async def health(request: Request) -> Response:
        return _json({"status": "ok", "games": len(store), "max_games": store.max_games})

    async def config(request: Request) -> Response:
        return _json({
            "games": [{"id": g, "title": t, "family": f} for g, (t, f) in WEB_GAMES.items()],
            "bots": bots, "max_opponents": MAX_OPPONENTS, "auto_seconds": auto_seconds,
            "agents": [n for n, a in agents.items() if not a.registered]})

    def _entry(request: Request):
        entry = store.get(request.path_params["game_id"])
        if entry is None:
            raise ApiError(404, "no such game (it may have expired)")
        return entry

    async def create(request: Request) -> Response:
        spec = parse_new_game(await read_json(request), WEB_GAMES, bots)
        try:
            store.check_room()
        except StoreFull as exc:
            raise ApiError(503, str(exc)) from None

        def build() -> tuple[Any, list[dict]]:
            with BUILD_LOCK:
                game = _new_game(spec, agents, auto_seconds)
            return game, game.bot_frames(start=True) if game.family == "fivethousand" else []

        try:
            game, frames = await run_in_threadpool(build)
        except ValueError as exc:  # a player that cannot be built for this game
            raise ApiError(400, str(exc)) from None
        except RuntimeError as exc:  # a bot that chose an illegal action
            raise ApiError(500, f"a bot failed: {exc}") from None
        try:
            key = store.add(game)
        except StoreFull as exc:
            raise ApiError(503, str(exc)) from None
        return _json({"id": key, "state": game.view(), "frames": frames}, 201)

    async def show(request: Request) -> Response:
        entry = _entry(request)

        def work() -> dict:
            with _locked(entry):
                return entry.game.view()

        return _json({"id": request.path_params["game_id"], "state": await run_in_threadpool(work)})

    async def move(request: Request) -> Response:
        entry = _entry(request)
        body = await read_json(request)
        checked = parse_move(body, entry.game.family, entry.game.n_boxes)

        def work() -> dict:
            with _locked(entry):
                result = entry.game.move(checked)
                return {**result, "state": entry.game.view()}

        try:
            result = await run_in_threadpool(work)
        except IllegalMove as exc:
            raise ApiError(409, str(exc), legal=exc.legal) from None
        except RuntimeError as exc:  # a bot that chose an illegal action
            raise ApiError(500, f"a bot failed: {exc}") from None
        return _json({"id": request.path_params["game_id"], **result})

    async def advisor(request: Request) -> Response:
        entry = _entry(request)
        on = parse_advisor(await read_json(request))

        def work() -> dict:
            with _locked(entry):
                entry.game.set_advisor(on)
                return entry.game.view()

        return _json({"id": request.path_params["game_id"], "state": await run_in_threadpool(work)})

    async def delete(request: Request) -> Response:
        if not store.remove(request.path_params["game_id"]):
            raise ApiError(404, "no such game (it may have expired)")
        return Response(status_code=204)

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return _error(exc.status, exc.message, **exc.extra)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path.startswith("/api/"):
            return _error(exc.status_code, str(exc.detail))
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code,
                                 headers=exc.headers)

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("error in %s %s", request.method, request.url.path)
        return _error(500, f"internal error: {type(exc).__name__}")

    routes = [
        Route("/", page),
        Route("/api/health", health),
        Route("/api/config", config),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{game_id}", show, methods=["GET"]),
        Route("/api/games/{game_id}", delete, methods=["DELETE"]),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/advisor", advisor, methods=["POST"]),
        *inspect_routes(agents),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={
        ApiError: api_error, HTTPException: http_error, Exception: server_error})
    app.state.store = store
    app.state.agents = agents
    return app
