#!/usr/bin/env python
"""Train a MaskablePPO agent on a game's batched env; stop any time and ``--resume``.

Hyperparameters come from ``agents/training/ppo/configs/<GAME>.json`` (committed).  A run lives in
``--run-dir`` (default ``runs/<GAME>-seed<SEED>``): ``checkpoint.pkl`` (the whole training
state, written atomically between PPO updates), ``eval.csv`` (the learning curve: the policy
evaluated on fixed games), ``logs/`` (SB3's CSV and TensorBoard logs) and, once the run reaches
its total, ``final.zip`` (a stopped run has none: its latest weights are in the checkpoint, which
``agents.load(RUN_DIR, GAME)`` plays).
``--resume`` continues exactly where the last checkpoint left off -- the same numbers as an
uninterrupted run -- toward the total the run was started with (unless ``--timesteps`` says
otherwise).  Ctrl-C or SIGTERM finishes the current rollout and update, writes the checkpoint,
prints the command that resumes, and exits 0 (a second Ctrl-C aborts at once; the last
checkpoint stays intact).  Training runs in whole rollouts (``num_envs x n_steps`` steps), so a
total is rounded up to the next whole rollout.  ``--export PATH`` copies the final model of a
finished run (e.g. to ``results/models/<GAME>.zip``, where ``agents.make("ppo", GAME)`` finds
it).

The config's ``"trainer"`` picks the implementation: ``"sb3"`` (default; sb3-contrib's
MaskablePPO) or ``"lean"`` (:mod:`agents.training.ppo.lean`: the same algorithm and network,
faster).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.training.ppo import (
    FINAL_NAME,
    LeanRun,
    StopRequest,
    apply_overrides,
    build_sb3_model,
    load_checkpoint,
    load_config,
    make_callback,
    read_checkpoint,
    rollout_size,
    save_checkpoint,
    whole_rollouts,
    write_final_model,
)
from dice_env.io import atomic_write_bytes


def _train_sb3(model, run_dir: Path, config: dict, extra: dict, total: int,
               should_stop, args: argparse.Namespace):
    """Train with SB3's MaskablePPO.learn; returns ``(model, stopped)`` at the last checkpoint."""
    from stable_baselines3.common.logger import configure

    segment = len(list((run_dir / "logs").glob("segment-*"))) if (run_dir / "logs").exists() \
        else 0
    model.set_logger(configure(str(run_dir / "logs" / f"segment-{segment}"),
                               ["csv", "tensorboard"]))
    callback = make_callback(run_dir, config, extra, should_stop=should_stop)
    remaining = total - model.num_timesteps
    if remaining <= 0:
        return model, False
    model.learn(remaining, callback=callback, reset_num_timesteps=False,
                progress_bar=not args.no_progress)
    if callback.stopped_at_deadline:
        # the checkpoint was written at the last update; the partial rollout after it
        # is dropped, so load it back before exporting
        model, _ = load_checkpoint(run_dir, device=args.device)
        return model, True
    callback.evaluate()
    save_checkpoint(run_dir, model, extra)
    return model, False


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="penta, dice-poker or fivethousand (a config name)")
    parser.add_argument("--config", type=Path, default=None, help="config file to use instead")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timesteps", type=int, default=None,
                        help="total timesteps of the run (default: the config's, or for "
                             "--resume the total the run was started with); rounded up to "
                             "whole rollouts")
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    parser.add_argument("--export", type=Path, default=None, help="copy the final model here")
    parser.add_argument("--init-from", type=Path, default=None,
                        help="start a new run from this model's weights (a curriculum stage)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop (with a checkpoint) after this long; --resume continues")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config entry, e.g. --set ppo.ent_coef=0.01 --set "
                             "shaping.upper_bonus=1 (VALUE is JSON; repeatable; a resumed run "
                             "keeps the settings it was started with)")
    args = parser.parse_args(argv)
    if args.timesteps is not None and args.timesteps < 1:
        parser.error("--timesteps must be positive")
    if args.threads is not None and args.threads < 1:
        parser.error("--threads must be positive")
    if args.max_minutes is not None and args.max_minutes <= 0:
        parser.error("--max-minutes must be positive")
    if args.init_from is not None and not args.init_from.is_file():
        parser.error(f"--init-from {args.init_from}: no such model file")
    try:
        config = apply_overrides(load_config(args.game, args.config), args.set)
    except ValueError as err:
        parser.error(str(err))
    run_dir = args.run_dir or Path("runs") / f"{args.game}-seed{args.seed}"
    if args.resume:
        try:
            state = read_checkpoint(run_dir)
        except ValueError as err:
            parser.error(str(err))
        extra = state.get("extra", {})
        if extra.get("seed") != args.seed or extra.get("game") != args.game:
            parser.error(f"the checkpoint in {run_dir} is for game {extra.get('game')!r} seed "
                         f"{extra.get('seed')}; pass the same game and --seed")
        config = extra.get("config", config)
    elif (run_dir / "checkpoint.pkl").exists():
        parser.error(f"{run_dir} already holds a run: pass --resume to continue it, or choose "
                     "another --run-dir")
    lean = config.get("trainer", "sb3") == "lean"
    requested = args.timesteps or (extra.get("total_timesteps") if args.resume else None) \
        or config["total_timesteps"]
    rollout = rollout_size(config)
    total = whole_rollouts(config, requested)
    if total != requested:
        print(f"training runs in whole rollouts of {rollout:,} steps: {requested:,} requested, "
              f"{total:,} to run")

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        if args.resume:
            if lean:
                run = LeanRun.resume(run_dir)
                extra = run.extra
            else:
                model, extra = load_checkpoint(run_dir, device=args.device)
            done = run.num_timesteps if lean else model.num_timesteps
            print(f"resuming {run_dir} at {done:,} timesteps, toward {total:,}")
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            extra = {"game": args.game, "seed": args.seed, "config": config,
                     "init_from": str(args.init_from) if args.init_from else None}
            if lean:
                run = LeanRun.start(run_dir, config, extra, args.seed, total,
                                    init_from=args.init_from)
            else:
                model = build_sb3_model(config, args.seed, args.device)
                if args.init_from:
                    from sb3_contrib import MaskablePPO

                    model.policy.load_state_dict(MaskablePPO.load(
                        args.init_from, device=args.device).policy.state_dict())
    except ValueError as err:
        parser.error(str(err))
    extra["total_timesteps"] = total
    final = run_dir / FINAL_NAME
    # Only a finished run has a final model (scripts/train_stages.py relies on it): one left
    # from a shorter total would be stale once training goes on, finished or not.
    final.unlink(missing_ok=True)
    stop = StopRequest(max_minutes=args.max_minutes)
    with stop.installed():
        if lean:
            stopped = run.run(total, stop, progress=not args.no_progress)
            model = run.sb3_model()
        else:
            model, stopped = _train_sb3(model, run_dir, config, extra, total, stop, args)
    if not stopped:
        write_final_model(run_dir, model)
        if args.export:  # the model and its learning curve, side by side
            atomic_write_bytes(args.export, final.read_bytes())
            curve = run_dir / "eval.csv"
            if curve.exists():
                atomic_write_bytes(args.export.with_suffix(".eval.csv"), curve.read_bytes())
    summary = {"game": args.game, "seed": args.seed, "timesteps": model.num_timesteps,
               "total_timesteps": total, "stopped": stop.reason if stopped else None,
               "last_eval": extra["history"][-1] if extra.get("history") else None,
               "run_dir": str(run_dir)}
    if stopped:
        resume = (f"python scripts/train.py {args.game} --seed {args.seed} --run-dir {run_dir} "
                  "--resume" + (f" --export {args.export}" if args.export else ""))
        print(f"stopped ({stop.reason}) at {model.num_timesteps:,} of {total:,} timesteps; the "
              f"checkpoint is in {run_dir}; continue with: {resume}", file=sys.stderr)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
