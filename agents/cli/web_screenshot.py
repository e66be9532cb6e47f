"""Screenshots of the web app: the Play page after a few moves of a Penta game against a bot
with the advisor on, and (``--inspect-out``) the Inspect page at its costliest decision.

It starts the server on a free loopback port, drives the system's Chromium with Playwright
(``DICE_ENV_CHROMIUM`` names another executable), plays the seeded game -- in each decision the
advisor's best option, holding its dice by clicking them -- and writes PNGs (paths relative to
the current directory: from the checkout, the defaults remake the pictures of ``docs/``).  The
same arguments give the same picture.  Needs the ``web`` and ``dev`` extras and Chromium (exit
status 1 without them).

``--phone`` pictures a phone's screen (390 x 844, at twice the pixels): the game as a person
sees it, scrolled to the table; ``--people`` seats people who take turns at the screen.

Examples:
  dice-env web-screenshot --phone --people Ann,Bob --inspect-out docs/web-inspect-phone.png
  dice-env web-screenshot --out docs/web-play.png --inspect-out docs/web-inspect.png
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import (
    OneLineParser,
    at_least,
    command_parser,
    make_output_folders,
    non_negative_seed,
    output_file,
)


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env web-screenshot``."""
    p = command_parser(__doc__, prog)
    p.add_argument("--out", type=output_file, default=Path("docs/web-play.png"),
                   help="the PNG to write (default docs/web-play.png)")
    p.add_argument("--seed", type=non_negative_seed, default=7, help="the game's seed (default 7)")
    p.add_argument("--bot", default="heuristic", help="the bot to play against (default "
                   "heuristic; any registered scorecard player)")
    p.add_argument("--decisions", type=at_least(1), default=4,
                   help="the human's decisions played before the picture (default 4)")
    p.add_argument("--width", type=at_least(600), default=1280, help="viewport width (1280)")
    p.add_argument("--height", type=at_least(400), default=960, help="viewport height (960)")
    p.add_argument("--inspect-out", type=output_file, default=None,
                   help="also a picture of the Inspect page (e.g. docs/web-inspect.png)")
    p.add_argument("--phone", action="store_true",
                   help="a phone's screen (390 x 844, touch) instead of --width x --height; "
                        "--out defaults to docs/web-play-phone.png")
    p.add_argument("--people", default="", metavar="NAMES",
                   help="comma-separated names of people taking turns at the screen (default: "
                        "one person, you)")
    p.add_argument("--inspect", default="agent=ppo&game=penta&seed=3",
                   help="the Inspect page's query: which agent, game and seed (default "
                        "agent=ppo&game=penta&seed=3); the picture shows its costliest "
                        "decision")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Take the pictures; returns the exit status (1 without Playwright or Chromium)."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    from agents.play.web.screenshot import NotAPentaPlayer, ScreenshotError, Shot, take_screenshots

    make_output_folders(parser, args)
    out = args.out
    if args.phone and out == parser.get_default("out"):
        out = out.with_name("web-play-phone.png")
    people = tuple(n.strip() for n in args.people.split(",") if n.strip())
    from agents.play.seats import check_people

    try:
        check_people(people)
    except ValueError as exc:
        parser.error(f"argument --people: {exc}")
    shot = Shot(out=out, seed=args.seed, bot=args.bot, decisions=args.decisions,
                width=args.width, height=args.height, inspect_out=args.inspect_out,
                inspect=args.inspect, phone=args.phone, people=people)
    try:
        written = take_screenshots(shot)
    except NotAPentaPlayer as exc:
        parser.error(f"argument --bot: {exc}")
    except ScreenshotError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    for path in reversed(written):
        print(f"wrote {path}")
    return 0
