"""The committed PPO models' whole recipe across training seeds: train, measure, pick the median.

The recipe of each game is its stages (:mod:`agents.training.ppo.stages`); training seed ``S``
of it runs in ``<run_root>/GAME[-seed<S>]-stage<i>``, hours per seed.  :func:`run_recipe_seeds`
trains the seeds whose last stage has no ``final.zip`` yet (unless told not to; a time budget
stops a seed with a checkpoint and the same call resumes it), then measures every finished
seed's final model by its exact gap to the optimum
(:func:`~agents.training.studies.measure.measure_agent`, 5000 with twice as many games).  A
measurement is kept next to the model (``recipe_seed.json``, tied to the model's bytes) and not
repeated.  :func:`export_median` copies the median seed's model (never the best).
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from pathlib import Path

from agents.evaluation.reports.seeds import median_row, ppo_recipe_markdown
from agents.games import is_fivethousand
from agents.training.ppo.stages import run_stages, stage_dir
from agents.training.studies.measure import measure_agent
from dice_env.io import atomic_write_bytes, atomic_write_text

__all__ = ["EVAL_GAMES", "GAMES", "MEASURE_FILE", "SEEDS", "curve_rows", "export_median",
           "final_model", "measure_seed", "run_recipe_seeds", "write_table"]

GAMES = ["penta", "dice-poker", "fivethousand"]
SEEDS = [0, 1, 2]
EVAL_GAMES = 2000
MEASURE_FILE = "recipe_seed.json"


def final_model(game: str, seed: int, n_stages: int, run_root: Path) -> Path:
    """The model a seed's recipe ends with: its last stage's ``final.zip``."""
    return stage_dir(run_root, game, n_stages, seed) / "final.zip"


def curve_rows(curve: Path) -> list[dict]:
    """The rows of a run's learning curve (``eval.csv``)."""
    with Path(curve).open(newline="") as f:
        return list(csv.DictReader(f))


def measure_seed(game: str, seed: int, model: Path, eval_games: int) -> dict:
    """One seed's row: its exact gap (cached next to the model, tied to the model's bytes),
    its steps and training wall-clock."""
    from agents.policies.sb3_models import SB3Agent

    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    games = eval_games * (2 if is_fivethousand(game) else 1)
    cache = model.parent / MEASURE_FILE
    if cache.exists():
        try:
            cached = json.loads(cache.read_text())
        except ValueError:  # a corrupt cache is measured again
            cached = {}
        if cached.get("sha256") == digest and cached.get("eval_games") == games:
            return cached
    last = curve_rows(model.parent / "eval.csv")[-1]
    seconds = last.get("train_seconds")
    row = {"seed": seed, "timesteps": int(last["timesteps"]), "eval_games": games,
           **measure_agent(SB3Agent(game, model_path=model), game, games),
           "train_seconds": None if seconds in (None, "") else float(seconds),
           "sha256": digest}
    atomic_write_text(cache, json.dumps(row, indent=1, default=float) + "\n")
    return row


def run_recipe_seeds(games: list[str], seeds: list[int], stages: dict[str, list[dict]],
                     run_root: Path, eval_games: int, train: bool = True,
                     max_minutes: float | None = None, threads: int = 1
                     ) -> tuple[dict[str, list[dict]], dict[str, list[int]]]:
    """Train (unless ``train`` is false) and measure every seed of every game, printing each
    gap; returns the rows of the games with a measured seed, and game -> its unfinished
    seeds."""
    deadline = None if max_minutes is None else time.monotonic() + 60 * max_minutes
    rows: dict[str, list[dict]] = {}
    unfinished: dict[str, list[int]] = {}
    for game in games:
        rows[game] = []
        for seed in seeds:
            model = final_model(game, seed, len(stages[game]), run_root)
            left = None if deadline is None else (deadline - time.monotonic()) / 60
            if not model.exists() and train and (left is None or left > 0):
                run_stages(game, stages[game], run_root, seed=seed, max_minutes=left,
                           threads=threads)
            if not model.exists():
                unfinished.setdefault(game, []).append(seed)
                continue
            r = measure_seed(game, seed, model, eval_games)
            print(f"{game} seed {seed}: gap {r['gap']:.5g} [{r['ci'][0]:.5g}, {r['ci'][1]:.5g}]"
                  f" {r['unit']}", flush=True)
            rows[game].append(r)
    return {g: rs for g, rs in rows.items() if rs}, unfinished


def export_median(game: str, rows: list[dict], n_stages: int, run_root: Path,
                  models: Path) -> Path:
    """Copy the median seed's model and learning curve to ``models/GAME.zip`` and
    ``GAME.eval.csv`` (atomically); returns the model's path."""
    seed = median_row(rows)["seed"]
    model = final_model(game, seed, n_stages, run_root)
    target = Path(models) / f"{game}.zip"
    atomic_write_bytes(target, model.read_bytes())
    atomic_write_bytes(target.with_suffix(".eval.csv"), (model.parent / "eval.csv").read_bytes())
    print(f"{game}: committed the median seed {seed} ({target})")
    return target


def write_table(rows: dict[str, list[dict]], out: Path, command: str, eval_games: int,
                stages: dict[str, list[dict]]) -> Path:
    """Write ``out/ppo_recipe_seeds.md`` and ``.json``; returns the markdown's path."""
    atomic_write_text(out / "ppo_recipe_seeds.md",
                      ppo_recipe_markdown(rows, command, eval_games, stages))
    atomic_write_text(out / "ppo_recipe_seeds.json",
                      json.dumps(rows, indent=1, default=float) + "\n")
    return out / "ppo_recipe_seeds.md"
