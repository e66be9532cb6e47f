"""``dice-play`` / ``python -m dice_env.play``: the command line of the terminal program."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from agents.arguments import OneLineParser, ProseFormatter, seconds, seed
from agents.families import families
from agents.games import Game, known_games, resolve
from agents.play.seats import check_people
from agents.play.terminal.line_input import Terminal

GAME_ALIASES = {"poker": "dice-poker", "dicepoker": "dice-poker", "dice_poker": "dice-poker"}
#: the games named first in the help (the others: every game a family plays in the terminal)
FIRST_GAMES = ("penta", "dice-poker", "5000")


EXAMPLE = ("\nExamples:\n  dice-env play penta --advise --opponents heuristic\n"
           "  dice-env play penta --people Ann,Bob --opponents heuristic\n")


def _terminal_families() -> list:
    """The game families that have a terminal game (the ``"terminal_game"`` hook)."""
    return [f for f in families() if f.has_hook("terminal_game")]


def terminal_games() -> list[str]:
    """Every game name the terminal program accepts (Gymnasium ids aside)."""
    names = {f.name for f in _terminal_families()}
    return [n for n in known_games() if "/" not in n and " " not in n
            and resolve(n).family.name in names]


def build_parser(prog: str = "dice-play") -> argparse.ArgumentParser:
    """The command line of the terminal program (one-line errors, the example after the help:
    the parser of :mod:`agents.arguments`)."""
    bots = "; ".join(f"{f.title}: {', '.join(sorted(f.players))}"
                     for f in _terminal_families())
    others = [n for n in terminal_games() if n not in FIRST_GAMES]
    p = OneLineParser(
        prog=prog, formatter_class=ProseFormatter, example=EXAMPLE,
        description="Play Penta, Dice Poker, 5000 or another of the games in the terminal, "
                    "alone or against bots.",
        epilog=f"Bots of {bots} (ppo, learned-value and win-value play the committed models; "
               "win-value reads every card and plays to win). Type ? in the game for the "
               "commands. The full rules: `dice-env rules GAME`.")
    p.add_argument("game", help=f"{', '.join(FIRST_GAMES)} or another game: "
                   f"{', '.join(others)}")
    p.add_argument("--opponents", default="", metavar="NAMES",
                   help="comma-separated bots to play against, e.g. heuristic,optimal "
                        "(default: play alone)")
    p.add_argument("--people", default="", metavar="NAMES",
                   help="pass and play: comma-separated names of the people taking turns at "
                        "this keyboard, in seat order, e.g. Ann,Bob (default: you alone); the "
                        "bots sit after them")
    p.add_argument("--advise", action="store_true",
                   help="show the optimal player's value of each option and the cost of "
                        "your choices (against bots, each option's chance of winning too)")
    p.add_argument("--auto-seconds", type=seconds(0, off=True), default=3.0, metavar="S",
                   help="after the last roll, score the computer's choice if you have not "
                        "started typing within S seconds (0 disables; default 3; scorecard "
                        "games)")
    p.add_argument("--seed", type=seed, default=None,
                   help="seed for a reproducible game; in the scorecard games your dice are "
                        "those of `dice-env replay --seed SEED` for the same decisions")
    return p


def _resolve_game(name: str) -> Game:
    low = GAME_ALIASES.get(name.lower(), name.lower())
    games = terminal_games()
    if low in games:
        return resolve(low)
    raise ValueError(f"unknown game {name!r}; choose {', '.join(FIRST_GAMES)} or another "
                     f"game ({', '.join(n for n in games if n not in FIRST_GAMES)})")


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None, *, prog: str = "dice-play") -> int:
    """Run the interactive player; returns the exit status (0 also after ``q``, 2 for bad
    options, 130 after Ctrl-C)."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    term = Terminal(stdin or sys.stdin, stdout or sys.stdout)
    opponents = [o.strip().lower() for o in args.opponents.split(",") if o.strip()]
    people = [n for n in args.people.split(",") if n.strip()] or None
    try:
        check_people(people)
    except ValueError as exc:
        parser.error(f"argument --people: {exc}")
    try:
        game = _resolve_game(args.game)
        session = game.family.hook("terminal_game")(
            game, term, opponents, args.seed, advise=args.advise, people=people,
            auto_seconds=args.auto_seconds)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        return session.play()
    except EOFError:
        term.say("\nEnd of input: game abandoned.")
        return 0
    except KeyboardInterrupt:
        term.say("\nInterrupted.")
        return 130
    except BrokenPipeError:  # the output was closed (e.g. piped into head): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
