"""Learned-value agents across training seeds: train, measure, copy the median seed.

For each game, the runs ``<runs>/learned-value-<GAME>-seed<S>/model.pt`` (trained with the
trainer's defaults and :data:`TRAIN_OPTIONS`, as ``dice-env train learned-value GAME --seed S``
trains them, unless told not to train and the run exists) are measured by their exact gap to
the optimum (:func:`~agents.training.studies.measure.measure_agent`; 5000 with twice as many
games).  :func:`export_median` copies the **median** seed's model (never the best) with its
learning curve.  The table is written by
:func:`agents.evaluation.reports.seeds.learned_value_markdown`.
"""

from __future__ import annotations

import json
from pathlib import Path

from agents.evaluation.reports.seeds import learned_value_markdown, median_seed
from agents.games import resolve
from agents.training.studies.measure import measure_agent
from dice_env.io import atomic_write_bytes, atomic_write_text

__all__ = ["GAMES", "MODEL_SUFFIXES", "TRAIN_OPTIONS", "export_median", "measure",
           "run_dir", "run_seeds", "train_seconds", "train_seed", "write_table"]

GAMES = ["penta", "dice-poker", "fivethousand"]
#: the training options of the committed models: fields of the trainer's ``TrainConfig`` over
#: its defaults (none: they are trained as ``dice-env train learned-value GAME`` trains)
TRAIN_OPTIONS: dict[str, dict] = {"penta": {}, "dice-poker": {}, "fivethousand": {}}
#: the files of a trained model: the network and its learning curve
MODEL_SUFFIXES = (".pt", ".curve.json", ".curve.csv")
#: the time budget of ``dice-env train learned-value`` (minutes)
MINUTES = 10.0


def run_dir(game: str, seed: int, runs: Path = Path("runs")) -> Path:
    """``runs/learned-value-<game>-seed<seed>`` (what ``train-learned-value`` writes)."""
    return Path(runs) / f"learned-value-{game}-seed{seed}"


def train_seed(game: str, seed: int, folder: Path) -> Path:
    """Train seed ``seed`` of ``game`` with :data:`TRAIN_OPTIONS` into ``folder/model.pt`` (and
    its curve); returns the model's path."""
    g = resolve(game)
    return g.family.hook("train_learned_value")(g, seed, MINUTES, folder,
                                                **TRAIN_OPTIONS.get(game, {}))


def measure(game: str, model: Path, games: int) -> dict:
    """The exact gap of one trained model."""
    from agents.registry import make

    return measure_agent(make("learned-value", game, model_path=model), game, games)


def train_seconds(model: Path) -> float | None:
    """The training wall-clock of a model, from its learning curve (None without one)."""
    curve = model.with_suffix("").with_name(model.stem + ".curve.json")
    if not curve.exists():
        return None
    data = json.loads(curve.read_text())
    if "seconds" in data:
        return float(data["seconds"])
    rows = data.get("curve", [])
    return float(rows[-1]["seconds"]) if rows else None


def run_seeds(games: list[str], seeds: list[int], eval_games: int, train: bool = True,
              runs: Path = Path("runs")) -> dict[str, list[dict]]:
    """Train (the missing runs, unless ``train`` is false) and measure every seed of every
    game, printing each gap; returns the rows of the games with a measured seed."""
    rows: dict[str, list[dict]] = {}
    for game in games:
        rows[game] = []
        for seed in seeds:
            model = run_dir(game, seed, runs) / "model.pt"
            if not model.exists():
                if not train:
                    print(f"no run {model}; skipping (train it or drop --no-train)")
                    continue
                train_seed(game, seed, model.parent)
            n = eval_games * resolve(game).family.seats_per_seed
            r = {"seed": seed, **measure(game, model, n), "seconds": train_seconds(model)}
            print(f"{game} seed {seed}: gap {r['gap']:.5g} [{r['ci'][0]:.5g}, {r['ci'][1]:.5g}]"
                  f" {r['unit']}", flush=True)
            rows[game].append(r)
    return {g: rs for g, rs in rows.items() if rs}


def export_median(game: str, rows: list[dict], models: Path, runs: Path = Path("runs")) -> int:
    """Copy the median seed's model and curves to ``models/learned-value-<game>.*``
    (atomically); returns the seed."""
    seed = median_seed(rows)
    source = run_dir(game, seed, runs)
    for suffix in MODEL_SUFFIXES:
        atomic_write_bytes(Path(models) / f"learned-value-{game}{suffix}",
                           (source / f"model{suffix}").read_bytes())
    print(f"{game}: committed the median seed {seed} ({models})")
    return seed


def write_table(rows: dict[str, list[dict]], out: Path, command: str, eval_games: int) -> Path:
    """Write ``out/learned_value.md`` and ``.json``; returns the markdown's path."""
    options = {g: [f"{k}={json.dumps(v)}" for k, v in o.items()]
               for g, o in TRAIN_OPTIONS.items()}
    atomic_write_text(out / "learned_value.md",
                      learned_value_markdown(rows, command, eval_games, options))
    atomic_write_text(out / "learned_value.json", json.dumps(rows, indent=1) + "\n")
    return out / "learned_value.md"
