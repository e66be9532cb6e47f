"""A small version of the web app's load test (``dice-env web-load``, ``scripts/web_load.py``):
several games at once over loopback, a fixed number of requests, no error, and every game's
answers the same as when it is played again alone with the same seed; and the worst case at a
tiny size: the games play while a cold table build and an inspection run in the server's
workers, and the server stops on SIGTERM in the middle of the build, leaving nothing
half-built (issue 36, item 6)."""

from __future__ import annotations

import re

import pytest

from agents import cli

pytest.importorskip("starlette")
pytest.importorskip("httpx")


@pytest.mark.parametrize("command", [["web-load"], ["bench", "web"]])
def test_small_load_run_through_the_command(command, capsys):
    assert cli.main([*command, "--games", "8", "--requests", "6", "--seed", "3",
                     "--no-background", "--think", "0"]) == 0
    out = capsys.readouterr().out
    assert "8 games at once, 48 requests" in out
    assert "errors: 0" in out and "same game played alone: 0" in out
    assert "p50" in out and "p90" in out and "p99" in out
    assert "worst case" not in out


def test_games_are_played_to_the_end_within_the_window(capsys):
    """Issue 46: web-load ran 6 min 17 s for an 11.6 s window and reported "0 games played
    to the end".  Each game now plays to its end (no request cap by default), the report says
    how many did within the window and where the whole run's time went; a window that closes
    stops the games where they are, and the replays alone go as far."""
    assert cli.main(["web-load", "--games", "3", "--seed", "5", "--no-background", "--think",
                     "0", "--window", "600"]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 games played to the end within the 600 s window" in out
    assert re.search(r"whole run: [0-9.]+ s \(setup [0-9.]+ s, the games [0-9.]+ s, the "
                     r"replays alone [0-9.]+ s\)", out)
    assert "errors: 0" in out and "same game played alone: 0" in out
    from agents.play.web.load import load_test

    closed = load_test(games=2, seed=5, window=1e-6)  # closed before the first move
    assert closed.ok and closed.finished_games == 0 and closed.requests == 2
    assert "0 of 2 games played to the end within the 1e-06 s window" in closed.lines()[0]


def test_the_worst_case_at_a_tiny_size(capsys):
    """A cold build of the three-player 5000 table (minutes: still running when the games
    end) and a habits inspection behind three games; then SIGTERM."""
    assert cli.main(["web-load", "--games", "3", "--requests", "4", "--cold-table",
                     "fivethousand/3p", "--habits", "greedy:penta:0-1", "--think", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "3 games at once, 12 requests, about 0.1 s apart" in out and "errors: 0" in out
    assert re.search(r"a cold build: POST /api/games \{'game': 'fivethousand', 'opponents': "
                     r"\['heuristic', 'heuristic'\], 'advisor': True\} answered 202 in [0-9.]+ "
                     r"ms, preparing 'the optimal tables of three-player 5000'", out)
    assert "an inspection: GET /api/inspect/habits greedy:penta:0-1 answered" in out
    assert re.search(r"moves on existing games: p50 [0-9.]+ ms, p99 [0-9.]+ ms over 9 moves", out)
    assert re.search(r"/api/health: p50 [0-9.]+ ms, p99 [0-9.]+ ms over [1-9][0-9]* requests", out)
    assert re.search(r"/api/ready during the run:\n +[0-9.]+ s: building .*fivethousand/3p", out)
    assert "load average (1 min)" in out
    assert re.search(r"SIGTERM with the long work running: the server stopped in [0-9.]+ s; "
                     r"no cache file of a half-built table and no temporary file left\n", out)


def test_a_disturbed_game_is_reported():
    """The check has teeth: a game whose answers change between the two plays is reported."""
    from agents.play.web import load

    result = load.LoadResult(2, 4, 1.0, [0.01, 0.02, 0.03, 0.04], [], [1], 0)
    assert not result.ok and "differ from the same game played alone: 1" in "\n".join(
        result.lines())
    assert result.percentile(50) == 0.02 and result.percentile(99) == 0.04
    with pytest.raises(ValueError):
        load.run_load("http://127.0.0.1:9", games=0)


def test_the_worst_case_report_has_teeth():
    """A slow p99 is flagged, a slow or unclean stop fails the run."""
    from agents.play.web import load
    from agents.play.web.load_worst import WorstCase

    worst = WorstCase("dice-poker/spread", None, health=[0.002] * 10, load=[2.0, 2.5],
                      ready=[(0.0, "building dice-poker/spread 5 % (running)")],
                      stop_seconds=1.5)
    result = load.LoadResult(1, 3, 1.0, [0.01] * 3, [], [], 0, [0.01, 0.02, 0.4], worst)
    text = "\n".join(result.lines())
    assert "p99 400.0 ms over 3 moves (target p99 <= 250.0 ms: MISSED)" in text
    assert "0.0 s: building dice-poker/spread 5 % (running)" in text
    assert "2.00 at the start, 2.50 at the end" in text and result.ok
    worst.leftovers.append("spread-dice-poker-0123.table.abc.tmp")
    assert not result.ok and "left behind: spread-dice-poker" in "\n".join(result.lines())
    worst.leftovers.clear()
    worst.stop_seconds = 30.0
    assert not result.ok
