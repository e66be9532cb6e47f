"""A screenshot of the web app's Play page: a few moves of a Penta game against a bot, with
the advisor on.

Examples::

    python scripts/web_screenshot.py --out docs/web-play.png
    python scripts/web_screenshot.py --out /tmp/play.png --seed 3 --bot optimal

The script starts the server on a free loopback port, drives the system's Chromium with
Playwright (``DICE_ENV_CHROMIUM`` names another executable), plays the seeded game -- in each
decision the advisor's best option, holding its dice by clicking them -- and writes a PNG.  The
same arguments give the same picture.  Needs the ``web`` and ``dev`` extras and Chromium.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli_args import OneLineParser, at_least  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="web_screenshot.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("docs/web-play.png"),
                   help="the PNG to write (default docs/web-play.png)")
    p.add_argument("--seed", type=at_least(0), default=7, help="the game's seed (default 7)")
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


def best_move(page) -> None:
    """Play the advisor's best option: hold its dice (clicking them) and roll, or score."""
    action = int(page.get_attribute("#advice tbody tr", "data-action"))
    if action >= 32:
        page.click(f"#card button.score[data-box='{action - 32}']")
    else:
        for pos in range(5):
            held = "held" in (page.get_attribute(f"#dice .slot[data-pos='{pos}'] svg", "class")
                              or "")
            if held != bool(action >> pos & 1):
                page.click(f"#dice .slot[data-pos='{pos}'] svg")
        page.click("#roll")
    page.wait_for_selector("body[data-busy='0']")


def inspect_picture(page, url: str, query: str, out: Path) -> None:
    """The Inspect page of ``query`` at its costliest decision, written to ``out``."""
    page.goto(f"{url}/inspect?{query}")
    page.wait_for_selector(".ins-panel .ins-options")
    data = page.request.get(f"{url}/api/inspect?{query}").json()
    regrets = [d["regret"] for d in data["games"][0]["players"][0]["decisions"]]
    steps = max(range(len(regrets)), key=regrets.__getitem__)
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    page.mouse.move(0, 0)
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out), full_page=True, animations="disabled", caret="hide")
    print(f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright

        from agents.play.web.app import create_app
        from agents.play.web.browser import chromium_path
        from agents.play.web.players import allowed_agents
        from agents.play.web.server import serve_in_thread
    except ImportError as exc:
        print(f"web_screenshot.py: error: {exc} (pip install -e '.[web,dev]')", file=sys.stderr)
        return 1
    players = allowed_agents()
    if args.bot not in players or not players[args.bot].plays("penta"):
        parser.error(f"--bot: {args.bot!r} is not a Penta player")
    browser_path = chromium_path()
    if browser_path is None:
        print("web_screenshot.py: error: no Chromium found (apt-get install chromium, or set "
              "DICE_ENV_CHROMIUM)", file=sys.stderr)
        return 1
    server = serve_in_thread(create_app(players, auto_seconds=0))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=browser_path, headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": args.width, "height": args.height},
                                    device_scale_factor=1)
            page.goto(server.url + "/")
            page.wait_for_selector("body[data-ready='1']")
            page.eval_on_selector("#speed",
                                  "e => { e.value = '0'; e.dispatchEvent(new Event('input')) }")
            page.select_option("#game", "penta")
            page.click("#add-bot")
            page.locator("#bot-list select").first.select_option(args.bot)
            page.fill("#seed", str(args.seed))
            page.set_checked("#advisor", True)
            page.click("#start")
            page.wait_for_selector("body[data-busy='0'] #advice tbody tr")
            for _ in range(args.decisions):
                best_move(page)
            page.eval_on_selector("#speed",
                                  "e => { e.value = '600'; e.dispatchEvent(new Event('input')) }")
            page.mouse.move(0, 0)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out), full_page=True, animations="disabled",
                            caret="hide")
            if args.inspect_out is not None:
                inspect_picture(page, server.url, args.inspect, args.inspect_out)
            browser.close()
    finally:
        server.stop()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
