"""The stages the committed PPO models were trained in (``stages.json``), and running them.

Stage ``i`` of a game is a ``train`` run ``GAME --seed S --run-dir RUN_ROOT/GAME-stage<i>
--timesteps T_i`` with that stage's config and ``--set`` overrides, starting (``--init-from``)
from stage ``i-1``'s final model.  :func:`run_stages` skips a stage whose ``final.zip`` exists
and resumes one with a checkpoint, so a recipe continues across sessions.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from agents.training.ppo.checkpoints import CHECKPOINT_NAME, FINAL_NAME
from agents.training.ppo.config import (
    CONFIG_DIR,
    apply_overrides,
    load_config,
    override_args,
    parse_override,
    whole_rollouts,
)
from agents.training.ppo.runs import SnapshotHook
from agents.training.ppo.session import (
    TrainOptions,
    checked_config,
    default_command,
    options_args,
    shown_path,
    train,
)

__all__ = ["STAGE_KEYS", "check_stage_configs", "run_stages", "stage_args", "stage_config",
           "scaled", "stage_dir", "stage_options", "stage_steps", "stages_file", "load_stages",
           "with_overrides", "with_settings"]

#: the keys a stage may have
STAGE_KEYS = ("timesteps", "set", "config")


def stages_file(name: str = "stages.json") -> Path:
    """A committed stages file (package data of :mod:`agents.training.ppo`): the committed
    models' ``stages.json``, or another by ``name`` (the scaling study's)."""
    return Path(str(resources.files("agents.training.ppo").joinpath(name)))


def stage_config(value: str) -> Path:
    """The config file a stage names: a committed config by name (``penta-structured``: a file
    of ``agents/training/ppo/configs/``), else a path (relative to the working directory)."""
    if "/" not in value and "\\" not in value and not value.endswith(".json"):
        return CONFIG_DIR / f"{value}.json"
    return Path(value)


def load_stages(path: Path | None = None) -> dict[str, list[dict]]:
    """game -> its stages (``timesteps``; optional ``set`` overrides and ``config``), checked;
    from ``path`` (default: the committed :func:`stages_file`).  ``ValueError`` or ``OSError``
    for a file that is not one."""
    path = stages_file() if path is None else Path(path)
    data = {k: v for k, v in json.loads(path.read_text()).items() if not k.startswith("_")}
    for game, stages in data.items():
        last = 0
        for i, stage in enumerate(stages, 1):
            unknown = sorted(set(stage) - set(STAGE_KEYS))
            if unknown or not isinstance(stage.get("timesteps"), int):
                raise ValueError(f"{path}: {game} stage {i} needs an integer 'timesteps' and "
                                 f"at most 'set' and 'config' (unknown keys: {unknown})")
            if "config" in stage and not stage_config(stage["config"]).is_file():
                known = sorted(p.stem for p in CONFIG_DIR.glob("*.json"))
                raise ValueError(f"{path}: {game} stage {i} names the config "
                                 f"{stage['config']}, which is no file (committed configs: "
                                 f"{known})")
            if stage["timesteps"] <= last:
                raise ValueError(f"{path}: {game} stage {i} ends at {stage['timesteps']:,} "
                                 f"steps, not after the stage before it ({last:,})")
            last = stage["timesteps"]
    return data


def with_overrides(stages: list[dict], overrides: Sequence[str]) -> list[dict]:
    """``stages`` with the ``"key=value"`` ``overrides`` (``--set``'s syntax, ``value`` JSON or
    a string) joined to each stage's ``set``: a variant of the recipe (:func:`with_settings`).
    ``ValueError`` for an override that is not ``key=value``."""
    return with_settings(stages, dict(
        parse_override(item, "policy_kwargs.reroll_features=false") for item in overrides))


def with_settings(stages: list[dict], settings: Mapping[str, Any]) -> list[dict]:
    """``stages`` with ``settings`` (key -> value) joined to each stage's ``set``: a variant of
    the recipe, so its setting of a key wins over the stage's own (the change holds in every
    stage)."""
    return [{**stage, "set": {**stage.get("set", {}), **settings}} if settings else stage
            for stage in stages]


def stage_steps(game: str, stage: dict) -> int:
    """The steps a stage's run ends at: its total rounded up to whole rollouts of its config
    with its ``set`` overrides, as ``train`` rounds it."""
    config = load_config(game, stage_config(stage["config"]) if "config" in stage else None)
    return whole_rollouts(apply_overrides(config, override_args(stage.get("set", {}))),
                          stage["timesteps"])


def scaled(stages: list[dict], factor: float) -> list[dict]:
    """``stages`` each ending at ``factor`` times its total (a variant with fewer or more
    steps; ``train`` rounds each up to whole rollouts)."""
    return [{**stage, "timesteps": max(1, round(stage["timesteps"] * factor))}
            for stage in stages]


def check_stage_configs(game: str, stages: list[dict]) -> None:
    """``ValueError`` naming the stage when a stage's config with its ``set`` overrides cannot
    train (:func:`~agents.training.ppo.session.checked_config`): found before the first stage
    starts, not hours into the recipe."""
    for i, stage in enumerate(stages, 1):
        config = stage_config(stage["config"]) if "config" in stage else None
        try:
            checked_config(game, config, override_args(stage.get("set", {})))
        except ValueError as err:
            raise ValueError(f"{game} stage {i}: {err}") from None


def stage_dir(run_root: Path, game: str, i: int, seed: int = 0) -> Path:
    """The run folder of stage ``i`` (1-based) of training seed ``seed``."""
    return Path(run_root) / (f"{game}-stage{i}" if seed == 0 else f"{game}-seed{seed}-stage{i}")


def stage_options(game: str, stages: list[dict], i: int, run_root: Path,
                  export: Path | None = None, seed: int = 0) -> TrainOptions:
    """The ``train`` run of stage ``i`` (1-based) of training seed ``seed``, as a new run;
    ``export`` goes with the last stage."""
    stage = stages[i - 1]
    config = stage.get("config")
    return TrainOptions(
        game=game, seed=seed, run_dir=stage_dir(run_root, game, i, seed),
        timesteps=stage["timesteps"],
        init_from=stage_dir(run_root, game, i - 1, seed) / FINAL_NAME if i > 1 else None,
        config=Path(shown_path(stage_config(config))) if config else None,
        overrides=tuple(override_args(stage.get("set", {}))),
        export=export if i == len(stages) else None)


def stage_args(game: str, stages: list[dict], i: int, run_root: Path,
               export: Path | None = None, seed: int = 0) -> list[str]:
    """The ``train`` arguments of stage ``i`` (1-based) of training seed ``seed``."""
    return options_args(stage_options(game, stages, i, run_root, export, seed), runtime=False)


def run_stages(game: str, stages: list[dict], run_root: Path, seed: int = 0,
               export: Path | None = None, max_minutes: float | None = None,
               threads: int | None = 1, dry_run: bool = False,
               command: Callable[[Sequence[object]], str] = default_command,
               again: str | None = None, start: int = 1,
               on_snapshot: SnapshotHook | None = None) -> list[dict]:
    """Train a game's stages in order; returns the summaries of the runs trained now.

    A stage whose ``final.zip`` exists is done (unless it is the last and ``export`` asks for
    it again), one with a checkpoint resumes with the settings it started with; the stages
    before ``start`` are taken as done (their run folders may be gone: stage ``start`` resumes
    from its checkpoint, or starts from stage ``start - 1``'s ``final.zip``).  ``max_minutes``
    bounds the whole call (a stage stopped by it has a checkpoint).  ``command`` renders the
    ``train`` commands printed for each stage (with ``dry_run``, only printed); ``again`` is
    the command that continues this call, printed when it stops early.  ``on_snapshot`` is
    called with each snapshot a stage writes (config ``snapshots_at``;
    :func:`~agents.training.ppo.runs.take_snapshots`).
    """
    deadline = time.monotonic() + 60 * max_minutes if max_minutes else None
    summaries = []
    for i in range(max(start, 1), len(stages) + 1):
        options = stage_options(game, stages, i, run_root, export, seed)
        if dry_run:
            print(command(options_args(options, runtime=False)))
            continue
        run_dir, last = options.folder, i == len(stages)
        if (run_dir / FINAL_NAME).exists() and not (export and last):
            print(f"stage {i}: done ({run_dir / FINAL_NAME})", flush=True)
            continue
        if (run_dir / CHECKPOINT_NAME).exists():  # it keeps the settings it started with
            options = TrainOptions(game=game, seed=seed, run_dir=run_dir, resume=True,
                                   timesteps=stages[i - 1]["timesteps"],
                                   export=export if last else None)
        left = None if deadline is None else (deadline - time.monotonic()) / 60
        if left is not None and left <= 0:
            print(f"stopped before stage {i} (--max-minutes); run again to continue: {again}")
            break
        print(f"stage {i}: {command(options_args(options, runtime=False))}", flush=True)
        options = replace(options, progress=False, threads=threads,
                          max_minutes=left)  # (never rounded down to 0)
        summary = train(options, command, on_snapshot=on_snapshot)
        print(json.dumps(summary))
        summaries.append(summary)
        if summary["stopped"]:
            print(f"stage {i} stopped at {summary['timesteps']:,} steps; run again to "
                  f"continue: {again}")
            break
    return summaries
