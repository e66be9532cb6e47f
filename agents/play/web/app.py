"""The web app: :func:`create_app` builds the Starlette application.

Routes (every ``/api`` answer is JSON; an error is ``{"error": "one line"}`` with a 4xx):

* ``GET /`` -- the Play page; ``GET /static/...`` -- its scripts and styles (only files of
  this package's ``static/`` folder);
* ``GET /api/health`` -- liveness: ``{"status": "ok", "games": n, "max_games": m}``;
* ``GET /api/ready`` -- readiness: which solved tables are ready and which are being built,
  with the jobs' progress (:func:`readiness`);
* ``GET /api/config`` -- the games, the bots each one may seat, ``auto_seconds``;
* ``POST /api/games`` ``{"game", "opponents"?, "seed"?, "advisor"?, "people"?}`` -- a new game
  (``people``: the names of the people at the screen, pass and play, each of at most 24
  characters): 201 ``{"id", "state", "frames"}``; 503 with ``Retry-After`` when ``max_games``
  are live.  Every check of the request (the body, the people, the seats) comes before any
  table is looked at: a request refused without the advisor is refused the same with it.
  When the game's bots or the advisor's expected-score advice need a solved table that is
  not ready (:mod:`.tables`), the answer comes at once: 202 ``{"preparing": JOB}`` -- the job
  building it, started now or joined -- and the client polls ``GET /api/jobs/<id>`` and sends
  the same request again once it is done.  The advisor's win-probability tables never hold a
  game up: they are built in the background, and until they are ready the advisor gives the
  expected-score advice and ``state["advice_note"]`` says so (null otherwise);
* ``GET /api/jobs`` -- ``{"jobs": [JOB], "workers", "inspect_workers"}``: the jobs queued,
  running and recently finished, oldest first;
* ``GET /api/jobs/{id}`` -- JOB: ``{"job", "what", "progress" (0 to 1, never going back),
  "state" ("queued", "running", "done", "failed", "cancelled"), "error", "estimated",
  "eta_seconds" (about how long it still takes, or null)}`` (:mod:`.jobs`);
* ``GET /api/games/{id}`` -- ``{"id", "state"}``;
* ``POST /api/games/{id}/move`` -- a move (see :func:`~agents.play.web.validation.parse_move`):
  ``{"id", "state", "frames", "messages", "verdict"}``; an illegal move is a 409 naming the
  legal ones (``"legal": [...]``) and changes nothing;
* ``POST /api/games/{id}/advisor`` ``{"on": bool}`` -- the advisor on or off: ``{"id",
  "state"}`` (or 202 ``{"preparing": JOB}`` as above, when its expected-score tables are not
  ready; its win-probability tables are built in the background, as above);
* ``DELETE /api/games/{id}`` -- 204;
* the inspect view's routes (:func:`agents.play.web.inspect_routes.inspect_routes`).

``state`` is the view of the game's family (its ``"web_game"`` hook: :mod:`.scorecard_view`,
:mod:`.fivethousand_view`), with the layout the page draws (:mod:`.layout`); ``frames`` the
bots' decisions since, for the page to replay.

Long work (solving tables, inspections) runs in the worker processes of a
:class:`~agents.play.web.jobs.JobRunner`, never in the threads that answer requests; a game
whose tables are ready never waits for another game's, and inspections have a worker of their
own, never waiting behind a table build.  ``/api`` requests from other sites are refused, at
most ``max_requests`` are in progress at once, a request of an HTTP version other than 1.0, 1.1
and 2 is answered 505, and every 503 carries ``Retry-After`` (:mod:`.guard`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
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

from agents.games import resolve
from agents.paths import package_data
from agents.play.advisors import BUILD_LOCK
from agents.play.seats import IllegalMove
from agents.play.web.guard import HttpVersionGuard, OriginGuard, RequestLimit
from agents.play.web.jobs import JobRunner, QueueFull
from agents.play.web.players import WEB_GAMES, AgentFactory, allowed_agents, bot_names
from agents.play.web.sessions import Entry, GameStore, StoreFull
from agents.play.web.tables import Tables
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
#: requests that may wait for one game at once (more: a 409 at once)
MAX_WAITING = 8
#: Retry-After of a 503 when the job queue is full
JOBS_RETRY_AFTER = 10
#: Retry-After given to a 503 that names none
DEFAULT_RETRY_AFTER = 1
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                    "X-Frame-Options": "DENY"}


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every response, and ``Retry-After`` on
    every 503 (:data:`DEFAULT_RETRY_AFTER` where the answer names none)."""

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
                if message["status"] == 503 and "retry-after" not in headers:
                    headers["Retry-After"] = str(DEFAULT_RETRY_AFTER)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _error(status: int, message: str, retry_after: int | None = None,
           **extra: Any) -> JSONResponse:
    headers = {"Cache-Control": "no-store"}
    if retry_after is not None:
        headers["Retry-After"] = str(int(retry_after))
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"Cache-Control": "no-store"})


@asynccontextmanager
async def _locked(entry: Entry) -> AsyncIterator[None]:
    """Hold a game's lock (requests on one game take turns), waiting in the event loop; a 409
    if another request keeps it longer than :data:`LOCK_SECONDS`, or at once when
    :data:`MAX_WAITING` requests already wait."""
    if entry.waiting >= MAX_WAITING:
        raise ApiError(409, "the game is busy with other requests; try again")
    entry.waiting += 1
    try:
        await asyncio.wait_for(entry.lock.acquire(), LOCK_SECONDS)
    except TimeoutError:
        raise ApiError(409, "the game is busy with another request; try again") from None
    finally:
        entry.waiting -= 1
    try:
        yield
    finally:
        entry.lock.release()


def _preparing(job: Any) -> JSONResponse:
    """202: the job that prepares what the request needs (poll it, then ask again)."""
    return _json({"preparing": job.public()}, 202)


def _jobs_full(exc: QueueFull) -> ApiError:
    return ApiError(503, f"cannot start the work now: {exc}", retry_after=JOBS_RETRY_AFTER)


def readiness(tables: Tables, runner: JobRunner) -> dict[str, Any]:
    """What ``GET /api/ready`` answers: ``{"ready": every game ready, "games": {game:
    {"ready", "tables": [TABLE]}}, "building": [TABLE being built], "jobs": [JOB queued or
    running], "workers": n}``, each TABLE ``{"table", "game", "what", "ready", "late",
    "job"}``.  A game is ready when every table a new game of it may wait for is (the late
    ones are reported, never waited for)."""
    status = tables.status()
    games: dict[str, dict[str, Any]] = {}
    for table in status:
        game = games.setdefault(table["game"], {"ready": True, "tables": []})
        game["tables"].append(table)
        game["ready"] = game["ready"] and (table["ready"] or table["late"])
    building = [t for t in status if not t["ready"] and t["job"] is not None
                and t["job"]["state"] in ("queued", "running")]
    return {"ready": all(g["ready"] for g in games.values()), "games": games,
            "building": building, "jobs": [j.public() for j in runner.active()],
            "workers": runner.workers}


class _SeatsChecked(Exception):
    """Raised at the first bot of :func:`check_seats`'s trial game: the checks passed."""


def check_seats(spec: NewGame) -> None:
    """The game model's own checks of a new game's people and seats (``ValueError`` with
    its message), run before any table is looked at: the game is built without the advisor
    and stopped at its first bot, before anything is loaded (every family's game model checks
    its people and seats before it builds a bot)."""
    title, _ = WEB_GAMES[spec.game]
    game = resolve(spec.game)

    def stop(name: str, game_name: str) -> Any:
        raise _SeatsChecked

    try:
        game.family.hook("web_game")(game, replace(spec, advisor=False), stop, 0.0, title)
    except _SeatsChecked:
        pass


def _new_game(spec: NewGame, agents: Mapping[str, AgentFactory], auto_seconds: float) -> Any:
    """Build the game a checked request asks for (the bots from ``agents`` only): its
    family's web game (the ``"web_game"`` hook)."""
    title, _ = WEB_GAMES[spec.game]
    game = resolve(spec.game)

    def bot(name: str, game_name: str) -> Any:
        return agents[name](game_name)

    return game.family.hook("web_game")(game, spec, bot, auto_seconds, title)


def create_app(agents: Mapping[str, AgentFactory] | None = None, *, auto_seconds: float = 3.0,
               max_games: int = 100, ttl: float = 3600.0, unplayed_ttl: float = 300.0,
               allowed_hosts: Sequence[str] | None = None, workers: int = 2,
               inspect_seconds: float = 120.0, max_requests: int = 128,
               runner: JobRunner | None = None, warm: bool = False) -> Starlette:
    """The web app.

    Args:
        agents: the players it may seat, by name (:func:`~agents.play.web.players.
            allowed_agents`; default: the registered players only).  Requests name players
            from here and nothing else; the inspect view gets the same mapping.
        auto_seconds: after the last roll of a scorecard turn, the page scores the computer's
            choice after this many seconds without a click or a key (0: never).
        max_games: how many games may live at once (a new one beyond: 503).
        ttl: seconds after its last request that a game with a move is dropped.
        unplayed_ttl: the same for a game nobody has moved in (at most ``ttl``).
        allowed_hosts: the ``Host`` headers answered (default: any); a server bound to the
            loopback passes its own names, so that other sites cannot reach it through DNS
            rebinding.
        workers: worker processes for long work (solving tables, inspections), started on
            the first job; ignored when ``runner`` is given.
        inspect_seconds: the time limit of one inspection (past it, it is stopped).
        max_requests: ``/api`` requests in progress at once (more: 503 with Retry-After).
        runner: the job runner (default: a new one); the app stops it when it shuts down
            (``app.state.runner.shutdown()`` does it by hand where there is no lifespan).
        warm: at start-up, start the worker processes and build the missing expected-score
            table of the menu's first game and the late tables (:mod:`.tables`), so that
            neither waits for a request (``dice-env web`` does; off, the first job starts the
            workers, the first game that needs a table its build).
    """
    from agents.play.web.inspect_routes import inspect_routes

    if auto_seconds < 0:
        raise ValueError("auto_seconds must be 0 (off) or more")
    agents = dict(allowed_agents() if agents is None else agents)
    store = GameStore(max_games, ttl, unplayed_ttl=unplayed_ttl)
    bots = {game: bot_names(agents, game) for game in WEB_GAMES}
    runner = runner if runner is not None else JobRunner(workers)
    tables = Tables(runner, warm)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={
            "Content-Security-Policy": PAGE_POLICY, "Cache-Control": "no-store"})

    async def favicon(request: Request) -> Response:
        for name, media in (("favicon.ico", "image/x-icon"), ("favicon.svg", "image/svg+xml")):
            if (STATIC / name).is_file():
                return FileResponse(STATIC / name, media_type=media)
        return Response(status_code=204)

    async def health(request: Request) -> Response:
        return _json({"status": "ok", "games": len(store), "max_games": store.max_games})

    async def ready(request: Request) -> Response:
        return _json(readiness(tables, runner))

    async def jobs(request: Request) -> Response:
        return _json({"jobs": [j.public() for j in runner.all_jobs()],
                      "workers": runner.workers,
                      "inspect_workers": getattr(runner, "inspect_workers", 0)})

    async def job(request: Request) -> Response:
        found = runner.get(request.path_params["job_id"])
        if found is None:
            raise ApiError(404, "no such job (it may have finished long ago)")
        return _json(found.public())

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

    def _tables_job(needs: list[str]) -> Any:
        try:
            return tables.ensure(needs)
        except QueueFull as exc:
            raise _jobs_full(exc) from None

    def _full(exc: StoreFull) -> ApiError:
        return ApiError(503, str(exc), retry_after=exc.retry_after)

    def _refresh(game: Any) -> None:
        """The tables built since handed to ``game``'s players, and its advice note (in a
        request thread: the first P(win) player of a game loads its tables)."""
        game.advice_note = tables.attach(game.session)

    def _view(game: Any) -> dict:
        state = game.view()
        state.setdefault("advice_note", None)  # (a family's view without the advisor note)
        return state

    def _prepare(spec: NewGame, advisor: bool) -> Any:
        """The job of the first table the game must wait for (None: none), after starting
        the builds of those it reads later."""
        wait, later = tables.game_plan(spec.game, spec.opponents, advisor,
                                       max(1, len(spec.people)))
        preparing = _tables_job(wait)
        if preparing is None:
            tables.start(later)  # read from the last round on, or by the P(win) column
        return preparing

    async def create(request: Request) -> Response:
        spec = parse_new_game(await read_json(request), WEB_GAMES, bots)
        try:
            store.check_room()
        except StoreFull as exc:
            raise _full(exc) from None
        try:
            await run_in_threadpool(check_seats, spec)
        except ValueError as exc:
            raise ApiError(400, str(exc)) from None
        preparing = _prepare(spec, spec.advisor)
        if preparing is not None:
            return _preparing(preparing)

        def build() -> tuple[Any, list[dict], dict]:
            with BUILD_LOCK:  # loads (never solves: the tables are ready) one at a time
                game = _new_game(spec, agents, auto_seconds)
            _refresh(game)
            frames = game.bot_frames(start=True)
            return game, frames, _view(game)  # (the view computes the advice: not in the loop)

        try:
            game, frames, state = await run_in_threadpool(build)
        except ValueError as exc:  # a player that cannot be built for this game
            raise ApiError(400, str(exc)) from None
        except RuntimeError as exc:  # a bot that chose an illegal action
            raise ApiError(500, f"a bot failed: {exc}") from None
        try:
            key = store.add(game, spec)
        except StoreFull as exc:
            raise _full(exc) from None
        return _json({"id": key, "state": state, "frames": frames}, 201)

    async def show(request: Request) -> Response:
        entry = _entry(request)

        def work() -> dict:
            _refresh(entry.game)  # the P(win) column or a last-turn table ready since
            return _view(entry.game)

        async with _locked(entry):
            state = await run_in_threadpool(work)
        return _json({"id": request.path_params["game_id"], "state": state})

    async def move(request: Request) -> Response:
        entry = _entry(request)
        body = await read_json(request)
        checked = parse_move(body, entry.game.moves, entry.game.n_boxes)

        def work() -> dict:
            _refresh(entry.game)  # a last-turn table ready since, before the bots play
            result = entry.game.move(checked)
            _refresh(entry.game)  # the P(win) column ready since
            return {**result, "state": _view(entry.game)}

        try:
            async with _locked(entry):
                result = await run_in_threadpool(work)
        except IllegalMove as exc:
            raise ApiError(409, str(exc), legal=exc.legal) from None
        except RuntimeError as exc:  # a bot that chose an illegal action
            raise ApiError(500, f"a bot failed: {exc}") from None
        entry.moved = True
        return _json({"id": request.path_params["game_id"], **result})

    async def advisor(request: Request) -> Response:
        entry = _entry(request)
        on = parse_advisor(await read_json(request))
        spec = entry.spec
        if on and spec is not None:
            preparing = _prepare(spec, True)
            if preparing is not None:
                return _preparing(preparing)

        def work() -> dict:
            entry.game.set_advisor(on)
            _refresh(entry.game)
            return _view(entry.game)

        async with _locked(entry):
            state = await run_in_threadpool(work)
        return _json({"id": request.path_params["game_id"], "state": state})

    async def delete(request: Request) -> Response:
        if not store.remove(request.path_params["game_id"]):
            raise ApiError(404, "no such game (it may have expired)")
        return Response(status_code=204)

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return _error(exc.status, exc.message, exc.retry_after, **exc.extra)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path.startswith("/api/"):
            return _error(exc.status_code, str(exc.detail))
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code,
                                 headers=exc.headers)

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("error in %s %s", request.method, request.url.path)
        return _error(500, f"internal error: {type(exc).__name__}")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if warm:
            runner.start()
            tables.warm_up(next(iter(WEB_GAMES)))
        try:
            yield
        finally:  # the server stops: so do the workers, whatever they are doing
            await run_in_threadpool(runner.shutdown)

    routes = [
        Route("/", page),
        Route("/favicon.ico", favicon),
        Route("/api/health", health),
        Route("/api/ready", ready),
        Route("/api/config", config),
        Route("/api/jobs", jobs, methods=["GET"]),
        Route("/api/jobs/{job_id}", job, methods=["GET"]),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{game_id}", show, methods=["GET"]),
        Route("/api/games/{game_id}", delete, methods=["DELETE"]),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/advisor", advisor, methods=["POST"]),
        *inspect_routes(agents, runner=runner, tables=tables, time_limit=inspect_seconds),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SecurityHeaders), Middleware(HttpVersionGuard)]
    if allowed_hosts:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    middleware += [Middleware(OriginGuard), Middleware(RequestLimit, limit=max_requests)]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan, exception_handlers={
        ApiError: api_error, HTTPException: http_error, Exception: server_error})
    app.state.store = store
    app.state.agents = agents
    app.state.runner = runner
    app.state.tables = tables
    app.state.max_requests = max_requests
    return app
