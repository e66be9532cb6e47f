"""Decision-by-decision records of an agent's games, for the inspect view and the replay file.

Everything that differs between game families comes from the family's *inspection*, the
object its ``"inspection"`` hook builds (:class:`~agents.evaluation.inspect.common.Inspection`:
:class:`~agents.evaluation.inspect.scorecard.ScorecardInspection`,
:class:`~agents.evaluation.inspect.fivethousand.FiveThousandInspection`); the code here asks
it and never tests which family it inspects.  What "seed S" means is the family's:

* **scorecard games** -- the first game of the evaluation seeded ``S``: the game
  ``optimality_gap(agent, game, games=n, seed=S)`` plays first (for any ``n``), whose dice come
  from the stream ``(S, 0)``.  ``optimality_gap(..., game_seeds=[S])`` plays exactly it alone.
* **5000** -- the pair of games ``fivethousand_gap(agent, games=2, seed=S)`` plays against the
  optimal player: game 0 opened by the agent, game 1 by the optimum (``games_per_seed`` 2).

The records are read off the regret tools' own traces (``trace=True``), never recomputed, so a
game's per-decision regrets sum to the regret :func:`~agents.evaluation.scorecard_regret.
optimality_gap` / :func:`~agents.evaluation.fivethousand_regret.fivethousand_gap` give it.

:func:`inspect` returns the JSON-able payload of one seed (one or two agents side by side on
the same dice), :func:`habits` an agent's costliest habits over a range of seeds (the regret
tool's box-vs-optimal table, or roll-on / bank table for 5000, with example positions), and
:func:`replay_data` both together for ``dice-env replay``.

The payload (``format`` ``"dice-env-inspect/1"``)::

    {"format", "game", "family": "scorecard" | "fivethousand", "title", "unit",
     "games_per_seed", "value_label", "kinds": [decision kinds], "costly",
     "position": "card" | "facts" (how the page draws a decision's position),
     "box_labels", "upper_boxes", "upper_bonus_threshold", "upper_bonus" (a "card"),
     "seed", "agents": [names], "games": [GAMEVIEW], "habits": [HABITS] (optional)}
    GAMEVIEW = {"index", "label", "players": [RECORD per agent], "charts": [CHART]}
    RECORD   = {"agent", "seed", "index", "stream", "optimal_value", "regret",
                "score" & "luck" (scorecard) | "opens" & "won" (5000),
                "decisions": [DECISION], "turns": [chart points]}
    DECISION = {"index", "turn", "step", "throw", "kind", "dice", "options":
                [{"action", "label", "value"}] (best first), "chosen", "best", "regret",
                "value" (before), "after" (the chosen option's value),
                scorecard: "kept" (the dice positions the choice keeps), "rolls_left",
                "card", "box_points", "upper_total", "five_bonus", "total"; 5000: "scores"
                [agent, optimum], "turn_total", "roll_points", "facts" [[label, text]]}
    CHART    = {"title", "x_label", "y_label", "series": [{"name", "player", "style",
                "points": [[x, y, decision index], ...]}]}
    HABITS   = {"agent", "seeds": [first, last], "games" (count), "unit", "gap", "labels",
                "counts", "loss", "cells": [{"chosen", "optimal", "count", "loss", "per_game",
                "examples": [{"seed", "game", "decision", "turn", "regret"}]}], "kinds": [...],
                "per_game": [...], "example_games": {seed: [GAMEVIEW]} (optional)}

Values are expected final scores (scorecard: the points on the card plus the optimal
expectation of the points to come) or the probability of beating the optimal player (5000).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.evaluation.inspect.common import FORMAT, MAX_SEED, Inspection, check_seed
from agents.games import resolve

__all__ = ["FORMAT", "MAX_HABIT_GAMES", "MAX_SEED", "Inspector", "habits", "inspect",
           "inspector", "parse_seed_range", "replay_data"]

#: the most games one habits table may play (5000 plays two per seed)
MAX_HABIT_GAMES = 200
#: the most example games a habits table carries inline (``include_games``)
MAX_EXAMPLE_GAMES = 10
#: one game resolved for inspection (the base of every family's inspection)
Inspector = Inspection


def inspector(game: Any = "penta", optimal: Any = None) -> Inspection:
    """Resolve ``game`` and build its family's inspection (the ``"inspection"`` hook), with
    ``optimal`` as its optimal player (default: built when first needed).

    Raises ``ValueError`` for an unknown game, a game whose family has no inspection, or one
    its family refuses (5000 solo: inspect plays 5000 against the optimal player).
    """
    g = resolve(game)
    return g.family.hook("inspection")(g, optimal)


def _name(agent: Any, name: str | None) -> str:
    return name or str(getattr(agent, "name", None) or type(agent).__name__)


def _views(insp: Inspection, per_player: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One view per game of the seed: every player's record of it and the charts."""
    views = []
    for k in range(len(per_player[0])):
        players = [records[k] for records in per_player]
        views.append({"index": k, "label": insp.view_label(players[0], k), "players": players,
                      "charts": insp.charts(players)})
    return views


def inspect(agent: Any, game: Any = "penta", seed: int = 0, *, name: str | None = None,
            other: Any = None, other_name: str | None = None,
            optimal: Any = None) -> dict[str, Any]:
    """Replay ``agent``'s game of seed ``seed`` decision by decision (and ``other``'s on the
    same dice beside it).

    Args:
        agent: any player of ``game`` (see :func:`agents.load`).
        game: a game whose family has an inspection: a scorecard preset / id, or
            ``"fivethousand"`` (against the optimal player).
        seed: which game (see the module docstring); a non-negative integer.
        name, other_name: the agents' names in the record.
        other: a second agent, played on the same dice.
        optimal: the game's optimal player, or an :class:`Inspector` (default: built).

    Returns:
        The JSON-able payload described in the module docstring.
    """
    insp = optimal if isinstance(optimal, Inspection) else inspector(game, optimal)
    players = [(agent, _name(agent, name))]
    if other is not None:
        players.append((other, _name(other, other_name)))
    per_player = [insp.records(a, seed, n) for a, n in players]
    return {**insp.header(), "seed": int(seed), "agents": [n for _, n in players],
            "games": _views(insp, per_player)}


def parse_seed_range(text: str, max_games: int = MAX_HABIT_GAMES,
                     games_per_seed: int = 1) -> range:
    """``"A-B"`` (or ``"A"``) as ``range(A, B + 1)``; ``ValueError`` unless ``0 <= A <= B`` and
    the range plays at most ``max_games`` games."""
    first, sep, last = str(text).strip().partition("-")
    digits = (first, last) if sep else (first,)
    if not all(d.isascii() and d.isdigit() for d in digits) or len(str(text)) > 60:
        raise ValueError(f"seeds must look like A-B (e.g. 0-49), got {str(text)[:40]!r}")
    a = int(first)
    b = int(last) if sep else a
    if max(a, b) > MAX_SEED:
        raise ValueError(f"seeds go up to {MAX_SEED}, got {text!r}")
    if a > b:
        raise ValueError(f"seeds A-B need A <= B, got {text!r}")
    if (b - a + 1) * games_per_seed > max_games:  # not len(range): it overflows past 2**63
        raise ValueError(f"at most {max_games // games_per_seed} seeds at once, got {b - a + 1}")
    return range(a, b + 1)


def habits(agent: Any, game: Any = "penta", seeds: Sequence[int] = range(20), *,
           name: str | None = None, optimal: Any = None, examples: int = 3,
           include_games: bool = False) -> dict[str, Any]:
    """``agent``'s costliest habits over the games of ``seeds``.

    The regret tool's table of the policy's choice against the optimum's (scorecard: the box
    scored or "reroll", ``optimality_gap(..., game_seeds=seeds).box_counts`` / ``box_loss``;
    5000: roll on / bank, summed over ``fivethousand_gap(agent, 2, seed)``), each costly cell
    with its ``examples`` costliest positions (seed, game, decision index), the same by
    decision kind, and every game's regret.  With ``include_games`` the games of the example
    positions come along (``example_games``: seed -> views), for a page without a server.

    At most :data:`MAX_HABIT_GAMES` games.
    """
    insp = optimal if isinstance(optimal, Inspection) else inspector(game, optimal)
    seeds = [int(s) for s in seeds]
    for s in seeds:
        check_seed(s)
    if not seeds or len(seeds) * insp.games_per_seed() > MAX_HABIT_GAMES:
        raise ValueError(f"habits need 1 to {MAX_HABIT_GAMES // insp.games_per_seed()} seeds, "
                         f"got {len(seeds)}")
    name = _name(agent, name)
    out, records = insp.habits(agent, seeds, name, examples)
    out["per_game"] = out.pop("games")
    out.update(agent=name, seeds=[seeds[0], seeds[-1]], games=len(out["per_game"]),
               unit=insp.game.family.unit)
    if include_games:
        wanted: list[int] = []  # the costliest cells' examples first
        for group in out["cells"] + out["kinds"]:
            wanted += [e["seed"] for e in group["examples"] if e["seed"] not in wanted]
        out["example_games"] = {str(s): _views(insp, [records[s]()])
                                for s in wanted[:MAX_EXAMPLE_GAMES]}
    return out


def replay_data(players: Sequence[tuple[str, Any]], game: Any, seed: int,
                habit_seeds: Sequence[int] | None = None, *, optimal: Any = None,
                examples: int = 3) -> dict[str, Any]:
    """Everything a replay file shows: :func:`inspect` of seed ``seed`` for one or two
    ``(name, agent)`` players and, with ``habit_seeds``, each one's :func:`habits` with the
    example games inline."""
    if not 1 <= len(players) <= 2:
        raise ValueError(f"one or two agents, got {len(players)}")
    insp = optimal if isinstance(optimal, Inspection) else inspector(game, optimal)
    (name, agent), *rest = players
    other, other_name = rest[0][1] if rest else None, rest[0][0] if rest else None
    data = inspect(agent, game, seed, name=name, other=other, other_name=other_name,
                   optimal=insp)
    if habit_seeds is not None:
        data["habits"] = [habits(a, game, habit_seeds, name=n, optimal=insp,
                                 examples=examples, include_games=True) for n, a in players]
    return data
