"""The records of ``dice-env solve``: a game solved (or loaded from the cache), with its timings.

:func:`solve_record` returns the JSON record of one game (the line ``dice-env solve GAME --json``
prints, less ``wall_seconds``, which the command adds), :func:`describe` its human-readable
lines.  Every game whose family has a solver can be solved (:func:`solvable_games`): every
scorecard preset, ``"fivethousand"``, ...

Record fields: ``game``, ``expected_score``, ``seconds`` (wall time spent getting the table:
building the rule tables, loading -- or the first time compiling -- the numba kernels and the
DP; or reading the cache), ``peak_mb`` (peak resident memory of the process), ``source``
(``solved`` / ``cache``), ``cache_path``, ``threads``; after a solve the breakdown
``prepare_seconds``, ``compile_seconds``, ``dp_seconds`` and ``states``; from the cache
``solved_seconds`` (how long the stored solve took) and ``solved_at`` (when: the local time the
cached table was written).  Each family writes its own records (its ``solve_record`` hook):
5000's is :func:`~agents.solvers.fivethousand_vi.solve_fivethousand_summary`'s.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from agents.families import AgentFamily, families


def solvers() -> dict[str, AgentFamily]:
    """Game name -> its family, for every game a family can solve (the family's hooks
    ``solvable_games``, ``solve_record`` and ``describe_solve``)."""
    return {name: fam for fam in families() if fam.has_hook("solve_record")
            for name in fam.hook("solvable_games")()}


def solvable_games() -> list[str]:
    """The names :func:`solve_record` takes, sorted."""
    return sorted(solvers())


def solve_record(game: str, *, cache_dir: str | os.PathLike | None = None,
                 use_cache: bool = True, force: bool = False, threads: int | None = None,
                 progress: bool = False) -> dict:
    """Solve (or load from the cache) ``game`` (one of :func:`solvable_games`); its record,
    with ``solved_at`` when it came from the cache.

    Raises:
        KeyError: a game that is not solvable.
    """
    record = solvers()[game].hook("solve_record")(
        game, cache_dir=cache_dir, use_cache=use_cache, force=force, threads=threads,
        progress=progress)
    if record["source"] == "cache":
        record["solved_at"] = solved_at(record.get("cache_paths") or [record["cache_path"]])
    return record


def solved_at(paths: list[str]) -> str | None:
    """When the cached tables at ``paths`` were written (the latest; local time, to the
    minute), or ``None`` if none can be read."""
    times = []
    for path in paths:
        try:
            times.append(Path(path).stat().st_mtime)
        except OSError:
            pass
    return datetime.fromtimestamp(max(times)).isoformat(" ", "minutes") if times else None


def describe(record: dict) -> str:
    """The human-readable lines of one record (its family's ``describe_solve`` hook)."""
    return solvers()[record["game"]].hook("describe_solve")(record)
