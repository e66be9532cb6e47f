"""The solved tables the web app's games and inspections read, and their preparation as jobs.

Nine tables, each one file of the on-disk cache (:mod:`agents.solvers.cache`,
``$DICE_ENV_CACHE`` or the user cache folder):

=========================  ========================================================  ========
key                        read by                                                   solving
=========================  ========================================================  ========
``penta/dp``               the advisor, the ``optimal`` bot, inspections of Penta     seconds
``dice-poker/dp``          the same for Dice Poker                                    seconds
``penta/spread``           the advisor's chance of winning (a game with bots), the    seconds
                           ``win-value`` bot
``dice-poker/spread``      the same for Dice Poker                                    seconds
``penta/last-turn``        the same, in the last round (the exact distribution of     seconds
                           each last turn's gain; written by this module)
``dice-poker/last-turn``   the same for Dice Poker                                    seconds
``fivethousand/solo``      the 5000 advisor alone                                     seconds
``fivethousand/2p``        the 5000 advisor and ``optimal`` bot at 2 or 4+ seats,     seconds
                           inspections of 5000
``fivethousand/3p``        the same at 3 seats                                        minutes
=========================  ========================================================  ========

:func:`game_needs` and :func:`inspect_needs` say which a request needs (each game's family
decides: its ``"web_tables"`` hook, in its view module); :class:`Tables`
whether each is ready (a stat: answered at once), starts the job that builds a missing one
(:func:`build_table`, run in a worker process by :class:`~agents.play.web.jobs.JobRunner`) or
joins the running one.  The paths are the ones the solvers' own ``load_or_solve`` functions
read and write (a test holds them together).

A new game waits only for the tables its bots and the advisor's expected-score advice read
(seconds to solve: :func:`game_plan`).  The *late* ones (the last-turn tables) are read from the
last round on, minutes later: a game that needs one starts its build and does not wait;
:meth:`Tables.attach` hands it to the game's players once it is there (a player that meets its
last round before then computes the table itself, as players outside the web app do).  The
win-probability tables that only the advisor reads (``spread``, ``last-turn``: its P(win)
column against bots) are built in the background too: until they are ready the advisor gives
the expected-score advice, and :meth:`Tables.attach` says so in a one-line note, with the time
left; the first request after they are ready adds the P(win) column.  A ``warm`` server also
builds, at start-up, the expected-score table of the game the page offers first and the late
tables.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.games import resolve
from agents.play.web.jobs import Job, JobRunner, Progress, WorkFailed

__all__ = ["TABLES", "TableSpec", "Tables", "build_table", "game_needs", "game_plan",
           "inspect_needs", "table_path", "table_ready"]

#: how long after a failed build a request is shown that failure instead of a new build
FAILED_SHOWN_SECONDS = 60.0


@dataclass(frozen=True)
class TableSpec:
    """One solved table.

    Attributes:
        key: ``"<game>/<kind>"``.
        game: the web game it belongs to.
        kind: ``dp``, ``spread``, ``last-turn``, ``solo``, ``2p`` or ``3p``.
        needs: the table it is built from (built first), or None.
        what: the table in words, for people.
        expected_seconds: a rough solving time on two busy cores (for the time-based estimate
            of tables whose solver reports no fraction done).
    """

    key: str
    game: str
    kind: str
    what: str
    expected_seconds: float

    @property
    def late(self) -> bool:
        """Read only from a game's last round on: a new game does not wait for it."""
        return self.kind == "last-turn"

    @property
    def win_probability(self) -> bool:
        """A win-probability table: the advisor can advise without it (by expected score)."""
        return self.kind in ("spread", "last-turn")

    @property
    def needs(self) -> str | None:
        """The table this one is built from, or None."""
        return {"spread": f"{self.game}/dp", "last-turn": f"{self.game}/spread"}.get(self.kind)


def _spec(game: str, kind: str, what: str, seconds: float) -> TableSpec:
    return TableSpec(f"{game}/{kind}", game, kind, what, seconds)


#: the format of the last-turn tables this module writes (part of their cache key)
LAST_TURN_FORMAT = 1


TABLES: dict[str, TableSpec] = {s.key: s for s in (
    _spec("penta", "dp", "the optimal tables of Penta", 10),
    _spec("dice-poker", "dp", "the optimal tables of Dice Poker", 30),
    _spec("penta", "spread", "the win-probability tables of Penta", 30),
    _spec("dice-poker", "spread", "the win-probability tables of Dice Poker", 90),
    _spec("penta", "last-turn", "the last-round win-probability tables of Penta", 30),
    _spec("dice-poker", "last-turn", "the last-round win-probability tables of Dice Poker",
          60),
    _spec("yatzy", "dp", "the optimal tables of Yatzy", 30),
    _spec("yacht", "dp", "the optimal tables of Yacht", 10),
    _spec("yatzy", "spread", "the win-probability tables of Yatzy", 60),
    _spec("yacht", "spread", "the win-probability tables of Yacht", 30),
    _spec("yatzy", "last-turn", "the last-round win-probability tables of Yatzy", 60),
    _spec("yacht", "last-turn", "the last-round win-probability tables of Yacht", 30),
    _spec("fivethousand", "solo", "the optimal tables of solo 5000", 10),
    _spec("fivethousand", "2p", "the optimal tables of two-player 5000", 20),
    _spec("fivethousand", "3p", "the optimal tables of three-player 5000", 400),
)}


def _fivethousand_rules() -> Any:
    from dice_env.fivethousand.rules import coerce_rules

    return coerce_rules("fivethousand")


def _last_turn_key(game: str) -> dict[str, Any]:
    from agents.scorecard.score_spread import FORMAT_VERSION
    from agents.solvers.scorecard_dp import cache_key
    from dice_env.scorecard.rules import get_rules

    rules = get_rules(game)
    return {"kind": "scorecard-last-turn", "format": LAST_TURN_FORMAT,
            "spread": {"format": FORMAT_VERSION, "dp": cache_key(rules)}}


def table_path(key: str) -> Path:
    """The cache file of table ``key`` (where its solver's ``load_or_solve`` looks)."""
    from agents.solvers import cache as C

    spec = TABLES[key]
    if spec.kind == "last-turn":
        return C.cache_path(None, f"last-turn-{spec.game}", _last_turn_key(spec.game))
    if spec.kind in ("dp", "spread"):
        from agents.solvers.scorecard_dp import cache_key
        from dice_env.scorecard.rules import get_rules

        rules = get_rules(spec.game)
        if spec.kind == "dp":
            return C.cache_path(None, f"scorecard-{rules.name}", cache_key(rules))
        from agents.scorecard.score_spread import FORMAT_VERSION

        key_ = {"kind": "scorecard-spread", "format": FORMAT_VERSION, "dp": cache_key(rules)}
        return C.cache_path(None, f"spread-{rules.name}", key_)
    rules = _fivethousand_rules()
    if spec.kind == "3p":
        from agents.solvers.fivethousand_three import model as M
        from agents.solvers.fivethousand_three.store import cache_key as three_key

        return C.cache_path(None, f"fivethousand-3p-maxn-t{rules.target}-e{rules.entry}",
                            three_key(rules, 3, M.DEFAULT_TOL, M.EVAL_TOL, M.MAX_SWEEPS,
                                      M.MAX_LOCAL, M.FREEZE_FROM))
    from agents.solvers.fivethousand_vi.model import DEFAULT_TOL
    from agents.solvers.fivethousand_vi.store import cache_key as vi_key

    stem = f"fivethousand-{spec.kind}-t{rules.target}-e{rules.entry}" + (
        "-choose" if rules.choose_scoring_dice else "")
    return C.cache_path(None, stem, vi_key(rules, spec.kind, DEFAULT_TOL))


def table_ready(key: str) -> bool:
    """Whether table ``key`` is in the cache (its file exists)."""
    return table_path(key).is_file()


#: last-turn tables read in this process: game -> (keys, pmf)
_LAST_TURN: dict[str, Any] = {}


def load_last_turn(game: str) -> Any | None:
    """The last-turn table of ``game`` from the cache (read once per process), or None when
    it is missing or damaged."""
    if game not in _LAST_TURN:
        from agents.solvers import cache as C

        loaded = C.load_table(table_path(f"{game}/last-turn"), _last_turn_key(game))
        if loaded is None:
            return None
        _LAST_TURN[game] = (loaded[0]["keys"], loaded[0]["pmf"])
    return _LAST_TURN[game]


def game_needs(game: str, opponents: Sequence[str], advisor: bool, people: int = 1,
               win_models: Iterable[str] | None = None) -> list[str]:
    """The tables a new game of ``game`` needs before it can start (a dependency first):
    ``people`` people and the bots ``opponents``, the advisor on or off; ``win_models``: the
    games with a win-value model (default: looked up), whose advisor gives P(win) against
    bots.  The game's family says which (its ``"web_tables"`` hook)."""
    g = resolve(game)
    needs = g.family.hook("web_tables")(g, list(opponents), advisor, people, win_models)
    return list(dict.fromkeys(needs))


def game_plan(game: str, opponents: Sequence[str], advisor: bool, people: int = 1,
              win_models: Iterable[str] | None = None) -> tuple[list[str], list[str]]:
    """:func:`game_needs` split in two: ``(wait, later)``.  A new game waits for the tables
    of ``wait`` (its bots' and the advisor's expected-score advice: seconds to solve); those
    of ``later`` are built in the background while it plays (the late tables, and the
    win-probability tables only the advisor reads)."""
    models = None if win_models is None else tuple(win_models)
    needs = game_needs(game, opponents, advisor, people, models)
    bots = set(game_needs(game, opponents, False, people, models)) if advisor else set(needs)
    wait = [k for k in needs if not TABLES[k].late
            and (k in bots or not TABLES[k].win_probability)]
    return wait, [k for k in needs if k not in wait]


def _time_left(seconds: float | None) -> str:
    """``" (about 12 s left)"``, ``" (about 3 min left)"``, or nothing when unknown."""
    if seconds is None:
        return ""
    if seconds < 90:
        return f" (about {max(1, round(seconds))} s left)"
    return f" (about {round(seconds / 60)} min left)"


def inspect_needs(game: str, agents: Iterable[str]) -> list[str]:
    """The tables an inspection of ``agents`` (names) on ``game`` needs: the optimal
    player's, and those of the agents it plays (the family's ``"web_tables"`` hook, asked
    with ``inspection=True``)."""
    g = resolve(game)
    needs = g.family.hook("web_tables")(g, list(agents), False, 1, None, inspection=True)
    return list(dict.fromkeys(needs))


def build_table(key: str, *, report: Progress | None = None) -> dict[str, Any]:
    """Solve table ``key`` (a no-op when it is cached) and write it to the cache; in a worker
    process, ``report`` gets the solver's progress (its ``tqdm`` bars).  Returns
    ``{"table", "path", "seconds"}``; :class:`~agents.play.web.jobs.WorkFailed` when the
    table could not be written."""
    spec = TABLES[key]
    started = time.perf_counter()

    def stage(low: float, high: float):
        return report.stage(low, high) if report is not None else contextlib.nullcontext()

    if spec.kind == "last-turn":
        from agents.scorecard.score_spread import load_or_compute_spread
        from agents.scorecard.win_threshold import _last_turn_table
        from agents.solvers import cache as C

        with stage(0.0, 0.1):
            moments = load_or_compute_spread(spec.game, progress=True)
        # the table win_threshold computes on a player's first last-round decision
        keys, pmf = _last_turn_table(moments)
        try:
            C.save_table(table_path(key), _last_turn_key(spec.game), {"keys": keys, "pmf": pmf},
                         {"seconds": round(time.perf_counter() - started, 1)})
        except OSError:
            pass  # said below
    elif spec.kind in ("dp", "spread"):
        from agents.solvers.scorecard_dp import (
            load_or_solve_scorecard,
            prepare_model,
            warm_up_kernels,
        )

        # the advisor's query kernel first, into numba's on-disk cache: the table is ready
        # once its file is written, and then the server's first game of a fresh install loads
        # the kernel instead of compiling it
        warm_up_kernels(prepare_model(spec.game), solver=False, queries=True, batched=False)
        with stage(0.0, 1.0 if spec.kind == "dp" else 0.05):
            load_or_solve_scorecard(spec.game, progress=True)
        if spec.kind == "spread":
            from agents.scorecard.score_spread import load_or_compute_spread

            with stage(0.05, 1.0):
                load_or_compute_spread(spec.game, progress=True)
    else:
        from agents.fivethousand.optimal import OptimalAgent

        agent = OptimalAgent(_fivethousand_rules(), progress=True)
        getattr(agent, {"solo": "solo", "2p": "two_player", "3p": "three_player"}[spec.kind])
    path = table_path(key)
    if not path.is_file():
        raise WorkFailed(f"{spec.what} were solved but could not be written to {path}; make "
                         "the cache folder writable or point DICE_ENV_CACHE elsewhere")
    return {"table": key, "path": str(path), "seconds": time.perf_counter() - started}


class Tables:
    """The tables of one server: which are ready, and the jobs that build the others.  The
    tables' paths are worked out once, here, so that a request only looks at files.  A
    ``warm`` server builds the first game's and the late tables at start-up (:meth:`warm_up`)."""

    def __init__(self, runner: JobRunner, warm: bool = False) -> None:
        self.runner = runner
        self.warm = warm
        self.paths = {key: table_path(key) for key in TABLES}

    def ready(self, key: str) -> bool:
        """Whether table ``key`` is in the cache."""
        return self.paths[key].is_file()

    def game_needs(self, game: str, opponents: Sequence[str], advisor: bool,
                   people: int = 1) -> list[str]:
        """:func:`game_needs` (the win-value models: those of this installation)."""
        return game_needs(game, opponents, advisor, people)

    def game_plan(self, game: str, opponents: Sequence[str], advisor: bool,
                  people: int = 1) -> tuple[list[str], list[str]]:
        """:func:`game_plan` (the win-value models: those of this installation)."""
        return game_plan(game, opponents, advisor, people)

    def attach(self, session: Any) -> str | None:
        """Bring the players of ``session`` (a game model) up to date with the tables built
        since, and say what the advice still waits for.

        * An advisor waiting for its P(win) player (``win_pending``) gets it once the
          game's win-probability (spread) table is ready; until then that table's build is
          started (or joined) and the answer is the advice note, one line: "Expected-score
          advice for now: the win-probability tables of Penta are being built (about 12 s
          left)."
        * The last-turn table, once it is in the cache, is handed to the players that read
          it -- the win-probability advisor, the win-value bots -- so that none computes it
          on a request (each keeps the table on its
          :class:`~agents.scorecard.score_spread.ScoreMoments`, where
          :mod:`agents.scorecard.win_threshold` looks first); its build is started once its
          source is ready.

        Returns the advice note, or None when the advice is complete."""
        game = getattr(getattr(session, "rules", None), "name", None)
        note = None
        if getattr(session, "win_pending", False):
            spread = f"{game}/spread"
            if spread not in TABLES or self.ready(spread):
                session.attach_win()
            else:
                note = self.advice_note(spread)
        if f"{game}/last-turn" not in TABLES:
            return note
        players = [getattr(session, "win_advisor", None),
                   *(seat.bot for seat in getattr(session, "seats", ()))]
        wanting = [m for m in (getattr(p, "moments", None) for p in players)
                   if m is not None and getattr(m, "_last_turn", None) is None]
        if wanting and self.ready(f"{game}/last-turn"):
            table = load_last_turn(game)
            for moments in wanting if table is not None else ():
                moments._last_turn = table
        elif wanting:
            self.start([f"{game}/last-turn"])
        return note

    def advice_note(self, key: str) -> str:
        """The advice note of an advisor waiting for table ``key`` (its build started or
        joined now): expected-score advice for now, and why."""
        from agents.play.web.jobs import QueueFull

        what = TABLES[key].what
        try:
            job = self.ensure([key], waited_for=False)
        except QueueFull:
            job = None
        if job is None:
            return f"Expected-score advice for now: {what} are waiting to be built."
        if job.state == "failed":
            return (f"Expected-score advice only: {what} could not be built "
                    f"({job.error or 'unknown error'}); trying again in a minute.")
        if job.state == "queued":
            return f"Expected-score advice for now: {what} are waiting for a free worker."
        return f"Expected-score advice for now: {what} are being built{_time_left(job.eta())}."

    def job_key(self, key: str) -> str:
        """The job key of table ``key``'s build."""
        return f"table:{key}"

    def ensure(self, keys: Iterable[str], *, waited_for: bool = True) -> Job | None:
        """None when every table of ``keys`` is ready; else the job building the first one
        missing (started now, or the one already queued or running, or a build that failed
        in the last minute).  ``waited_for``: a person waits for it (first in the queue, every
        core), else it is built ahead (one thread).  :class:`~agents.play.web.jobs.QueueFull`
        when no job can start."""
        for key in keys:
            if self.ready(key):
                continue
            spec = TABLES[key]
            last = self.runner.latest(self.job_key(key))
            if last is not None and last.state == "failed" and last.finished is not None \
                    and time.monotonic() - last.finished < FAILED_SHOWN_SECONDS:
                return last
            # a table a person waits for comes first and gets every core (its worker stays
            # at low priority); a table built ahead, one thread
            return self.runner.submit(self.job_key(key), spec.what, build_table, (key,),
                                      expected_seconds=spec.expected_seconds,
                                      cleanup=(self.paths[key],),
                                      priority=0 if waited_for else 1,
                                      threads=(os.cpu_count() or 1) if waited_for else None)
        return None

    def start(self, keys: Iterable[str], *, waited_for: bool = False) -> None:
        """Start building the tables of ``keys`` that are missing and whose own source table
        is ready, without waiting (a full queue is not an error: they are tried again
        later); ``waited_for`` as :meth:`ensure`'s."""
        from agents.play.web.jobs import QueueFull

        for key in keys:
            needs = TABLES[key].needs
            if not self.ready(key) and (needs is None or self.ready(needs)):
                with contextlib.suppress(QueueFull):
                    self.ensure([key], waited_for=waited_for)

    def warm_up(self, first_game: str | None = None) -> None:
        """With ``warm`` on, at start-up: build the expected-score table of ``first_game``
        (the game the page offers first) if it is missing, with every core -- on a fresh
        install that also compiles the kernels every scorecard game's table uses, while the
        visitor picks a game -- and :meth:`start` every late table."""
        if not self.warm:
            return
        self.start([k for k in TABLES if k == f"{first_game}/dp"], waited_for=True)
        self.start(k for k, spec in TABLES.items() if spec.late)

    def status(self) -> list[dict[str, Any]]:
        """Every table: ``{"table", "game", "what", "ready", "late", "job"}`` (``job``: the
        latest build's :meth:`~agents.play.web.jobs.Job.public`, or None)."""
        out = []
        for key, spec in TABLES.items():
            job = self.runner.latest(self.job_key(key))
            out.append({"table": key, "game": spec.game, "what": spec.what,
                        "ready": self.ready(key), "late": spec.late,
                        "job": None if job is None else job.public()})
        return out
