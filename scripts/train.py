#!/usr/bin/env python
"""Train a MaskablePPO agent on a game's batched env; stop any time and ``--resume``.

Hyperparameters come from ``agents/training/ppo/configs/<GAME>.json`` (committed).  A run lives in
``--run-dir`` (default ``runs/<GAME>-seed<SEED>``): ``checkpoint.pkl`` (the whole training
state, written atomically between PPO updates), ``eval.csv`` (the learning curve: the policy
evaluated on fixed games), ``logs/`` (SB3's CSV and TensorBoard logs) and, once the run reaches
its total, ``final.zip`` (a stopped run has none: its latest weights are in the checkpoint, which
``agents.load(RUN_DIR, GAME)`` plays).
Both trainers write the logs, a new ``logs/segment-<n>/`` for each session (the start and every
``--resume``), so no session overwrites another's.
``--resume`` continues exactly where the last checkpoint left off -- the same numbers as an
uninterrupted run -- toward the total the run was started with (unless ``--timesteps`` says
otherwise; a run already at or past that total has nothing to train: it says so, ends there
with its final model -- and ``--export`` -- and exits 0).  Ctrl-C or SIGTERM finishes the
current rollout and update, writes the checkpoint, prints the command that resumes (runnable
from the current directory), and exits 0 (a second Ctrl-C aborts at once, exit status 130,
saying what the last checkpoint is or that there is none yet).  Training runs in whole rollouts
(``num_envs x n_steps`` steps), so a total is rounded up to the next whole rollout.
``--export PATH`` copies the final model of a finished run (e.g. to
``results/models/<GAME>.zip``, where ``agents.make("ppo", GAME)`` finds it).

The config's ``"trainer"`` picks the implementation: ``"sb3"`` (default; sb3-contrib's
MaskablePPO) or ``"lean"`` (:mod:`agents.training.ppo.lean`: the same algorithm and network,
faster).  Its ``"policy"`` picks the network: ``"mlp"`` (default; SB3's ``MlpPolicy``) or
``"structured"`` (:mod:`agents.policies.structured`: shared action heads over per-action
features; the scorecard games' hold and box heads in the configs ``penta-structured`` and
``dice-poker-structured``, 5000's bank-or-roll head in ``fivethousand-structured``, e.g.
``python scripts/train.py penta-structured``), with its options
in ``policy_kwargs`` (``--set policy_kwargs.action_hidden=[64]``).  Either exports a
MaskablePPO ``.zip`` that ``agents.load`` plays.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
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
    open_run_logger,
    read_checkpoint,
    record_evaluation,
    rollout_size,
    save_checkpoint,
    whole_rollouts,
    write_final_model,
)
from dice_env.io import atomic_write_bytes

SCRIPT = Path(__file__).resolve()


def shown_path(path: Path | str, cwd: Path | None = None) -> str:
    """``path`` as the user reaches it from ``cwd`` (default: the current directory): a
    relative path as given (it is relative to ``cwd`` already), an absolute one relative to
    ``cwd`` when inside it, else absolute."""
    path = Path(path)
    if not path.is_absolute():
        return str(path)
    base = Path(os.path.realpath(cwd if cwd is not None else Path.cwd()))
    for candidate in (path, Path(os.path.realpath(path))):
        try:
            return str(candidate.relative_to(base))
        except ValueError:
            continue
    return str(path)


def command(args: list, cwd: Path | None = None) -> str:
    """The shell command running this script with ``args`` from ``cwd``."""
    return shlex.join(["python", shown_path(SCRIPT, cwd), *map(str, args)])


def _finish_sb3(model, run_dir: Path, config: dict, extra: dict) -> None:
    """End an SB3 run where it is (nothing left to train): evaluate it there unless its
    learning curve ends there already, and checkpoint (as the end of a finished run)."""
    record_evaluation(run_dir, config, extra, model.num_timesteps, lambda: model)
    save_checkpoint(run_dir, model, extra)


def _train_sb3(model, run_dir: Path, config: dict, extra: dict, total: int,
               should_stop, args: argparse.Namespace):
    """Train with SB3's MaskablePPO.learn; returns ``(model, stopped)`` at the last checkpoint."""
    remaining = total - model.num_timesteps
    if remaining <= 0:
        _finish_sb3(model, run_dir, config, extra)
        return model, False
    model.set_logger(open_run_logger(run_dir))
    callback = make_callback(run_dir, config, extra, should_stop=should_stop)
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
    argv = sys.argv[1:] if argv is None else list(argv)
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
        started_total = extra.get("total_timesteps")
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

    if args.threads:  # (numba's threads, started later, would undo a plain set_num_threads)
        from agents.training.threads import set_torch_threads

        set_torch_threads(args.threads)
    try:
        if args.resume:
            if lean:
                run = LeanRun.resume(run_dir)
                extra = run.extra
            else:
                model, extra = load_checkpoint(run_dir, device=args.device)
            done = run.num_timesteps if lean else model.num_timesteps
            if done < total:
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
    final = run_dir / FINAL_NAME
    if args.resume and done >= total:  # nothing to train: the run ends where it is
        if started_total is None:  # (a checkpoint from before totals were kept)
            started_total = whole_rollouts(config, config["total_timesteps"])
        if args.timesteps is not None:
            note = (f"the run is already at {done:,} timesteps, which is at least --timesteps "
                    f"{args.timesteps:,}: nothing to train; pass a larger --timesteps to "
                    f"continue (the run's total was {started_total:,})")
            if started_total > done:
                note += f"; it ends here, its final model in {shown_path(final)}"
        else:
            note = (f"the run is already at {done:,} timesteps, its total: nothing to train; "
                    "pass a larger --timesteps to continue")
        print(note, file=sys.stderr, flush=True)
        total = done
    extra["total_timesteps"] = total
    # Only a finished run has a final model (scripts/train_stages.py relies on it): one left
    # from a shorter total would be stale once training goes on, finished or not.
    final.unlink(missing_ok=True)
    resume_args = [args.game, "--seed", args.seed, "--run-dir", shown_path(run_dir), "--resume"]
    if args.export:
        resume_args += ["--export", shown_path(args.export)]
    resume = command(resume_args)
    stop = StopRequest(max_minutes=args.max_minutes, run_dir=run_dir, resume_command=resume,
                       start_command=None if args.resume else command(argv))
    with stop.installed():
        if lean:
            training = run.num_timesteps < total
            stopped = run.run(total, stop, progress=training and not args.no_progress,
                              logger=open_run_logger(run_dir) if training else None)
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
        print(f"stopped ({stop.reason}) at {model.num_timesteps:,} of {total:,} timesteps; the "
              f"checkpoint is in {shown_path(run_dir)}; continue with: {resume}", file=sys.stderr)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
