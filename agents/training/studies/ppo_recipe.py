"""The committed PPO models' whole recipe across training seeds: train, measure, pick the median.

The recipe of each game is its stages (:mod:`agents.training.ppo.stages`); training seed ``S``
of it runs in ``<run_root>/GAME[-seed<S>]-stage<i>``, hours per seed.  :func:`run_recipe_seeds`
trains the seeds whose last stage has no ``final.zip`` yet (unless told not to; a time budget
stops a seed with a checkpoint and the same call resumes it), then measures every finished
seed's final model by its exact gap to the optimum
(:func:`~agents.training.studies.measure.measure_agent`, 5000 with twice as many games) on two
disjoint sets of evaluation games (:mod:`agents.evaluation.game_sets`): the **selection
games**, which choose the median seed, and the **report games**, which every published figure
of the committed model comes from.  A measurement is kept next to the model
(``recipe_seed.json``, tied to the model's bytes) and not repeated.  :func:`export_median`
copies the median seed's model (never the best).

Run folders are not kept forever (``runs/`` is not committed, and a session's machine is gone
with it): each finished seed's model, learning curve and measurement are kept in the checkout's
``agents/models/seeds/GAME-seed<S>-<recipe>/`` (:func:`keep_seed`; outside the wheel), which
stands for the run folder when that is gone, so the seeds of one recipe can finish in different
sessions. A seed with neither keeps the row an earlier run of the table measured for the same
recipe (:func:`earlier_rows`), and the committed model of a game, when it holds the same bytes
as the median seed's model, is measured on the report games in its place
(:func:`report_committed`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from agents.evaluation.game_sets import REPORT_SEED, SELECTION_SEED
from agents.evaluation.reports.seeds import median_row, ppo_recipe_markdown
from agents.games import resolve
from agents.training.ppo.stages import run_stages, stage_dir
from agents.training.studies.measure import measure_agent
from dice_env.io import atomic_write_bytes, atomic_write_text

__all__ = ["EVAL_GAMES", "GAMES", "KEPT_FOLDER", "MEASURE_FILE", "SEEDS", "TABLE", "curve_rows",
           "earlier_rows", "eval_count", "export_median", "final_model", "keep_seed",
           "kept_model", "measure_report", "measure_seed", "recipe_digest", "report_committed",
           "run_recipe_seeds", "write_table"]

GAMES = ["penta", "dice-poker", "fivethousand", "yahtzee-official"]
SEEDS = [0, 1, 2]
EVAL_GAMES = 2000
MEASURE_FILE = "recipe_seed.json"
#: the table's file name, without its suffix (``.md`` and ``.json``)
TABLE = "ppo_recipe_seeds"
#: the folder of the committed models' folder that keeps each finished seed (:func:`keep_seed`)
KEPT_FOLDER = "seeds"


def recipe_digest(stages: list[dict]) -> str:
    """A short digest of a game's stages: a row measured under other stages (another recipe
    with the same steps) is never taken for this recipe's."""
    text = json.dumps(stages, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def kept_model(game: str, seed: int, kept: Path, recipe: str = "") -> Path:
    """Where :func:`keep_seed` keeps a seed's final model:
    ``kept/GAME-seed<S>-<recipe>/final.zip`` (``recipe``: :func:`recipe_digest` of the stages
    it was trained by, so a seed of another recipe is never taken for this one's)."""
    return Path(kept) / (f"{game}-seed{seed}" + (f"-{recipe}" if recipe else "")) / "final.zip"


def final_model(game: str, seed: int, n_stages: int, run_root: Path,
                kept: Path | None = None, recipe: str = "") -> Path:
    """The model a seed's recipe ends with: its last stage's ``final.zip``, or the kept copy
    (:func:`keep_seed`, of the same ``recipe``) when the run folder has none and ``kept`` has
    one."""
    model = stage_dir(run_root, game, n_stages, seed) / "final.zip"
    copy = None if kept is None else kept_model(game, seed, kept, recipe)
    return copy if not model.exists() and copy is not None and copy.exists() else model


def keep_seed(game: str, seed: int, model: Path, kept: Path, recipe: str = "") -> Path:
    """Copy a finished seed's model, learning curve and measurement (``final.zip``,
    ``eval.csv``, :data:`MEASURE_FILE`) into ``kept/GAME-seed<S>-<recipe>/`` (atomically);
    nothing to do when ``model`` is that copy.  Returns the kept model's path."""
    target = kept_model(game, seed, kept, recipe)
    if Path(model).resolve() == target.resolve():
        return target
    for name in ("final.zip", "eval.csv", MEASURE_FILE):
        source = Path(model).parent / name
        if source.exists():
            atomic_write_bytes(target.parent / name, source.read_bytes())
    return target


def curve_rows(curve: Path) -> list[dict]:
    """The rows of a run's learning curve (``eval.csv``)."""
    with Path(curve).open(newline="") as f:
        return list(csv.DictReader(f))


def eval_count(game: str, eval_games: int) -> int:
    """The games of one measurement: ``eval_games``, twice as many for 5000 (matches)."""
    return eval_games * resolve(game).family.seats_per_seed


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _agent(game: str, model: Path):
    from agents.policies.sb3_models import SB3Agent

    return SB3Agent(game, model_path=model)


def measure_report(game: str, model: Path, games: int, agent=None) -> dict:
    """A model's exact gap on the report games: ``seed`` (:data:`REPORT_SEED`), ``games``,
    ``gap``, ``ci``, ``unit`` and ``value``."""
    agent = agent if agent is not None else _agent(game, model)
    return {"seed": REPORT_SEED, "games": games,
            **measure_agent(agent, game, games, seed=REPORT_SEED)}


def _has_report(row: Mapping, games: int) -> bool:
    report = row.get("report") or {}
    return report.get("seed") == REPORT_SEED and report.get("games") == games


def _curve_times(model: Path) -> dict:
    """The training wall-clock and CPU seconds of a model's run, from the last row of its
    learning curve (``eval.csv`` beside it; a kept seed's curve joins its stages), None where
    the curve has none."""
    last = curve_rows(model.parent / "eval.csv")[-1]
    return {key: None if last.get(key) in (None, "") else float(last[key])
            for key in ("train_seconds", "train_cpu_seconds")}


def measure_seed(game: str, seed: int, model: Path, eval_games: int) -> dict:
    """One seed's row: its exact gap on the selection games (``gap``, ``ci``, ``value``), the
    same on the report games (``report``), its steps, training wall-clock and CPU time; cached
    next to the model, tied to the model's bytes (a cache without the report games, or the CPU
    time, gets them added)."""
    digest = _sha256(model)
    games = eval_count(game, eval_games)
    cache = model.parent / MEASURE_FILE
    row = None
    if cache.exists():
        try:
            row = json.loads(cache.read_text())
        except ValueError:  # a corrupt cache is measured again
            row = None
    if row is not None and not (row.get("sha256") == digest and row.get("eval_games") == games
                                and row.get("selection_seed", SELECTION_SEED)
                                == SELECTION_SEED):
        row = None
    if row is not None and _has_report(row, games):
        if "train_cpu_seconds" not in row:  # a cache from before the CPU time was kept
            row["train_cpu_seconds"] = _curve_times(model)["train_cpu_seconds"]
            atomic_write_text(cache, json.dumps(row, indent=1, default=float) + "\n")
        return row
    agent = _agent(game, model)
    if row is None:
        last = curve_rows(model.parent / "eval.csv")[-1]
        row = {"seed": seed, "timesteps": int(last["timesteps"]), "eval_games": games,
               "selection_seed": SELECTION_SEED,
               **measure_agent(agent, game, games, seed=SELECTION_SEED),
               **_curve_times(model), "sha256": digest}
    row["selection_seed"] = SELECTION_SEED
    row["report"] = measure_report(game, model, games, agent)
    atomic_write_text(cache, json.dumps(row, indent=1, default=float) + "\n")
    return row


def earlier_rows(table: Path, stages: Mapping[str, list[dict]],
                 eval_games: int) -> dict[str, dict[int, dict]]:
    """The rows an earlier run wrote into ``table`` (a ``ppo_recipe_seeds.json``), game ->
    seed -> row, keeping only those measured as this run would measure them (the same number
    of selection games, the same recipe: :func:`recipe_digest` of its stages, and the last
    stage's steps); nothing when there is no table.

    A table written before the report games existed measured its seeds on evaluation seed 0,
    which its rows then say (``selection_seed``)."""
    try:
        data = json.loads(Path(table).read_text())
    except (OSError, ValueError):
        return {}
    out: dict[str, dict[int, dict]] = {}
    for game, rows in data.items():
        if game not in stages or not isinstance(rows, list):
            continue
        for row in rows:
            if (row.get("eval_games") == eval_count(game, eval_games)
                    and row.get("recipe") == recipe_digest(stages[game])
                    and row.get("timesteps") == stages[game][-1]["timesteps"]
                    and row.get("selection_seed", SELECTION_SEED) == SELECTION_SEED):
                out.setdefault(game, {})[row["seed"]] = {**row, "selection_seed": SELECTION_SEED}
    return out


def report_committed(game: str, rows: list[dict], eval_games: int, committed: Path) -> None:
    """Measure the committed model ``committed`` on the report games in the median seed's row
    (``report``, with ``"measured": "committed model"``) when that row has no report-games
    figures (its run folder is gone) and the file holds the same bytes as the seed's model;
    otherwise say on stderr why not."""
    median = median_row(rows)
    games = eval_count(game, eval_games)
    if _has_report(median, games):
        return
    if not Path(committed).is_file() or _sha256(committed) != median.get("sha256"):
        print(f"{game}: {committed} is not the median seed {median['seed']}'s model: its "
              "report-games gap is not measured", file=sys.stderr)
        return
    median["report"] = {**measure_report(game, Path(committed), games),
                        "measured": "committed model"}


def _say(game: str, row: dict) -> None:
    def gap(r: Mapping) -> str:
        return f"{r['gap']:.5g} [{r['ci'][0]:.5g}, {r['ci'][1]:.5g}] {r['unit']}"

    report = row.get("report")
    print(f"{game} seed {row['seed']}: gap {gap(row)} on the selection games (seed "
          f"{SELECTION_SEED})" + (f", {gap(report)} on the report games (seed "
                                  f"{REPORT_SEED})" if report else ""), flush=True)


def run_recipe_seeds(games: list[str], seeds: list[int], stages: dict[str, list[dict]],
                     run_root: Path, eval_games: int, train: bool = True,
                     max_minutes: float | None = None, threads: int = 1,
                     earlier: Mapping[str, Mapping[int, dict]] | None = None,
                     committed: Mapping[str, Path] | None = None,
                     kept: Path | None = None
                     ) -> tuple[dict[str, list[dict]], dict[str, list[int]]]:
    """Train (unless ``train`` is false) and measure every seed of every game, printing each
    gap; returns the rows of the games with a measured seed, and game -> its unfinished
    seeds.  With ``kept``, a finished seed is kept there (:func:`keep_seed`) and a kept seed
    stands for a run folder that is gone.

    A seed whose final model is missing and not trained here keeps its row of ``earlier``
    (:func:`earlier_rows`) if it has one, else it is unfinished.  For a game with every seed
    measured, the model in ``committed`` (game -> file) stands for the median seed on the
    report games when that seed's run folder is gone (:func:`report_committed`)."""
    deadline = None if max_minutes is None else time.monotonic() + 60 * max_minutes
    earlier = earlier or {}
    rows: dict[str, list[dict]] = {}
    unfinished: dict[str, list[int]] = {}
    for game in games:
        rows[game] = []
        for seed in seeds:
            recipe = recipe_digest(stages[game])
            model = final_model(game, seed, len(stages[game]), run_root, kept, recipe)
            left = None if deadline is None else (deadline - time.monotonic()) / 60
            if not model.exists() and train and (left is None or left > 0):
                run_stages(game, stages[game], run_root, seed=seed, max_minutes=left,
                           threads=threads)
            if model.exists():
                row = {**measure_seed(game, seed, model, eval_games), "recipe": recipe}
                if kept is not None:
                    keep_seed(game, seed, model, kept, recipe)
            elif seed in earlier.get(game, {}):
                row = dict(earlier[game][seed])
            else:
                unfinished.setdefault(game, []).append(seed)
                continue
            rows[game].append(row)
        if rows[game] and game not in unfinished and committed and game in committed:
            report_committed(game, rows[game], eval_games, committed[game])
        for row in rows[game]:
            _say(game, row)
    return {g: rs for g, rs in rows.items() if rs}, unfinished


def export_median(game: str, rows: list[dict], n_stages: int, run_root: Path,
                  models: Path, committed: Path | None = None,
                  kept: Path | None = None, recipe: str = "") -> Path | None:
    """Copy the median seed's model and learning curve to ``models/GAME.zip`` and
    ``GAME.eval.csv`` (atomically); returns the model's path.

    When the median seed's run folder is gone, the model is taken from ``committed`` (with the
    ``.eval.csv`` beside it) if that file holds the same bytes; ``models/GAME.zip`` already
    being that model is fine too; else nothing is exported (``None``, said on stderr)."""
    median = median_row(rows)
    model = final_model(game, median["seed"], n_stages, run_root, kept, recipe)
    curve = model.parent / "eval.csv"
    target = Path(models) / f"{game}.zip"
    if not model.exists():
        same = [p for p in (target, committed) if p is not None and Path(p).is_file()
                and _sha256(p) == median.get("sha256")]
        if same and Path(same[0]).resolve() == target.resolve():
            print(f"{game}: {target} is already the median seed {median['seed']}'s model")
            return target
        if not same:
            print(f"{game}: not exported: the median seed {median['seed']}'s model {model} is "
                  f"gone, and neither {target} nor {committed} is that model", file=sys.stderr)
            return None
        model, curve = Path(same[0]), Path(same[0]).with_suffix(".eval.csv")
    atomic_write_bytes(target, model.read_bytes())
    atomic_write_bytes(target.with_suffix(".eval.csv"), curve.read_bytes())
    print(f"{game}: committed the median seed {median['seed']} ({target})")
    return target


def write_table(rows: dict[str, list[dict]], out: Path, command: str, eval_games: int,
                stages: dict[str, list[dict]]) -> Path:
    """Write ``out/ppo_recipe_seeds.md`` and ``.json``; returns the markdown's path."""
    atomic_write_text(out / f"{TABLE}.md",
                      ppo_recipe_markdown(rows, command, eval_games, stages))
    atomic_write_text(out / f"{TABLE}.json",
                      json.dumps(rows, indent=1, default=float) + "\n")
    return out / f"{TABLE}.md"
