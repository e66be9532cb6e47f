"""The web service's findings of issue 46, each replayed as a request that now gets the fixed
answer: a game against bots with the advisor on starts at once on a cold cache (advice, and a
note on the win-probability tables still being built); every check of a request before any job;
a finished inspection served from its cache, in a lane of its own; health and readiness answered
past the connection limit, every 503 with ``Retry-After``; ``GET /api/jobs``; one name limit;
HTTP versions other than 1.0, 1.1 and 2 refused.  (Progress and ``eta_seconds``:
``tests/test_web_jobs.py``; ``web-load`` playing games to the end: ``tests/test_web_load.py``.)"""

from __future__ import annotations

import socket
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from test_web_api import _client, _NoJobs, _one_line_error, _raw  # noqa: E402

from agents.play.web.app import create_app  # noqa: E402
from agents.play.web.jobs import JobRunner  # noqa: E402
from agents.play.web.players import allowed_agents  # noqa: E402


@pytest.fixture(scope="module")
def agents():
    return allowed_agents()


@pytest.fixture
def quiet(agents):
    """An app whose long work never runs, and its runner."""
    runner = _NoJobs()
    return _client(create_app(agents, runner=runner)), runner


@pytest.fixture
def inspecting(quiet, monkeypatch):
    """``quiet``, with every table taken as ready: an inspection's own job is submitted."""
    client, runner = quiet
    monkeypatch.setattr(client.app.state.tables, "ensure", lambda keys: None)
    return client, runner


def _poll(client, job: dict, seconds: float = 600.0) -> dict:
    """Poll a job until it ends (a bound against a hung test, not a measurement)."""
    deadline = time.monotonic() + seconds
    while job["state"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = client.get(f"/api/jobs/{job['job']}").json()
    assert job["state"] == "done", job
    return job


# -- 1. a game against bots with the advisor on starts at once ----------------------------------
def test_a_penta_game_against_a_bot_with_the_advisor_starts_on_a_cold_cache(
        agents, tmp_path, monkeypatch):
    """Was 202 for about 14.5 minutes ("the win-probability tables of Penta").  On a cold cache
    the game waits only for the expected-score tables (a 202 while they are solved, seconds),
    then starts with the advice and a note; the win-probability tables are built behind it, and
    the next view after they are ready has the P(win) column and no note."""
    monkeypatch.setenv("DICE_ENV_CACHE", str(tmp_path))
    body = {"game": "penta", "opponents": ["heuristic"], "advisor": True, "seed": 4}
    with _client(create_app(agents, workers=1)) as client:
        r = client.post("/api/games", json=body)
        while r.status_code == 202:  # the optimal tables of Penta, and nothing else
            job = r.json()["preparing"]
            assert job["what"] == "the optimal tables of Penta", job
            _poll(client, job)
            r = client.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        state = r.json()["state"]
        assert state["advisor"] and state["advice"]["options"]
        assert state["advice"]["with_win"] is False
        assert state["advice_note"].startswith("Expected-score advice for now: the "
                                               "win-probability tables of Penta are ")
        building = [j for j in client.get("/api/jobs").json()["jobs"]
                    if j["what"] == "the win-probability tables of Penta"]
        assert len(building) == 1 and building[0]["state"] in ("queued", "running")
        _poll(client, building[0])
        later = client.get(f"/api/games/{r.json()['id']}").json()["state"]
        assert later["advice"]["with_win"] is True and later["advice_note"] is None
        assert any(o["win"] is not None for o in later["advice"]["options"])


def test_a_warm_server_builds_the_first_games_table_at_start_up(agents, tmp_path, monkeypatch):
    """``dice-env web`` (``warm``) starts the expected-score table of the menu's first game as
    it starts, first in the queue with every core, so that a first visitor's game does not
    wait for all of it; the late tables wait for their sources; without ``warm`` nothing
    starts before a request."""
    from agents.play.web.players import WEB_GAMES

    monkeypatch.setenv("DICE_ENV_CACHE", str(tmp_path))
    first = next(iter(WEB_GAMES))
    submitted = []

    class Recording(_NoJobs):
        def start(self):
            pass

        def shutdown(self):
            pass

        def submit(self, key, what, fn, args=(), **kwargs):
            submitted.append((args, kwargs.get("priority"), kwargs.get("threads")))
            return super().submit(key, what, fn, args, **kwargs)

    with _client(create_app(agents, runner=Recording(), warm=True)):
        assert [a for a, _, _ in submitted] == [(f"{first}/dp",)]
        assert submitted[0][1] == 0 and submitted[0][2] >= 1
    del submitted[:]
    with _client(create_app(agents, runner=Recording())):
        assert submitted == []


def test_every_family_still_starts_with_the_advisor(quiet):
    """5000 and Pig with the advisor: their views carry ``advice_note`` (null) too."""
    client, _ = quiet
    for body in ({"game": "pig", "advisor": True},
                 {"game": "fivethousand", "advisor": True, "opponents": ["heuristic"]}):
        r = client.post("/api/games", json=body)
        if r.status_code == 202:  # 5000's two-player table, not built by this runner
            assert r.json()["preparing"]["what"] == "the optimal tables of two-player 5000"
            continue
        assert r.status_code == 201 and r.json()["state"]["advice_note"] is None


# -- 3. every check before any job ----------------------------------------------------------------
@pytest.mark.parametrize("body", [
    {"game": "penta", "people": ["A", "B", "C", "D", "E", "F", "G"]},
    {"game": "penta", "people": ["A", "B", "C", "D", "E"], "opponents": ["heuristic"] * 2},
    {"game": "fivethousand", "people": ["A", "B", "C", "D", "E"], "opponents": ["random"] * 4},
    {"game": "dice-poker", "people": ["Ann", "ann"], "opponents": ["win-value"]},
])
def test_a_request_refused_without_the_advisor_is_refused_the_same_with_it(quiet, body):
    """Was: 7 people with ``advisor: true`` got a 202 and a build of tens of minutes, without
    the advisor a 400.  Now the same 400, and no job."""
    client, runner = quiet
    plain = client.post("/api/games", json=body)
    message = _one_line_error(plain, 400)
    advised = client.post("/api/games", json={**body, "advisor": True})
    assert _one_line_error(advised, 400) == message
    assert runner.jobs == {}


def test_an_agent_that_does_not_play_the_game_is_refused_before_any_job(quiet):
    client, runner = quiet
    r = client.get("/api/inspect", params={"agent": "win-value", "game": "fivethousand",
                                           "seed": "3"})
    assert "does not play fivethousand" in _one_line_error(r, 400)
    assert runner.jobs == {}


# -- inspections: their own lane, served from their cache -----------------------------------------
def test_inspections_run_in_their_own_lane(inspecting):
    """Was: two table builds filled both workers and inspections sat queued for minutes.
    (That a job of the inspection lane runs while every build worker is busy:
    ``tests/test_web_jobs.py``.)"""
    client, runner = inspecting
    lanes = []

    def submit(key, what, fn, args=(), **kwargs):
        lanes.append((key.split(":")[0], kwargs.get("lane", "build")))
        return _NoJobs.submit(runner, key, what, fn, args, **kwargs)

    runner.submit = submit
    client.get("/api/inspect", params={"agent": "greedy", "game": "penta", "seed": "3"})
    client.get("/api/inspect/habits", params={"agent": "greedy", "game": "penta",
                                              "seeds": "0-1"})
    assert lanes == [("inspect", "inspect"), ("habits", "inspect")]


def test_a_finished_inspection_is_served_from_its_cache(agents):
    """Was: a finished single-seed inspection asked again ran again, a new job each time."""
    with JobRunner(workers=1, grace=1.0) as runner:
        client = _client(create_app(agents, runner=runner))
        params = {"agent": "greedy", "game": "penta", "seed": "7"}
        first = client.get("/api/inspect", params=params)
        for _ in range(2):  # the optimal tables of Penta, then the inspection itself
            if first.status_code != 202:
                break
            _poll(client, first.json()["preparing"])
            first = client.get("/api/inspect", params=params)
        assert first.status_code == 200, first.text
        again = client.get("/api/inspect", params=params)
        assert again.status_code == 200 and again.json() == first.json()
        inspections = [j for j in runner.all_jobs() if j.key.startswith("inspect:")]
        assert len(inspections) == 1 and inspections[0].state == "done"


# -- the connection limit, Retry-After ------------------------------------------------------------
def test_past_the_connection_limit_health_and_ready_answer_and_503s_say_when(agents):
    """Was: with 256 open connections every request, ``/api/health`` included, got a
    plain-text 503 without Retry-After.  Here the limit is 8 (``2 * max_requests``)."""
    from agents.play.web.server import serve_in_thread

    running = serve_in_thread(create_app(agents, runner=_NoJobs(), max_requests=4))
    host, port = running.url.removeprefix("http://").split(":")
    idle = [socket.create_connection((host, int(port)), timeout=10) for _ in range(10)]
    try:
        time.sleep(0.2)  # the server has accepted them
        for path in ("/api/health", "/api/ready"):
            answer = _raw(running.url, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                       "Connection: close\r\n\r\n".encode())
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        busy = _raw(running.url, b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 b"Connection: close\r\n\r\n")
        head, _, text = busy.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503") and b"retry-after: 1" in head.lower()
        assert b"application/json" in head and b'"error": "the server is busy' in text
    finally:
        for sock in idle:
            sock.close()
    time.sleep(0.2)
    try:  # the connections closed, it answers again
        again = _raw(running.url, b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  b"Connection: close\r\n\r\n")
        assert again.startswith(b"HTTP/1.1 200")
    finally:
        running.stop()


def test_every_503_carries_retry_after():
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from agents.play.web.app import SecurityHeaders

    async def down(request):
        return PlainTextResponse("down", status_code=503)

    app = SecurityHeaders(Starlette(routes=[Route("/", down)]))
    r = _client(app).get("/")
    assert r.status_code == 503 and r.headers["retry-after"] == "1"


# -- GET /api/jobs, one name limit, HTTP versions --------------------------------------------------
def test_the_jobs_are_listed(inspecting):
    """Was a 404."""
    client, _ = inspecting
    assert client.get("/api/jobs").json()["jobs"] == []
    client.get("/api/inspect", params={"agent": "greedy", "game": "penta", "seed": "3"})
    listed = client.get("/api/jobs").json()
    assert [j["what"] for j in listed["jobs"]] == ["the inspection of greedy's game of seed 3 "
                                                  "of penta"]
    assert {"job", "what", "state", "progress", "eta_seconds"} <= set(listed["jobs"][0])


def test_one_name_limit_the_games_own(quiet):
    """Was: 100 characters in the API, 24 in the game."""
    from agents.play.seats import MAX_NAME
    from agents.play.web.validation import MAX_NAME_CHARS

    client, _ = quiet
    assert MAX_NAME_CHARS == MAX_NAME == 24
    r = client.post("/api/games", json={"game": "penta", "people": ["Ann", "B" * 25]})
    assert _one_line_error(r, 400) == ("the name 'BBBBBBBBBBBBBBBBBBBBBBBB'... has 25 "
                                       "characters; a name has at most 24")
    ok = client.post("/api/games", json={"game": "penta", "people": ["Ann", "B" * 24]})
    assert ok.status_code == 201 and ok.json()["state"]["names"] == ["Ann", "B" * 24]


@pytest.fixture(scope="module")
def live_url(agents):
    from agents.play.web.server import serve_in_thread

    server = serve_in_thread(create_app(agents, runner=_NoJobs()))
    yield server.url
    server.stop()


@pytest.mark.parametrize("version, status", [("1.0", b"200"), ("1.1", b"200"),
                                             ("9.9", b"505"), ("2.0", b"505"),
                                             ("0.9", b"505")])
def test_only_http_1_0_1_1_and_2_are_answered(live_url, version, status):
    """Was: a request line of ``HTTP/9.9`` answered 200."""
    answer = _raw(live_url, f"GET /api/health HTTP/{version}\r\nHost: 127.0.0.1\r\n"
                            "Connection: close\r\n\r\n".encode())
    assert answer.split(b" ")[1] == status, answer[:200]
    if status == b"505":
        assert b'"error": "HTTP version ' in answer
