"""A bounded load test of the web app over HTTP (``dice-env bench web``).

``games`` games are played at once through the JSON API, each to its end (its creation, then
moves chosen by a seeded random player from the legal moves the view lists), within a
``window`` of seconds: a game still playing when the window closes stops there, and the report
says how many were played to the end within it (``requests`` caps each game's requests instead,
0: no cap but :data:`MAX_REQUESTS`).  Between two requests a game waits about ``think`` seconds,
as a person does (0: as fast as the server answers -- a test of throughput, where latency is
mostly the queue of the other games).  Every request's latency is measured and every failure
counted.  Then each game is played again, alone, with the same seed and the same moves (as many
requests as it made under load): its sequence of answers (states, bots' frames, messages) must
be the same as under load -- no game is affected by another.  Before the timed part one game of
each kind is started and dropped, so that the server has loaded its players, and the tables
they read have been built.  The report gives the seconds of each part (setup, the window, the
replays), so that the whole run's time is accounted for.  :func:`load_test` starts its own
server on a free loopback port when given no URL.

The worst case (:mod:`.load_worst`, the default of ``dice-env bench web``): the games play while
the server's workers solve a table from a cold cache and inspect an agent's habits over 100
seeds; the report adds the latencies of the moves and of ``/api/health``, what ``/api/ready``
said during the run, and how fast the server stops on SIGTERM in the middle of the build.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from agents.play.web.load_worst import WorstCase, cold_server, percentile, settle

#: requests of one game at most, whatever ``requests`` says (a game that never ends)
MAX_REQUESTS = 1000
#: the default window of the timed games, in seconds
WINDOW_SECONDS = 60.0

#: the games the load test cycles through: (game, bots, advisor)
PLANS = (
    ("penta", ["heuristic"], False),
    ("fivethousand", ["heuristic"], False),
    ("dice-poker", ["greedy", "random"], False),
    ("penta", [], True),
    ("fivethousand", [], False),
    ("penta", ["optimal"], True),
)


@dataclass
class GameRun:
    """One game's answers and timings."""

    index: int
    trace: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    move_latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    over: bool = False


@dataclass
class LoadResult:
    """What a load test measured."""

    games: int
    requests: int
    seconds: float
    latencies: list[float]
    errors: list[str]
    mismatches: list[int]
    finished_games: int

    move_latencies: list[float] = field(default_factory=list)
    #: the worst case's measurements (:class:`~agents.play.web.load_worst.WorstCase`)
    worst: WorstCase | None = None
    #: seconds a game waited between two requests, about
    think: float = 0.0
    #: the window of the timed games, in seconds (None: no window)
    window: float | None = None
    #: seconds of each part of the run: ``{"setup", "games", "replays"}``
    phases: dict[str, float] = field(default_factory=dict)

    def percentile(self, q: float, latencies: list[float] | None = None) -> float:
        """The ``q``-th percentile of ``latencies`` (default: every request's), in seconds."""
        return percentile(self.latencies if latencies is None else latencies, q)

    def lines(self) -> list[str]:
        """A report for people."""
        ms = [1000 * self.percentile(q) for q in (50, 90, 99)]
        paced = f", about {self.think:g} s apart" if self.think else ""
        within = f" within the {self.window:g} s window" if self.window else ""
        out = [f"{self.games} games at once, {self.requests} requests{paced} in "
               f"{self.seconds:.1f} s "
               f"({self.requests / max(self.seconds, 1e-9):.0f} requests/s); "
               f"{self.finished_games} of {self.games} games played to the end{within}",
               f"latency p50 {ms[0]:.1f} ms, p90 {ms[1]:.1f} ms, p99 {ms[2]:.1f} ms",
               f"errors: {len(self.errors)}",
               f"games whose answers differ from the same game played alone: "
               f"{len(self.mismatches)}"]
        out += [f"  error: {e}" for e in self.errors[:10]]
        if self.worst is not None:
            out += self.worst.lines(self.move_latencies)
        if self.phases:
            total = sum(self.phases.values())
            out.append(f"whole run: {total:.1f} s (setup {self.phases.get('setup', 0):.1f} s, "
                       f"the games {self.phases.get('games', 0):.1f} s, the replays alone "
                       f"{self.phases.get('replays', 0):.1f} s)")
        return out

    @property
    def ok(self) -> bool:
        """No error, no game disturbed (and in the worst case, a clean stop)."""
        return not self.errors and not self.mismatches and (
            self.worst is None or self.worst.ok)



def game_request(index: int, seed: int) -> dict:
    """The new-game body of game ``index``."""
    game, bots, advisor = PLANS[index % len(PLANS)]
    return {"game": game, "opponents": bots, "seed": seed + index, "advisor": advisor}


def choose_move(state: dict, rng: random.Random) -> dict:
    """A random legal move of the view ``state`` (the human's turn), among those the page
    offers (:mod:`.layout`): a legal box of a score card, or an enabled button (with dice
    picked at random, never all of them, where it sends the picked dice)."""
    boxes = [k for k, ok in enumerate(state.get("legal_boxes") or []) if ok]
    buttons = [b for b in state["controls"]["buttons"] if b["enabled"]]
    if boxes and (not buttons or rng.random() >= 0.6):
        return {"kind": "score", "box": rng.choice(boxes)}
    chosen = rng.choice(buttons)
    move = dict(chosen["move"])
    if chosen["picked"]:
        n = len(state["dice"])
        move[chosen["picked"]] = sorted(rng.sample(range(n), rng.randint(0, n - 1)))
    return move


async def prepared(client: Any, method: str, path: str, body: dict | None, response: Any,
                   poll: float = 0.5) -> Any:
    """Follow a 202 ``{"preparing": job}``: poll the job until it ends, then send the request
    again (as the page does); the final response."""
    while response.status_code == 202:
        job = response.json()["preparing"]
        while job["state"] in ("queued", "running"):
            await asyncio.sleep(poll)
            job = (await client.get(f"/api/jobs/{job['job']}")).json()
        if job["state"] != "done":
            raise RuntimeError(f"{job['what']}: {job['state']}: {job['error']}")
        response = await client.request(method, path, json=body)
    return response


def _digest(answer: dict) -> str:
    return json.dumps({k: v for k, v in answer.items() if k != "id"}, sort_keys=True)


async def play_game(client: Any, index: int, requests: int, seed: int,
                    think: float = 0.0, deadline: float | None = None) -> GameRun:
    """Play game ``index`` to its end, with at most ``requests`` requests (its creation
    included; 0: :data:`MAX_REQUESTS`), about ``think`` seconds apart (drawn from 0.5 to 1.5
    times it, from the game's own generator), sending none after the ``deadline``
    (``time.monotonic()``)."""
    requests = requests or MAX_REQUESTS
    run = GameRun(index)
    rng = random.Random(seed * 1_000_003 + index)
    pause = random.Random(seed * 1_000_003 + index + 1)

    async def call(method: str, path: str, body: dict | None = None) -> dict | None:
        started = time.perf_counter()
        try:
            response = await client.request(method, path, json=body)
            if response.status_code == 202:  # a table is being prepared: wait for it
                response = await prepared(client, method, path, body, response)
        except Exception as exc:  # noqa: BLE001 - a load test reports every failure
            run.errors.append(f"game {index}: {method} {path}: {type(exc).__name__}: {exc}")
            return None
        finally:
            run.latencies.append(time.perf_counter() - started)
            if path.endswith("/move"):
                run.move_latencies.append(run.latencies[-1])
        if response.status_code >= 400:
            run.errors.append(f"game {index}: {method} {path}: {response.status_code} "
                              f"{response.text[:200]}")
            return None
        return response.json() if response.status_code != 204 else {}

    answer = await call("POST", "/api/games", game_request(index, seed))
    if answer is None:
        return run
    key = answer["id"]
    run.trace.append(_digest(answer))
    for _ in range(requests - 1):
        state = answer["state"]
        if state["over"]:
            break
        if think > 0:
            await asyncio.sleep(think * pause.uniform(0.5, 1.5))
        if deadline is not None and time.monotonic() >= deadline:
            break
        answer = await call("POST", f"/api/games/{key}/move", choose_move(state, rng))
        if answer is None:
            break
        run.trace.append(_digest(answer))
    run.over = answer is not None and answer["state"]["over"]
    await client.request("DELETE", f"/api/games/{key}")
    return run


async def _run(url: str, games: int, requests: int, seed: int, timeout: float,
               worst: WorstCase | None = None, think: float = 0.0,
               window: float | None = WINDOW_SECONDS) -> LoadResult:
    import httpx

    from agents.play.web.server import KEEP_ALIVE_SECONDS

    began = time.perf_counter()
    # idle connections are dropped before the server's keep-alive closes them (no race)
    limits = httpx.Limits(max_connections=games + 4, max_keepalive_connections=games + 4,
                          keepalive_expiry=KEEP_ALIVE_SECONDS - 2)
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:
        for i in range(len(PLANS)):  # untimed: the server loads each kind of player once
            await play_game(client, i, 2, seed)
        await settle(client)  # and builds the tables these games read in the background
        if worst is not None:
            await worst.start(client)
        started = time.perf_counter()
        deadline = None if not window else time.monotonic() + window
        runs = await asyncio.gather(*(play_game(client, i, requests, seed, think, deadline)
                                      for i in range(games)))
        seconds = time.perf_counter() - started
        if worst is not None:
            await worst.finish(client)
        replays = time.perf_counter()
        mismatches = []
        for run in runs:  # each game again, alone, as far as it went under load
            alone = await play_game(client, run.index, max(1, len(run.trace)), seed)
            if alone.trace != run.trace or alone.errors:
                mismatches.append(run.index)
        ended = time.perf_counter()
    return LoadResult(games, sum(len(r.latencies) for r in runs), seconds,
                      [x for r in runs for x in r.latencies], [e for r in runs for e in r.errors],
                      mismatches, sum(r.over for r in runs),
                      [x for r in runs for x in r.move_latencies], worst, think, window,
                      {"setup": started - began, "games": replays - started,
                       "replays": ended - replays})


def run_load(url: str, games: int = 50, requests: int = 0, seed: int = 0,
             timeout: float = 60.0, worst: WorstCase | None = None,
             think: float = 0.0, window: float | None = WINDOW_SECONDS) -> LoadResult:
    """Play ``games`` games at once against the server at ``url``, each to its end within
    ``window`` seconds (None or 0: no window; ``requests`` requests each at most, 0: no cap
    but :data:`MAX_REQUESTS`; ``timeout`` seconds at most per request, about ``think``
    seconds apart), then each alone again; the measurements.  With ``worst`` (a
    :class:`~agents.play.web.load_worst.WorstCase`), its long work runs behind the games."""
    if games < 1 or requests < 0:
        raise ValueError("games must be at least 1 and requests at least 0 (0: no cap)")
    out: list = []

    def target() -> None:  # its own thread: the caller may be running an event loop
        try:
            out.append(asyncio.run(_run(url.rstrip("/"), games, requests, seed, timeout,
                                        worst, think, window)))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            out.append(exc)

    thread = threading.Thread(target=target, name="web-load")
    thread.start()
    thread.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def load_test(url: str | None = None, games: int = 50, requests: int = 0, seed: int = 0,
              timeout: float = 60.0, worst: WorstCase | None = None, workers: int = 2,
              think: float = 0.0, window: float | None = WINDOW_SECONDS) -> LoadResult:
    """:func:`run_load` against the server at ``url``, or (``None``) against a server started
    for the test on a free loopback port, room for ``2 * games`` games, stopped afterwards:
    with ``worst`` a server process on a cold cache (:func:`~agents.play.web.load_worst.
    cold_server`, ``workers`` worker processes), else a server in this process."""
    if url is not None:
        return run_load(url, games, requests, seed, timeout, worst, think, window)
    if worst is not None:
        with cold_server(worst, 2 * games + len(PLANS) + 2, workers) as cold_url:
            result = run_load(cold_url, games, requests, seed, timeout, worst, think, window)
        return result  # worst's stop measurements are in once the server has stopped
    from agents.play.web.app import create_app
    from agents.play.web.server import serve_in_thread

    server = serve_in_thread(create_app(max_games=2 * games))
    try:
        return run_load(server.url, games, requests, seed, timeout, think=think,
                        window=window)
    finally:
        server.stop()
