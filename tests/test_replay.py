"""The shareable replay file (``dice-env replay``, scripts/replay.py) and the inspect page in a
browser.

The replay file must be self-contained -- no ``src`` / ``href`` leaving it, no request when it
opens (Playwright blocks and records every request that is not the file itself) -- and carry
the regret tool's numbers; the page served by the inspect routes must show, decision by
decision, the regrets ``optimality_gap`` charges.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import need

import agents
from agents.evaluation.scorecard_regret import optimality_gap

ROOT = Path(__file__).resolve().parent.parent
DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)
browser_group = pytest.mark.xdist_group("browser")


class _Links(HTMLParser):
    """Every attribute of the page that can make a browser fetch something."""

    FETCHING = {"src", "href", "srcset", "action", "formaction", "poster", "data", "background"}

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.found += [(tag, k, v or "") for k, v in attrs if k in self.FETCHING]


def _data(html: str) -> dict:
    (text,) = DATA.findall(html)
    return json.loads(text)


@pytest.fixture(scope="module")
def replay():
    from agents.cli import replay as module

    return module


@pytest.fixture(scope="module")
def ppo_replay(tmp_path_factory, replay) -> Path:
    """``dice-env replay --agent ppo --game penta --seed 3 --out r.html``."""
    out = tmp_path_factory.mktemp("replay") / "r.html"
    assert replay.main(["--agent", "ppo", "--game", "penta", "--seed", "3", "--out",
                        str(out)]) == 0
    return out


def test_replay_file_is_self_contained_with_the_regret_tools_numbers(ppo_replay):
    html = ppo_replay.read_text(encoding="utf-8")
    links = _Links()
    links.feed(html)
    assert links.found == []  # no src, no href: nothing for a browser to fetch
    assert "@import" not in html and "url(" not in html
    assert "Content-Security-Policy" in html
    data = _data(html)
    record = data["games"][0]["players"][0]
    assert data["game"] == "penta" and data["seed"] == 3 and record["agent"] == "ppo"
    gap = optimality_gap(agents.load("ppo", "penta"), "penta", games=2, seed=3, paired=False)
    assert sum(d["regret"] for d in record["decisions"]) == pytest.approx(gap.per_game[0],
                                                                          abs=1e-9)


def test_replay_data_cannot_end_its_script_element(tmp_path, replay):
    from agents.evaluation.inspect import replay_data
    from agents.play.web.replay_page import replay_html

    name = "</script><script>alert(1)</script>"
    data = replay_data([(name, agents.make("greedy", "penta"))], "penta", 1)
    html = replay_html(data)
    assert "<script>alert(1)" not in html
    assert _data(html)["agents"] == [name]


@pytest.mark.parametrize("args, message", [
    (["--agent", "ppo", "--game", "penta", "--seed", "-1", "--out", "x.html"], "at least 0"),
    (["--agent", "a", "--agent", "b", "--agent", "c", "--game", "penta", "--seed", "1",
      "--out", "x.html"], "one or two agents"),
    (["--agent", "greedy", "--game", "nonsense", "--seed", "1", "--out", "x.html"], "--game"),
    (["--agent", "greedy", "--game", "penta", "--seed", "1", "--seeds", "9-2", "--out",
      "x.html"], "--seeds"),
])
def test_replay_cli_refuses_bad_arguments(tmp_path, args, message):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "replay.py"), *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert not (tmp_path / "x.html").exists()


def _verdict_regret(page) -> float:
    text = page.locator(".ins-panel .ins-verdict").first.inner_text()
    return float(re.search(r"regret ([0-9.]+)", text).group(1))


@browser_group
def test_replay_file_opens_with_no_network(page, ppo_replay):
    url = ppo_replay.as_uri()
    blocked, requested, errors = [], [], []

    def only_the_file(route):
        if route.request.url == url:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_file)
    page.on("request", lambda r: requested.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_selector(".ins-panel .ins-options")
    decisions = _data(ppo_replay.read_text(encoding="utf-8"))["games"][0]["players"][0][
        "decisions"]
    n = len(decisions)
    assert page.locator(".ins-pos").inner_text() == f"decision 1 / {n}"
    assert page.locator(".ins-die").count() == 5
    assert page.locator(".ins-chart svg").count() == 2
    assert _verdict_regret(page) == pytest.approx(decisions[0]["regret"], abs=0.006)
    page.keyboard.press("ArrowRight")
    assert page.locator(".ins-pos").inner_text() == f"decision 2 / {n}"
    assert _verdict_regret(page) == pytest.approx(decisions[1]["regret"], abs=0.006)
    page.keyboard.press("End")
    assert page.locator(".ins-pos").inner_text() == f"decision {n} / {n}"
    assert blocked == [] and errors == []
    assert set(requested) <= {url}


# -- the page served by the inspect routes ------------------------------------------------------
@pytest.fixture(scope="module")
def server():
    """A minimal app of the inspect routes on a free loopback port, in a thread."""
    uvicorn = need("uvicorn", "pip install -e '.[web]'")
    from starlette.applications import Starlette

    from agents.play.web.inspect_routes import inspect_routes

    app = Starlette(routes=inspect_routes({"greedy": lambda game: agents.make("greedy", game)}))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)
    sock.close()


@browser_group
def test_served_page_shows_the_regrets_of_optimality_gap(page, server):
    gap = optimality_gap(agents.make("greedy", "penta"), "penta", games=2, seed=3,
                         paired=False, trace=True)
    charged = [float(b.loss[r]) for b in gap.trace for r in range(len(b.games))
               if b.games[r] == 0]
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/inspect?agent=greedy&game=penta&seed=3")
    page.wait_for_selector(".ins-panel .ins-options")
    summary = page.locator(".ins-card .ins-regret").inner_text()
    assert f"regret {gap.per_game[0]:.2f} pts" in summary
    shown = []
    for i in range(len(charged)):
        assert page.locator(".ins-pos").inner_text() == f"decision {i + 1} / {len(charged)}"
        shown.append(_verdict_regret(page))
        page.keyboard.press("ArrowRight")
    assert shown == pytest.approx(charged, abs=0.006)
    # habits over a few seeds, and a click into a costly example position
    page.fill("input[name=seeds]", "0-3")
    page.click("#ins-habits-button")
    page.wait_for_selector(".ins-habits .ins-link")
    link = page.locator(".ins-habits .ins-habit-table .ins-link").first
    seed = int(re.search(r"seed (\d+)", link.inner_text()).group(1))
    expected = float(re.search(r"\(([0-9.]+) pts\)", link.inner_text()).group(1))
    link.click()
    page.locator(".ins-summary h2", has_text=re.compile(f"^seed {seed}$")).wait_for()
    assert _verdict_regret(page) == pytest.approx(expected, abs=0.006)
    assert errors == []
