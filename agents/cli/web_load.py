"""Load-test the web app over loopback: many games at once through the HTTP API.

Without ``--url`` it starts its own server on a free loopback port.  Each game sends a fixed
number of requests (its creation, then random legal moves from a seeded generator), so the run
stops by itself.  Printed: the errors, the latency percentiles (p50, p90, p99) and how many
games answered differently from the same game played again alone with the same seed (none
should: games are isolated).  Exit status 1 if any request failed or any game differed.  Needs
the ``web`` extra.  Also ``dice-env bench web``.

Example:
  dice-env web-load --games 100 --requests 40
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.cli.args import (
    OneLineParser,
    at_least,
    command_parser,
    non_negative_seed,
    positive_float,
)


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env web-load``."""
    p = command_parser(__doc__, prog)
    p.add_argument("--url", default=None,
                   help="a running server (default: start one on a free loopback port)")
    p.add_argument("--games", type=at_least(1), default=50, help="games at once (default 50)")
    p.add_argument("--requests", type=at_least(1), default=20,
                   help="requests per game, its creation included (default 20)")
    p.add_argument("--seed", type=non_negative_seed, default=0,
                   help="seed of the games (default 0)")
    p.add_argument("--timeout", type=positive_float, default=60.0,
                   help="seconds allowed for one request (default 60)")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run the load test and print its report; returns the exit status (1: an error or a
    disturbed game)."""
    args = build_parser(prog).parse_args(argv)
    from agents.play.web.load import load_test

    result = load_test(args.url, args.games, args.requests, args.seed, args.timeout)
    print("\n".join(result.lines()))
    return 0 if result.ok else 1
