"""Standard Yahtzee, the benchmark of record: results/yahtzee.md and yahtzee.json.

Our players of ``yahtzee-official`` (Hasbro's rules) -- the optimum (exact DP), the structured
PPO model (the committed median seed, ``agents/models/yahtzee-official.zip``), the learned-value
player and the heuristic -- each play the same 100,000 games: the **report games**, evaluation
seed 1,000,003 (game *i* draws its dice from the stream (1000003, *i*)), disjoint from the
selection games (seed 0) that chose the committed PPO seed.  Each row: the mean final score
(95 % CI) and the median, the upper-bonus rate, the Yahtzee rate (a Yahtzee scored in the
Yahtzee box) and the exact gap to the optimum with its 95 % CI (exact per-decision regret,
``optimality_gap``, over the first 2,000 of the same games).  The published agents (arXiv
2601.00007; Yahtzotron) follow with their own figures and sources.

Only the documented full run (``dice-env report yahtzee``, every player present) writes
``results/``; a smaller run
(``--games``, ``--regret-games``, ``--players``, ``--ppo-model``) or one missing a player's
model writes ``runs/yahtzee-report/`` unless ``--out`` says otherwise.  A progress bar shows
only on a terminal.

Example:
  dice-env report yahtzee --games 2000 --regret-games 200 --players optimal heuristic
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    OneLineParser,
    command_parser,
    games,
    make_output_folders,
    output_folder,
    output_path,
    workers,
)


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env report yahtzee``."""
    from agents.evaluation.yahtzee import GAMES, PLAYERS, REGRET_GAMES

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", type=games(2), default=GAMES,
                        help="games per player for the scores and rates (default %(default)s)")
    parser.add_argument("--regret-games", type=games(2), default=REGRET_GAMES,
                        help="games per player for the exact gap, the first of the same games "
                             "(default %(default)s)")
    parser.add_argument("--players", nargs="+", default=list(PLAYERS), choices=PLAYERS,
                        metavar="PLAYER", help=f"our players (default: all of {list(PLAYERS)})")
    parser.add_argument("--ppo-model", type=Path, default=None,
                        help="a PPO model file to play instead of the committed one")
    parser.add_argument("--workers", type=workers(), default=1,
                        help="players measured at once, each in a process of its own (default 1; "
                             "the results are the same); every process uses one torch thread")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the documented full run, "
                             "else runs/yahtzee-report/)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Measure our players, write the table; returns 0."""
    from agents.evaluation.reports.yahtzee import write_yahtzee_report
    from agents.evaluation.yahtzee import PUBLISHED, make_players, run_yahtzee_benchmark
    from agents.training.threads import set_torch_threads

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.ppo_model is not None and not args.ppo_model.is_file():
        parser.error(f"argument --ppo-model: no such file: {args.ppo_model}")
    if args.regret_games > args.games:
        parser.error(f"argument --regret-games: at most --games ({args.games}), got "
                     f"{args.regret_games}")
    make_output_folders(parser, args)
    adhoc = Path("runs") / "yahtzee-report"
    out = output_folder(parser, args, adhoc, ignore=("workers",))
    _, missing = make_players(args.players, args.ppo_model)
    for name, why in missing.items():
        print(f"left out {name}: {why}", file=sys.stderr)
    if missing and args.out is None and out != adhoc:  # never a partial table in results/
        print(f"a player has no model: writing {adhoc}/ instead of {out}/", file=sys.stderr)
        out = adhoc
    one_thread = functools.partial(set_torch_threads, 1)  # batches of 10,000: one is fastest
    one_thread()
    result = run_yahtzee_benchmark(args.players, args.ppo_model, args.games, args.regret_games,
                                   progress=True, workers=args.workers,
                                   worker_setup=one_thread)
    shown = [a for i, a in enumerate(argv)  # the same results with any number of workers
             if not a.startswith("--workers") and (i == 0 or argv[i - 1] != "--workers")]
    command = " ".join(["dice-env report yahtzee", *shown])
    labels = {} if args.ppo_model is None else {"ppo": f"structured PPO: `{args.ppo_model}`"}
    path = write_yahtzee_report(out, result.rows, PUBLISHED, command, result.optimal_value,
                                result.games, result.regret_games, result.seed, result.missing,
                                labels)
    print(f"written: {path}, yahtzee.json")
    return 0
