"""The scaling curve of structured PPO (issue 45): its exact gap against training steps and time.

Each run is a game's recipe as it stood when the study began (:func:`scaling_stages_file`: the
committed faster recipe without the bonus-now box feature the committed models took since) with
every stage ending at ``steps_scale`` times its steps (default 10: about 300M steps), from one
training seed, in ``<run_root>/GAME[-seed<S>]-stage<i>``.  The runs keep their model at about
six points on a log scale of steps (:func:`snapshot_points`: 1M, 3M, 10M, 30M, ... up to the
last stage's end, every stage's end a point; the config's ``snapshots_at``), and each snapshot
is measured by its exact gap on the selection games as soon as it is written
(:meth:`ScalingStudy.measure`); the row goes into a small JSON store (:func:`add_to_store`),
which is committed: the snapshots themselves need not be kept.  The runs advance stage by
stage (every run's stage 1, then every run's stage 2), so the curve's early points have all
their seeds first.

A session's machine, and its ``runs/``, are gone with it: :meth:`ScalingStudy.carry_run` copies
an unfinished run's resumable state -- the current stage's ``checkpoint.pkl`` and ``eval.csv``,
or, between stages, the finished stage's ``final.zip`` and ``eval.csv`` that the next one
starts from (``--init-from``) -- into a carry folder that is committed at the end of a session,
and :meth:`ScalingStudy.restore_run` puts it back where the run folder is missing or behind.
A finished run's carried files are deleted; its last point in the store says it is done.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agents.evaluation.game_sets import SELECTION_SEED
from agents.evaluation.reports.scaling import scaling_json, scaling_markdown
from agents.games import resolve
from agents.training.ppo.checkpoints import (
    CHECKPOINT_NAME,
    FINAL_NAME,
    read_learning_curve,
)
from agents.training.ppo.runs import checkpoint_timesteps
from agents.training.ppo.stages import (
    run_stages,
    stage_dir,
    stage_steps,
    stages_file,
    with_settings,
)
from agents.training.studies.measure import measure_agent
from agents.training.studies.ppo_recipe import eval_count, recipe_digest
from dice_env.io import atomic_write_bytes, atomic_write_text

__all__ = ["EVAL_GAMES", "FIRST_POINT", "MANIFEST", "RUNS", "SNAP", "STEPS_SCALE", "STORE_NAME",
           "TABLE", "ScalingStudy", "add_to_store", "load_store", "log_points",
           "scaling_stages_file", "snapshot_points"]

#: the runs of the documented study: game -> training seeds
RUNS: dict[str, list[int]] = {"yahtzee-official": [0, 1, 2], "penta": [0]}
#: every stage at 10 times its steps: stage 1 to about 101M steps, stage 2 to about 300M
STEPS_SCALE = 10.0
EVAL_GAMES = 2000
#: the first point of the log grid (:func:`log_points`)
FIRST_POINT = 1_000_000
#: a grid point within this factor of a stage's end is that end (:func:`snapshot_points`)
SNAP = 1.25
#: the report's file name, without its suffix (``.md`` and ``.json``)
TABLE = "scaling"
#: the store of measured points, in the carry folder (else the run root)
STORE_NAME = "measured.json"
#: the player every game's gap split is read beside (measured once per game, same games)
REFERENCE = "heuristic"
#: a carried run's description, in its carry folder
MANIFEST = "carry.json"


def scaling_stages_file() -> Path:
    """The stages the study scales (``scaling_stages.json`` beside ``stages.json``): the
    committed recipe as it stood when the study began, kept apart from ``stages.json`` so that
    a run and its measured rows stay one recipe (their ``recipe`` digest) when the committed
    recipe changes."""
    return stages_file("scaling_stages.json")


def log_points(last: int, first: int = FIRST_POINT) -> list[int]:
    """The points 1, 3, 10, 30, ... times ``first`` up to ``last`` (and one just past it,
    within :data:`SNAP`, which :func:`snapshot_points` moves onto it)."""
    points, scale = [], first
    while True:
        for factor in (1, 3):
            if factor * scale > last * SNAP:
                return points
            points.append(factor * scale)
        scale *= 10


def snapshot_points(ends: Sequence[int], grid: Sequence[int] | None = None) -> list[int]:
    """The study's points, ascending: every stage's end (``ends``, the steps each stage's run
    ends at), and each point of ``grid`` (default :func:`log_points` up to the last end) that is
    not within a factor :data:`SNAP` of a stage's end (it is that end) nor past the last."""
    grid = log_points(ends[-1]) if grid is None else grid
    points = {int(e) for e in ends}
    for t in grid:
        if t <= ends[-1] and not any(max(e, t) / min(e, t) <= SNAP for e in ends):
            points.add(int(t))
    return sorted(points)


# -- the store of measured points -----------------------------------------------------------

_STORE_DOC = ("The scaling study's measured points (dice-env report scaling): one row per snapshot "
              "of a run, its exact gap on the selection games; kept (committed) because the "
              "snapshots and run folders are not.  'at' is the point asked for, 'timesteps' the "
              "first update at or past it; 'recipe' a digest of the run's scaled stages; "
              "'by_kind', 'by_turn' and 'mistakes' where the gap is lost, 'bonus_giveaway' "
              "the bonus probe's answer. 'references': the reference player's gap, split and "
              "probe on the same games.")


def load_store(path: Path) -> list[dict]:
    """The rows of the store ``path`` (none when it does not exist); ``ValueError`` naming the
    file for one that is not a store."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as err:
        raise ValueError(f"{path} is not the scaling study's store of measured points "
                         f"({err}); restore it from git") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise ValueError(f"{path} is not the scaling study's store of measured points (no "
                         "'rows' list); restore it from git")
    return data["rows"]


def _key(row: Mapping) -> tuple:
    return row["game"], row["seed"], row["at"], row["recipe"], row["eval_games"]


def add_to_store(path: Path, row: dict) -> None:
    """Add ``row`` to the store ``path`` (atomically), in place of a row of the same game, seed,
    point, recipe and number of games."""
    with _store_lock(path):
        rows = [r for r in load_store(path) if _key(r) != _key(row)] + [row]
        rows.sort(key=lambda r: (r["game"], r["seed"], r["at"], r["recipe"], r["eval_games"]))
        _write_store(path, rows, load_references(path))


def load_references(path: Path) -> list[dict]:
    """The reference players' rows of the store ``path`` (:meth:`ScalingStudy.measure_reference`;
    none in a store written before they were kept)."""
    load_store(path)  # (refuses a file that is no store)
    try:
        refs = json.loads(Path(path).read_text()).get("references", [])
    except FileNotFoundError:
        return []
    return refs if isinstance(refs, list) else []


def add_reference(path: Path, row: dict) -> None:
    """Add a reference player's ``row`` to the store ``path``, in place of one of the same game,
    player, number of games and evaluation seed."""
    def key(r: Mapping) -> tuple:
        return r["game"], r["player"], r["eval_games"], r["selection_seed"]

    with _store_lock(path):
        refs = [r for r in load_references(path) if key(r) != key(row)] + [row]
        _write_store(path, load_store(path), sorted(refs, key=key))


@contextmanager
def _store_lock(path: Path) -> Iterator[None]:
    """Hold the store's lock while it is read and written again: several studies may train
    different runs at once (``--runs``) and share one store.  The lock file is in the
    temporary folder, keyed by the store's path, so nothing appears beside the store."""
    import fcntl
    import tempfile

    digest = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"dice-env-scaling-{digest}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _write_store(path: Path, rows: list[dict], references: list[dict]) -> None:
    atomic_write_text(path, json.dumps({"_doc": _STORE_DOC, "rows": rows,
                                        "references": references}, indent=1,
                                       default=float) + "\n")


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _copy(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` atomically, unless it holds the same bytes already."""
    data = source.read_bytes()
    if not target.exists() or target.read_bytes() != data:
        atomic_write_bytes(target, data)


# -- the study ------------------------------------------------------------------------------

@dataclass
class ScalingStudy:
    """The runs of the scaling study, their snapshots, measurements and carried state.

    ``runs``: game -> training seeds; ``stages``: game -> its recipe's stages, already scaled
    (:func:`~agents.training.ppo.stages.scaled`); ``grid``: the points asked for (default
    :func:`log_points`), snapped by :func:`snapshot_points`; ``store``: the JSON store of
    measured rows; ``carry``: the folder runs are carried in across sessions (None: not
    carried); ``again``: the command that continues the study, printed when a stage stops.
    """

    runs: Mapping[str, Sequence[int]]
    stages: Mapping[str, list[dict]]
    run_root: Path
    store: Path
    eval_games: int = EVAL_GAMES
    steps_scale: float = STEPS_SCALE
    carry: Path | None = None
    grid: Sequence[int] | None = None
    threads: int = 1
    again: str | None = None
    _ends: dict[str, list[int]] = field(default_factory=dict, repr=False)

    # -- what each run is --------------------------------------------------------------
    def ends(self, game: str) -> list[int]:
        """The steps each stage of ``game`` ends at (whole rollouts)."""
        if game not in self._ends:
            self._ends[game] = [stage_steps(game, s) for s in self.stages[game]]
        return self._ends[game]

    def points(self, game: str) -> list[int]:
        """The points of ``game``'s runs (:func:`snapshot_points`)."""
        return snapshot_points(self.ends(game), self.grid)

    def recipe(self, game: str) -> str:
        """A digest of ``game``'s scaled stages (a row of other stages is never taken)."""
        return recipe_digest(self.stages[game])

    def trained_stages(self, game: str) -> list[dict]:
        """The stages as trained: each with ``snapshots_at`` the study's points."""
        return with_settings(self.stages[game], {"snapshots_at": self.points(game)})

    def folder(self, game: str, seed: int, stage: int) -> Path:
        return stage_dir(self.run_root, game, stage, seed)

    def carried(self, game: str, seed: int) -> Path | None:
        """The carry folder of a run (None when the study carries nothing)."""
        return None if self.carry is None else Path(self.carry) / f"{game}-seed{seed}"

    # -- the store ---------------------------------------------------------------------
    def rows(self, game: str, seeds: Sequence[int] | None = None) -> list[dict]:
        """The stored rows of ``game`` (its seeds of this study) measured as this study
        measures: this recipe, this many games."""
        seeds = self.runs[game] if seeds is None else seeds
        games = eval_count(game, self.eval_games)
        return [r for r in load_store(self.store)
                if r["game"] == game and r["seed"] in seeds and r["recipe"] == self.recipe(game)
                and r["eval_games"] == games]

    def measured(self, game: str, seed: int, at: int) -> bool:
        return any(r["at"] == at for r in self.rows(game, [seed]))

    def measure(self, game: str, seed: int, snapshot: Path, record: Mapping) -> dict | None:
        """Measure a snapshot by its exact gap on the selection games, with the gap's split
        (:func:`~agents.training.studies.measure.measure_agent`), and add the row to the store
        (nothing to do when it is there); returns the row.  The training time is the learning
        curve's (``eval.csv``) at the snapshot's step, else the snapshot's record's (the same
        clock)."""
        at = int(record["at"])
        if self.measured(game, seed, at):
            return None
        from agents.policies.sb3_models import SB3Agent

        games = eval_count(game, self.eval_games)
        agent = SB3Agent(game, model_path=snapshot)
        times, source = dict(record), "snapshot"
        curve = Path(snapshot).parent / "eval.csv"
        if curve.exists():
            same = [r for r in read_learning_curve(curve)
                    if r["timesteps"] == record["timesteps"]]
            if same:
                times, source = same[-1], "eval.csv"
        row = {"game": game, "seed": seed, "at": at, "timesteps": int(record["timesteps"]),
               "eval_games": games, "selection_seed": SELECTION_SEED,
               **measure_agent(agent, game, games, seed=SELECTION_SEED, split=True),
               "train_seconds": times.get("train_seconds"),
               "train_cpu_seconds": times.get("train_cpu_seconds"), "times_from": source,
               "sha256": _sha256(snapshot), "recipe": self.recipe(game),
               "steps_scale": self.steps_scale}
        add_to_store(self.store, row)
        print(f"{game} seed {seed} at {row['timesteps']:,} steps: gap {row['gap']:.4g} "
              f"[{row['ci'][0]:.4g}, {row['ci'][1]:.4g}] {row['unit']} on the selection "
              f"games (stored in {self.store})", flush=True)
        return row

    def hook(self, game: str, seed: int):
        """The ``on_snapshot`` of a run's stages: measure each snapshot as it is written (a
        failure is said and left to :meth:`measure_pending`)."""
        def on_snapshot(path: Path, record: dict) -> None:
            try:
                self.measure(game, seed, path, record)
            except Exception as err:  # never lose the training to a measurement
                print(f"{game} seed {seed}: measuring {path.name} failed ({err}); it is "
                      "measured again when the study stops", file=sys.stderr, flush=True)
        return on_snapshot

    def snapshots(self, game: str, seed: int) -> Iterator[tuple[int, Path, dict]]:
        """The snapshots in a run's folders: ``(stage, path, record)``."""
        for i in range(1, len(self.stages[game]) + 1):
            for record_file in sorted(self.folder(game, seed, i).glob("snapshot-*.json")):
                snapshot = record_file.with_suffix(".zip")
                if snapshot.exists():
                    yield i, snapshot, json.loads(record_file.read_text())

    def measure_pending(self) -> None:
        """Measure the snapshots in the run folders that the store lacks, the split of the
        stored rows that lack it (:meth:`measure_split`) and each game's reference player
        (:meth:`measure_reference`)."""
        for game, seeds in self.runs.items():
            for seed in seeds:
                for _, snapshot, record in self.snapshots(game, seed):
                    self.measure(game, seed, snapshot, record)
                self.measure_split(game, seed)
            self.measure_reference(game)

    def measure_split(self, game: str, seed: int) -> None:
        """Give the gap's split (and costliest mistakes) to the stored rows of a run that were
        measured before it was kept, where the model they measured is still in the run
        folders: a snapshot with the row's ``sha256``, or for a row at a stage's end that
        stage's final model (the same update's weights, in another file); measured again on
        the same games."""
        rows = [r for r in self.rows(game, [seed]) if "bonus_giveaway" not in r]
        if not rows:
            return
        from agents.policies.sb3_models import SB3Agent

        by_sha = {_sha256(path): path for _, path, _ in self.snapshots(game, seed)}
        finals = {end: self.folder(game, seed, i + 1) / FINAL_NAME
                  for i, end in enumerate(self.ends(game))}
        for row in rows:
            model = by_sha.get(row.get("sha256")) or finals.get(row["timesteps"])
            if model is None or not model.exists():
                continue
            again = measure_agent(SB3Agent(game, model_path=model), game, row["eval_games"],
                                  seed=row["selection_seed"], split=True)
            add_to_store(self.store, {**row, **again})
            print(f"{game} seed {seed} at {row['timesteps']:,} steps: split measured (gap "
                  f"{again['gap']:.4g})", flush=True)

    def measure_reference(self, game: str) -> dict | None:
        """Measure the game's :data:`REFERENCE` player on the selection games, with the gap's
        split, once (nothing to do when the store has it); returns the row."""
        stored = self.reference(game)
        if stored is not None and "bonus_giveaway" in stored:
            return None
        import agents

        if REFERENCE not in resolve(game).family.players:
            return None
        games = eval_count(game, self.eval_games)
        row = {"game": game, "player": REFERENCE, "eval_games": games,
               "selection_seed": SELECTION_SEED,
               **measure_agent(agents.make(REFERENCE, game), game, games,
                               seed=SELECTION_SEED, split=True)}
        add_reference(self.store, row)
        print(f"{game} {REFERENCE}: gap {row['gap']:.4g} on the selection games (the reference; "
              f"stored in {self.store})", flush=True)
        return row

    def reference(self, game: str) -> dict | None:
        """The stored row of ``game``'s reference player, measured as this study measures."""
        games = eval_count(game, self.eval_games)
        return next((r for r in load_references(self.store)
                     if r["game"] == game and r["player"] == REFERENCE
                     and r["eval_games"] == games and r["selection_seed"] == SELECTION_SEED),
                    None)

    # -- progress of a run -------------------------------------------------------------
    def progress(self, game: str, seed: int) -> tuple[int, int]:
        """Where a run's folders stand: ``(stage to run, its steps)`` -- ``(k + 1, 0)`` after
        stage ``k``'s final model, ``(k, steps)`` at stage ``k``'s checkpoint, ``(1, 0)`` with
        neither."""
        for i in range(len(self.stages[game]), 0, -1):
            folder = self.folder(game, seed, i)
            if (folder / FINAL_NAME).exists():
                return i + 1, 0
            if (folder / CHECKPOINT_NAME).exists():
                return i, checkpoint_timesteps(folder) or 0
        return 1, 0

    def _manifest(self, game: str, seed: int) -> dict | None:
        carried = self.carried(game, seed)
        if carried is None or not (carried / MANIFEST).exists():
            return None
        manifest = json.loads((carried / MANIFEST).read_text())
        if manifest.get("recipe") != self.recipe(game):
            raise ValueError(f"{carried} carries a run of another recipe (steps scale "
                             f"{manifest.get('steps_scale')}): finish that study, or delete "
                             "the folder to start this one")
        return manifest

    def finished(self, game: str, seed: int) -> bool:
        """A run is finished when its last stage has its final model, its last point is in the
        store, or its carried state says so."""
        n = len(self.stages[game])
        manifest = self._manifest(game, seed)
        return (self.progress(game, seed)[0] > n
                or any(r["at"] == self.ends(game)[-1] and r["recipe"] == self.recipe(game)
                       and r["game"] == game and r["seed"] == seed
                       for r in load_store(self.store))
                or (manifest is not None and manifest["stage"] > n))

    # -- carrying across sessions -------------------------------------------------------
    def carry_run(self, game: str, seed: int) -> list[Path]:
        """Copy a run's resumable state into its carry folder (see the module doc), with any
        snapshot not measured yet; a finished run with nothing left to measure has its carry
        folder deleted.  Returns the files carried."""
        carried = self.carried(game, seed)
        if carried is None:
            return []
        n = len(self.stages[game])
        stage, steps = self.progress(game, seed)
        files: dict[str, Path] = {}
        if stage <= n and (self.folder(game, seed, stage) / CHECKPOINT_NAME).exists():
            for name in (CHECKPOINT_NAME, "eval.csv"):  # the stage resumes from these
                files[f"stage{stage}/{name}"] = self.folder(game, seed, stage) / name
        elif 1 < stage <= n:  # between stages: the next one starts from this model
            for name in (FINAL_NAME, "eval.csv"):
                files[f"stage{stage - 1}/{name}"] = self.folder(game, seed, stage - 1) / name
        for i, snapshot, record in self.snapshots(game, seed):
            if not self.measured(game, seed, int(record["at"])):
                for path in (snapshot, snapshot.with_suffix(".json")):
                    files[f"stage{i}/{path.name}"] = path
        files = {k: v for k, v in files.items() if v.exists()}
        if not files:
            if stage > n or self.finished(game, seed):
                shutil.rmtree(carried, ignore_errors=True)
            return []
        for relative, source in files.items():
            _copy(source, carried / relative)
        for old in sorted(carried.rglob("*")):  # what the run no longer needs
            if old.is_file() and old.name != MANIFEST and \
                    old.relative_to(carried).as_posix() not in files:
                old.unlink()
        for folder in sorted((p for p in carried.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
        manifest = {"game": game, "seed": seed, "recipe": self.recipe(game),
                    "steps_scale": self.steps_scale, "stage": stage, "timesteps": steps,
                    "files": sorted(files)}
        atomic_write_text(carried / MANIFEST, json.dumps(manifest, indent=1) + "\n")
        return [carried / k for k in files]

    def restore_run(self, game: str, seed: int) -> bool:
        """Put a run's carried state back into its run folders when they are missing or behind
        it; True when something was restored."""
        manifest = self._manifest(game, seed)
        if manifest is None:
            return False
        carried = self.carried(game, seed)
        behind = self.progress(game, seed) < (manifest["stage"], manifest["timesteps"])
        restored = False
        for relative in manifest["files"]:
            stage_name, name = relative.split("/")
            target = self.folder(game, seed, int(stage_name[len("stage"):])) / name
            if (carried / relative).exists() and (behind or (name.startswith("snapshot-")
                                                              and not target.exists())):
                _copy(carried / relative, target)
                restored = True
        if restored:
            print(f"{game} seed {seed}: restored from {carried} (stage {manifest['stage']}, "
                  f"{manifest['timesteps']:,} steps)", flush=True)
        return restored

    def check(self) -> None:
        """``ValueError`` (one line) before anything runs: the store is unreadable, or the run
        root or a carry folder holds runs of another recipe (another steps scale), which would
        be resumed as this one's."""
        load_store(self.store)
        for game, seeds in self.runs.items():
            for seed in seeds:
                self._manifest(game, seed)
        path = Path(self.run_root) / "scaling-recipes.json"
        try:
            known = json.loads(path.read_text())
        except (OSError, ValueError):
            known = {}
        for game in self.runs:
            if known.get(game, self.recipe(game)) != self.recipe(game):
                raise ValueError(f"{self.run_root} holds {game} runs of another recipe (another "
                                 "--steps-scale or stages): choose another --run-root")
            known[game] = self.recipe(game)
        atomic_write_text(path, json.dumps(known, indent=1) + "\n")

    # -- running -----------------------------------------------------------------------
    def run(self, train: bool = True, max_minutes: float | None = None) -> bool:
        """Restore carried runs, train (unless ``train`` is false) stage by stage until every
        run has finished or ``max_minutes`` are spent (or Ctrl-C / SIGTERM), measuring each
        snapshot as it comes, then measure what is left and carry the unfinished runs.
        Returns True when every run has finished."""
        deadline = None if max_minutes is None else time.monotonic() + 60 * max_minutes
        pairs = [(g, s) for g, seeds in self.runs.items() for s in seeds]
        self.check()
        with _sigterm_as_interrupt():
            try:
                for game, seed in pairs:
                    self.restore_run(game, seed)
                self.measure_pending()
                if train:
                    self._train(deadline)
                self.measure_pending()
            finally:
                for game, seed in pairs:
                    self.carry_run(game, seed)
        return all(self.finished(g, s) for g, s in pairs)

    def _train(self, deadline: float | None) -> None:
        for i in range(1, max(len(st) for st in self.stages.values()) + 1):
            for game, seeds in self.runs.items():
                if i > len(self.stages[game]):
                    continue
                for seed in seeds:
                    if self.finished(game, seed) or self.progress(game, seed)[0] != i:
                        continue  # (a run at stage i > 1 has stage i - 1's final model)
                    left = None if deadline is None else (deadline - time.monotonic()) / 60
                    if left is not None and left <= 0:
                        print(f"stopped (--max-minutes) before {game} seed {seed} stage {i}; "
                              f"run again to continue: {self.again}", flush=True)
                        return
                    print(f"== {game} seed {seed}, stage {i} of {len(self.stages[game])}",
                          flush=True)
                    summaries = run_stages(game, self.trained_stages(game)[:i], self.run_root,
                                           seed=seed, max_minutes=left, threads=self.threads,
                                           again=self.again, start=i,
                                           on_snapshot=self.hook(game, seed))
                    self.carry_run(game, seed)
                    if any(s["stopped"] for s in summaries):
                        return

    # -- the report --------------------------------------------------------------------
    def report_data(self) -> list[dict]:
        """Per game: its seeds, points, stage ends, unit and digits, and its stored rows."""
        out = []
        for game, seeds in self.runs.items():
            family = resolve(game).family
            points = sorted(set(self.points(game)) | {r["at"] for r in self.rows(game)})
            out.append({"game": game, "seeds": list(seeds), "points": points,
                        "stage_ends": self.ends(game), "unit": family.unit,
                        "digits": family.digits, "rows": self.rows(game),
                        "reference": self.reference(game)})
        return out

    def write_report(self, out: Path, command: str) -> Path:
        """Write ``out/scaling.md`` and ``.json`` from the stored rows; returns the markdown's
        path."""
        data = self.report_data()
        settings = {"eval_games": self.eval_games, "steps_scale": self.steps_scale}
        atomic_write_text(Path(out) / f"{TABLE}.md", scaling_markdown(data, command, **settings))
        atomic_write_text(Path(out) / f"{TABLE}.json",
                          json.dumps(scaling_json(data, command, **settings), indent=1,
                                     default=float) + "\n")
        return Path(out) / f"{TABLE}.md"


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM outside the training (which answers it with a checkpoint) stops the study as
    Ctrl-C does, so the runs are still carried."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
