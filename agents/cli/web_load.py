"""Load-test the web app over loopback: many games at once through the HTTP API, while the
server's workers solve a table from a cold cache and inspect an agent over 100 seeds.

Without ``--url`` it starts its own server on a free loopback port: by default in a process of
its own, on a fresh cache folder that lacks the ``--cold-table`` (the worst case), or with
``--no-background`` in this process, with nothing behind the games.  Each game is played to its
end (its creation, then random legal moves from a seeded generator) within the ``--window``: a
game still playing when it closes stops there, so the run stops by itself.  Printed: how many
games were played to the end within the window, the errors, the latency percentiles (p50, p90,
p99), the seconds of each part of the run, how many games answered differently from the same
game played again alone with the same seed (none should: games are isolated); in the worst case
also the answer to the request that needs the cold table, the latencies of the moves and of
/api/health, what /api/ready said during the run, the load average, and how long the server
took to stop on SIGTERM with the build still running (leaving no half-built table).  Exit status
1 if any request failed, any game differed or the stop was slow or left something behind.  Needs
the ``web`` extra.

Example:
  dice-env bench web --games 50 --window 60
  dice-env bench web --no-background --think 0 --games 100 --requests 40
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from agents.cli.args import (
    OneLineParser,
    at_least,
    command_parser,
    non_negative_seed,
    positive_float,
)


def non_negative_float(text: str) -> float:
    """An argparse ``type``: a number, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _habits(text: str) -> str | None:
    if text == "none":
        return None
    from agents.play.web.load_worst import parse_habits

    try:
        parse_habits(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--habits ")) from None
    return text


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env bench web``."""
    from agents.play.web.tables import TABLES

    p = command_parser(__doc__, prog)
    p.add_argument("--url", default=None,
                   help="a running server (default: start one on a free loopback port)")
    p.add_argument("--games", type=at_least(1), default=50, help="games at once (default 50)")
    p.add_argument("--requests", type=at_least(0), default=0,
                   help="requests per game at most, its creation included (default 0: "
                        "each game to its end)")
    p.add_argument("--window", type=non_negative_float, default=60.0, metavar="S",
                   help="seconds the games may take (default 60; 0: no limit): a game still "
                        "playing when the window closes stops there, and the report says "
                        "how many were played to the end within it")
    p.add_argument("--seed", type=non_negative_seed, default=0,
                   help="seed of the games (default 0)")
    p.add_argument("--timeout", type=positive_float, default=60.0,
                   help="seconds allowed for one request (default 60)")
    p.add_argument("--think", type=non_negative_float, default=0.5, metavar="S",
                   help="a game waits about S seconds between two requests, as a person "
                        "does (default 0.5; 0: as fast as the server answers, a test of "
                        "throughput where latency is mostly the queue of the other games)")
    p.add_argument("--no-background", action="store_true",
                   help="no long work behind the games (the server runs in this process)")
    p.add_argument("--cold-table", choices=[*TABLES, "none"], default="dice-poker/spread",
                   metavar="TABLE",
                   help="the table solved from a cold cache behind the games (default "
                        f"dice-poker/spread; one of {', '.join(TABLES)}, or none)")
    p.add_argument("--habits", type=_habits, default="learned-value:fivethousand:500-599",
                   metavar="AGENT:GAME:A-B",
                   help="the habits inspection run behind the games (default "
                        "learned-value:fivethousand:500-599; none: no inspection)")
    p.add_argument("--workers", type=at_least(1), default=2,
                   help="the server's worker processes (default 2)")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run the load test and print its report; returns the exit status (1: an error, a
    disturbed game, or a slow or unclean stop)."""
    args = build_parser(prog).parse_args(argv)
    from agents.play.web.load import load_test

    worst = None
    if not args.no_background:
        from agents.play.web.load_worst import WorstCase

        worst = WorstCase(None if args.cold_table == "none" else args.cold_table, args.habits)
    result = load_test(args.url, args.games, args.requests, args.seed, args.timeout, worst,
                       args.workers, args.think, args.window or None)
    print("\n".join(result.lines()))
    return 0 if result.ok else 1
