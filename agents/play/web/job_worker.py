"""The worker side of :mod:`agents.play.web.jobs`: the process that runs jobs one after the
other, and :class:`Progress`, how a job's work reports how far it is (and stands in for the
solvers' ``tqdm`` bars inside the worker)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Progress", "WorkFailed"]

#: progress messages a worker sends at most this often (seconds)
REPORT_EVERY = 0.25


class WorkFailed(Exception):
    """Raised by a job's work for a failure the requester caused (an agent that cannot play
    a game, ...): the job fails with this message, shown to the person as it is."""


class Progress:
    """How a job's work reports: :meth:`fraction` done, :meth:`partial` results (kept even if
    the job is stopped later), and :meth:`stage` to map a part of the work onto a part of the
    bar.  ``send`` gets ``("progress", x)`` and ``("partial", data)`` messages."""

    def __init__(self, send: Callable[[tuple], None]) -> None:
        self._send = send
        self._low, self._high = 0.0, 1.0
        self._last = 0.0
        self._sent = 0.0

    def fraction(self, x: float) -> None:
        """The current stage is ``x`` done (0 to 1); sent at most every
        :data:`REPORT_EVERY` seconds, and always at the end of a stage; never below what was
        sent before (a solver that starts a second bar within one stage does not move the
        job back)."""
        x = min(max(float(x), 0.0), 1.0)
        now = time.monotonic()
        if x < 1.0 and now - self._last < REPORT_EVERY:
            return
        value = self._low + (self._high - self._low) * x
        if value < self._sent:
            return
        self._last, self._sent = now, value
        self._send(("progress", value))

    def partial(self, data: Any) -> None:
        """Hand part of the result over now (the runner gives it to the job's ``on_partial``)."""
        self._send(("partial", data))

    @contextlib.contextmanager
    def stage(self, low: float, high: float) -> Iterator[Progress]:
        """Within the block, ``fraction(x)`` reports ``low + (high - low) * x``."""
        saved = self._low, self._high
        span = saved[1] - saved[0]
        self._low, self._high = saved[0] + span * low, saved[0] + span * high
        try:
            yield self
            self.fraction(1.0)
        finally:
            self._low, self._high = saved


#: the Progress of the job running in this worker process (read by the tqdm stand-in)
_CURRENT: Progress | None = None


class _ProgressBar:
    """Stands in for ``tqdm`` inside a worker: prints nothing, reports ``n / total`` to the
    running job.  The solvers import ``tqdm.auto.tqdm`` when they start a bar, so replacing
    that name in the worker process is enough."""

    def __init__(self, iterable: Any = None, total: float | None = None, **kwargs: Any) -> None:
        self.iterable = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total = total
        self.n = 0

    def update(self, n: float = 1) -> None:
        self.n += n
        if _CURRENT is not None and self.total:
            _CURRENT.fraction(self.n / self.total)

    def __iter__(self):
        for item in self.iterable:
            yield item
            self.update()

    def __enter__(self) -> _ProgressBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to close."""

    @staticmethod
    def write(*args: Any, **kwargs: Any) -> None:
        """``tqdm.write``: nothing is printed in a worker."""

    def __getattr__(self, name: str) -> Callable[..., None]:  # set_postfix, refresh, ...
        return lambda *args, **kwargs: None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return (text or type(exc).__name__)[:300]


def _exit_on_term(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _watch_parent(parent: int) -> None:
    """Stop this worker when the server that started it is gone."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
            return


def _limit_threads(threads: int) -> None:
    """At most ``threads`` threads in numba's parallel kernels and torch's operations."""
    import numba

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    with contextlib.suppress(ImportError):
        import torch

        torch.set_num_threads(threads)


def _worker_main(conn: Any, nice: int, parent: int, threads: int | None = None) -> None:
    """A worker process: run the jobs sent over ``conn`` one after the other."""
    global _CURRENT
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the server, which stops us
    signal.signal(signal.SIGTERM, _exit_on_term)  # finally blocks run: temporaries removed
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    if threads:
        _limit_threads(threads)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    import tqdm.auto

    tqdm.auto.tqdm = _ProgressBar  # type: ignore[misc, assignment]
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        fn, args, job_threads = message
        if job_threads:
            _limit_threads(job_threads)
        _CURRENT = Progress(conn.send)
        try:
            result = fn(*args, report=_CURRENT)
        except WorkFailed as exc:
            conn.send(("refused", _one_line(exc)))
        except Exception as exc:  # noqa: BLE001 - any failure of the work is the job's
            conn.send(("failed", f"{type(exc).__name__}: {_one_line(exc)}"))
        else:
            conn.send(("done", result))
        finally:
            _CURRENT = None
