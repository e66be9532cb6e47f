"""``dice-web`` / ``python scripts/web.py``: the command line of the web app, and a server in a
thread for tests, the load test and the screenshot script.

The server binds ``127.0.0.1`` unless ``--host`` says otherwise; bound to the loopback it
answers only requests addressed to the loopback's names (no DNS rebinding).
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

DEFAULT_PORT = 8000
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


class _OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (exit status 2), as the scripts' parsers."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")

    def format_help(self) -> str:
        return super().format_help() + "\nExample:\n  dice-env web --port 8000\n"


def _number(kind: type, low: float, what: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not value >= low:
            raise argparse.ArgumentTypeError(f"must be at least {low:g}, got {text}")
        return value

    parse.__name__ = what
    return parse


def _port(text: str) -> int:
    value = _number(int, 0, "a port number")(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is at most 65535, got {value}")
    return value


def build_parser(prog: str = "dice-web") -> argparse.ArgumentParser:
    """The command line."""
    p = _OneLineParser(
        prog=prog,
        description="Play Penta, Dice Poker and 5000 in the browser, alone or against up to "
                    "five bots, with the optimal advisor; and inspect agents' games.",
        epilog="Bots: every registered player (see dice-play --help) and the agents given with "
               "--agent. Requests can name only these: the server never loads a file, a model "
               "or an agent a request names.")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=f"the port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--agent", action="append", default=[], metavar="SPEC",
                   help="also offer this agent as a bot and in the inspect view: NAME=SPEC or "
                        "SPEC, where SPEC is a model zip, a training run's folder, module:attr or "
                        "file.py:attr (see agents.load); repeatable")
    p.add_argument("--auto-seconds", type=_number(float, 0, "a number of seconds"), default=3.0,
                   metavar="S",
                   help="after the last roll of a scorecard turn, score the computer's choice "
                        "after S seconds without a click or a key (0: never; default 3)")
    p.add_argument("--max-games", type=_number(int, 1, "an integer"), default=100, metavar="N",
                   help="games that may be played at once (default 100)")
    p.add_argument("--ttl", type=_number(float, 1, "a number of seconds"), default=3600.0,
                   metavar="S", help="drop a game S seconds after its last move (default 3600)")
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


@dataclass
class RunningServer:
    """A server started by :func:`serve_in_thread`."""

    url: str
    server: Any
    thread: threading.Thread

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to stop and wait for it."""
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
    config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False,
                            lifespan="off")
    server = uvicorn.Server(config)
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


def main(argv: Sequence[str] | None = None, prog: str = "dice-web") -> int:
    """Run the web app until Ctrl-C; returns the exit status (2 for bad arguments)."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from agents.play.web.app import create_app
        from agents.play.web.players import allowed_agents
    except ImportError as exc:
        parser.exit(2, f"{prog}: error: the web app needs its extra: pip install "
                       f"'dice-env[web]' ({exc})\n")
    try:
        agents = allowed_agents(args.agent)
    except ValueError as exc:
        parser.error(str(exc))
    hosts = [*LOOPBACK_NAMES, args.host, f"[{args.host}]"] if is_loopback(args.host) else None
    app = create_app(agents, auto_seconds=args.auto_seconds, max_games=args.max_games,
                     ttl=args.ttl, allowed_hosts=hosts)
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
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
