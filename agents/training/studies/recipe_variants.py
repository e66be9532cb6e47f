"""Variants of the committed PPO recipe, each trained through every stage and measured by exact gap.

A variant (``agents/training/ppo/variants.json``) is a game's recipe (its stages,
:mod:`agents.training.ppo.stages`) with ``--set`` overrides joined to every stage and, with
``steps_scale``, every stage ending at that fraction of its total: the purest model-free
policy (the kept dice without the one-reroll features), or the faster trainer on fewer steps.
Each trains from training seed 0 (or its ``seed``) in ``<run_root>/<variant>`` (hours; a time
budget stops it with a checkpoint, the same call resumes it) and its final model is measured
exactly as a recipe seed is (:func:`~agents.training.studies.ppo_recipe.measure_seed`): the
exact gap on the selection games and on the report games, cached next to the model.  The table
puts each beside the recipe's own seeds (``ppo_recipe_seeds.json``) with the training time, in
wall-clock and in CPU seconds of its one core.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from agents.evaluation.reports.recipe_variants import recipe_variants_markdown
from agents.training.ppo.stages import run_stages, scaled, stage_steps, with_settings
from agents.training.studies.ppo_recipe import (
    curve_rows,
    eval_count,
    final_model,
    measure_seed,
)
from dice_env.io import atomic_write_text

__all__ = ["TABLE", "VARIANT_KEYS", "earlier_rows", "load_variants",
           "measure_variant", "run_variants", "variant_stages", "variants_file", "write_table"]

#: the table's file name, without its suffix (``.md`` and ``.json``)
TABLE = "recipe_variants"
#: what a variant may hold
VARIANT_KEYS = {"change", "set", "steps_scale", "seed", "against"}


def variants_file() -> Path:
    """The committed variants: ``agents/training/ppo/variants.json`` (package data)."""
    return Path(str(resources.files("agents.training.ppo").joinpath("variants.json")))


def load_variants(path: Path | None = None) -> dict[str, dict[str, dict]]:
    """game -> variant name -> its definition (``change``; ``set``, ``steps_scale``, the
    training ``seed``, default 0, and ``against``: the variants whose runs are the seeds of the
    recipe it was measured against, when that is not the committed one), checked:
    ``ValueError`` naming the file and the variant for a malformed one."""
    path = Path(path) if path is not None else variants_file()
    data = json.loads(path.read_text())
    games = {g: v for g, v in data.items() if not g.startswith("_")}
    for game, variants in games.items():
        for name, variant in variants.items():
            unknown = sorted(set(variant) - VARIANT_KEYS)
            scale = variant.get("steps_scale", 1)
            seed = variant.get("seed", 0)
            against = variant.get("against", [])
            if (unknown or not isinstance(variant.get("change"), str)
                    or not isinstance(against, list)
                    or any(a not in variants or a == name for a in against)
                    or not isinstance(variant.get("set", {}), dict)
                    or not isinstance(scale, (int, float)) or scale <= 0
                    or not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
                raise ValueError(f"{path}: {game} variant {name!r} needs a 'change' text and "
                                 "at most a 'set' object, a positive 'steps_scale', a "
                                 "training 'seed' from 0 and 'against', a list of other "
                                 f"variants of {game} (unknown keys: {unknown})")
    return games


def variant_stages(stages: list[dict], variant: Mapping) -> list[dict]:
    """The recipe's ``stages`` as the ``variant`` trains them."""
    out = with_settings(stages, variant.get("set", {}))
    return scaled(out, variant["steps_scale"]) if "steps_scale" in variant else out


def measure_variant(game: str, name: str, variant: Mapping, model: Path,
                    eval_games: int) -> dict:
    """The variant's row: the recipe seed's measurement of its final ``model``
    (:func:`measure_seed`: ``gap``/``ci`` on the selection games, ``report``, ``timesteps``,
    ``train_seconds``) with its name, change, overrides, steps scale, training CPU seconds and
    ``bonus_giveaway``, the bonus probe's answer
    (:func:`~agents.evaluation.scorecard_probes.bonus_giveaway`; None where no bonus is paid)."""
    from agents.evaluation.scorecard_probes import bonus_giveaway
    from agents.policies.sb3_models import SB3Agent

    row = measure_seed(game, variant.get("seed", 0), model, eval_games)
    cpu = curve_rows(model.parent / "eval.csv")[-1].get("train_cpu_seconds")
    probe = bonus_giveaway(SB3Agent(game, model_path=model), game)
    return {"variant": name, **described(variant), "set": variant.get("set", {}),
            "steps_scale": variant.get("steps_scale", 1), **row,
            "train_cpu_seconds": float(cpu) if cpu not in (None, "") else None,
            "bonus_giveaway": None if probe is None else probe.rate}


def described(variant: Mapping) -> dict:
    """What a row says of its variant besides its numbers: its ``change`` and the variants it
    is read ``against`` (taken from ``variants.json`` again for an earlier row)."""
    return {"change": variant["change"], "against": list(variant.get("against", []))}


def earlier_rows(table: Path, game: str, variants: Mapping[str, Mapping],
                 stages: list[dict], eval_games: int) -> dict[str, dict]:
    """The rows of ``game`` an earlier run wrote into ``table`` (a ``recipe_variants.json``),
    variant -> row, keeping only those measured as this run would measure them: the same
    overrides and steps scale, the variant's last stage's steps, as many games (its change and
    ``against`` read again from ``variants``)."""
    try:
        rows = json.loads(Path(table).read_text()).get(game, [])
    except (OSError, ValueError, AttributeError):
        return {}
    out = {}
    for row in rows if isinstance(rows, list) else []:
        variant = variants.get(row.get("variant"))
        if (variant is not None and row.get("set") == variant.get("set", {})
                and row.get("steps_scale") == variant.get("steps_scale", 1)
                and row.get("seed", 0) == variant.get("seed", 0)
                and row.get("eval_games") == eval_count(game, eval_games)
                and row.get("timesteps") == stage_steps(game, variant_stages(stages, variant)[-1])):
            out[row["variant"]] = {**row, **described(variant)}
    return out


def run_variants(game: str, names: list[str], variants: Mapping[str, Mapping],
                 stages: list[dict], run_root: Path, eval_games: int, train: bool = True,
                 max_minutes: float | None = None, threads: int = 1,
                 earlier: Mapping[str, dict] | None = None) -> tuple[list[dict], list[str]]:
    """Train (unless ``train`` is false) and measure each variant ``names`` of ``game``;
    returns the measured rows and the names of the unfinished variants.  A variant whose
    final model is missing keeps its row of ``earlier`` (:func:`earlier_rows`: measured as this
    run would measure it, its run folder gone) if it has one, and is not trained again: a
    full run trains only the variants it has no row of."""
    deadline = None if max_minutes is None else time.monotonic() + 60 * max_minutes
    rows, unfinished = [], []
    for name in names:
        variant = variants[name]
        its_stages = variant_stages(stages, variant)
        root = Path(run_root) / name
        seed = variant.get("seed", 0)
        model = final_model(game, seed, len(its_stages), root)
        left = None if deadline is None else (deadline - time.monotonic()) / 60
        if (not model.exists() and name not in (earlier or {}) and train
                and (left is None or left > 0)):
            print(f"== {name}: {variant['change']}", flush=True)
            run_stages(game, its_stages, root, seed=seed, max_minutes=left, threads=threads)
        if not model.exists():
            if name in (earlier or {}):
                rows.append(dict(earlier[name]))
            else:
                unfinished.append(name)
            continue
        row = measure_variant(game, name, variant, model, eval_games)
        print(f"{game} {name}: gap {row['gap']:.2f} [{row['ci'][0]:.2f}, {row['ci'][1]:.2f}] "
              f"on the selection games, {row['report']['gap']:.2f} on the report games "
              f"({row['timesteps']:,} steps)", flush=True)
        rows.append(row)
    return rows, unfinished


def write_table(game: str, rows: list[dict], recipe: list[dict], out: Path, command: str,
                eval_games: int, stages: list[dict]) -> Path:
    """Write ``out/recipe_variants.md`` and ``.json`` (``{game: rows}``, keeping other games'
    rows of an earlier table there); ``recipe``: the recipe's seed rows
    (``ppo_recipe_seeds.json``); returns the markdown's path."""
    path = out / f"{TABLE}.json"
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    table[game] = rows
    atomic_write_text(out / f"{TABLE}.md",
                      recipe_variants_markdown(game, rows, recipe, command, eval_games, stages))
    atomic_write_text(path, json.dumps(table, indent=1, default=float) + "\n")
    return out / f"{TABLE}.md"
