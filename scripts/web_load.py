"""Load-test the web app over loopback: many games at once through the HTTP API.

Examples::

    python scripts/web_load.py                        # 50 games at once, 20 requests each
    python scripts/web_load.py --games 100 --requests 40
    python scripts/web_load.py --url http://127.0.0.1:8000   # a server already running

Without ``--url`` the script starts its own server on a free loopback port.  Each game sends a
fixed number of requests (its creation, then random legal moves from a seeded generator), so the
run stops by itself.  Printed: the errors, the latency percentiles (p50, p90, p99) and how many
games answered differently from the same game played again alone with the same seed (none
should: games are isolated).  Exit status 1 if any request failed or any game differed.
Needs the ``web`` extra.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli_args import OneLineParser, at_least, positive_float  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="web_load.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default=None,
                   help="a running server (default: start one on a free loopback port)")
    p.add_argument("--games", type=at_least(1), default=50, help="games at once (default 50)")
    p.add_argument("--requests", type=at_least(1), default=20,
                   help="requests per game, its creation included (default 20)")
    p.add_argument("--seed", type=at_least(0), default=0, help="seed of the games (default 0)")
    p.add_argument("--timeout", type=positive_float, default=60.0,
                   help="seconds allowed for one request (default 60)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from agents.play.web.load import run_load

    server = None
    url = args.url
    if url is None:
        from agents.play.web.app import create_app
        from agents.play.web.server import serve_in_thread

        server = serve_in_thread(create_app(max_games=2 * args.games))
        url = server.url
    try:
        result = run_load(url, args.games, args.requests, args.seed, args.timeout)
    finally:
        if server is not None:
            server.stop()
    print("\n".join(result.lines()))
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
