"""The inspect view's long work, cached per seed: what a worker process (or, without a job
runner, a request thread) computes, and how the answers of single seeds make a range's.

A habits table over seeds ``A-B`` is a sum over its seeds: the counts and losses of each cell
add up, a cell's costliest examples are the costliest among each seed's, and the per-game
list is each seed's games in order.  So :func:`seed_fragments` computes the habits of each
seed alone (the regret tool's table of that one seed, its examples included), a
:class:`SeedCache` keeps them, and :func:`merge_fragments` adds the fragments of a range into
the table :func:`agents.evaluation.inspect.habits` gives for the whole range.  A request for
seeds 550-649 after one for 500-599 computes only 600-649.

How a chunk of seeds is played is the game family's (its inspection's ``seed_fragments``:
the scorecard games play a chunk in one batch, then cut it per game).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.play.web.jobs import Progress, WorkFailed

__all__ = ["SeedCache", "habits_job", "inspect_job", "merge_fragments", "seed_fragments"]

#: seeds played in one batch by a habits job (its progress and its partial results step by it)
CHUNK = 10
#: the costliest example positions kept per cell and per decision kind
EXAMPLES = 3


class SeedCache:
    """A bounded, thread-safe LRU of per-seed habits fragments, keyed ``(agent, game,
    seed)``."""

    def __init__(self, size: int = 2000) -> None:
        self.size = int(size)
        self._items: OrderedDict[tuple[str, str, int], dict] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, agent: str, game: str, fragments: dict[int, dict]) -> None:
        """Keep the fragments ``{seed: fragment}`` of ``agent`` on ``game``."""
        with self._lock:
            for seed, fragment in fragments.items():
                self._items[(agent, game, int(seed))] = fragment
                self._items.move_to_end((agent, game, int(seed)))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def get(self, agent: str, game: str, seeds: Sequence[int]) -> dict[int, dict]:
        """The cached fragments among ``seeds``, ``{seed: fragment}``."""
        out = {}
        with self._lock:
            for seed in seeds:
                fragment = self._items.get((agent, game, int(seed)))
                if fragment is not None:
                    self._items.move_to_end((agent, game, int(seed)))
                    out[int(seed)] = fragment
        return out


# -- one seed at a time ------------------------------------------------------------------------
def seed_fragments(agent: Any, insp: Any, seeds: Sequence[int], name: str,
                   examples: int = EXAMPLES) -> dict[int, dict]:
    """The habits of each of ``seeds`` alone, ``{seed: fragment}``: what the game family's
    inspection (``insp``, :func:`agents.evaluation.inspect.inspector`) gives for each seed
    (:meth:`~agents.evaluation.inspect.common.Inspection.seed_fragments`)."""
    return insp.seed_fragments(agent, [int(s) for s in seeds], name, examples)


def _top(examples: list[dict], k: int) -> list[dict]:
    """The ``k`` costliest examples (ties: the earlier seed, game, decision first), the order
    of :func:`~agents.evaluation.inspect.common.top_examples`."""
    return sorted(examples, key=lambda e: (-e["regret"], e["seed"], e["game"],
                                           e["decision"]))[:k]


def merge_fragments(fragments: Sequence[dict], name: str, unit: str,
                    examples: int = EXAMPLES) -> dict[str, Any]:
    """The habits table of several seeds from their fragments (in seed order): what
    :func:`agents.evaluation.inspect.habits` answers for those seeds."""
    if not fragments:
        raise ValueError("no seeds to merge")
    labels = fragments[0]["labels"]
    counts = np.sum([np.asarray(f["counts"], dtype=np.int64) for f in fragments], axis=0)
    loss = np.sum([np.asarray(f["loss"], dtype=np.float64) for f in fragments], axis=0)
    per_game = [g for f in fragments for g in f["games"]]
    n = max(len(per_game), 1)
    by_cell: dict[tuple[int, int], list[dict]] = {}
    for f in fragments:
        for cell in f["cells"]:
            by_cell.setdefault((cell["row"], cell["col"]), []).extend(cell["examples"])
    off = [(i, j) for i in range(len(labels)) for j in range(len(labels))
           if i != j and loss[i, j] > 0]
    cells = [{"chosen": labels[i], "optimal": labels[j], "row": i, "col": j,
              "count": int(counts[i, j]), "loss": float(loss[i, j]),
              "per_game": float(loss[i, j]) / n,
              "examples": _top(by_cell.get((i, j), []), examples)}
             for i, j in sorted(off, key=lambda c: -loss[c])]
    kinds = []
    for k, first in enumerate(fragments[0]["kinds"]):
        parts = [f["kinds"][k] for f in fragments]
        kinds.append({"kind": first["kind"], "decisions": sum(p["decisions"] for p in parts),
                      "mistakes": sum(p["mistakes"] for p in parts),
                      "per_game": sum(p["per_game"] * len(f["games"])
                                      for p, f in zip(parts, fragments, strict=True)) / n,
                      "examples": _top([e for p in parts for e in p["examples"]], examples)})
    gap = float(np.mean([g["regret"] for g in per_game])) if per_game else 0.0
    seeds = [g["seed"] for g in per_game]
    return {"labels": labels, "counts": counts.tolist(), "loss": loss.tolist(), "cells": cells,
            "kinds": kinds, "gap": gap, "per_game": per_game, "agent": name,
            "seeds": [seeds[0], seeds[-1]] if seeds else [], "games": len(per_game),
            "unit": unit}


# -- in a worker process -----------------------------------------------------------------------
#: players and inspectors built in this process, reused by its later jobs
_PLAYERS: dict[tuple[str, str], Any] = {}
_INSPECTORS: dict[str, Any] = {}


def build_player(entry: Any, name: str, game: str) -> Any:
    """The allowed agent ``name`` for ``game``: ``entry`` itself (an object that plays), or
    what the factory ``entry`` builds for the game; :class:`WorkFailed` when it cannot play
    the game."""
    if hasattr(entry, "act") or hasattr(entry, "act_batch") or not callable(entry):
        return entry
    try:
        return entry(game)
    except (ValueError, TypeError, KeyError, FileNotFoundError, ImportError) as exc:
        raise WorkFailed(f"agent {name!r} cannot play {game}: {exc}") from None


def _player(entry: Any, name: str, game: str) -> Any:
    if (name, game) not in _PLAYERS:
        _PLAYERS[(name, game)] = build_player(entry, name, game)
    return _PLAYERS[(name, game)]


def _inspector(game: str) -> Any:
    from agents.evaluation.inspect import inspector

    if game not in _INSPECTORS:
        _INSPECTORS[game] = inspector(game)
    return _INSPECTORS[game]


def _refusal(exc: ValueError) -> WorkFailed:
    text = str(exc).splitlines()[0] if str(exc) else repr(exc)
    return WorkFailed(text)


def inspect_job(entry: Any, name: str, other_entry: Any, other_name: str | None, game: str,
                seed: int, *, report: Progress) -> dict[str, Any]:
    """A worker's :func:`agents.evaluation.inspect.inspect` of one seed (one or two agents)."""
    from agents.evaluation.inspect import inspect

    agent = _player(entry, name, game)
    other = _player(other_entry, other_name, game) if other_name else None
    try:
        return inspect(agent, game, seed, name=name, other=other, other_name=other_name,
                       optimal=_inspector(game))
    except ValueError as exc:  # an agent that does not fit the game, an illegal move
        raise _refusal(exc) from None


def habits_job(entry: Any, name: str, game: str, seeds: Sequence[int], *,
               report: Progress) -> int:
    """A worker's habits of ``seeds`` (those not cached yet), a chunk at a time: each chunk's
    fragments are handed over as they are done (``report.partial``), so a job stopped at its
    time limit keeps what it finished.  Returns how many seeds it played."""
    agent = _player(entry, name, game)
    insp = _inspector(game)
    seeds = list(seeds)
    for start in range(0, len(seeds), CHUNK):
        part = seeds[start:start + CHUNK]
        try:
            fragments = seed_fragments(agent, insp, part, name)
        except ValueError as exc:
            raise _refusal(exc) from None
        report.partial({"agent": name, "game": game, "fragments": fragments})
        report.fraction((start + len(part)) / len(seeds))
    return len(seeds)
