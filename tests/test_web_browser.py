"""The Play page in a real browser (issue 27, item 6): whole Penta and 5000 games clicked
through, dice held by clicking them, the advisor's numbers on screen equal to the optimal
player's ``advise`` for the state on screen, and the auto-score timer (it fires; a click or a
key stops it).  Headless Chromium through Playwright (the fixtures of ``conftest.py``); the
server runs in a thread on a free loopback port.  All in one xdist group: one browser."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import agents  # noqa: E402
from agents.play.web.app import create_app  # noqa: E402
from agents.play.web.players import allowed_agents  # noqa: E402
from agents.play.web.server import serve_in_thread  # noqa: E402
from dice_env.scorecard.render import MUST_SCRATCH_WARNING  # noqa: E402

pytestmark = pytest.mark.xdist_group("browser")


@pytest.fixture(scope="module")
def players():
    return allowed_agents()


@pytest.fixture(scope="module")
def server(players):
    running = serve_in_thread(create_app(players, auto_seconds=0))
    yield running.url
    running.stop()


@pytest.fixture(scope="module")
def timer_server(players):
    running = serve_in_thread(create_app(players, auto_seconds=1))
    yield running.url
    running.stop()


@pytest.fixture
def checked_page(page):
    """The page, failing the test on any script error."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    assert not errors, errors


def idle(page) -> None:
    page.wait_for_selector("body[data-busy='0']", timeout=20_000)


def start(page, url: str, game: str, bots: list[str], seed: int, advisor: bool) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.eval_on_selector("#speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')) }")
    page.select_option("#game", game)
    for i, name in enumerate(bots):
        page.click("#add-bot")
        page.locator("#bot-list select").nth(i).select_option(name)
    page.fill("#seed", str(seed))
    page.set_checked("#advisor", advisor)
    page.click("#start")
    idle(page)


def dice_on_screen(page) -> list[int]:
    """The faces drawn: the pips of each die's SVG."""
    return page.eval_on_selector_all(
        "#dice svg.die", "dice => dice.map(d => d.querySelectorAll('circle.pip').length)")


# -- Penta --------------------------------------------------------------------------------------
#: the human's card and the advisor's rows, read from the screen in one call
READ_PENTA = """() => {
  const text = (sel) => document.querySelector(sel).textContent;
  const cells = [...document.querySelectorAll("#card td[data-seat='0'][data-box]")];
  return {
    dice: [...document.querySelectorAll("#dice svg.die")]
      .map((d) => d.querySelectorAll("circle.pip").length),
    rollsLeft: Number(/Rerolls left: (\\d)/.exec(text("#turn-info"))[1]),
    scores: cells.map((c) => (c.textContent === "" ? null : Number(c.textContent))),
    bonus: Number(text("#card tr[data-row='penta_bonus'] td[data-seat='0']")),
    advice: [...document.querySelectorAll("#advice tbody tr")]
      .map((r) => [Number(r.dataset.action), r.querySelector(".value").textContent]),
  };
}"""


def check_penta_advice(page, optimal, show_all: bool = False) -> None:
    """The advisor's rows on screen are ``optimal.advise`` of the card on screen."""
    if show_all and not page.is_hidden("#advice-more"):
        page.click("#advice-more")
    screen = page.evaluate(READ_PENTA)
    card = {"dice": sorted(screen["dice"]), "rolls_left": screen["rollsLeft"],
            "scores": screen["scores"], "penta_bonus": screen["bonus"]}
    exact = optimal.advise(card)
    shown = dict(screen["advice"])
    assert shown and set(shown) <= set(exact)
    if show_all:
        assert set(shown) == set(exact)
    for action, text in shown.items():
        assert text == f"{exact[action]:.2f}", (action, text, exact[action])


def test_a_whole_penta_game_with_the_advisor(checked_page, server):
    page = checked_page
    optimal = agents.make("optimal", "penta")
    start(page, server, "penta", ["heuristic"], seed=21, advisor=True)
    assert page.text_content("#card thead").count("heuristic") == 1
    assert "Brelan" in page.text_content("#card") and "Carré" in page.text_content("#card")
    rounds, warned = 0, False
    while page.is_hidden("#summary"):
        rounds += 1
        assert f"round {rounds} of 13, your turn, roll 1 of 3" in page.text_content("#status")
        if page.is_visible("#warning"):
            assert page.text_content("#warning") == MUST_SCRATCH_WARNING
            warned = True
        check_penta_advice(page, optimal, show_all=rounds == 1)
        if rounds % 2:
            # hold two dice by clicking them, then roll the others
            faces = dice_on_screen(page)
            page.click("#dice .slot[data-pos='0'] svg")
            page.click("#dice .slot[data-pos='3'] svg")
            assert page.eval_on_selector_all(
                "#dice svg.held", "d => d.map(x => x.closest('.slot').dataset.pos)") == ["0", "3"]
            assert page.text_content("#roll") == "Roll (keep 2)"
            page.click("#dice .slot[data-pos='3'] svg")  # a second click releases it
            page.click("#dice .slot[data-pos='4'] svg")
            kept = sorted([faces[0], faces[4]])
            page.click("#roll")
            idle(page)
            assert "roll 2 of 3" in page.text_content("#status")
            held = page.eval_on_selector_all(
                "#dice svg.held", "d => d.map(x => x.querySelectorAll('circle.pip').length)")
            assert sorted(held) == kept  # the kept dice stay held after the reroll
            log = page.text_content("#log")
            assert f"hold [{' '.join(map(str, kept))}]" in log
            assert "cost of your choice" in page.text_content("#verdict")
            check_penta_advice(page, optimal)
        page.locator("#card button.score").first.click()
        idle(page)
    assert rounds == 13 and warned  # the last round: only Penta open, and no Penta thrown
    summary = page.text_content("#summary")
    total = page.text_content("#card tr[data-row='total'] td[data-seat='0']")
    assert f"Final total: {total}" in summary
    assert re.search(r"Total expected loss of your game: [0-9.]+ points over 20 decisions",
                     summary)
    assert re.search(r"(Winner|Tie): ", summary)


# -- 5000 ---------------------------------------------------------------------------------------
#: the scores, turns, turn total, dice and the advisor's rows, read from the screen
READ_5000 = """() => {
  const rows = [...document.querySelectorAll("#scores tbody tr")];
  return {
    scores: rows.map((r) => Number(r.querySelector(".score").textContent)),
    turns: rows.map((r) => Number(r.querySelector(".turns").textContent)),
    before: Number(/set aside before this roll: (\\d+)/
      .exec(document.querySelector("#turn-info").textContent)[1]),
    dice: [...document.querySelectorAll("#dice svg.die")]
      .map((d) => d.querySelectorAll("circle.pip").length),
    advice: [...document.querySelectorAll("#advice tbody tr")]
      .map((r) => [Number(r.dataset.action), r.querySelector(".value").textContent]),
    bank: !document.querySelector("#bank").disabled,
    status: document.querySelector("#status").textContent,
  };
}"""


def test_a_whole_5000_game_with_the_advisor(checked_page, server):
    page = checked_page
    optimal = agents.make("optimal", "fivethousand")
    start(page, server, "fivethousand", ["heuristic"], seed=8, advisor=True)
    decisions = 0
    while page.is_hidden("#summary") and decisions < 400:
        screen = page.evaluate(READ_5000)
        assert "your turn" in screen["status"]
        exact = optimal.advise({"scores": screen["scores"], "turns": screen["turns"],
                                "current_player": 0, "turn_total": screen["before"],
                                "dice": screen["dice"]})
        shown = dict(screen["advice"])
        assert set(shown) == set(exact)
        for action, text in shown.items():
            assert text == f"{100 * exact[action]:.2f}%"
        page.click("#bank" if screen["bank"] else "#roll-on")
        idle(page)
        decisions += 1
    assert decisions >= 5
    summary = page.text_content("#summary")
    assert re.search(r"Winner: (you|heuristic)", summary)
    assert f"over {decisions} decisions" in summary
    assert "heuristic banks" in page.text_content("#log")


# -- the auto-score timer ----------------------------------------------------------------------
def test_the_auto_score_timer_fires_and_a_click_or_key_stops_it(checked_page, timer_server):
    page = checked_page
    start(page, timer_server, "penta", [], seed=4, advisor=False)
    assert page.is_hidden("#timer")

    def last_roll() -> None:
        for _ in range(2):
            page.click("#roll")
            idle(page)
        page.wait_for_selector("#timer[data-state='running']")
        assert "The computer scores" in page.text_content("#timer")

    last_roll()  # round 1: wait, and the computer's choice is scored
    page.wait_for_selector("text=is scored for you", timeout=5_000)
    idle(page)
    assert "round 2 of 13" in page.text_content("#status")
    assert re.search(r"No choice within 1s: the computer's choice, .+, is scored for you\.",
                     page.text_content("#log"))

    last_roll()  # round 2: a click anywhere stops the timer
    page.click("#status")
    assert page.get_attribute("#timer", "data-state") == "stopped"
    page.wait_for_timeout(1_500)
    assert "round 2 of 13" in page.text_content("#status")
    assert page.text_content("#log").count("is scored for you") == 1
    page.locator("#card button.score").first.click()
    idle(page)

    last_roll()  # round 3: so does a key
    page.keyboard.press("Shift")
    assert page.get_attribute("#timer", "data-state") == "stopped"
    page.wait_for_timeout(1_500)
    assert "round 3 of 13" in page.text_content("#status")
    assert page.text_content("#log").count("is scored for you") == 1
