"""A small version of the web app's load test (``dice-env web-load``, ``scripts/web_load.py``):
several games at once over loopback, a fixed number of requests, no error, and every game's
answers the same as when it is played again alone with the same seed."""

from __future__ import annotations

import pytest

from agents import cli

pytest.importorskip("starlette")
pytest.importorskip("httpx")


@pytest.mark.parametrize("command", [["web-load"], ["bench", "web"]])
def test_small_load_run_through_the_command(command, capsys):
    assert cli.main([*command, "--games", "8", "--requests", "6", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "8 games at once, 48 requests" in out
    assert "errors: 0" in out and "same game played alone: 0" in out
    assert "p50" in out and "p90" in out and "p99" in out


def test_a_disturbed_game_is_reported():
    """The check has teeth: a game whose answers change between the two plays is reported."""
    from agents.play.web import load

    result = load.LoadResult(2, 4, 1.0, [0.01, 0.02, 0.03, 0.04], [], [1], 0)
    assert not result.ok and "differ from the same game played alone: 1" in "\n".join(
        result.lines())
    assert result.percentile(50) == 0.02 and result.percentile(99) == 0.04
    with pytest.raises(ValueError):
        load.run_load("http://127.0.0.1:9", games=0)
