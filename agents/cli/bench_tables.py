"""How long a scorecard game's tables take from nothing: the DP solve, then the score spread.

For each game, in one process, twice, each time in an empty temporary cache (nothing is read
from or written to the user's): the expected-score DP is solved and the score-spread tables (the
second moments the win-probability players and the web advisor's P(win) column read) are
computed from it, each timed.  The first pass compiles the kernels it needs (or loads them from
numba's on-disk cache, when an earlier run compiled them): on a fresh install, what a first use
costs; the later passes find them compiled, and the ``compiled`` row is the fastest of
``--repeats`` of them (a Penta DP takes under a second, so one pass is mostly the machine's
noise).  The ratio spread / DP is what a web game with the advisor waits for beyond its
expected-score advice.  Prints a table and one JSON line; writes nothing.

Example:
  dice-env bench tables --games penta dice-poker --threads 2 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence

from agents.cli.args import command_parser

DEFAULT_GAMES = ["penta", "dice-poker"]


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env bench tables``."""
    from agents.arguments import at_least, threads

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", nargs="+", default=DEFAULT_GAMES, metavar="GAME",
                        help=f"scorecard games (default: {' '.join(DEFAULT_GAMES)})")
    parser.add_argument("--threads", type=threads, default=None,
                        help="numba threads of the solves (default: every core)")
    parser.add_argument("--repeats", type=at_least(1, 100), default=3, metavar="N",
                        help="compiled passes, the fastest of each table reported (default 3)")
    return parser


def time_tables(game: str, repeats: int = 1) -> dict:
    """Seconds of one game's tables from an empty cache, as the solvers report them:
    ``dp`` and ``spread`` (and their ``ratio``) of a first pass, ``first``, and the fastest of
    ``repeats`` more, ``compiled``."""
    from agents.scorecard.score_spread import load_or_compute_spread
    from agents.solvers.scorecard_dp import load_or_solve_scorecard

    row: dict = {"game": game}
    times: dict[str, list[tuple[float, float]]] = {"first": [], "compiled": []}
    for name in ["first"] + ["compiled"] * repeats:
        with tempfile.TemporaryDirectory() as cache:
            solution = load_or_solve_scorecard(game, cache_dir=cache)
            spread = load_or_compute_spread(game, cache_dir=cache).seconds
        row["game"] = solution.rules.name
        times[name].append((solution.seconds, spread))
    for name, pairs in times.items():
        dp = min(p[0] for p in pairs)
        spread = min(p[1] for p in pairs)
        row[name] = {"dp": round(dp, 3), "spread": round(spread, 3),
                     "ratio": round(spread / dp, 3)}
    row["repeats"] = repeats
    return row


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> list[dict]:
    """Time every game's tables; print the table and a JSON line; returns the rows."""
    import numba

    from dice_env.scorecard.rules import get_rules

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    for game in args.games:
        try:
            get_rules(game)
        except (KeyError, ValueError):
            parser.error(f"argument --games: {game!r} is not a scorecard game")
    if args.threads is not None:
        numba.set_num_threads(args.threads)
    rows = [time_tables(game, args.repeats) for game in args.games]
    print(f"{'game':<18} {'pass':<9} {'DP s':>8} {'spread s':>9} {'spread / DP':>12}")
    for r in rows:
        for name in ("first", "compiled"):
            t = r[name]
            print(f"{r['game']:<18} {name:<9} {t['dp']:>8.2f} {t['spread']:>9.2f} "
                  f"{t['ratio']:>11.2f}x")
    print(json.dumps({"threads": numba.get_num_threads(), "rows": rows}))
    return rows
