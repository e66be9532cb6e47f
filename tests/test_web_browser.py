"""The Play and Inspect pages in a real browser.

Issue 27, item 6: whole Penta and 5000 games clicked through, dice held by clicking them, the
advisor's numbers on screen equal to the optimal player's ``advise`` for the state on screen,
and the auto-score timer (it fires; a click or a key stops it).

Issue 36: every page fits a phone (360 and 390 px: the document is no wider than the screen);
a tap on a score button while the countdown runs scores that box; the small bugs (the dice
after game over, a stale auto-score note, the "New game" button of the summary, Inspect's
status line, its two panels laid out alike, the favicon); a request that must first prepare a
table shows the job's progress and carries on by itself (the 202 and the job faked with
``page.route``); two people play a whole Penta game at one screen (pass and play).

Issue 46: a Penta game against a bot with the advisor on, started on a cold cache (a server
process of its own), gives a decision with advice within 10 s; on a phone (360 x 740 and
390 x 844) the dice and a score button are on screen together after New game and after each
roll, and the score card stays where it is from one decision to the next (the countdown and the
advisor have their room kept); the advisor's note is drawn in its panel and goes when a poll
of the view finds none; the standings' winner row has its own style and the standings fit
360 px.

Headless Chromium through Playwright (the fixtures of ``conftest.py``); the server runs in a
thread on a free loopback port.  All in one xdist group: one browser."""

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


@pytest.fixture(scope="module")
def slow_timer_server(players):
    """The countdown runs a minute: long enough for any test to act while it runs."""
    running = serve_in_thread(create_app(players, auto_seconds=60))
    yield running.url
    running.stop()


@pytest.fixture
def phone(browser):
    """``phone(width, height=844)``: a page of a touch screen ``width`` x ``height`` px,
    failing the test on any script error."""
    contexts, errors = [], []

    def make(width: int = 390, height: int = 844):
        context = browser.new_context(viewport={"width": width, "height": height},
                                      has_touch=True)
        contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        return pg

    yield make
    for context in contexts:
        context.close()
    assert not errors, errors


@pytest.fixture
def checked_page(page):
    """The page, failing the test on any script error."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    assert not errors, errors


def idle(page) -> None:
    # generous: with the advisor on, the first end-game position of a server process computes
    # the win-value player's last-turn table (tens of seconds on a loaded two-core machine)
    page.wait_for_selector("body[data-busy='0']", timeout=90_000)


def start(page, url: str, game: str, bots: list[str], seed: int | None, advisor: bool,
          people: list[str] = ()) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.eval_on_selector("#speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')) }")
    page.select_option("#game", game)
    for i, name in enumerate(people):
        if i:
            page.click("#add-person")
        page.locator("#people-list input").nth(i).fill(name)
    for i, name in enumerate(bots):
        page.click("#add-bot")
        page.locator("#bot-list select").nth(i).select_option(name)
    if seed is not None:
        page.fill("#seed", str(seed))
    page.set_checked("#advisor", advisor)
    page.click("#start")
    idle(page)


def dice_on_screen(page) -> list[int]:
    """The faces drawn: the pips of each die's SVG."""
    return page.eval_on_selector_all(
        "#dice svg.die", "dice => dice.map(d => d.querySelectorAll('circle.pip').length)")


# -- Penta ---------------------------------------------------------------------------------------
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


# -- 5000 ----------------------------------------------------------------------------------------
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


# -- the auto-score timer ------------------------------------------------------------------------
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


# -- the phone -----------------------------------------------------------------------------------
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def fits(page, where: str) -> None:
    """Nothing on ``page`` is wider than its viewport (no sideways scrolling of the page)."""
    scroll, inner = page.evaluate(WIDTH)
    assert scroll <= inner, f"{where}: the page is {scroll} px wide in a {inner} px screen"


def score_first_open_box(page) -> None:
    page.locator("#card button.score").first.click()
    idle(page)


@pytest.mark.parametrize("width", [360, 390])
def test_no_page_is_wider_than_a_phone(phone, server, width):
    """Play in each game (a table of six scrolls in its own box), the game-over summary, and
    Inspect (one agent, two side by side, their habits)."""
    page = phone(width)
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    fits(page, "the new-game form")
    start(page, server, "penta", ["heuristic"], seed=3, advisor=True, people=["Ann", "Bob"])
    fits(page, "Penta, two people and a bot, with the advisor")
    start(page, server, "dice-poker", ["heuristic", "greedy", "random", "heuristic"], seed=3,
          advisor=False, people=["Ann", "Bob"])
    fits(page, "Dice Poker, six players")
    start(page, server, "fivethousand", ["heuristic"], seed=3, advisor=True)
    fits(page, "5000 with the advisor")
    start(page, server, "dice-poker", [], seed=3, advisor=False)
    for _ in range(15):
        score_first_open_box(page)
    assert page.is_visible("#summary")
    fits(page, "the game-over summary")
    page.goto(f"{server}/inspect?agent=greedy&agent2=heuristic&game=penta&seed=3&seeds=0-2")
    page.wait_for_selector(".ins-habits .ins-matrix", timeout=120_000)
    fits(page, "Inspect: two agents side by side and their habits")
    page.goto(f"{server}/inspect?agent=heuristic&game=fivethousand&seed=2")
    page.wait_for_selector(".ins-panel .ins-options", timeout=120_000)
    fits(page, "Inspect: 5000")


def test_a_tap_on_a_score_button_during_the_countdown_scores_that_box(phone,
                                                                       slow_timer_server):
    """The press stops the countdown, whose line keeps its height: the button stays under
    the finger, and the tap scores its box (it used to move 20 px and the tap was lost).
    Without scroll anchoring (Safari has none), so that only the layout keeps it in place."""
    page = phone(390)
    start(page, slow_timer_server, "penta", [], seed=4, advisor=False)
    page.evaluate("document.documentElement.style.overflowAnchor = 'none'")
    for _ in range(2):
        page.tap("#roll")
        idle(page)
    page.wait_for_selector("#timer[data-state='running']")
    assert "The computer scores" in page.text_content("#timer")
    box = page.get_attribute("#card button.score >> nth=0", "data-box")
    button = f"#card button.score[data-box='{box}']"
    page.locator(button).scroll_into_view_if_needed()
    before = page.locator(button).bounding_box()
    # where the button is once the press has stopped the countdown (the page's listener runs
    # first, in the capture phase)
    page.evaluate("""(sel) => document.addEventListener('pointerdown', () => {
        window.tapped = document.querySelector(sel).getBoundingClientRect().y; })""", button)
    page.tap(button, timeout=5_000)
    idle(page)
    assert page.evaluate("window.tapped") == pytest.approx(before["y"], abs=0.5)  # no move
    assert page.text_content(f"#card td[data-seat='0'][data-box='{box}']") != ""
    assert "round 2 of 13" in page.text_content("#status")
    assert "is scored for you" not in page.text_content("#log")
    assert page.is_hidden("#timer")  # the note went with the move


def test_the_advisor_sits_next_to_the_dice_on_a_phone(phone, server):
    page = phone(390)
    start(page, server, "penta", ["heuristic"], seed=5, advisor=True)

    def top(selector: str) -> float:
        return page.locator(selector).bounding_box()["y"]

    assert top("#dice") < top("#advice-panel") < top("#card")
    assert top("#advice-panel") - (top("#dice") + page.locator("#dice").bounding_box()[
        "height"]) < 200


# -- the small bugs ------------------------------------------------------------------------------
def test_game_over_hides_the_dice_and_new_game_plays_again(checked_page, server):
    page = checked_page
    start(page, server, "dice-poker", ["random"], seed=6, advisor=False)
    for _ in range(15):
        score_first_open_box(page)
    assert page.is_visible("#summary") and page.is_hidden("#dice")
    assert page.eval_on_selector("#dice", "e => getComputedStyle(e).display") == "none"
    first = page.get_attribute("body", "data-game")
    page.click("#summary #again")  # the same game and players, new dice
    idle(page)
    assert page.get_attribute("body", "data-game") != first
    assert page.is_hidden("#summary") and page.is_visible("#dice")
    assert "Dice Poker: round 1 of 15, your turn, roll 1 of 3" == page.text_content("#status")
    assert page.text_content("#card thead").count("random") == 1
    for _ in range(15):
        score_first_open_box(page)
    page.click("#summary #change")  # or change the players: the form, focused
    assert page.evaluate("document.activeElement.id") == "game"


def test_the_auto_score_note_goes_with_the_next_move(checked_page, slow_timer_server):
    page = checked_page
    start(page, slow_timer_server, "penta", ["heuristic"], seed=8, advisor=False)
    for _ in range(2):
        page.click("#roll")
        idle(page)
    page.wait_for_selector("#timer[data-state='running']")
    page.click("#status")
    assert page.text_content("#timer") == "Auto-score stopped: your choice."
    score_first_open_box(page)  # the bot's turn follows, then round 2
    assert page.is_hidden("#timer") and "round 2 of 13" in page.text_content("#status")
    page.click("#roll")  # roll 2 of round 2
    idle(page)
    assert page.is_hidden("#timer")
    page.click("#roll")  # roll 3: the countdown again, and a key stops it
    idle(page)
    page.wait_for_selector("#timer[data-state='running']")
    page.keyboard.press("Shift")
    assert page.is_visible("#timer")
    assert page.is_hidden("#setup")  # folded while a game is on: "Game setup" opens it
    page.click("#setup-open")
    assert page.get_attribute("#setup-open", "aria-expanded") == "true"
    page.select_option("#game", "fivethousand")
    page.click("#bot-list button.remove")
    page.click("#start")  # a new game of 5000: no note of the last game
    idle(page)
    assert page.is_hidden("#timer") and "5000" in page.text_content("#status")


def test_inspect_status_line_follows_the_keys_and_the_panels_match(checked_page, server):
    page = checked_page
    page.goto(f"{server}/inspect?agent=greedy&agent2=heuristic&game=penta&seed=3")
    page.wait_for_selector(".ins-panel .ins-options", timeout=120_000)
    status = "#ins-status"
    page.keyboard.press("End")
    page.keyboard.press("n")
    assert page.text_content(status) == "no costly decision after this one"
    page.keyboard.press("Home")
    assert page.text_content(status) == ""
    page.keyboard.press("p")
    assert page.text_content(status) == "no costly decision before this one"
    page.keyboard.press("n")  # greedy's first costly decision
    assert page.text_content(status) == "" and page.locator(".ins-cell.current.costly").count()
    page.keyboard.press("p")
    assert page.text_content(status) == "no costly decision before this one"
    page.keyboard.press("ArrowRight")
    assert page.text_content(status) == ""
    # the two panels side by side: the same grid, column for column
    layout = page.evaluate("""() => [...document.querySelectorAll('.ins-panel')].map((p) => {
        const left = p.getBoundingClientRect().left;
        const at = (sel) => [...p.querySelectorAll(sel)].map((e) => {
          const r = e.getBoundingClientRect();
          return [Math.round(r.left - left), Math.round(r.width)];
        });
        return {card: at('.ins-card-table'), options: at('.ins-options-box'),
                columns: at('.ins-options thead th'), width: Math.round(p.offsetWidth)};
    })""")
    assert len(layout) == 2 and layout[0]["card"] and layout[0] == layout[1]
    assert layout[0]["options"][0][0] > layout[0]["card"][0][0]  # the options beside the card


def test_the_favicon(checked_page, server):
    page = checked_page
    assert page.request.get(server + "/favicon.ico").status == 200
    page.goto(server + "/")
    href = page.get_attribute("link[rel='icon']", "href")
    answer = page.request.get(server + href)
    assert answer.status == 200 and answer.headers["content-type"].startswith("image/svg")
    page.goto(f"{server}/inspect")
    page.wait_for_selector("#ins-form:not([hidden])")
    assert page.get_attribute("link[rel='icon']", "href") == href


# -- a table that must first be prepared (202 and a job) -----------------------------------------
def _job(state: str, progress: float, error: str | None = None) -> dict:
    return {"job": "j1", "what": "the optimal tables of Dice Poker", "progress": progress,
            "state": state, "error": error, "estimated": False}


def _fake_preparing(page, url: str, steps: list[dict]):
    """The first request whose URL matches the regular expression ``url`` answers 202 with
    job ``j1``, whose polls answer ``steps`` in turn (the last one again and again); later
    requests reach the server."""
    import json

    asked = []

    def first_202(route):
        if asked:
            route.continue_()
            return
        asked.append(route.request.url)
        route.fulfill(status=202, content_type="application/json",
                      body=json.dumps({"preparing": _job("running", 0.1)}))

    polls = []

    def job(route):
        polls.append(1)
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps(steps[min(len(polls), len(steps)) - 1]))

    page.route(re.compile(url), first_202)
    page.route(re.compile(r"/api/jobs/j1$"), job)
    return asked, polls


def test_a_game_waits_for_its_table_with_progress_then_starts(checked_page, server):
    page = checked_page
    steps = [_job("running", 0.4)] * 3 + [_job("done", 1.0)]
    asked, polls = _fake_preparing(page, r"/api/games$", steps)
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game", "dice-poker")
    page.click("#start")
    page.wait_for_selector("#preparing-text:text('Preparing the optimal tables of Dice Poker: "
                           "40 %')")
    idle(page)  # the job is done: the page asked again, and the game began
    assert len(asked) == 1 and len(polls) == 4 and page.is_hidden("#preparing")
    assert "Dice Poker: round 1 of 15, your turn" in page.text_content("#status")


def test_a_failed_job_shows_its_error(checked_page, server):
    page = checked_page
    _fake_preparing(page, r"/api/games$", [_job("failed", 0.3, "the solver ran out of memory")])
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#start")
    page.wait_for_selector("#setup-error:not([hidden])")
    assert page.text_content("#setup-error") == ("Could not prepare the optimal tables of Dice "
                                                 "Poker: the solver ran out of memory")
    assert page.is_hidden("#table") and page.is_hidden("#preparing")


def test_an_inspection_waits_for_its_job_with_progress(checked_page, server):
    page = checked_page
    steps = [_job("queued", 0.0), _job("running", 0.4), _job("running", 0.4), _job("done", 1.0)]
    asked, polls = _fake_preparing(page, r"/api/inspect\?", steps)
    page.goto(f"{server}/inspect?agent=greedy&game=penta&seed=3")
    page.wait_for_selector("#ins-status:text('preparing the optimal tables of Dice Poker: 40 %')")
    page.wait_for_selector(".ins-panel .ins-options", timeout=120_000)
    assert len(asked) == 1 and len(polls) == 4 and page.text_content("#ins-status") == ""


# -- pass and play -------------------------------------------------------------------------------
def test_two_people_play_a_whole_penta_game_at_one_screen(checked_page, timer_server):
    """Ann and Bob take turns, each announced by name; the advisor advises whoever is to move
    (on their own card), the auto-score timer scores for Bob on his turn, and the summary
    ranks both totals."""
    page = checked_page
    optimal = agents.make("optimal", "penta")
    start(page, timer_server, "penta", [], seed=12, advisor=True, people=["Ann", "Bob"])
    assert page.text_content("#turn-banner") == "Ann's turn"
    assert page.text_content("#advice-title") == "Advisor for Ann"
    assert "Penta: round 1 of 13, Ann's turn, roll 1 of 3" == page.text_content("#status")
    check_penta_advice(page, optimal)
    page.locator("#card button.score").first.click()  # Ann scores Aces
    idle(page)
    assert page.text_content("#turn-banner") == "Bob's turn"
    assert page.text_content("#advice-title") == "Advisor for Bob"
    assert "round 1 of 13, Bob's turn" in page.text_content("#status")
    assert re.search(r"Ann scores \d+ in Aces", page.text_content("#log"))
    assert "Ann's choice (score Aces" in page.text_content("#log")
    bob = page.eval_on_selector_all(  # Bob's own card: Aces is open to him
        "#card td[data-seat='1'][data-box]", "cells => cells.map((c) => c.textContent)")
    assert bob == [""] * 13 and page.locator("#card button.score[data-box='0']").count() == 1
    screen = page.evaluate(READ_PENTA.replace("data-seat='0'", "data-seat='1'"))
    card = {"dice": sorted(screen["dice"]), "rolls_left": screen["rollsLeft"],
            "scores": screen["scores"], "penta_bonus": screen["bonus"]}
    best = next(iter(optimal.advise(card).items()))
    assert screen["advice"][0] == [best[0], f"{best[1]:.2f}"]
    page.set_checked("#advisor", False)
    idle(page)
    for _ in range(2):
        page.click("#roll")
        idle(page)
    page.wait_for_selector("#timer[data-state='running']")
    assert "for Bob" in page.text_content("#timer")
    page.wait_for_selector("text=is scored for Bob", timeout=10_000)  # Bob waits: it fires
    idle(page)
    rounds = 1
    while page.is_hidden("#summary"):
        banner = page.text_content("#turn-banner")
        assert banner in ("Ann's turn", "Bob's turn")
        if banner == "Ann's turn":
            rounds += 1
            assert f"round {rounds} of 13, Ann's turn, roll 1 of 3" in page.text_content(
                "#status")
        score_first_open_box(page)
    assert rounds == 13
    log = page.text_content("#log")
    assert log.count("Ann's turn") == 13 and log.count("Bob's turn") == 13
    totals = {name: int(page.text_content(f"#card tr[data-row='total'] td[data-seat='{i}']"))
              for i, name in enumerate(["Ann", "Bob"])}
    rows = page.eval_on_selector_all("#summary table.standings tbody tr", """rows => rows.map(
        (r) => [...r.children].map((c) => c.textContent))""")
    assert [(name, int(total)) for _, name, total in rows] == sorted(
        totals.items(), key=lambda kv: -kv[1])
    summary = page.text_content("#summary")
    if totals["Ann"] == totals["Bob"]:
        assert [place for place, _, _ in rows] == ["1 (shared)", "1 (shared)"]
        assert f"Tie: Ann, Bob share the top with {totals['Ann']}: nobody wins" in summary
    else:
        winner = max(totals, key=totals.get)
        assert [place for place, _, _ in rows] == ["1", "2"] and f"Winner: {winner}" in summary
    assert page.text_content("#turn-banner") == "Game over"


# -- a game the page has never seen (issue 44) ---------------------------------------------------
def _pig_view(dice: list[int], score: int, your_turn: bool = True) -> dict:
    """The view of a made-up game the page knows nothing of -- one die, Roll and Hold, a score
    per player -- built from the layout helpers a family's web view uses."""
    from agents.play.web.layout import button, players_table

    buttons = [button("roll", "Roll", {"kind": "roll"}, primary=True, key="r"),
               button("hold", "Hold", {"kind": "hold"}, key="h", enabled=dice != [1],
                      title=None if dice != [1] else "a 1 loses the turn")]
    return {
        "family": "pig", "game": "pig", "title": "Pig", "names": ["you", "hold-20"], "you": 0,
        "people": [0], "turn_of": "you" if your_turn else None, "current": 0 if your_turn else 1,
        "over": False, "your_turn": your_turn, "dice": dice, "held": [], "advisor": False,
        "advice": None, "verdict": None, "warning": None, "auto": None, "summary": None,
        "status": f"Pig (to 100): {'your' if your_turn else 'hold-20s'} turn", "status_data": {},
        "info": f"Turn total {sum(dice)}.", "turn_key": f"0:{score}",
        "dice_marks": [{"class": "scoring", "note": "scores"} if d != 1 else None for d in dice],
        "controls": {"pick": False, "buttons": buttons if your_turn else []},
        "board": players_table("scores", [("Player", None), ("Score", "score")],
                               [("mover", ["you", score]), (None, ["hold-20", 12])]),
    }


def test_a_game_the_page_has_never_seen_is_drawn_from_its_view(checked_page, server):
    """A new family's page (one die, Roll and Hold, a score per player: Pig) needs no change
    to the page's script: the server's view says what to draw and which move each button
    sends (the answers faked with ``page.route``)."""
    import json

    page = checked_page
    sent = []

    def create(route):
        if route.request.method != "POST":
            route.continue_()
            return
        route.fulfill(status=201, content_type="application/json", body=json.dumps(
            {"id": "pig1", "state": _pig_view([4], 0), "frames": []}))

    def move(route):
        sent.append(json.loads(route.request.post_data))
        bot = _pig_view([6], 10, your_turn=False)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(
            {"id": "pig1", "state": _pig_view([1], 10), "messages": ["You roll a 4."],
             "verdict": None,
             "frames": [{"view": bot, "seat": 1, "text": "hold-20 rolls a 6", "events": []}]}))

    page.route(re.compile(r"/api/games$"), create)
    page.route(re.compile(r"/api/games/pig1/move$"), move)
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#start")
    idle(page)
    assert page.text_content("#status") == "Pig (to 100): your turn"
    assert page.text_content("#turn-info") == "Turn total 4."
    assert dice_on_screen(page) == [4] and page.locator("#dice svg.scoring").count() == 1
    assert page.eval_on_selector_all("#actions button", "b => b.map(x => x.textContent)") == [
        "Roll", "Hold"]
    rows = page.eval_on_selector_all("#scores tbody tr", """rows => rows.map(
        (r) => [...r.children].map((c) => c.textContent))""")
    assert rows == [["you", "0"], ["hold-20", "12"]]
    page.keyboard.press("h")  # the Hold button's key
    idle(page)
    assert sent == [{"kind": "hold"}]
    assert "hold-20 rolls a 6" in page.text_content("#log")
    assert page.is_disabled("#hold") and page.get_attribute("#hold", "title") == (
        "a 1 loses the turn")
    assert page.text_content("#scores tbody tr:first-child td.score") == "10"
    page.keyboard.press("h")  # disabled: nothing sent
    page.click("#roll")
    idle(page)
    assert sent == [{"kind": "hold"}, {"kind": "roll"}]


# -- issue 46: the phone's screen, the advisor's note, the standings, a cold start -------------
#: where the dice, the score card, the advisor and each score button are on the screen, and
#: whether each button can be tapped there (nothing drawn over its centre: the turn that stays
#: at the top of a phone's screen covers the rows scrolled under it)
GEOMETRY = """() => {
  const box = (e) => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};
  };
  const tappable = (b) => {
    const r = b.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const hit = document.elementFromPoint(x, y);
    return hit !== null && b.contains(hit);
  };
  return {
    dice: box(document.querySelector("#dice")), card: box(document.querySelector("#card")),
    advice: box(document.querySelector("#advice-panel")),
    buttons: [...document.querySelectorAll("#card button.score")].map((b) => ({
      box: Number(b.dataset.box), rect: box(b), tappable: tappable(b)})),
    width: innerWidth, height: innerHeight, scrollY: scrollY,
    status: document.querySelector("#status").textContent,
  };
}"""


def in_view(rect: dict, width: int, height: int) -> bool:
    """Whether the whole of ``rect`` lies inside a ``width`` x ``height`` viewport."""
    return (rect["top"] >= 0 and rect["left"] >= 0 and rect["bottom"] <= height
            and rect["right"] <= width)


def check_first_screen(page, where: str) -> dict:
    """The dice and at least one score button that can be tapped are inside the viewport;
    returns the geometry."""
    g = page.evaluate(GEOMETRY)
    assert in_view(g["dice"], g["width"], g["height"]), f"{where}: dice at {g['dice']}"
    shown = [b for b in g["buttons"] if b["tappable"] and in_view(b["rect"], g["width"],
                                                                   g["height"])]
    assert shown, (f"{where}: no score button on screen with the dice (buttons at "
                   f"{[round(b['rect']['top']) for b in g['buttons']]}, {g['height']} px high)")
    return g


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_the_dice_and_a_score_button_share_a_phones_screen(phone, slow_timer_server, size):
    """Penta against a bot with the advisor on and the countdown on (it runs after each last
    roll): after New game and after each roll the dice and a score button are on the screen
    together, and the score card does not move from one decision to the next -- neither the
    countdown nor the advisor's changing options push it.  Each box is scored by a tap on a
    button on the screen; when the open boxes are all below it, the person scrolls, and the
    dice stay at the top of the screen."""
    page = phone(*size)
    start(page, slow_timer_server, "penta", ["heuristic"], seed=11, advisor=True)
    where = f"{size[0]} x {size[1]}, after New game"
    g = check_first_screen(page, where)
    card_top, scroll = g["card"]["top"], g["scrollY"]
    assert page.is_hidden("#setup") and page.is_visible("#setup-open")  # the form folded
    countdowns = scrolled = 0
    for rnd in range(1, 7):
        for roll in (2, 3):
            page.tap("#roll")
            idle(page)
            where = f"{size[0]} x {size[1]}, round {rnd}, roll {roll}"
            assert f"round {rnd} of 13, your turn, roll {roll} of 3" in page.text_content(
                "#status"), where
            if roll == 3:
                page.wait_for_selector("#timer[data-state='running']")
                countdowns += 1
            g = check_first_screen(page, where)
            assert g["scrollY"] == scroll, f"{where}: the page scrolled by itself"
            assert g["card"]["top"] == pytest.approx(card_top, abs=0.5), (
                f"{where}: the score card moved from {card_top} to {g['card']['top']}")
        # score the first open box on the screen (the tap stops the countdown first)
        box = next(b["box"] for b in g["buttons"] if b["tappable"])
        page.tap(f"#card button.score[data-box='{box}']")
        idle(page)
        where = f"{size[0]} x {size[1]}, round {rnd + 1}, roll 1"
        g = check_first_screen(page, where)
        assert g["card"]["top"] == pytest.approx(card_top, abs=0.5), (
            f"{where}: the score card moved from {card_top} to {g['card']['top']}")
    assert countdowns == 6
    # the last open box: the person scrolls to it, and the dice stay on the screen
    last = page.locator("#card button.score").last
    last.scroll_into_view_if_needed()
    g = page.evaluate(GEOMETRY)
    scrolled = g["scrollY"] - scroll
    assert in_view(g["dice"], g["width"], g["height"]), f"scrolled {scrolled} px: {g['dice']}"
    assert g["buttons"][-1]["tappable"]


def test_the_advisors_note_is_drawn_in_its_room_and_goes(phone, server):
    """A view with an ``advice_note`` (the advisor still prepares its win probabilities) shows
    it in the advisor's panel, above the advice, and moves nothing; the page asks for the view
    again while the note is there, and draws the advice of the view without one (the note
    faked with ``page.route`` on the server's real answers)."""
    import json

    page = phone(360, 740)
    note = "The chances of winning are still being prepared: expected scores for now."
    polls = []

    def with_note(route):
        answer = route.fetch()
        data = answer.json()
        if "state" not in data:  # a table to prepare first (202), or an error
            route.fulfill(response=answer)
            return
        last = route.request.method == "GET" and len(polls) >= 2
        if route.request.method == "GET":
            polls.append(1)
        data["state"]["advice_note"] = None if last else note
        route.fulfill(response=answer, body=json.dumps(data))

    page.route(re.compile(r"/api/games$"), with_note)
    page.route(re.compile(r"/api/games/[^/]+$"), with_note)
    start(page, server, "penta", ["heuristic"], seed=5, advisor=True)
    assert page.text_content("#advice-note") == note
    g = page.evaluate(GEOMETRY)
    layout = page.evaluate("""() => ['#advice-note', '#advice'].map(
        (s) => document.querySelector(s).getBoundingClientRect().top)""")
    assert layout[0] < layout[1]  # the note above the advice
    note_box = page.locator("#advice-note").bounding_box()
    assert g["advice"]["top"] <= note_box["y"] and (
        note_box["y"] + note_box["height"] <= g["advice"]["bottom"])  # inside the panel
    rows = page.locator("#advice tbody tr").count()
    assert rows > 0
    page.wait_for_selector("#advice-note", state="hidden", timeout=30_000)
    assert len(polls) == 3  # two polls kept the note, the third found none: no more polls
    after = page.evaluate(GEOMETRY)
    assert after["card"]["top"] == pytest.approx(g["card"]["top"], abs=0.5)
    assert after["advice"] == pytest.approx(g["advice"], abs=0.5)
    assert page.locator("#advice tbody tr").count() > 0
    page.wait_for_timeout(4_000)
    assert len(polls) == 3


def test_the_standings_winner_row_has_its_own_style(phone, server):
    """At 360 px the standings table fits the screen, and each of its rows -- the winner's
    too, with a class of its own (not the page header's ``top``) -- is a row of the table's
    columns, its text readable (contrast at least 4.5:1)."""
    page = phone(360, 740)
    start(page, server, "dice-poker", ["random"], seed=6, advisor=False)
    for _ in range(15):
        score_first_open_box(page)
    assert page.is_visible("#summary")
    page.locator("#summary table.standings").scroll_into_view_if_needed()
    rows = page.eval_on_selector_all("#summary table.standings tbody tr", """rows => rows.map(
        (r) => ({cls: r.className, display: getComputedStyle(r).display,
                 place: r.cells[0].textContent,
                 lefts: [...r.cells].map((c) => Math.round(c.getBoundingClientRect().left)),
                 color: getComputedStyle(r.cells[1]).color,
                 back: getComputedStyle(r.cells[1]).backgroundColor}))""")
    heads = page.eval_on_selector_all(
        "#summary table.standings thead th", "hs => hs.map((h) => Math.round("
        "h.getBoundingClientRect().left))")
    winners = [r for r in rows if r["place"].startswith("1")]
    assert winners and all(r["cls"] == "first-place" for r in winners)
    assert all(r["cls"] == "" for r in rows if r not in winners)
    assert page.locator("#summary .top").count() == 0
    for r in rows:
        assert r["display"] == "table-row" and r["lefts"] == heads, r
    panel = page.eval_on_selector("#summary", "e => getComputedStyle(e).backgroundColor")
    for r in winners:
        back = r["back"] if _rgb(r["back"])[3] > 0 else panel
        assert _contrast(r["color"], back) >= 4.5, r
    table = page.locator("#summary table.standings").bounding_box()
    width = page.evaluate("innerWidth")
    assert table["x"] >= 0 and table["x"] + table["width"] <= width, table
    fits(page, "the standings at 360 px")


def _rgb(css: str) -> tuple[float, float, float, float]:
    """``rgb(r, g, b)`` or ``rgba(r, g, b, a)`` as four numbers (alpha 1 when absent)."""
    parts = [float(x) for x in re.findall(r"[\d.]+", css)]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def _contrast(fg: str, bg: str) -> float:
    """WCAG's contrast ratio of two opaque CSS colours."""
    def luminance(css: str) -> float:
        channels = [c / 255 for c in _rgb(css)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
                   for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.fixture
def cold_server(tmp_path):
    """``dice-env web`` in a process of its own whose cache (``DICE_ENV_CACHE``) is a new,
    empty folder: no solved table at all, as on a first run.  Numba's compiled kernels stay
    where the suite keeps them (``NUMBA_CACHE_DIR``), compiled first whatever ran before: a
    fresh install compiles them once, about 10 s more on one core, which this test leaves out
    so that it measures the same thing whichever test ran before it.  Yields its URL; stopped
    with SIGTERM."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "DICE_ENV_CACHE": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-c", "from agents.solvers.scorecard_dp import "
                    "prepare_model, warm_up_kernels; warm_up_kernels(prepare_model('penta'), "
                    "solver=True, queries=True, batched=False)"], env=env, check=True,
                   timeout=600)
    process = subprocess.Popen(
        [sys.executable, "-m", "agents.play.web.server", "--port", "0", "--auto-seconds", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = process.stdout.readline()
        found = re.search(r"http://[^\s/]+:\d+", first)
        assert found, f"the server did not start: {first}{process.stdout.read()}"
        yield found.group(0)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


def test_a_cold_start_gives_advice_within_seconds(phone, cold_server):
    """Issue 46's "done when": Chromium at 360 x 740 starts a Penta game against a bot with the
    advisor on, on a server with a cold cache, and gets a decision with advice within 10 s --
    the expected-score advice, the advisor's note saying that the chances of winning follow,
    until the win-probability tables are built; then the page draws the P(win) column by
    itself.  The advice on screen is the optimal player's for the position on screen."""
    import time

    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = phone(360, 740)
    page.goto(cold_server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.eval_on_selector("#speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')) }")
    page.select_option("#game", "penta")
    page.click("#add-bot")
    page.locator("#bot-list select").first.select_option("heuristic")
    page.fill("#seed", "3")
    page.set_checked("#advisor", True)
    started = time.monotonic()
    page.click("#start")
    # the one wall-clock limit of the suite: the user-facing requirement
    try:
        page.wait_for_function("""() => document.body.dataset.busy === '0'
            && document.querySelector('#card button.score')
            && document.querySelector('#advice tbody tr')""", timeout=10_000)
    except PlaywrightTimeout:
        shown = page.evaluate("""() => [document.querySelector('#preparing-text').textContent,
            document.querySelector('#status').textContent]""")
        pytest.fail(f"no decision with advice within 10 s of New game: after "
                    f"{time.monotonic() - started:.1f} s the page shows {shown}")
    assert "round 1 of 13, your turn, roll 1 of 3" in page.text_content("#status")
    check_first_screen(page, "a cold start at 360 x 740")
    optimal = agents.make("optimal", "penta")
    check_penta_advice(page, optimal)
    heads = page.eval_on_selector_all("#advice thead th", "hs => hs.map((h) => h.textContent)")
    if page.is_visible("#advice-note"):  # the win probabilities are still being prepared
        assert heads == ["Expected", "Option"]
        assert page.text_content("#advice-note").strip()
        page.wait_for_selector("#advice-note", state="hidden", timeout=600_000)
        heads = page.eval_on_selector_all("#advice thead th",
                                          "hs => hs.map((h) => h.textContent)")
    assert heads == ["Expected", "P(win)", "Option"]
    assert "?" not in page.eval_on_selector_all("#advice td.win",
                                                "ws => ws.map((w) => w.textContent)")
    check_penta_advice(page, optimal)


# -- the pictures of the docs --------------------------------------------------------------------
def test_phone_screenshots_are_small_pictures_of_the_first_screen(tmp_path, browser):
    """``report screenshots --phone`` writes one picture per phone (360 and 390 px wide, at
    twice the pixels), each the first screen of the game, in at most 256 colours and well
    under 150 KB; a width that is not a phone's is a one-line error.  (The command runs in a
    process of its own: Playwright's synchronous API runs one at a time per thread, and this
    one holds the suite's browser.)"""
    import subprocess
    import sys

    from PIL import Image

    from agents.cli import web_screenshot
    from agents.play.web.screenshot import PHONES, Shot, phone_outs

    out = tmp_path / "phone.png"
    outs = phone_outs(out, [360, 390])
    assert outs == {360: tmp_path / "phone-360.png", 390: tmp_path / "phone-390.png"}
    assert phone_outs(out, [390]) == {390: out}
    command = ("import sys; from agents.cli.web_screenshot import main; "
               "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", command, "--phone", "--decisions", "2",
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == sorted(["wrote", str(outs[360]), "wrote",
                                                  str(outs[390])])
    for width, path in outs.items():
        with Image.open(path) as image:
            assert image.size == (2 * width, 2 * PHONES[width])
            assert image.mode == "P"  # a palette: at most 256 colours
            assert len(image.convert("RGB").getcolors(maxcolors=256)) > 16
        assert path.stat().st_size < 150_000
    with pytest.raises(ValueError, match="one of 360, 390"):
        Shot(phone=400)
    parser = web_screenshot.build_parser("dice-env report screenshots")
    assert parser.parse_args(["--phone"]).phone == [360, 390]
    assert parser.parse_args(["--phone", "390"]).phone == [390]
    error = subprocess.run([sys.executable, "-c", command, "--phone", "400"],
                           capture_output=True, text=True, timeout=120)
    assert error.returncode == 2 and error.stderr.count("\n") == 1
    assert "argument --phone: a phone's width is one of 360, 390, got 400" in error.stderr
