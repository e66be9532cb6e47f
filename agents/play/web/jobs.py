"""Long work off the request path: jobs that run in worker processes, a bounded number at once.

A request that needs long work (a table to solve, an inspection of many games) never does it
in the threads that answer requests.  It submits a :class:`Job` to the server's
:class:`JobRunner` and answers at once; the page polls ``GET /api/jobs/<id>`` (what
:meth:`Job.public` returns) and asks again when the job is done.

* **Bounded**: ``workers`` worker processes (``spawn``), each running one job at a time at the
  lowest CPU priority (``nice``) on one thread, so that the server's own threads answer
  first; at most ``max_jobs`` jobs queued or running (:class:`QueueFull` beyond).  Queued jobs
  start by ``priority`` (lower first: a one-seed inspection before a long build), then in
  order.
* **Shared**: a job has a key (``"table:dice-poker/spread"``); submitting a key that is queued
  or running joins that job.
* **Lanes**: table builds and other long work run in the ``workers`` slots of the ``"build"``
  lane; inspections (``lane="inspect"``) in ``inspect_workers`` slots of their own, so that
  an inspection never waits behind a table build.
* **Progress**: the work reports its fraction done (:class:`Progress`, which also stands in
  for the solvers' ``tqdm`` bars in a worker); work that cannot tell gets a time-based estimate
  from its ``expected_seconds``, marked ``"estimated": true``.  The progress shown never goes
  back (a later stage, or a report below an earlier estimate, is clamped to the highest value
  shown so far), and ``eta_seconds`` estimates the time left from the time spent and the
  progress (None while it cannot tell).
* **Stoppable**: a job past its ``time_limit``, a cancelled job and every job at
  :meth:`JobRunner.shutdown` have their worker process terminated (``SIGTERM``, which the
  worker turns into ``SystemExit`` so that the atomic writes of :mod:`dice_env.io` remove their
  temporary files; ``SIGKILL`` after ``grace`` seconds) and the job's ``cleanup`` files'
  temporaries removed: a half-built table is never left as a cache file.  A fresh worker is
  started for the next job.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing
import os
import queue
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.play.web.job_worker import Progress, WorkFailed, _one_line, _worker_main

__all__ = ["Job", "JobRunner", "Progress", "QueueFull", "WorkFailed"]

STATES = ("queued", "running", "done", "failed", "cancelled")
FINISHED = ("done", "failed", "cancelled")
#: a time-based estimate never claims more than this
MAX_ESTIMATE = 0.95
#: the lanes of a runner: table builds (and other work), and inspections
LANES = ("build", "inspect")
#: no time estimate below this fraction done or this many seconds of work (too noisy)
ETA_MIN_PROGRESS = 0.01
ETA_MIN_SECONDS = 1.0


class QueueFull(Exception):
    """Too many jobs queued or running: try again later."""


@dataclass(eq=False)
class Job:
    """One piece of long work and where it stands.

    Attributes:
        id: unguessable, what ``GET /api/jobs/<id>`` names.
        key: what the job computes; a second submission of a key joins the job.
        what: the work in words, for people ("the optimal tables of Dice Poker").
        state: ``queued``, ``running``, ``done``, ``failed`` or ``cancelled``.
        progress: fraction done, 0 to 1.
        estimated: ``progress`` is a time-based estimate (the work does not report its own).
        error: why it failed or was cancelled (one line), else None.
        timed_out: it was stopped at its time limit.
        requester_error: it failed because of the request (:class:`WorkFailed`).
        result: what the work returned (``done`` only).
        lane: ``"build"`` or ``"inspect"`` (the slots that run it).
        threads: the threads of its parallel kernels (None: the runner's ``threads``); a
            table a person waits for gets every core.
    """

    id: str
    key: str
    what: str
    fn: Callable[..., Any]
    args: tuple
    time_limit: float | None = None
    expected_seconds: float | None = None
    priority: int = 1
    on_partial: Callable[[Any], None] | None = None
    cleanup: tuple[Path, ...] = ()
    state: str = "queued"
    progress: float = 0.0
    reported: bool = False
    error: str | None = None
    timed_out: bool = False
    requester_error: bool = False
    result: Any = None
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    cancel_requested: bool = False
    lane: str = "build"
    threads: int | None = None
    _shown: float = field(default=0.0, repr=False)
    _waiters: list = field(default_factory=list, repr=False)

    @property
    def done(self) -> bool:
        """Finished, whatever the outcome."""
        return self.state in FINISHED

    @property
    def estimated(self) -> bool:
        """The progress shown is a time-based estimate."""
        return self.state in ("queued", "running") and not self.reported

    def fraction(self) -> float:
        """Progress from 0 to 1 (a time-based estimate while the work reports none), never
        below what it said before."""
        if self.state == "done":
            return 1.0
        if self.reported or self.state != "running" or not self.expected_seconds:
            value = self.progress
        else:
            value = min(MAX_ESTIMATE, self.elapsed() / self.expected_seconds)
        self._shown = max(self._shown, value)
        return self._shown

    def elapsed(self) -> float:
        """Seconds it has run (0 while queued)."""
        if self.started is None:
            return 0.0
        return (self.finished if self.finished is not None else time.monotonic()) - self.started

    def eta(self) -> float | None:
        """Seconds left, about: 0 once done; while running, from the time spent and the
        progress (the time it is expected to take, for a time-based estimate); None when it
        cannot tell (queued, failed, just started, or past its expected time)."""
        if self.state == "done":
            return 0.0
        if self.state != "running":
            return None
        elapsed, done = self.elapsed(), self.fraction()
        if not self.reported:
            if not self.expected_seconds or elapsed >= self.expected_seconds:
                return None
            return self.expected_seconds - elapsed
        if done < ETA_MIN_PROGRESS or elapsed < ETA_MIN_SECONDS:
            return None
        return elapsed * (1.0 - done) / done

    def public(self) -> dict[str, Any]:
        """What ``GET /api/jobs/<id>`` answers."""
        eta = self.eta()
        return {"job": self.id, "what": self.what, "progress": round(self.fraction(), 4),
                "state": self.state, "error": self.error, "estimated": self.estimated,
                "eta_seconds": None if eta is None else round(eta, 1)}


def remove_temporaries(paths: Sequence[Path]) -> None:
    """Remove the temporary files :func:`dice_env.io.atomic_open` writes beside each of
    ``paths`` (``<name>.<random>.tmp``), left by a worker killed half-way."""
    for path in paths:
        for tmp in Path(path).parent.glob(Path(path).name + ".*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()


class _Slot:
    """One worker process and the thread that feeds it jobs from the runner's queue."""

    def __init__(self, runner: JobRunner, index: int, lane: str = "build") -> None:
        self.runner = runner
        self.index = index
        self.lane = lane
        self.process: Any = None
        self.conn: Any = None
        self.job: Job | None = None
        self.thread = threading.Thread(target=self._loop, daemon=True,
                                       name=f"dice-web-jobs-{index}")

    def _ensure_process(self) -> None:
        if self.process is not None and self.process.is_alive():
            return
        ctx = self.runner.context
        ours, theirs = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(theirs, self.runner.nice,
                                                              os.getpid(),
                                                              self.runner.threads),
                                   name=f"dice-web-worker-{self.index}", daemon=True)
        self.process.start()
        theirs.close()
        self.conn = ours

    def stop_process(self, grace: float) -> None:
        """Terminate the worker (SIGTERM, then SIGKILL after ``grace`` seconds)."""
        process, self.process = self.process, None
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.close()
            self.conn = None
        if process is None:
            return
        if process.is_alive():
            process.terminate()
            process.join(grace)
            if process.is_alive():
                process.kill()
                process.join(grace)

    def _loop(self) -> None:
        if self.runner.eager:
            self._ensure_process()
        while True:
            job = self.runner.next_job(self.lane)
            if job is None:
                return
            self.job = job
            try:
                self._run(job)
            except Exception as exc:  # noqa: BLE001 - never leave a job hanging
                self.stop_process(self.runner.grace)
                self.runner.finish(job, "failed", error=f"the job runner failed: {_one_line(exc)}")
            finally:
                self.job = None

    def _run(self, job: Job) -> None:
        runner = self.runner
        self._ensure_process()
        runner.mark_running(job)
        self.conn.send((job.fn, job.args, job.threads or runner.threads))
        deadline = None if job.time_limit is None else time.monotonic() + job.time_limit
        while True:
            try:
                message = self.conn.recv() if self.conn.poll(0.1) else None
            except (EOFError, OSError):
                message = ("lost", None)
            if message is None and not self.process.is_alive():
                message = ("lost", None)
            if message is not None:
                kind, data = message
                if kind == "progress":
                    job.progress, job.reported = max(job.progress, float(data)), True
                elif kind == "partial":
                    if job.on_partial is not None:
                        job.on_partial(data)
                elif kind == "done":
                    runner.finish(job, "done", result=data)
                    return
                elif kind in ("failed", "refused"):
                    runner.finish(job, "failed", error=data, requester_error=kind == "refused")
                    return
                else:
                    self._stop(job, "failed", "the worker process stopped unexpectedly")
                    return
                continue
            if runner.stopping:
                self._stop(job, "cancelled", "the server is shutting down")
                return
            if job.cancel_requested:
                self._stop(job, "cancelled", "cancelled")
                return
            if deadline is not None and time.monotonic() > deadline:
                job.timed_out = True
                self._stop(job, "cancelled", f"stopped after {job.time_limit:g} s, its time "
                                             f"limit: {job.what} takes longer than this "
                                             "server allows")
                return

    def _stop(self, job: Job, state: str, why: str) -> None:
        """Stop the worker in the middle of ``job`` (its temporaries removed) and record
        why."""
        self.stop_process(self.runner.grace)
        remove_temporaries(job.cleanup)
        self.runner.finish(job, state, error=why)


class JobRunner:
    """Runs jobs in worker processes (started on the first job), one job each at a time, by
    priority then in the order submitted, each lane (:data:`LANES`) in slots of its own.

    Args:
        workers: worker processes of the ``"build"`` lane (table builds), at least 1.
        inspect_workers: worker processes of the ``"inspect"`` lane (inspections), at least
            1: an inspection never waits behind a table build.
        max_jobs: jobs queued or running at once; :meth:`submit` raises :class:`QueueFull`
            beyond.
        keep: finished jobs remembered (``GET /api/jobs/<id>`` of an older one is a 404).
        nice: added to the workers' CPU niceness (default 19, the lowest priority: their work
            yields to the server's threads and to everything else on the machine).
        threads: threads of each worker's parallel kernels (numba, torch; None: as many as
            cores): one each keeps the cores for the server's requests.
        grace: seconds a terminated worker gets before it is killed.
    """

    def __init__(self, workers: int = 2, *, inspect_workers: int = 1, max_jobs: int = 32,
                 keep: int = 64, nice: int = 19, threads: int | None = 1,
                 grace: float = 2.0) -> None:
        if workers < 1 or inspect_workers < 1 or max_jobs < 1:
            raise ValueError("workers, inspect_workers and max_jobs must be at least 1")
        self.workers = int(workers)
        self.inspect_workers = int(inspect_workers)
        self.max_jobs = int(max_jobs)
        self.keep = int(keep)
        self.nice = int(nice)
        self.threads = threads
        self.grace = float(grace)
        self.context = multiprocessing.get_context("spawn")
        self.stopping = False
        self.eager = False
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._by_key: dict[str, Job] = {}
        self._queues: dict[str, queue.PriorityQueue[tuple[int, int, Job | None]]] = {
            lane: queue.PriorityQueue() for lane in LANES}
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._slots: list[_Slot] = []

    # -- submitting and looking up -------------------------------------------------------------
    def submit(self, key: str, what: str, fn: Callable[..., Any], args: Sequence[Any] = (), *,
               time_limit: float | None = None, expected_seconds: float | None = None,
               priority: int = 1, on_partial: Callable[[Any], None] | None = None,
               cleanup: Sequence[Path] = (), lane: str = "build",
               threads: int | None = None) -> Job:
        """The queued or running job of ``key``, else a new job running ``fn(*args,
        report=Progress)`` in a worker of ``lane`` (``fn`` and ``args`` must pickle: a
        module-level function), stopped after ``time_limit`` seconds of running;
        ``on_partial`` gets what the work hands over early, in a thread of the runner; the
        temporaries of the files ``cleanup`` are removed if it is stopped; ``threads``: its
        kernels' threads (default the runner's).  :class:`QueueFull` when ``max_jobs`` are
        queued or running."""
        if lane not in LANES:
            raise ValueError(f"lane must be one of {LANES}, got {lane!r}")
        with self._lock:
            if self.stopping:
                raise QueueFull("the server is shutting down")
            current = self._by_key.get(key)
            if current is not None and not current.done:
                return current
            if sum(not j.done for j in self._jobs.values()) >= self.max_jobs:
                raise QueueFull(f"{self.max_jobs} jobs are queued or running; try again later")
            job = Job(secrets.token_urlsafe(12), key, what, fn, tuple(args), time_limit,
                      expected_seconds, priority, on_partial, tuple(Path(p) for p in cleanup),
                      lane=lane, threads=threads)
            self._jobs[job.id] = job
            self._by_key[key] = job
            self._forget_old()
            self._start_slots()
        self._queues[lane].put((priority, next(self._order), job))
        return job

    def _start_slots(self) -> None:
        if not self._slots:
            lanes = ["build"] * self.workers + ["inspect"] * self.inspect_workers
            self._slots = [_Slot(self, i, lane) for i, lane in enumerate(lanes)]
            for slot in self._slots:
                slot.thread.start()

    def start(self) -> None:
        """Start the worker processes now (they import their libraries while nothing waits
        for them) rather than at the first job."""
        with self._lock:
            if not self.stopping:
                self.eager = True
                self._start_slots()

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.done]
        for job in finished[:max(0, len(finished) - self.keep)]:
            del self._jobs[job.id]
            if self._by_key.get(job.key) is job:
                del self._by_key[job.key]

    def get(self, job_id: str) -> Job | None:
        """The job ``job_id``, or None (unknown or long finished)."""
        with self._lock:
            return self._jobs.get(job_id)

    def latest(self, key: str) -> Job | None:
        """The newest job of ``key`` (running or finished), or None."""
        with self._lock:
            return self._by_key.get(key)

    def active(self) -> list[Job]:
        """Jobs queued or running, oldest first."""
        with self._lock:
            return [j for j in self._jobs.values() if not j.done]

    def all_jobs(self) -> list[Job]:
        """Every job remembered (queued, running, and the last ``keep`` finished), oldest
        first."""
        with self._lock:
            return list(self._jobs.values())

    def cancel(self, job_id: str) -> bool:
        """Ask job ``job_id`` to stop (a queued one never starts); whether it was unfinished."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.done:
                return False
            job.cancel_requested = True
            if job.state == "queued":
                self._finish_locked(job, "cancelled", error="cancelled")
            return True

    async def wait(self, job: Job, timeout: float) -> bool:
        """Wait (without holding a thread) up to ``timeout`` seconds for ``job``; whether it
        finished."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            if job.done:
                return True
            job._waiters.append((loop, future))
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            pass
        finally:
            with self._lock, contextlib.suppress(ValueError):
                job._waiters.remove((loop, future))
        return job.done

    # -- the slots' side -----------------------------------------------------------------------
    def next_job(self, lane: str = "build") -> Job | None:
        """The next queued job of ``lane`` for a slot (None: stop)."""
        while True:
            _, _, job = self._queues[lane].get()
            if job is None or self.stopping:
                return None
            if job.state == "queued":
                return job

    def mark_running(self, job: Job) -> None:
        """A slot started ``job``."""
        with self._lock:
            job.state, job.started = "running", time.monotonic()

    def finish(self, job: Job, state: str, **fields: Any) -> None:
        """Record the end of ``job`` and wake whoever waits on it."""
        with self._lock:
            self._finish_locked(job, state, **fields)

    def _finish_locked(self, job: Job, state: str, **fields: Any) -> None:
        if job.done:
            return
        for name, value in fields.items():
            setattr(job, name, value)
        job.state, job.finished = state, time.monotonic()
        if state == "done":
            job.progress = 1.0
        for loop, future in job._waiters:
            with contextlib.suppress(RuntimeError):  # its event loop is closed
                loop.call_soon_threadsafe(_resolve, future)

    # -- stopping ------------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Cancel every job and stop the workers (each within ``grace`` seconds, then killed);
        the runner takes no more jobs."""
        with self._lock:
            self.stopping = True
            slots = list(self._slots)
            for job in self._jobs.values():
                if job.state == "queued":
                    self._finish_locked(job, "cancelled", error="the server is shutting down")
        for slot in slots:
            self._queues[slot.lane].put((-1, next(self._order), None))
        for slot in slots:  # a slot's thread stops its own worker when it sees `stopping`
            slot.thread.join(self.grace * 2 + 1)
            slot.stop_process(self.grace)

    def __enter__(self) -> JobRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
