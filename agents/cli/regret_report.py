"""Where every player loses its points: ``results/regret.md``, ``regret.json``, ``regret.png``.

For every registered player of Penta and Dice Poker, the exact per-decision regret against the
optimum (:func:`agents.evaluation.optimality_gap`): the gap to the optimal expected score with
its 95 % CI, decomposed by decision kind and by turn, checked against the paired final-score
difference on the same dice (the variance-reduction factor says how many times fewer games the
regret needs).  For 5000, the same in win probability against the optimal player, and in
expected turns alone.

The dice are the **report games** by default (evaluation seed 1,000,003; game *i* draws from
the stream (seed, *i*)): the committed PPO models' seeds were chosen on the selection games
(seed 0, ``results/ppo_recipe_seeds.md``), so no figure here comes from the games that chose a
model.

Only the documented full run (no count options: ``dice-env report regret``) writes
``results/``; other runs write ``runs/regret-report/`` unless ``--out`` says otherwise (paths
relative to the current directory).

Example:
  dice-env report regret --games 200 --fivethousand-games 0 --scorecard-games penta
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    GAMES_MAX,
    command_parser,
    games,
    make_output_folders,
    non_negative_seed,
    output_folder,
    output_path,
)


def fivethousand_games(text: str) -> int:
    """An argparse ``type``: 0 (leave 5000 out) or 2 to :data:`~agents.arguments.GAMES_MAX`
    games."""
    value = games(0)(text)
    if value == 1:
        raise argparse.ArgumentTypeError(f"must be 0 or at least 2, got 1 (0, or from 2 to "
                                         f"{GAMES_MAX})")
    return value


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env report regret``."""
    from agents.evaluation.game_sets import REPORT_SEED
    from agents.evaluation.players_regret import GAMES

    parser = command_parser(__doc__, prog)
    parser.add_argument("--games", type=games(2), default=2000,
                        help="scorecard games per player (default %(default)s)")
    parser.add_argument("--fivethousand-games", type=fivethousand_games, default=4000,
                        help="5000 games per player and mode (default %(default)s; 0 skips 5000)")
    parser.add_argument("--seed", type=non_negative_seed, default=REPORT_SEED,
                        help="seed of the dice (default %(default)s: the report games)")
    parser.add_argument("--scorecard-games", nargs="*", default=GAMES, metavar="GAME",
                        help="scorecard presets (default: %(default)s)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="output folder (default: results/ for the full run, else "
                             "runs/regret-report/)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> dict:
    """Measure every player, write the report; returns its JSON payload."""
    from agents.evaluation.players_regret import regret_of_every_player
    from agents.evaluation.reports.regret import write_regret_report
    from dice_env.scorecard.rules import get_rules

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    for game in args.scorecard_games:
        try:
            get_rules(game)
        except ValueError as err:
            parser.error(f"argument --scorecard-games: {err}")
    make_output_folders(parser, args)
    out = output_folder(parser, args, Path("runs") / "regret-report")
    result = regret_of_every_player(args.scorecard_games, args.games, args.fivethousand_games,
                                    args.seed)
    command = " ".join(["dice-env report regret", *argv])
    payload = write_regret_report(out, result.scorecard, result.fivethousand, result.solo,
                                  command, result.probes)
    print(f"written: {out / 'regret.md'}, regret.json, regret.png")
    return payload
