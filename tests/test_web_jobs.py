"""Long work off the request path (issue 36, item 1): the job runner's worker processes, the
solved tables a request needs, the 202 + ``/api/jobs/<id>`` contract, ``/api/ready``, and
inspections that run as jobs, cached per seed and stopped at their time limit."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from test_web_api import _client  # noqa: E402  (one TestClient maker for the web tests)

from agents.play.web import job_worker as W  # noqa: E402
from agents.play.web import tables as T  # noqa: E402
from agents.play.web.app import create_app  # noqa: E402
from agents.play.web.job_worker import _ProgressBar  # noqa: E402
from agents.play.web.jobs import Job, JobRunner, Progress, WorkFailed  # noqa: E402
from agents.play.web.players import allowed_agents  # noqa: E402


def _close(a, b, where="") -> None:
    """``a == b``, floats to 1e-9 (sums taken in another order), nested."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-9), where
    else:
        assert a == b, where


def _wait(job: Job, seconds: float = 120.0) -> Job:
    """Wait for a job of a real runner (a bound against a hung test, not a measurement)."""
    deadline = time.monotonic() + seconds
    while not job.done and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.done, job.public()
    return job


# -- the work of the jobs below (module-level: a spawned worker imports them by name) ----------
def count_to(n: int, *, report: Progress) -> int:
    for i in range(n):
        report.partial(i)
        report.fraction((i + 1) / n)
    return n


def fail_plainly(*, report: Progress) -> None:
    raise RuntimeError("the disk is full")


def refuse(*, report: Progress) -> None:
    raise WorkFailed("agent 'greedy' cannot play fivethousand")


def write_forever(path: str, *, report: Progress) -> None:
    """Start an atomic write of ``path`` and never finish it (a solver killed half-way)."""
    from dice_env.io import atomic_open

    with atomic_open(path) as f:
        f.write(b"half a table")
        while True:
            time.sleep(0.05)


@pytest.fixture(scope="module")
def runner():
    with JobRunner(workers=1, grace=1.0) as r:
        yield r


def test_jobs_run_in_a_worker_report_progress_and_share_a_key(runner):
    parts: list[int] = []
    job = runner.submit("count", "counting", count_to, (5,), on_partial=parts.append)
    assert runner.submit("count", "counting", count_to, (5,)) is job  # joined, not repeated
    assert job.public()["state"] in ("queued", "running")
    _wait(job)
    assert job.state == "done" and job.result == 5 and parts == [0, 1, 2, 3, 4]
    assert job.public() == {"job": job.id, "what": "counting", "progress": 1.0,
                            "state": "done", "error": None, "estimated": False,
                            "eta_seconds": 0.0}
    assert runner.get(job.id) is job and runner.latest("count") is job
    again = runner.submit("count", "counting", count_to, (2,))  # a finished key runs again
    assert again is not job and _wait(again).result == 2


def test_failures_say_why_and_the_worker_carries_on(runner):
    failed = _wait(runner.submit("fail", "failing", fail_plainly))
    assert failed.state == "failed" and failed.error == "RuntimeError: the disk is full"
    assert not failed.requester_error
    refused = _wait(runner.submit("refuse", "refusing", refuse))
    assert refused.state == "failed" and refused.requester_error
    assert refused.error == "agent 'greedy' cannot play fivethousand"
    assert _wait(runner.submit("after", "counting", count_to, (1,))).result == 1


def test_a_job_past_its_time_limit_is_stopped_and_leaves_no_half_written_file(runner,
                                                                              tmp_path):
    target = tmp_path / "table.table"
    job = runner.submit("slow", "the slow table", write_forever, (str(target),),
                        time_limit=1.0, cleanup=(target,))
    _wait(job)
    assert job.state == "cancelled" and job.timed_out
    assert "stopped after 1 s, its time limit" in job.error and "the slow table" in job.error
    assert not target.exists() and not list(tmp_path.iterdir())  # no table, no temporary
    assert _wait(runner.submit("next", "counting", count_to, (1,))).result == 1  # new worker


def test_shutdown_stops_running_work_and_removes_its_temporaries(tmp_path):
    target = tmp_path / "table.table"
    runner = JobRunner(workers=1, grace=1.0)
    job = runner.submit("forever", "a table", write_forever, (str(target),), cleanup=(target,))
    queued = runner.submit("later", "counting", count_to, (1,))
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.05)  # the worker has begun writing
    assert list(tmp_path.glob("*.tmp"))
    runner.shutdown()
    assert job.state == "cancelled" and job.error == "the server is shutting down"
    assert queued.state == "cancelled"
    assert not list(tmp_path.iterdir())
    with pytest.raises(Exception, match="shutting down"):
        runner.submit("more", "counting", count_to, (1,))


def test_progress_stages_and_the_tqdm_stand_in():
    sent: list[tuple] = []
    report = Progress(sent.append)
    with report.stage(0.5, 1.0):
        report.fraction(0.5)  # throttled: within REPORT_EVERY of the last report? no: first
    assert sent[0] == ("progress", 0.75) and sent[-1] == ("progress", 1.0)

    sent.clear()
    W._CURRENT = Progress(sent.append)
    try:
        bar = _ProgressBar(total=4, desc="solve", unit="layer")
        bar.set_postfix(change="1e-3")  # any other tqdm method is a no-op
        for _ in range(4):
            bar.update(1)
        bar.close()
    finally:
        W._CURRENT = None
    assert sent[0] == ("progress", 0.25) and sent[-1] == ("progress", 1.0)


def test_an_estimate_is_marked():
    job = Job("id", "key", "a table", count_to, (), expected_seconds=100.0, state="running",
              started=time.monotonic() - 10)
    assert 0.09 < job.fraction() < 0.2 and job.public()["estimated"] is True
    assert 80 < job.public()["eta_seconds"] <= 90  # the expected time, less the time spent
    job.progress, job.reported = 0.3, True
    assert job.fraction() == 0.3 and job.public()["estimated"] is False


def test_progress_never_goes_back():
    """Issue 46: the bar went from 0.344 back to 0.098.  A report below an earlier one (a
    solver's second bar in one stage, or a later stage of build_table whose own bar starts at
    0) and a report below the time-based estimate shown before are both clamped."""
    sent: list[tuple] = []
    report = Progress(sent.append)
    with report.stage(0.0, 0.5):
        report.fraction(0.7)
        time.sleep(W.REPORT_EVERY)
        report.fraction(0.2)  # a second bar starts at 0: nothing below 0.35 is sent
    values = [x for _, x in sent]
    assert values == sorted(values) and values[0] == 0.35 and values[-1] == 0.5
    job = Job("id", "key", "a table", count_to, (), expected_seconds=10.0, state="running",
              started=time.monotonic() - 5)
    estimate = job.fraction()
    assert 0.45 < estimate <= 0.95
    job.progress, job.reported = 0.1, True  # the work's first report is below the estimate
    assert job.fraction() == estimate and job.public()["progress"] == round(estimate, 4)
    job.progress = 0.9
    assert job.fraction() == 0.9


def test_the_time_left_comes_from_the_time_spent_and_the_progress():
    job = Job("id", "key", "a table", count_to, (), state="running",
              started=time.monotonic() - 30)
    job.progress, job.reported = 0.25, True  # a quarter in 30 s: about 90 s left
    assert job.public()["eta_seconds"] == pytest.approx(90, abs=1)
    job.progress = 0.001  # too little done to tell
    job._shown = 0.0
    assert job.public()["eta_seconds"] is None
    queued = Job("id2", "key2", "a table", count_to, ())
    assert queued.public()["eta_seconds"] is None and queued.public()["state"] == "queued"
    late = Job("id3", "key3", "a table", count_to, (), expected_seconds=10.0,
               state="running", started=time.monotonic() - 20)
    assert late.public()["eta_seconds"] is None  # past its expected time, nothing reported


def wait_for_file(path: str, *, report: Progress) -> str:
    """Block until ``path`` exists (a table build that takes as long as a test wants)."""
    import os

    while not os.path.exists(path):
        time.sleep(0.05)
    return path


def test_inspections_never_wait_behind_table_builds(tmp_path):
    """Issue 46: two builds filled both workers and inspections sat queued for minutes.
    Inspections have their own lane: with every build worker busy, one still runs."""
    gate = tmp_path / "go"
    with JobRunner(workers=1, grace=1.0) as runner:
        builds = [runner.submit(f"table:{i}", "a table", wait_for_file, (str(gate),))
                  for i in range(3)]
        deadline = time.monotonic() + 60
        while builds[0].state != "running" and time.monotonic() < deadline:
            time.sleep(0.05)
        inspection = runner.submit("inspect:x", "an inspection", count_to, (3,),
                                   lane="inspect", priority=0)
        assert _wait(inspection).result == 3
        assert [b.state for b in builds] == ["running", "queued", "queued"]
        listed = {j.id: j for j in runner.all_jobs()}
        assert set(listed) == {inspection.id, *(b.id for b in builds)}
        gate.touch()
        assert [_wait(b).result for b in builds] == [str(gate)] * 3
    with pytest.raises(ValueError, match="lane"):
        JobRunner(workers=1).submit("k", "w", count_to, (1,), lane="elsewhere")


# -- the tables ---------------------------------------------------------------------------------
class _Probe(Exception):
    pass


@pytest.mark.parametrize("key", [k for k, spec in T.TABLES.items() if spec.kind != "last-turn"])
def test_table_paths_are_where_the_solvers_look(monkeypatch, key):
    """The readiness check stats the very file the solver's ``load_or_solve`` reads."""
    from agents.solvers import cache as C

    original = C.load_table
    seen = []
    spec = T.TABLES[key]

    def record(path, key_):
        if spec.kind == "spread" and path.name.startswith("scorecard-"):
            return original(path, key_)  # the spread reads the dp table first
        seen.append(path)
        raise _Probe

    monkeypatch.setattr(C, "load_table", record)
    with pytest.raises(_Probe):
        if spec.kind == "dp":
            from agents.solvers.scorecard_dp import load_or_solve_scorecard

            load_or_solve_scorecard(spec.game)
        elif spec.kind == "spread":
            from agents.scorecard.score_spread import load_or_compute_spread

            load_or_compute_spread(spec.game)
        else:
            from agents.play.fivethousand_session import load_fivethousand_optimal

            agent = load_fivethousand_optimal()  # the web's 5000 advisor and bot
            getattr(agent, {"solo": "solo", "2p": "two_player", "3p": "three_player"}[spec.kind])
    assert seen == [T.table_path(key)]


@pytest.mark.parametrize("game, bots, advisor, people, needs", [
    ("penta", [], False, 1, []),
    ("penta", ["heuristic", "ppo"], False, 1, []),
    ("penta", [], True, 1, ["penta/dp"]),
    ("penta", ["optimal"], False, 1, ["penta/dp"]),
    ("penta", ["heuristic"], True, 1, ["penta/dp", "penta/spread", "penta/last-turn"]),
    ("dice-poker", ["win-value"], False, 1,
     ["dice-poker/dp", "dice-poker/spread", "dice-poker/last-turn"]),
    ("dice-poker", [], True, 2, ["dice-poker/dp", "dice-poker/spread", "dice-poker/last-turn"]),
    ("fivethousand", ["heuristic"], False, 1, []),
    ("fivethousand", [], True, 1, ["fivethousand/solo"]),
    ("fivethousand", ["heuristic"], True, 1, ["fivethousand/2p"]),
    ("fivethousand", ["optimal", "random"], False, 1, ["fivethousand/3p"]),
    ("fivethousand", ["random"] * 3, True, 1, ["fivethousand/2p"]),
])
def test_what_a_game_needs(game, bots, advisor, people, needs):
    assert T.game_needs(game, bots, advisor, people, win_models=("penta", "dice-poker")) == needs


def test_the_advisor_needs_no_spread_without_a_win_model():
    assert T.game_needs("penta", ["heuristic"], True, win_models=()) == ["penta/dp"]


def test_the_last_turn_table_is_written_then_handed_to_the_players(monkeypatch, tmp_path):
    """Built in a worker into the cache (here: in this process, with a stand-in for the
    computation), then given to a game's win advisor and win-value bots, which then never
    compute it on a request."""
    import types

    import numpy as np

    import agents.scorecard.win_value  # noqa: F401 - imported (its names bound) before patching
    from agents.scorecard import score_spread, win_threshold

    monkeypatch.setenv("DICE_ENV_CACHE", str(tmp_path))
    monkeypatch.setattr(score_spread, "load_or_compute_spread", lambda game, **kw: "moments")
    monkeypatch.setattr(T, "_LAST_TURN", {})
    table = (np.arange(3), np.full((3, 4), 0.25))
    monkeypatch.setattr(win_threshold, "_last_turn_table", lambda moments: table)
    monkeypatch.setattr(win_threshold, "_compute_last_turn_table", _refuse)
    assert not T.table_ready("penta/last-turn")
    T.build_table("penta/last-turn")
    assert T.table_ready("penta/last-turn")
    assert [p.name for p in tmp_path.iterdir()] == [T.table_path("penta/last-turn").name]
    keys, pmf = T.load_last_turn("penta")
    assert (keys == table[0]).all() and (pmf == table[1]).all()

    def player():
        return types.SimpleNamespace(moments=types.SimpleNamespace(_last_turn=None))

    session = types.SimpleNamespace(rules=types.SimpleNamespace(name="penta"),
                                    win_advisor=player(),
                                    seats=[types.SimpleNamespace(bot=None),
                                           types.SimpleNamespace(bot=player())])
    tables = T.Tables(FakeRunner())
    tables.attach(session)
    for moments in (session.win_advisor.moments, session.seats[1].bot.moments):
        assert moments._last_turn is T.load_last_turn("penta")
    monkeypatch.undo()  # the real _last_turn_table reads what attach gave it
    assert win_threshold._last_turn_table(session.win_advisor.moments)[1] is pmf


def _refuse(*args, **kwargs):
    raise AssertionError("a player computed the last-turn table itself")


# -- the 202 contract, with a runner whose jobs never run by themselves --------------------------
class FakeRunner:
    """The runner's interface; jobs stay queued until a test finishes them."""

    workers = 1

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}
        self.submitted: list[Job] = []

    def submit(self, key, what, fn, args=(), **kwargs) -> Job:
        job = self.latest(key)
        if job is not None and not job.done:
            return job
        job = Job(f"job{len(self.submitted)}", key, what, fn, tuple(args),
                  expected_seconds=kwargs.get("expected_seconds"))
        self.jobs[job.id] = job
        self.submitted.append(job)
        return job

    def latest(self, key):
        return next((j for j in reversed(self.submitted) if j.key == key), None)

    def get(self, job_id):
        return self.jobs.get(job_id)

    def active(self):
        return [j for j in self.submitted if not j.done]

    def all_jobs(self):
        return list(self.submitted)

    async def wait(self, job, timeout):
        return job.done

    def shutdown(self):
        pass


@pytest.fixture(scope="module")
def agents():
    return allowed_agents()


@pytest.fixture(scope="module")
def dice_poker_dp():
    """Dice Poker's optimal tables, solved in this process into the suite's cache (once)."""
    from agents.solvers.scorecard_dp import load_or_solve_scorecard

    load_or_solve_scorecard("dice-poker")


@pytest.fixture
def cold(agents, tmp_path, monkeypatch, dice_poker_dp):
    """An app where Dice Poker's spread table is missing (its path points to an empty
    folder) and its optimal tables are ready, with a runner that runs nothing by itself."""
    runner = FakeRunner()
    app = create_app(agents, runner=runner)
    tables = app.state.tables
    monkeypatch.setitem(tables.paths, "dice-poker/spread", tmp_path / "spread.table")
    return _client(app), runner, tmp_path / "spread.table"


def test_a_game_that_needs_a_missing_table_is_answered_at_once_with_its_job(cold):
    client, runner, path = cold
    body = {"game": "dice-poker", "opponents": ["win-value"]}  # the bot reads the spread
    r = client.post("/api/games", json=body)
    assert r.status_code == 202
    job = r.json()["preparing"]
    assert set(job) == {"job", "what", "progress", "state", "error", "estimated",
                        "eta_seconds"}
    assert job["what"] == "the win-probability tables of Dice Poker"
    assert job["state"] == "queued" and job["progress"] == 0.0 and job["error"] is None
    assert client.post("/api/games", json=body).json()["preparing"]["job"] == job["job"]
    assert len(runner.submitted) == 1 and runner.submitted[0].args == ("dice-poker/spread",)
    assert client.get(f"/api/jobs/{job['job']}").json() == job
    assert client.get("/api/jobs/nope").status_code == 404
    # meanwhile a game whose tables are ready starts, and moves
    other = client.post("/api/games", json={"game": "dice-poker", "advisor": True})
    assert other.status_code == 201
    moved = client.post(f"/api/games/{other.json()['id']}/move", json={"kind": "auto"})
    assert moved.status_code == 409  # (not after the last roll) an answer, not a wait
    ready = client.get("/api/ready").json()
    assert not ready["ready"] and not ready["games"]["dice-poker"]["ready"]
    assert [t["table"] for t in ready["building"]] == ["dice-poker/spread"]
    assert ready["building"][0]["job"]["job"] == job["job"]
    assert [j["job"] for j in ready["jobs"]] == [job["job"]]
    # the build ends: the same request now creates the game
    runner.submitted[0].state = "running"
    runner.submitted[0].progress, runner.submitted[0].reported = 0.4, True
    assert client.get(f"/api/jobs/{job['job']}").json()["progress"] == 0.4
    path.write_bytes(b"a table")
    runner.submitted[0].state = "done"
    assert client.post("/api/games", json={"game": "dice-poker"}).status_code == 201
    assert client.get("/api/ready").json()["building"] == []


def test_the_advisor_against_bots_starts_at_once_and_says_what_it_waits_for(cold):
    """Issue 46: the advisor's win-probability tables never hold a game up.  Until they are
    ready it gives the expected-score advice, and the view's note says so; their build is
    started in the background (and joined, not repeated)."""
    client, runner, _ = cold
    body = {"game": "dice-poker", "opponents": ["heuristic"], "advisor": True}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    state = r.json()["state"]
    assert state["advice"]["options"] and state["advice"]["with_win"] is False
    assert state["advice_note"] == ("Expected-score advice for now: the win-probability "
                                    "tables of Dice Poker are waiting for a free worker.")
    assert [j.args for j in runner.submitted] == [("dice-poker/spread",)]
    job = runner.submitted[0]
    job.state, job.started = "running", time.monotonic() - 10
    job.progress, job.reported = 0.5, True  # half in 10 s: about 10 s left
    shown = client.get(f"/api/games/{r.json()['id']}").json()["state"]
    assert shown["advice_note"] == ("Expected-score advice for now: the win-probability "
                                    "tables of Dice Poker are being built (about 10 s left).")
    assert len(runner.submitted) == 1
    listed = client.get("/api/jobs").json()
    assert [(j["job"], j["state"]) for j in listed["jobs"]] == [(job.id, "running")]
    assert listed["jobs"][0]["eta_seconds"] == pytest.approx(10, abs=1)
    off = client.post(f"/api/games/{r.json()['id']}/advisor", json={"on": False})
    assert off.status_code == 200 and off.json()["state"]["advice_note"] is None
    job.state, job.error, job.finished = "failed", "MemoryError: out of memory", \
        time.monotonic()
    on = client.post(f"/api/games/{r.json()['id']}/advisor", json={"on": True})
    assert on.status_code == 200 and on.json()["state"]["advice"]["options"]
    assert on.json()["state"]["advice_note"].startswith(
        "Expected-score advice only: the win-probability tables of Dice Poker could not be "
        "built (MemoryError: out of memory)")


def test_turning_the_advisor_on_may_need_a_table_too(cold, tmp_path, monkeypatch):
    """The advisor's expected-score tables are waited for (202), as a new game's are."""
    client, runner, _ = cold
    game = client.post("/api/games", json={"game": "dice-poker", "opponents": ["heuristic"]})
    assert game.status_code == 201 and game.json()["state"]["advice_note"] is None
    tables = client.app.state.tables
    monkeypatch.setitem(tables.paths, "dice-poker/dp", tmp_path / "dp.table")
    r = client.post(f"/api/games/{game.json()['id']}/advisor", json={"on": True})
    assert r.status_code == 202 and r.json()["preparing"]["what"].startswith("the optimal")
    off = client.post(f"/api/games/{game.json()['id']}/advisor", json={"on": False})
    assert off.status_code == 200 and not off.json()["state"]["advisor"]


def test_a_failed_build_is_shown_not_restarted(cold):
    client, runner, _ = cold
    body = {"game": "dice-poker", "opponents": ["win-value"]}
    first = client.post("/api/games", json=body).json()["preparing"]
    job = runner.get(first["job"])
    job.state, job.error, job.finished = "failed", "MemoryError: out of memory", time.monotonic()
    again = client.post("/api/games", json=body)
    assert again.status_code == 202 and again.json()["preparing"]["state"] == "failed"
    assert again.json()["preparing"]["error"] == "MemoryError: out of memory"
    assert len(runner.submitted) == 1


def test_a_full_job_queue_is_a_503_with_retry_after(agents, tmp_path, monkeypatch):
    from agents.play.web.jobs import QueueFull

    class Full(FakeRunner):
        def submit(self, *args, **kwargs):
            raise QueueFull("32 jobs are queued or running; try again later")

    app = create_app(agents, runner=Full())
    monkeypatch.setitem(app.state.tables.paths, "penta/dp", tmp_path / "missing.table")
    r = _client(app).post("/api/games", json={"game": "penta", "advisor": True})
    assert r.status_code == 503 and r.headers["retry-after"] == "10"
    assert "try again later" in r.json()["error"]


# -- inspections: per seed, then in real worker processes -------------------------------------
@pytest.mark.parametrize("name, game, seeds", [("greedy", "penta", range(3, 15)),
                                               ("heuristic", "fivethousand", range(7, 11))])
def test_habits_of_single_seeds_add_up_to_the_range(name, game, seeds):
    """Merged one-seed fragments (two batches, cut per game) are the habits of the range."""
    import agents as agents_package
    from agents.evaluation.inspect import habits, inspector
    from agents.play.web.inspect_work import merge_fragments, seed_fragments

    agent, insp = agents_package.make(name, game), inspector(game)
    whole = habits(agent, game, seeds, name=name, optimal=insp)
    fragments = seed_fragments(agent, insp, list(seeds)[:5], name)
    fragments.update(seed_fragments(agent, insp, list(seeds)[5:], name))
    _close(merge_fragments([fragments[s] for s in seeds], name, whole["unit"]), whole)


# -- inspections in real worker processes --------------------------------------------------------
@pytest.fixture(scope="module")
def served(agents):
    runner = JobRunner(workers=1, grace=1.0)
    app = create_app(agents, runner=runner, inspect_seconds=60)
    yield _client(app), runner
    runner.shutdown()


def _answer(client, path, params, seconds=120.0):
    """GET, following 202s as the page does (poll the job, then ask again)."""
    deadline = time.monotonic() + seconds
    while True:
        r = client.get(path, params=params)
        if r.status_code != 202:
            return r
        job = r.json()["preparing"]
        while job["state"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.1)
            job = client.get(f"/api/jobs/{job['job']}").json()
        assert time.monotonic() < deadline and job["state"] == "done", job


def test_habits_run_as_jobs_and_are_cached_per_seed(served):
    import agents as agents_package
    from agents.evaluation.inspect import habits, inspector

    client, runner = served
    r = _answer(client, "/api/inspect/habits", {"agent": "greedy", "game": "penta",
                                                "seeds": "20-25"})
    assert r.status_code == 200
    found = r.json()["habits"][0]
    expected = habits(agents_package.make("greedy", "penta"), "penta", range(20, 26),
                      name="greedy", optimal=inspector("penta"))
    _close(found, expected)
    first = runner.latest("habits:greedy:penta:20-25")
    assert list(first.args[3]) == [20, 21, 22, 23, 24, 25]
    r = _answer(client, "/api/inspect/habits", {"agent": "greedy", "game": "penta",
                                                "seeds": "23-28"})
    assert r.status_code == 200 and r.json()["habits"][0]["seeds"] == [23, 28]
    assert list(runner.latest("habits:greedy:penta:23-28").args[3]) == [26, 27, 28]
    again = client.get("/api/inspect/habits",
                       params={"agent": "greedy", "game": "penta", "seeds": "21-27"})
    assert again.status_code == 200  # every seed cached: no job at all
    assert runner.latest("habits:greedy:penta:21-27") is None


def test_one_seed_inspections_run_as_jobs(served):
    client, runner = served
    r = _answer(client, "/api/inspect", {"agent": "greedy", "game": "penta", "seed": "4",
                                         "agent2": "heuristic"})
    assert r.status_code == 200 and r.json()["agents"] == ["greedy", "heuristic"]
    refused = _answer(client, "/api/inspect", {"agent": "greedy", "game": "fivethousand",
                                               "seed": "1"})
    assert refused.status_code == 400 and "greedy" in refused.json()["error"]


def test_an_inspection_past_its_time_limit_is_a_504_that_says_so(agents):
    runner = JobRunner(workers=1, grace=1.0)
    try:
        client = _client(create_app(agents, runner=runner, inspect_seconds=1))
        params = {"agent": "learned-value", "game": "fivethousand", "seeds": "0-99"}
        r = client.get("/api/inspect/habits", params=params)
        if r.status_code == 202:  # not stopped yet: wait for the job, then ask again
            _wait(runner.get(r.json()["preparing"]["job"]))
            r = client.get("/api/inspect/habits", params=params)
        assert r.status_code == 504
        assert "cancelled" in r.json()["error"] and "time limit" in r.json()["error"]
        job = runner.latest("habits:learned-value:fivethousand:0-99").public()
        assert job["state"] == "cancelled" and "its time limit" in job["error"]
        assert client.get(f"/api/jobs/{job['job']}").json() == job
    finally:
        runner.shutdown()


# -- dice-env web --prepare ---------------------------------------------------------------------
def test_prepare_solves_the_missing_tables_then_exits(monkeypatch, tmp_path, capsys):
    """``--prepare`` with one table missing from a fresh cache folder: solved in a worker,
    written whole, one line per table when the output is not a terminal."""
    from agents.play.web import server

    monkeypatch.setenv("DICE_ENV_CACHE", str(tmp_path))
    monkeypatch.setattr(T, "TABLES", {"penta/dp": T.TABLES["penta/dp"]})
    assert server.main(["--prepare", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines() == ["done: the optimal tables of Penta (penta/dp)"]
    assert T.table_path("penta/dp").is_file() and T.table_ready("penta/dp")
    assert [p.name for p in tmp_path.iterdir() if p.suffix != ""] == \
        [T.table_path("penta/dp").name]  # no temporary left
    assert server.main(["--prepare"]) == 0  # nothing left to do
    assert capsys.readouterr().err == "ready: the optimal tables of Penta (penta/dp)\n"


def test_the_command_line_documents_the_new_options(capsys):
    from agents.play.web.server import build_parser

    text = build_parser("dice-env web").format_help()
    for option in ("--prepare", "--workers", "--unplayed-ttl", "--inspect-seconds"):
        assert option in text
    assert "dice-env web --prepare" in text
