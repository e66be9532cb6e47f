"""Screenshots of the web app's pages (``dice-env report screenshots``): a few moves of a seeded
Penta game against a bot with the advisor on (one person, or several taking turns at the
screen), and optionally the Inspect page at its costliest decision.

A server of this process on a free loopback port; the system's Chromium driven by Playwright
(``DICE_ENV_CHROMIUM`` names another executable); in each decision of the person to move the
advisor's best option is played, holding its dice by clicking them.  The same arguments give
the same picture.  On a desktop screen the picture is the whole page; on a phone's
(:data:`PHONES`: 360 x 740 and 390 x 844, touch screens at twice the pixels) it is the first
screen a person sees after the moves, from the game's heading on: the turn -- the dice and
their buttons -- at the top, and the advisor and the score card under it (on the Inspect
page, from the replay's buttons on).  Each PNG is written with at most 256 colours, which
keeps a picture of these flat colours sharp and small (a phone's, well under 100 KB).  Needs the
``web`` and ``dev`` extras (Pillow comes with the latter's matplotlib) and Chromium.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PHONE", "PHONES", "NotAPentaPlayer", "ScreenshotError", "Shot", "best_move",
           "inspect_picture", "phone_outs", "take_screenshots"]

#: the phones' screens pictured, in CSS pixels: width -> height (a small Android phone, and a
#: current iPhone's)
PHONES: dict[int, int] = {360: 740, 390: 844}
#: the default phone's screen (width, height)
PHONE = (390, PHONES[390])


class ScreenshotError(RuntimeError):
    """What is missing to take the pictures (Playwright, Chromium)."""


class NotAPentaPlayer(ValueError):
    """The bot asked for does not play Penta (or is not a player the web app seats)."""


@dataclass(frozen=True)
class Shot:
    """What to picture: the Play page after ``decisions`` decisions of the people (``people``:
    their names, taking turns; none: one person, "you") in the game of ``seed`` against
    ``bot``, in a ``width`` x ``height`` viewport, written to ``out``; and with
    ``inspect_out`` the Inspect page of the query ``inspect`` too.  ``phone``: instead, a
    phone's touch screen of that width (a key of :data:`PHONES`; True: :data:`PHONE`'s), the
    visible screen only."""

    out: Path = Path("docs/web-play.png")
    seed: int = 7
    bot: str = "heuristic"
    decisions: int = 4
    width: int = 1280
    height: int = 960
    inspect_out: Path | None = None
    inspect: str = "agent=ppo&game=penta&seed=3"
    phone: int | bool = False
    people: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.phone is not False and self.phone_width not in PHONES:
            raise ValueError(f"a phone's width is one of {', '.join(map(str, PHONES))}, "
                             f"got {self.phone}")

    @property
    def phone_width(self) -> int | None:
        """The phone's width (None: a desktop screen)."""
        if self.phone is False:
            return None
        return PHONE[0] if self.phone is True else int(self.phone)

    @property
    def viewport(self) -> dict[str, int]:
        """The browser's viewport."""
        width = self.phone_width
        if width is None:
            return {"width": self.width, "height": self.height}
        return {"width": width, "height": PHONES[width]}


def phone_outs(out: Path, widths: list[int]) -> dict[int, Path]:
    """The file of each phone's picture: ``out`` itself for one phone; for several,
    ``out``'s name with the width added (``web-play-phone-360.png``)."""
    if len(widths) == 1:
        return {widths[0]: out}
    return {w: out.with_name(f"{out.stem}-{w}{out.suffix}") for w in widths}


def best_move(page: Any) -> None:
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


def _picture(page: Any, out: Path, screen_at: str | None) -> None:
    """Write the whole page to ``out``; with ``screen_at`` (a selector), only the screen,
    scrolled to that element.  In at most 256 colours."""
    from PIL import Image

    out.parent.mkdir(parents=True, exist_ok=True)
    if screen_at is not None:
        page.eval_on_selector(screen_at, "e => e.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(out), full_page=screen_at is None, animations="disabled",
                    caret="hide")
    with Image.open(out) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                              dither=Image.Dither.NONE)
    small.save(out, optimize=True)


def inspect_picture(page: Any, url: str, query: str, out: Path, phone: bool = False) -> Path:
    """The Inspect page of ``query`` at its costliest decision, written to ``out`` (``phone``:
    the screen at the replay's buttons)."""
    page.goto(f"{url}/inspect?{query}")
    page.wait_for_selector(".ins-panel .ins-options", timeout=600_000)
    data = page.request.get(f"{url}/api/inspect?{query}").json()
    regrets = [d["regret"] for d in data["games"][0]["players"][0]["decisions"]]
    steps = max(range(len(regrets)), key=regrets.__getitem__)
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    page.mouse.move(0, 0)
    _picture(page, out, ".ins-nav" if phone else None)
    return out


def _play_page(page: Any, url: str, shot: Shot) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.eval_on_selector("#speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')) }")
    page.select_option("#game", "penta")
    for i, name in enumerate(shot.people):
        if i:
            page.click("#add-person")
        page.locator("#people-list input").nth(i).fill(name)
    page.click("#add-bot")
    page.locator("#bot-list select").first.select_option(shot.bot)
    page.fill("#seed", str(shot.seed))
    page.set_checked("#advisor", True)
    page.click("#start")
    page.wait_for_selector("body[data-busy='0'] #advice tbody tr", timeout=600_000)
    for _ in range(shot.decisions):
        best_move(page)
    # the advisor's whole advice: its note (the chances of winning still being prepared) gone
    page.wait_for_selector("#advice-note", state="hidden", timeout=600_000)
    page.eval_on_selector("#speed",
                          "e => { e.value = '600'; e.dispatchEvent(new Event('input')) }")
    page.mouse.move(0, 0)
    # a phone: its screen from the game's heading on, as the page shows it after New game
    _picture(page, shot.out, "#table" if shot.phone_width is not None else None)


def take_screenshots(shot: Shot) -> list[Path]:
    """Take the pictures ``shot`` asks for; returns the files written.
    :class:`NotAPentaPlayer` when ``shot.bot`` is not a Penta player; :class:`ScreenshotError`
    without Playwright, the web extra or Chromium."""
    try:
        from PIL import Image  # noqa: F401  (the pictures' colours: _picture)
        from playwright.sync_api import sync_playwright

        from agents.play.web.app import create_app
        from agents.play.web.browser import chromium_path
        from agents.play.web.players import allowed_agents
        from agents.play.web.server import serve_in_thread
    except ImportError as exc:
        raise ScreenshotError(f"{exc} (pip install 'dice-env[web,dev]')") from None
    players = allowed_agents()
    if shot.bot not in players or not players[shot.bot].plays("penta"):
        raise NotAPentaPlayer(f"{shot.bot!r} is not a Penta player")
    browser_path = chromium_path()
    if browser_path is None:
        raise ScreenshotError("no Chromium found (apt-get install chromium, or set "
                              "DICE_ENV_CHROMIUM)")
    written = [shot.out]
    server = serve_in_thread(create_app(players, auto_seconds=0))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=browser_path, headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            phone = shot.phone_width is not None
            page = browser.new_page(viewport=shot.viewport, has_touch=phone,
                                    device_scale_factor=2 if phone else 1)
            _play_page(page, server.url, shot)
            if shot.inspect_out is not None:
                written.append(inspect_picture(page, server.url, shot.inspect, shot.inspect_out,
                                               phone))
            browser.close()
    finally:
        server.stop()
    return written
