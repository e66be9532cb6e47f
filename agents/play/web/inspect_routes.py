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
checked (numbers: ASCII digits, within bounds); anything else is answered ``400`` with one
line of JSON, ``{"error": ...}``.

Habits are cached per seed (:mod:`.inspect_work`): a range reuses every seed an earlier range
computed, and a single seed's inspection is kept once done (asked again, it is answered from
there: no new job).  An agent that does not play the game is refused (400) before any job.
With a :class:`~agents.play.web.jobs.JobRunner` (the app's), inspections run in the worker
processes of its inspection lane -- never waiting behind a table build -- one never blocking
another request, each stopped at ``time_limit`` seconds;
an answer not ready within :data:`QUICK_WAIT` seconds -- or one that needs a solved table
first -- is a 202 ``{"preparing": JOB}``: poll ``GET /api/jobs/<id>``, then ask again.  An
inspection stopped at its time limit is answered 504 with a message that says so.  Without a
runner (a bare app of these routes), inspections run in a request thread, one at a time.
"""

from __future__ import annotations

import re
import threading
import time
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
    inspect,
    inspector,
)
from agents.families import family
from agents.paths import package_data
from agents.play.web.inspect_work import (
    SeedCache,
    build_player,
    habits_job,
    inspect_job,
    merge_fragments,
    seed_fragments,
)
from agents.play.web.jobs import Job, JobRunner, QueueFull, WorkFailed
from agents.play.web.players import WEB_GAMES

__all__ = ["DEFAULT_GAMES", "inspect_routes"]

STATIC = package_data("play", "web", "static")
#: the games a request may name: the web app's whose family can be inspected (the
#: ``"inspection"`` hook; their exact tables are listed in :mod:`.tables`; others would be
#: solved)
DEFAULT_GAMES = tuple(g for g, (_, fam) in WEB_GAMES.items()
                      if family(fam).has_hook("inspection"))
#: inspections kept in memory (payloads of a few hundred kB)
CACHE_SIZE = 32
#: seconds a request waits for its inspection before answering 202 with the job
QUICK_WAIT = 2.0
#: how long a stopped or failed inspection is answered with its error (then it may run again)
FAILED_SHOWN_SECONDS = 60.0
_SEED = re.compile(r"[0-9]{1,19}")
_SEED_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?")
#: the page loads its script and style from this server and fetches only its API
PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
               "frame-ancestors 'none'; form-action 'self'")
_ASSETS = {"inspect.js": "text/javascript", "inspect.css": "text/css"}


class BadRequest(ValueError):
    """A request the API refuses (answered 400 with its message)."""


def _error(message: str, status: int = 400, retry_after: int | None = None) -> JSONResponse:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status,
                        headers=headers)


def _preparing(job: Job) -> JSONResponse:
    return JSONResponse({"preparing": job.public()}, status_code=202,
                        headers={"Cache-Control": "no-store"})


class _InspectService:
    """The agents and games the server allows, the built players (without a runner), a
    small cache of recent single-seed answers and the per-seed cache of habits."""

    def __init__(self, agents: dict[str, object], games: Sequence[str],
                 runner: JobRunner | None, tables: Any, time_limit: float) -> None:
        self.agents = dict(agents)
        self.games = tuple(games)
        self.runner = runner
        self.tables = tables
        self.time_limit = float(time_limit)
        self.seeds = SeedCache()
        self._players: dict[tuple[str, str], Any] = {}
        self._inspectors: dict[str, Inspector] = {}
        self._cache: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()
        self._inspectors_lock = threading.Lock()

    # -- parameters --------------------------------------------------------------------------
    @staticmethod
    def params(request: Request, allowed: Sequence[str], required: Sequence[str]
               ) -> dict[str, str]:
        query = request.query_params
        unknown = sorted(set(query.keys()) - set(allowed))
        if unknown:
            raise BadRequest(f"unknown parameter {unknown[0][:40]!r}; expected "
                             f"{', '.join(allowed) or 'none'}")
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
            raise BadRequest(f"seed must be an integer from 0 to {MAX_SEED} in ASCII digits")
        return int(text)

    @staticmethod
    def seed_range(text: str, per_seed: int) -> range:
        """``A-B`` (or ``A``) in ASCII digits, ``0 <= A <= B <= MAX_SEED``, at most
        ``MAX_HABIT_GAMES // per_seed`` seeds."""
        most = MAX_HABIT_GAMES // per_seed
        found = _SEED_RANGE.fullmatch(text) if len(text) <= 60 else None
        if found is None:
            raise BadRequest(f"seeds must look like A-B in ASCII digits (e.g. 0-49), got "
                             f"{text[:40]!r}")
        first, last = found[1], found[2] if found[2] is not None else found[1]
        if len(first) > 19 or len(last) > 19 or max(int(first), int(last)) > MAX_SEED:
            raise BadRequest(f"each seed must be an integer from 0 to {MAX_SEED}")
        a, b = int(first), int(last)
        if a > b:
            raise BadRequest(f"seeds A-B need A <= B, got {text[:40]!r}")
        if b - a + 1 > most:
            raise BadRequest(f"at most {most} seeds at once, got {b - a + 1}")
        return range(a, b + 1)

    # -- without a runner: in this thread ------------------------------------------------------
    def player(self, name: str, game: str) -> Any:
        """The allowed agent ``name`` for ``game`` (built once)."""
        key = (name, game)
        if key not in self._players:
            try:
                self._players[key] = build_player(self.agents[name], name, game)
            except WorkFailed as exc:
                raise BadRequest(str(exc)) from None
        return self._players[key]

    def inspector(self, game: str) -> Inspector:
        """The game family's inspection of ``game`` (its optimal player is built on first
        use, so that its header and games per seed cost nothing)."""
        with self._inspectors_lock:  # (not self._lock: run() holds it while computing)
            if game not in self._inspectors:
                self._inspectors[game] = inspector(game)
            return self._inspectors[game]

    def run(self, compute: Callable[[], Any]) -> Any:
        """``compute()`` under the lock (one inspection at a time); a ``ValueError`` is the
        request's fault (an agent that does not fit the game, an illegal move)."""
        with self._lock:
            try:
                return compute()
            except BadRequest:
                raise
            except ValueError as exc:
                raise BadRequest(str(exc).splitlines()[0] if str(exc) else repr(exc)) from None

    def cached(self, key: tuple) -> dict | None:
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        return None

    def keep(self, key: tuple, out: dict) -> None:
        with self._lock:
            self._cache[key] = out
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)

    # -- with a runner: in a worker process ----------------------------------------------------
    def _tables(self, needs: list[str]) -> Job | None:
        if self.tables is None:
            return None
        return self.tables.ensure(needs)

    def _recent_failure(self, key: str) -> Job | None:
        last = self.runner.latest(key) if self.runner is not None else None
        if last is not None and last.state in ("failed", "cancelled") and \
                last.finished is not None and \
                time.monotonic() - last.finished < FAILED_SHOWN_SECONDS:
            return last
        return None

    @staticmethod
    def failure(job: Job) -> JSONResponse:
        """The answer to a request whose job failed or was stopped."""
        if job.requester_error:
            return _error(job.error or "the inspection was refused")
        if job.timed_out:
            return _error(f"the inspection was cancelled: {job.error}; ask for fewer seeds",
                          504)
        if job.state == "cancelled":
            return _error(f"the inspection was cancelled: {job.error}", 503, retry_after=10)
        return _error(f"the inspection failed: {job.error}", 500)

    async def _submit(self, key: str, what: str, fn: Callable, args: tuple,
                      **kwargs: Any) -> Job:
        """The job of ``key``, in the runner's inspection lane (never behind a table
        build)."""
        try:
            return self.runner.submit(key, what, fn, args, time_limit=self.time_limit,
                                      lane="inspect", **kwargs)
        except QueueFull as exc:
            raise Busy(str(exc)) from None

    def check_plays(self, name: str, game: str) -> None:
        """A 400 now, before any job, for an agent that does not play ``game``."""
        if game not in self.plays(name):
            raise BadRequest(f"agent {name!r} does not play {game}; it plays "
                             f"{', '.join(self.plays(name)) or 'none of these games'}")

    # -- answers -------------------------------------------------------------------------------
    async def inspect(self, p: dict[str, str]) -> Response:
        name, game, seed = self.agent_name(p["agent"]), self.game_name(p["game"]), \
            self.seed(p["seed"])
        other = self.agent_name(p["agent2"]) if p.get("agent2") else None
        for agent in (name, other) if other else (name,):
            self.check_plays(agent, game)
        key = ("inspect", name, other, game, seed)
        found = self.cached(key)
        if found is not None:
            return JSONResponse(found)
        if self.runner is None:
            def compute() -> dict:
                agent = self.player(name, game)
                second = self.player(other, game) if other else None
                return inspect(agent, game, seed, name=name, other=second, other_name=other,
                               optimal=self.inspector(game))

            out = await run_in_threadpool(self.run, compute)
            self.keep(key, out)
            return JSONResponse(out)
        job_key = f"inspect:{name}:{other}:{game}:{seed}"
        finished = self.runner.latest(job_key)
        if finished is not None and finished.state == "done":  # asked again once it is done
            self.keep(key, finished.result)
            return JSONResponse(finished.result)
        failed = self._recent_failure(job_key)
        if failed is not None:
            return self.failure(failed)
        preparing = self._tables([*_needs(game, [name, other])])
        if preparing is not None:
            return _preparing(preparing)
        job = await self._submit(
            job_key, f"the inspection of {name}'s game of seed {seed} of {game}", inspect_job,
            (self.agents[name], name, self.agents.get(other) if other else None, other, game,
             seed), priority=0)
        if not await self.runner.wait(job, QUICK_WAIT):
            return _preparing(job)
        if job.state != "done":
            return self.failure(job)
        self.keep(key, job.result)
        return JSONResponse(job.result)

    def _merged(self, name: str, game: str, seeds: range, fragments: dict[int, dict]) -> dict:
        header = self.inspector(game).header()
        found = merge_fragments([fragments[s] for s in seeds], name, header["unit"])
        return {**header, "agents": [name], "habits": [found]}

    async def habits(self, p: dict[str, str]) -> Response:
        name, game = self.agent_name(p["agent"]), self.game_name(p["game"])
        seeds = self.seed_range(p["seeds"], self.inspector(game).games_per_seed())
        self.check_plays(name, game)
        fragments = self.seeds.get(name, game, seeds)
        missing = [s for s in seeds if s not in fragments]
        if missing and self.runner is None:
            def compute() -> dict[int, dict]:
                return seed_fragments(self.player(name, game), self.inspector(game), missing,
                                      name)

            self.seeds.put(name, game, await run_in_threadpool(self.run, compute))
            fragments = self.seeds.get(name, game, seeds)
            missing = [s for s in seeds if s not in fragments]
        if missing:
            job_key = f"habits:{name}:{game}:{seeds.start}-{seeds.stop - 1}"
            failed = self._recent_failure(job_key)
            if failed is not None:
                return self.failure(failed)
            preparing = self._tables(_needs(game, [name]))
            if preparing is not None:
                return _preparing(preparing)
            job = await self._submit(
                job_key, f"the habits of {name} over {len(seeds)} seeds of {game}", habits_job,
                (self.agents[name], name, game, missing), on_partial=self._keep_partial)
            if not await self.runner.wait(job, QUICK_WAIT):
                return _preparing(job)
            if job.state != "done":
                return self.failure(job)
            fragments = self.seeds.get(name, game, seeds)
            if len(fragments) < len(seeds):  # evicted meanwhile: compute again
                return _preparing(job)
        return JSONResponse(await run_in_threadpool(self._merged, name, game, seeds, fragments))

    def _keep_partial(self, data: dict) -> None:
        self.seeds.put(data["agent"], data["game"], data["fragments"])

    def plays(self, name: str) -> list[str]:
        """The games agent ``name`` plays, as far as its entry says (``plays(game)``)."""
        plays = getattr(self.agents[name], "plays", None)
        return [g for g in self.games if not callable(plays) or plays(g)]

    def options(self) -> dict:
        return {"agents": sorted(self.agents), "games": list(self.games),
                "plays": {name: self.plays(name) for name in sorted(self.agents)},
                "max_habit_games": MAX_HABIT_GAMES}


class Busy(Exception):
    """No job can start now (answered 503 with Retry-After)."""


def _needs(game: str, names: Sequence[str | None]) -> list[str]:
    from agents.play.web.tables import inspect_needs

    return inspect_needs(game, [n for n in names if n])



def inspect_routes(agents: dict[str, object], *, games: Sequence[str] = DEFAULT_GAMES,
                   runner: JobRunner | None = None, tables: Any = None,
                   time_limit: float = 120.0) -> list[BaseRoute]:
    """The routes of the inspect view (see the module docstring).

    Args:
        agents: the names a request may use -> an agent object (anything with ``act`` or
            ``act_batch``, used for every game as it is) or a factory ``game -> agent``
            (called once per game, e.g. ``lambda game: agents.load(spec, game)``); with a
            ``runner`` every entry must pickle (the app's
            :class:`~agents.play.web.players.AgentFactory` do).
        games: the games a request may name.
        runner: run inspections in its worker processes (default: in a request thread).
        tables: the app's :class:`~agents.play.web.tables.Tables` (with ``runner``): a table
            an inspection needs is prepared first.
        time_limit: seconds an inspection may run in a worker before it is stopped.
    """
    service = _InspectService(agents, games, runner, tables, time_limit)

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

    def endpoint(method: Callable[[dict[str, str]], Any], allowed: Sequence[str],
                 required: Sequence[str]) -> Callable:
        async def handle(request: Request) -> Response:
            try:
                return await method(service.params(request, allowed, required))
            except BadRequest as exc:
                return _error(str(exc))
            except (Busy, QueueFull) as exc:
                return _error(f"cannot start the inspection now: {exc}", 503, retry_after=10)
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
