"""Evaluate agents on the games: the benchmark tables, or any policy's exact gap to the optimum.

Without ``--agent`` / ``--regret``: every registered agent on every game, written to
``benchmark.csv``, ``benchmark.md`` and ``score_distributions.png`` in ``--out``.  Only the
documented full run, ``dice-env evaluate --games 10000 --seed 0`` (all defaults; also
``dice-env evaluate --games 10000 --seed 0``), writes ``results/`` by default; any
other run writes ``runs/evaluate/`` unless ``--out`` says where, so a quick or partial run
never overwrites the committed benchmark (paths relative to the current directory).
Scorecard games: each agent plays the same ``--games`` games with **common random numbers**
(game ``i`` draws its dice from its own stream seeded by ``(seed, i)``), so the differences
between agents are paired; reported: mean, SD, SEM, and the paired difference to the optimal
agent with a 95 % CI.  Penta and Dice Poker also get a two-player head-to-head table (rows
``"<game> 2p"``): every pairing's seat-balanced score (win 1, tie 1/2) with a 95 % CI, derived
from the same games.  5000: two-player head-to-head games against each opponent,
seat-balanced (each player opens half the games), win rates with 95 % CIs.

``--agent SPEC`` (repeatable) evaluates any policy on one ``--game`` (default penta): a
registered name, a stable-baselines3 model zip (MaskablePPO, PPO, A2C, DQN), a ``dice-env
train`` run folder (the policy of its latest checkpoint) or ``module:attr`` /
``path/to/file.py:attr`` (see ``agents.load``).  ``--regret`` measures the exact
per-decision regret against the optimum (``agents.evaluation.optimality_gap``): the gap with
its 95 % CI and where it is lost; for 5000, in win probability against the optimal player
(or in turns for ``dice_env/FiveThousandSolo-v0``).  These runs print their results and write
files only with ``--out``.

Example:
  dice-env evaluate --agent ppo --agent heuristic --game penta --regret --games 200
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    command_parser,
    games,
    make_output_folders,
    non_negative_seed,
    output_folder,
    output_path,
)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env evaluate``."""
    from agents.evaluation.benchmark import (
        FIVE_THOUSAND_AGENTS,
        FIVE_THOUSAND_OPPONENTS,
        SCORECARD_AGENTS,
        SCORECARD_GAMES,
    )

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", type=games(), default=None,
                        help="games per agent and game (default 10000; 2000 with --agent or "
                             "--regret)")
    parser.add_argument("--agent", action="append", metavar="SPEC",
                        help="evaluate this policy on --game (repeatable): a registered name, a "
                             "stable-baselines3 model zip (MaskablePPO, PPO, A2C, DQN; "
                             "'dqn:path.zip' names the algorithm), a dice-env train run "
                             "folder (the policy of its latest checkpoint, also while the run "
                             "trains) or module:attr / path/to/file.py:attr")
    parser.add_argument("--game", default="penta",
                        help="the game of --agent / --regret runs: a preset, 'fivethousand', "
                             "'pig' or a Gymnasium id (default %(default)s)")
    parser.add_argument("--regret", action="store_true",
                        help="exact per-decision regret against the optimum: the gap with its "
                             "95 %% CI, by decision kind, turn and box")
    parser.add_argument("--dice-averaged", action="store_true",
                        help="with --regret on a scorecard game: average each decision's loss "
                             "over the throw before it (unbiased, lower variance for weak "
                             "policies; asks the policy ~100x more decisions)")
    parser.add_argument("--fivethousand-games", type=games(), default=None,
                        help="5000 games per pairing (default: --games)")
    parser.add_argument("--seed", type=non_negative_seed, default=0,
                        help="seed of the dice (default %(default)s)")
    parser.add_argument("--scorecard-games", nargs="*", default=SCORECARD_GAMES,
                        help="scorecard presets to evaluate")
    parser.add_argument("--agents", nargs="*", default=SCORECARD_AGENTS,
                        help="scorecard agents")
    parser.add_argument("--fivethousand-agents", nargs="*", default=FIVE_THOUSAND_AGENTS)
    parser.add_argument("--opponents", nargs="*", default=None,
                        help="opponents in a game that is won (default: "
                             f"{' '.join(FIVE_THOUSAND_OPPONENTS)} for 5000; with --game, "
                             "the game's own defaults)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder, made if missing (default: results/ for the "
                             "benchmark's documented full run, else runs/evaluate/; --agent / "
                             "--regret runs write only when given one)")
    return parser


def _check_names(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Unknown games or agent names are errors listing the valid ones (not a 'skipping')."""
    from agents.evaluation.benchmark import FIVE_THOUSAND_OPPONENTS
    from agents.registry import available
    from dice_env.scorecard.rules import PRESETS

    known = {"--scorecard-games": sorted(PRESETS), "--agents": available("penta"),
             "--fivethousand-agents": available("fivethousand"),
             "--opponents": available("fivethousand")}
    given = {"--scorecard-games": args.scorecard_games, "--agents": args.agents,
             "--fivethousand-agents": args.fivethousand_agents,
             "--opponents": args.opponents or FIVE_THOUSAND_OPPONENTS}
    for option, names in given.items():
        unknown = [n for n in names if n not in known[option]]
        if unknown:
            parser.error(f"argument {option}: unknown {', '.join(map(repr, unknown))}; choose "
                         f"from {', '.join(known[option])}")


def evaluate_specs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[dict]:
    """``--agent`` / ``--regret``: evaluate the given policies on one game and print them."""
    import agents
    from agents.evaluation.any_policy import evaluate_players, regret_of_players
    from agents.evaluation.reports.benchmark import evaluation_line
    from agents.games import resolve
    from dice_env.io import atomic_write_text

    try:
        game = resolve(args.game)
    except ValueError as err:
        parser.error(f"argument --game: {err}")
    # the benchmark's player lists, by the family each option is for; others: every player
    listed = {"scorecard": args.agents, "fivethousand": args.fivethousand_agents}
    specs = args.agent or listed.get(game.family.name, sorted(game.family.players))
    unknown = [o for o in args.opponents or () if o not in game.family.players]
    if unknown:
        parser.error(f"argument --opponents: unknown {', '.join(map(repr, unknown))} for "
                     f"{game.name}; choose from {', '.join(sorted(game.family.players))}")
    players = {}
    for spec in specs:
        try:
            players[spec] = agents.load(spec, game)
        except (ValueError, ImportError, FileNotFoundError) as err:
            parser.error(f"argument --agent: {spec}: {str(err).splitlines()[0]}")
        if hasattr(players[spec], "seed"):
            players[spec].seed(args.seed)
    make_output_folders(parser, args)
    if args.regret:
        from agents.evaluation.scorecard_probes import bonus_giveaway

        results = []
        for player, r in zip(players.values(),
                             regret_of_players(players, game, args.games, args.seed,
                                               dice_averaged=args.dice_averaged), strict=True):
            print(r.format_text(), flush=True)
            results.append(r.summary())
            probe = bonus_giveaway(player, game)
            if probe is not None:
                print(probe.format_text(), flush=True)
                results[-1]["bonus_giveaway"] = probe.rate
    else:
        results = evaluate_players(players, game, args.game, args.games, args.seed,
                                   args.opponents)
        for r in results:
            print(evaluation_line(args.game, r))
    if args.out is not None:
        name = "regret.json" if args.regret else "evaluation.json"
        atomic_write_text(args.out / name, json.dumps(results, indent=1, default=float) + "\n")
        print(f"written: {args.out / name}")
    return results


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> list[dict]:
    """Run the benchmark, or evaluate the ``--agent`` policies; returns the rows."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    adhoc = bool(args.agent) or args.regret
    if args.games is None:
        args.games = 2000 if adhoc else 10_000
    if adhoc:
        if args.games < 2:
            parser.error(f"argument --games: must be at least 2 with --agent or --regret, got "
                         f"{args.games}")
        return evaluate_specs(parser, args)
    _check_names(parser, args)
    make_output_folders(parser, args)
    out = output_folder(parser, args, Path("runs") / "evaluate", expected={"games": 10_000})

    from agents.evaluation.benchmark import FIVE_THOUSAND_OPPONENTS, run_benchmark
    from agents.evaluation.reports.benchmark import (
        benchmark_line,
        missing_models_note,
        write_benchmark,
    )

    bench = run_benchmark(args.scorecard_games, args.agents, args.fivethousand_agents,
                          args.opponents or FIVE_THOUSAND_OPPONENTS, args.games,
                          args.fivethousand_games, args.seed)
    command = " ".join(["dice-env evaluate", *argv])
    write_benchmark(out, bench.rows, command, bench.optimal_values, bench.totals)
    for r in bench.rows:
        print(benchmark_line(r))
    note = missing_models_note(bench.missing)
    if note:
        print(note)
    print(json.dumps({"rows": len(bench.rows), "out": str(out)}))
    return bench.rows
