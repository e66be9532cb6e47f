#!/usr/bin/env python
"""Retrain a committed PPO model stage by stage, as it was trained.

The stages of each game are in ``agents/training/ppo/stages.json``: stage ``i`` runs
``scripts/train.py GAME --seed 0 --run-dir RUN_ROOT/GAME-stage<i> --timesteps T_i`` with that
stage's ``--set`` overrides, starting (``--init-from``) from stage ``i-1``'s final model.  A
stage whose ``final.zip`` exists is skipped, one with a checkpoint is resumed, so the script
continues across sessions (``--max-minutes`` stops it with a checkpoint).  The last stage is
exported to ``results/models/GAME.zip`` with its learning curve only with ``--export``.

``--seed S`` trains the same recipe from another seed (run folders ``GAME-seed<S>-stage<i>``);
the committed model of each game is the median of seeds 0-2 (``scripts/ppo_recipe_seeds.py
--export`` measures them and copies it).  ``--dry-run`` prints the ``scripts/train.py``
commands instead of running them.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
STAGES = ROOT / "agents" / "training" / "ppo" / "stages.json"


def load_stages(path: Path = STAGES) -> dict[str, list[dict]]:
    """game -> its stages (``timesteps``; optional ``set`` overrides and ``config`` file),
    checked."""
    data = {k: v for k, v in json.loads(path.read_text()).items() if not k.startswith("_")}
    for game, stages in data.items():
        last = 0
        for i, stage in enumerate(stages, 1):
            unknown = sorted(set(stage) - {"timesteps", "set", "config"})
            if unknown or not isinstance(stage.get("timesteps"), int):
                raise ValueError(f"{path}: {game} stage {i} needs an integer 'timesteps' and "
                                 f"at most 'set' and 'config' (unknown keys: {unknown})")
            if "config" in stage and not (ROOT / stage["config"]).is_file():
                raise ValueError(f"{path}: {game} stage {i} names the config "
                                 f"{stage['config']}, which is no file under {ROOT}")
            if stage["timesteps"] <= last:
                raise ValueError(f"{path}: {game} stage {i} ends at {stage['timesteps']:,} "
                                 f"steps, not after the stage before it ({last:,})")
            last = stage["timesteps"]
    return data


def stage_dir(run_root: Path, game: str, i: int, seed: int = 0) -> Path:
    """The run folder of stage ``i`` (1-based) of training seed ``seed``."""
    return run_root / (f"{game}-stage{i}" if seed == 0 else f"{game}-seed{seed}-stage{i}")


def stage_args(game: str, stages: list[dict], i: int, run_root: Path,
               export: Path | None = None, seed: int = 0) -> list[str]:
    """The ``scripts/train.py`` arguments of stage ``i`` (1-based) of training seed ``seed``."""
    stage = stages[i - 1]
    args = [game, "--seed", str(seed), "--run-dir", str(stage_dir(run_root, game, i, seed)),
            "--timesteps", str(stage["timesteps"])]
    if i > 1:
        args += ["--init-from", str(stage_dir(run_root, game, i - 1, seed) / "final.zip")]
    if "config" in stage:  # relative to the repository root, wherever the script runs from
        from train import shown_path

        args += ["--config", shown_path(ROOT / stage["config"])]
    for key, value in stage.get("set", {}).items():
        args += ["--set", f"{key}={json.dumps(value)}"]
    if export is not None and i == len(stages):
        args += ["--export", str(export)]
    return args


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("game", help="a game with stages in agents/training/ppo/stages.json")
    parser.add_argument("--run-root", type=Path, default=Path("runs") / "stages",
                        help="where the stages' run folders go (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="training seed (default 0); scripts/ppo_recipe_seeds.py measures "
                             "seeds 0-2 and commits the median")
    parser.add_argument("--export", action="store_true",
                        help="copy the last stage's model to results/models/GAME.zip")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop (with a checkpoint) after this long; run again to continue")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--dry-run", action="store_true", help="only print the commands")
    parser.add_argument("--stages", type=Path, default=STAGES, help=argparse.SUPPRESS)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be at least 0, got {args.seed}")
    try:
        all_stages = load_stages(args.stages)
    except (OSError, ValueError) as err:  # JSONDecodeError is a ValueError
        parser.error(str(err))
    if args.game not in all_stages:
        parser.error(f"no stages for {args.game!r}; known: {sorted(all_stages)}")
    stages = all_stages[args.game]
    export = ROOT / "results" / "models" / f"{args.game}.zip" if args.export else None
    deadline = time.monotonic() + 60 * args.max_minutes if args.max_minutes else None
    import train  # (its command() shows scripts/train.py as reachable from here)

    again = shlex.join(["python", train.shown_path(Path(__file__).resolve()), *argv])
    summaries = []
    for i in range(1, len(stages) + 1):
        train_args = stage_args(args.game, stages, i, args.run_root, export, args.seed)
        if args.dry_run:
            print(train.command(train_args))
            continue
        run_dir = stage_dir(args.run_root, args.game, i, args.seed)
        last = i == len(stages)
        if (run_dir / "final.zip").exists() and not (export and last):
            print(f"stage {i}: done ({run_dir / 'final.zip'})", flush=True)
            continue
        if (run_dir / "checkpoint.pkl").exists():  # it keeps the settings it started with
            train_args = [args.game, "--seed", str(args.seed), "--run-dir", str(run_dir),
                          "--resume", "--timesteps",
                          str(stages[i - 1]["timesteps"])]
            if export and last:
                train_args += ["--export", str(export)]
        left = None if deadline is None else (deadline - time.monotonic()) / 60
        if left is not None and left <= 0:
            print(f"stopped before stage {i} (--max-minutes); run again to continue: {again}")
            break
        extra = ["--no-progress", "--threads", str(args.threads)]
        if left is not None:
            extra += ["--max-minutes", f"{left:.6g}"]  # never rounded down to 0
        print(f"stage {i}: {train.command(train_args)}", flush=True)
        summary = train.main(train_args + extra)
        summaries.append(summary)
        if summary["stopped"]:
            print(f"stage {i} stopped at {summary['timesteps']:,} steps; run again to "
                  f"continue: {again}")
            break
    return summaries


if __name__ == "__main__":
    main()
