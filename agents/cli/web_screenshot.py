"""Screenshots of the web app: the Play page after a few moves of a Penta game against a bot
with the advisor on, and (``--inspect-out``) the Inspect page at its costliest decision.

It starts the server on a free loopback port, drives the system's Chromium with Playwright
(``DICE_ENV_CHROMIUM`` names another executable), plays the seeded game -- in each decision the
advisor's best option, holding its dice by clicking them -- and writes PNGs (paths relative to
the current directory: from the checkout, the defaults remake the pictures of ``docs/``).  The
same arguments give the same picture.  Needs the ``web`` and ``dev`` extras and Chromium (exit
status 1 without them).

``--phone`` pictures phones' screens (360 x 740 and 390 x 844, at twice the pixels; ``--phone
390`` one of them): the game as a person sees it, from its heading on, each phone in its own
PNG (``docs/web-play-phone-360.png`` and ``-390.png``), and the Inspect page on the last one;
``--people`` seats people who take turns at the screen.

Examples:
  dice-env report screenshots --phone --people Ann,Bob --inspect-out docs/web-inspect-phone.png
  dice-env report screenshots --out docs/web-play.png --inspect-out docs/web-inspect.png
"""

from __future__ import annotations

import sys
from argparse import ArgumentTypeError
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


def phone_widths(text: str) -> list[int]:
    """``--phone``'s comma-separated widths: each one of the phones pictured."""
    from agents.play.web.screenshot import PHONES

    widths = []
    for part in text.split(","):
        try:
            width = int(part)
        except ValueError:
            raise ArgumentTypeError(f"expected widths such as 360,390, got {text!r}") from None
        if width not in PHONES:
            raise ArgumentTypeError(f"a phone's width is one of "
                                    f"{', '.join(map(str, PHONES))}, got {width}")
        if width not in widths:
            widths.append(width)
    return widths


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env report screenshots``."""
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
    p.add_argument("--phone", nargs="?", const="360,390", default=None, type=phone_widths,
                   metavar="WIDTHS",
                   help="phones' screens (360 x 740 and 390 x 844, touch) instead of --width x "
                        "--height: each width given (default both), one PNG each, --out's name "
                        "with the width added when there are two (--out defaults to "
                        "docs/web-play-phone.png: docs/web-play-phone-360.png and -390.png)")
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
    from agents.play.web.screenshot import (
        NotAPentaPlayer,
        ScreenshotError,
        Shot,
        phone_outs,
        take_screenshots,
    )

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
    common = {"seed": args.seed, "bot": args.bot, "decisions": args.decisions,
              "width": args.width, "height": args.height, "inspect": args.inspect,
              "people": people}
    if args.phone:  # one picture per phone, the Inspect page's on the last one
        outs = phone_outs(out, args.phone)
        shots = [Shot(out=outs[w], phone=w, **common,
                      inspect_out=args.inspect_out if w == args.phone[-1] else None)
                 for w in args.phone]
    else:
        shots = [Shot(out=out, inspect_out=args.inspect_out, **common)]
    try:
        written = [path for shot in shots for path in take_screenshots(shot)]
    except NotAPentaPlayer as exc:
        parser.error(f"argument --bot: {exc}")
    except ScreenshotError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    for path in reversed(written):
        print(f"wrote {path}")
    return 0
