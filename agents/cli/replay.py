"""Write a replay you can share without a server: one self-contained HTML file.

The file holds the inspect view of one game (``agents.evaluation.inspect.games``): every
decision of the agent with its legal options, their exact values, the chosen and the best one
and the regret, the charts of the game, and -- with ``--agent`` twice -- a second agent on the
same dice beside it.  With ``--seeds A-B`` it also holds each agent's costliest habits over
those games, with the example positions inline.  Its style, script and data are inline and a
Content-Security-Policy forbids any request: it opens from a disk or a mail as it is.

"Seed S" is the game ``optimality_gap(agent, game, seed=S)`` plays first (scorecard games),
or the pair ``fivethousand_gap(agent, games=2, seed=S)`` plays against the optimal player
(5000): the regrets in the file are those tools' own.  ``--out`` is relative to the current
directory; a folder of it that is missing is made (and said on stderr) once every argument
has been checked.

Example:
  dice-env replay --agent ppo --agent heuristic --game dice-poker --seed 7 --out poker.html
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from agents.cli.args import (
    at_least,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_file,
)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of ``dice-env replay``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("--agent", action="append", required=True, metavar="SPEC",
                        help="a player as agents.load takes it: a registered name (ppo, "
                             "heuristic, optimal, learned-value, ...), a model .zip, a run "
                             "folder or module:attr; give it twice for two agents side by side")
    parser.add_argument("--game", required=True,
                        help="penta, dice-poker, another scorecard preset, or fivethousand")
    parser.add_argument("--seed", type=non_negative_seed, required=True, help="which game")
    parser.add_argument("--seeds", metavar="A-B",
                        help="also each agent's habits over the games of seeds A to B")
    parser.add_argument("--examples", type=at_least(1), default=3,
                        help="example positions per habit (default 3)")
    parser.add_argument("--out", type=output_file, required=True,
                        help="the HTML file to write (its folder is made if missing)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Write the replay file; returns 0."""
    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if len(args.agent) > 2:
        parser.error(f"argument --agent: one or two agents, got {len(args.agent)}")

    import agents
    from agents.evaluation.inspect import (
        MAX_SEED,
        inspector,
        parse_seed_range,
        replay_data,
    )
    from agents.games import resolve
    from agents.play.web.replay_page import replay_html
    from dice_env.io import atomic_write_text

    try:
        game = resolve(args.game)
        insp = inspector(game)
    except ValueError as exc:
        parser.error(f"argument --game: {exc}")
    if args.seed > MAX_SEED:
        parser.error(f"argument --seed: must be at most {MAX_SEED}, got {args.seed}")
    seeds = None
    if args.seeds is not None:
        try:
            seeds = parse_seed_range(args.seeds, games_per_seed=insp.games_per_seed())
        except ValueError as exc:
            parser.error(f"argument --seeds: {exc}")
    players = []
    for spec in args.agent:
        try:
            players.append((spec, agents.load(spec, game)))
        except (ValueError, FileNotFoundError, ImportError, TypeError) as exc:
            parser.error(f"argument --agent: {spec}: {str(exc).splitlines()[0]}")
    make_output_folders(parser, args)
    data = replay_data(players, game, args.seed, seeds, optimal=insp,
                       examples=args.examples)
    title = f"{data['title']} seed {args.seed}: {' vs '.join(data['agents'])}"
    html = replay_html(data, title=title)
    atomic_write_text(args.out, html)
    regrets = ", ".join(f"{p['agent']} {p['regret']:.4g}" for view in data["games"]
                        for p in view["players"])
    print(f"wrote {args.out} ({len(html.encode()) / 1024:.0f} kB): {title}; regret "
          f"({data['unit']}): {regrets}")
    return 0
