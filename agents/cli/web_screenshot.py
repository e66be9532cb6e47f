"""Screenshots of the web app: the Play page after a few moves of a Penta game against a bot
with the advisor on, and (``--inspect-out``) the Inspect page at its costliest decision.

It starts the server on a free loopback port, drives the system's Chromium with Playwright
(``DICE_ENV_CHROMIUM`` names another executable), plays the seeded game -- in each decision the
advisor's best option, holding its dice by clicking them -- and writes PNGs (paths relative to
the current directory: from the checkout, the defaults remake the pictures of ``docs/``).  The
same arguments give the same picture.  Needs the ``web`` and ``dev`` extras and Chromium (exit
status 1 without them).

Example:
  dice-env web-screenshot --out docs/web-play.png --inspect-out docs/web-inspect.png
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import OneLineParser, at_least, command_parser, non_negative_seed


def build_parser(prog: str | None = None) -> OneLineParser:
    """The command line of ``dice-env web-screenshot``."""
    p = command_parser(__doc__, prog)
    p.add_argument("--out", type=Path, default=Path("docs/web-play.png"),
                   help="the PNG to write (default docs/web-play.png)")
    p.add_argument("--seed", type=non_negative_seed, default=7, help="the game's seed (default 7)")
    p.add_argument("--bot", default="heuristic", help="the bot to play against (default "
                   "heuristic; any registered scorecard player)")
    p.add_argument("--decisions", type=at_least(1), default=4,
                   help="the human's decisions played before the picture (default 4)")
    p.add_argument("--width", type=at_least(600), default=1280, help="viewport width (1280)")
    p.add_argument("--height", type=at_least(400), default=960, help="viewport height (960)")
    p.add_argument("--inspect-out", type=Path, default=None,
                   help="also a picture of the Inspect page (e.g. docs/web-inspect.png)")
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

    shot = Shot(out=args.out, seed=args.seed, bot=args.bot, decisions=args.decisions,
                width=args.width, height=args.height, inspect_out=args.inspect_out,
                inspect=args.inspect)
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
