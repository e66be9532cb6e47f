"""``dice-web`` / ``dice-env web``: the command line of the web app, and a server in a
thread for tests, the load test and the screenshot script.

The server binds ``127.0.0.1`` unless ``--host`` says otherwise; bound to the loopback it
answers only requests addressed to the loopback's names (no DNS rebinding).  Slow clients are
timed out (:func:`uvicorn_config`: a request head within :data:`HEAD_SECONDS`, idle keep-alive
connections closed after :data:`KEEP_ALIVE_SECONDS`, a bounded number of connections).
SIGTERM or Ctrl-C stops it within a few seconds, whatever its worker processes are doing.
``--prepare`` solves every table the page can need, then exits (:func:`prepare`).
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.arguments import OneLineParser, at_least, port, seconds, workers

DEFAULT_PORT = 8000
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
#: seconds a connection may take to send a whole request head
HEAD_SECONDS = 10.0
#: seconds an idle keep-alive connection stays open
KEEP_ALIVE_SECONDS = 5
#: seconds open requests get to finish when the server stops
GRACEFUL_SECONDS = 2
#: the largest request head, in bytes
MAX_HEAD_BYTES = 16_384


EXAMPLE = ("\nExamples:\n  dice-env web --port 8000\n"
           "  dice-env web --prepare   # solve every table, exit\n")


def build_parser(prog: str = "dice-web") -> argparse.ArgumentParser:
    """The command line (the parser and number types of :mod:`agents.arguments`)."""
    p = OneLineParser(
        prog=prog, example=EXAMPLE,
        description="Play Penta, Dice Poker and 5000 in the browser, alone or against up to "
                    "five bots, with the optimal advisor; and inspect agents' games.",
        epilog="Bots: every registered player (see dice-play --help) and the agents given with "
               "--agent. Requests can name only these: the server never loads a file, a model "
               "or an agent a request names.")
    p.add_argument("--port", type=port, default=DEFAULT_PORT,
                   help=f"the port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--agent", action="append", default=[], metavar="SPEC",
                   help="also offer this agent as a bot and in the inspect view: NAME=SPEC or "
                        "SPEC, where SPEC is a model zip, a training run's folder, module:attr or "
                        "file.py:attr (see agents.load); repeatable")
    p.add_argument("--auto-seconds", type=seconds(0, off=True), default=3.0,
                   metavar="S",
                   help="after the last roll of a scorecard turn, score the computer's choice "
                        "after S seconds without a click or a key (0: never; default 3)")
    p.add_argument("--max-games", type=at_least(1, 100_000), default=100, metavar="N",
                   help="games that may be played at once (default 100)")
    p.add_argument("--ttl", type=seconds(1), default=3600.0,
                   metavar="S", help="drop a game with a move S seconds after its last request "
                                     "(default 3600)")
    p.add_argument("--unplayed-ttl", type=seconds(1),
                   default=300.0, metavar="S",
                   help="drop a game nobody has moved in S seconds after its last request "
                        "(default 300)")
    p.add_argument("--workers", type=workers(), default=2, metavar="N",
                   help="worker processes for long work: solving tables, inspections "
                        "(default 2); they run at a lower CPU priority than the server")
    p.add_argument("--inspect-seconds", type=seconds(1),
                   default=120.0, metavar="S",
                   help="stop an inspection that runs longer than S seconds (default 120)")
    p.add_argument("--prepare", action="store_true",
                   help="solve every table the page can need (the advisor's, the optimal "
                        "bots', the win probabilities'; a few minutes on two cores the first "
                        "time), with a progress bar on a terminal, then exit without serving; "
                        "without it, the server starts solving the first game's table as it "
                        "starts, a game that needs another missing table starts its solving "
                        "in a worker, and the page shows the progress")
    return p


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``OSError`` if that is impossible)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         proto=socket.IPPROTO_TCP)[0]
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP
    # (else every keep-alive answer waits 40 ms for a delayed ACK)
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def uvicorn_config(app: Any, **options: Any) -> Any:
    """The uvicorn configuration of the web app: slow clients timed out, bounded connections
    (past ``2 * max_requests`` open connections a request gets a JSON 503 with
    ``Retry-After``, while ``/api/health`` and ``/api/ready`` still answer:
    :func:`~agents.play.web.guard.timed_protocol`), open requests given
    :data:`GRACEFUL_SECONDS` when it stops, the app's lifespan on (its shutdown stops the
    worker processes).  ``options`` are passed on."""
    import uvicorn

    from agents.play.web.guard import timed_protocol

    max_requests = getattr(getattr(app, "state", None), "max_requests", 128)
    settings = dict(log_level="warning", lifespan="on",
                    http=timed_protocol(HEAD_SECONDS, max_connections=2 * max_requests),
                    timeout_keep_alive=KEEP_ALIVE_SECONDS,
                    timeout_graceful_shutdown=GRACEFUL_SECONDS,
                    limit_concurrency=None,
                    h11_max_incomplete_event_size=MAX_HEAD_BYTES)
    settings.update(options)
    return uvicorn.Config(app, **settings)


@dataclass
class RunningServer:
    """A server started by :func:`serve_in_thread`."""

    url: str
    server: Any
    thread: threading.Thread

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to stop (its worker processes too) and wait for it."""
        self.server.should_exit = True
        self.thread.join(timeout)


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """Serve ``app`` with uvicorn in a daemon thread (``port`` 0: a free port); returns once
    it accepts connections."""
    import time

    import uvicorn

    sock = _bind(host, port)
    real_port = sock.getsockname()[1]
    # log_config=None: leave the process's logging alone (a test's captured stderr must not
    # become uvicorn's log stream)
    server = uvicorn.Server(uvicorn_config(app, log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name="dice-web")
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    shown = f"[{host}]" if ":" in host else host
    return RunningServer(f"http://{shown}:{real_port}", server, thread)


def prepare(workers: int = 2, out: Any = None) -> int:
    """Solve every table of :data:`~agents.play.web.tables.TABLES` that is not in the cache,
    ``workers`` at a time (a table's dependencies first), with a progress bar per table when
    ``out`` is a terminal; returns 0, or 1 if one failed.  SIGTERM or Ctrl-C stops the
    workers, leaving no half-built table."""
    import signal
    import time

    from agents.play.web.jobs import JobRunner
    from agents.play.web.tables import TABLES, Tables, table_ready

    out = sys.stderr if out is None else out
    missing = [k for k in TABLES if not table_ready(k)]
    for key in TABLES:
        if key not in missing:
            print(f"ready: {TABLES[key].what} ({key})", file=out, flush=True)
    if not missing:
        return 0
    runner = JobRunner(workers, nice=0, threads=None)  # no server to yield to: every core
    tables = Tables(runner)
    tty = hasattr(out, "isatty") and out.isatty()
    jobs: dict[str, Any] = {}
    bars: dict[str, Any] = {}
    told: set[str] = set()

    def startable(key: str) -> bool:  # a table built from another: that one first
        needs = TABLES[key].needs
        return key not in jobs and (needs is None or table_ready(needs))

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, stop)
    try:
        while True:
            for key in filter(startable, missing):
                jobs[key] = tables.ensure([key])
                if tty and jobs[key] is not None:
                    from tqdm import tqdm

                    bars[key] = tqdm(total=100, desc=TABLES[key].what, file=out,
                                     position=len(bars), bar_format="{desc}: "
                                     "{percentage:3.0f}%|{bar}| {elapsed}")
            for key, job in jobs.items():
                if key in bars and bars[key].n != round(100 * job.fraction()):
                    bars[key].n = round(100 * job.fraction())
                    bars[key].refresh()
                if not tty and job is not None and job.done and key not in told:
                    told.add(key)
                    print(f"{job.state}: {TABLES[key].what} ({key})"
                          + (f": {job.error}" if job.error else ""), file=out, flush=True)
            running = [j for j in jobs.values() if j is not None and not j.done]
            if not running and not any(map(startable, missing)):
                break
            time.sleep(0.25)
    except KeyboardInterrupt:
        print("stopped: no half-built table is left in the cache", file=out, flush=True)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
        for bar in bars.values():
            bar.close()
        runner.shutdown()
    failed = [k for k in missing if not table_ready(k)]
    for key in failed:
        job = jobs.get(key)
        why = job.error if job is not None and job.error else "a table it reads failed"
        print(f"failed: {TABLES[key].what} ({key}): {why}", file=out, flush=True)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None, prog: str = "dice-web") -> int:
    """Run the web app until Ctrl-C or SIGTERM (or, with ``--prepare``, solve the tables);
    returns the exit status (2 for bad arguments)."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from agents.play.web.app import create_app
        from agents.play.web.players import allowed_agents
    except ImportError as exc:
        parser.exit(2, f"{prog}: error: the web app needs its extra: pip install "
                       f"'dice-env[web]' ({exc})\n")
    if args.prepare:
        return prepare(args.workers)
    try:
        agents = allowed_agents(args.agent)
    except ValueError as exc:
        parser.error(str(exc))
    hosts = [*LOOPBACK_NAMES, args.host, f"[{args.host}]"] if is_loopback(args.host) else None
    app = create_app(agents, auto_seconds=args.auto_seconds, max_games=args.max_games,
                     ttl=args.ttl, unplayed_ttl=min(args.unplayed_ttl, args.ttl),
                     allowed_hosts=hosts, workers=args.workers,
                     inspect_seconds=args.inspect_seconds, warm=True)
    try:
        sock = _bind(args.host, args.port)
    except OSError as exc:
        parser.error(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"{prog}: serving http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
    if hosts is None:
        print(f"{prog}: warning: bound to {args.host}, so other machines can reach this server",
              file=sys.stderr, flush=True)
    server = uvicorn.Server(uvicorn_config(app))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        app.state.runner.shutdown()  # already done by the lifespan, unless startup failed
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
