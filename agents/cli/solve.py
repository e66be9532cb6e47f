"""Solve a game exactly and report its optimal expected score.

The solved table is cached on disk (``--cache-dir``, else ``$DICE_ENV_CACHE``, else the user
cache folder); a later run, and every optimal agent, loads it.  ``dice-env solve penta`` prints
a summary, ``--json`` one JSON line per game, ``all --force`` re-solves every game and
overwrites the cache, ``--no-cache`` solves in memory only (timing runs).

JSON fields: ``game``, ``expected_score``, ``seconds`` (wall time this run spent getting the
table: building the rule tables, loading -- or the first time compiling -- the numba kernels
and the DP; or reading the cache), ``peak_mb`` (peak resident memory of the process),
``source`` (``solved`` / ``cache``), ``cache_path``, ``threads``; after a solve the breakdown
``prepare_seconds``, ``compile_seconds``, ``dp_seconds`` and ``states``; from the cache
``solved_seconds`` (how long the stored solve took) and ``solved_at`` (when: the local time
the cached table was written, by an earlier run); ``wall_seconds`` since the command started
(imports included).

Example:
  dice-env solve penta
  dice-env solve dice-poker --json
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import json  # noqa: E402
import sys  # noqa: E402
from collections.abc import Sequence  # noqa: E402

from agents.cli.args import (  # noqa: E402
    command_parser,
    make_output_folders,
    output_path,
    threads,
)


def build_parser(prog: str | None = None):
    """The command line of ``dice-env solve``."""
    parser = command_parser(__doc__, prog)
    from agents.solvers.records import solvable_games

    parser.add_argument("game", metavar="GAME",
                        help=f"the game to solve: {', '.join(solvable_games())}, or 'all'")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON line per game instead of a summary")
    parser.add_argument("--cache-dir", type=output_path, default=None,
                        help="cache folder (default: $DICE_ENV_CACHE, else the user cache)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the cache (always solves)")
    parser.add_argument("--force", action="store_true",
                        help="solve even if cached, and overwrite the cached table")
    parser.add_argument("--threads", type=threads, default=None,
                        help="numba threads, at least 1 (default: all cores)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Solve the game(s), print a record each; returns 0."""
    from agents.progress import on_terminal
    from agents.solvers.records import describe, solvable_games, solve_record

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    known = solvable_games()
    if args.game == "all":
        games = known
    elif args.game in known:
        games = [args.game]
    else:
        parser.error(f"argument GAME: unknown game {args.game!r}; choose from "
                     f"{', '.join(known)} or 'all'")
    make_output_folders(parser, args)
    progress = not args.quiet and on_terminal()
    for game in games:
        record = solve_record(game, cache_dir=args.cache_dir, use_cache=not args.no_cache,
                              force=args.force, threads=args.threads, progress=progress)
        record["wall_seconds"] = round(time.perf_counter() - _T_START, 3)
        print(json.dumps(record) if args.json else describe(record), flush=True)
    return 0
