#!/usr/bin/env python
"""Train a MaskablePPO agent on a game's batched env; stop any time and ``--resume``.

Hyperparameters come from ``agents/ppo_configs/<GAME>.json`` (committed).  A run lives in
``--run-dir`` (default ``runs/<GAME>-seed<SEED>``): ``checkpoint.pkl`` (the whole training
state, written atomically between PPO updates), ``eval.csv`` (the learning curve: the policy
evaluated on fixed games), ``logs/`` (SB3's CSV and TensorBoard logs) and ``final.zip``.
``--resume`` continues exactly where the last checkpoint left off -- the same numbers as an
uninterrupted run.  ``--export PATH`` copies the final model (e.g. to
``results/models/<GAME>.zip``, where ``agents.make("ppo", GAME)`` finds it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from agents.training import (
    apply_overrides,
    load_checkpoint,
    load_config,
    make_callback,
    make_training_env,
    save_checkpoint,
)
from dice_env.io import atomic_write_bytes


def build_model(config: dict, seed: int, device: str):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import LinearSchedule

    env = make_training_env(config, seed)
    ppo = dict(config["ppo"])
    if ppo.pop("learning_rate_schedule", "constant") == "linear":  # decays to 0 at the end
        ppo["learning_rate"] = LinearSchedule(ppo["learning_rate"], 0.0, 1.0)
    return MaskablePPO("MlpPolicy", env, seed=seed, device=device, verbose=0,
                       policy_kwargs=config.get("policy_kwargs"), **ppo)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="penta, dice-poker or fivethousand (a config name)")
    parser.add_argument("--config", type=Path, default=None, help="config file to use instead")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timesteps", type=int, default=None,
                        help="total timesteps of the run (default: the config's)")
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

    import torch
    from stable_baselines3.common.logger import configure

    if args.threads:
        torch.set_num_threads(args.threads)
    config = load_config(args.game, args.config)
    try:
        config = apply_overrides(config, args.set)
    except ValueError as err:
        parser.error(str(err))
    total = args.timesteps or config["total_timesteps"]
    run_dir = args.run_dir or Path("runs") / f"{args.game}-seed{args.seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    if args.resume:
        model, extra = load_checkpoint(run_dir, device=args.device)
        if extra.get("seed") != args.seed or extra.get("game") != args.game:
            sys.exit(f"the checkpoint in {run_dir} is for game {extra.get('game')!r} seed "
                     f"{extra.get('seed')}; pass the same game and --seed")
        config = extra.get("config", config)
        print(f"resuming {run_dir} at {model.num_timesteps:,} timesteps")
    else:
        if (run_dir / "checkpoint.pkl").exists():
            sys.exit(f"{run_dir} already holds a run: pass --resume to continue it, or choose "
                     "another --run-dir")
        model = build_model(config, args.seed, args.device)
        if args.init_from:
            from sb3_contrib import MaskablePPO

            model.policy.load_state_dict(
                MaskablePPO.load(args.init_from, device=args.device).policy.state_dict())
        extra = {"game": args.game, "seed": args.seed, "config": config,
                 "init_from": str(args.init_from) if args.init_from else None}
    segment = len(list((run_dir / "logs").glob("segment-*"))) if (run_dir / "logs").exists() \
        else 0
    model.set_logger(configure(str(run_dir / "logs" / f"segment-{segment}"),
                               ["csv", "tensorboard"]))
    deadline = time.monotonic() + 60 * args.max_minutes if args.max_minutes else None
    callback = make_callback(run_dir, config, extra, deadline)
    remaining = total - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=False,
                    progress_bar=not args.no_progress)
        if callback.stopped_at_deadline:
            # the checkpoint was written at the last update; the partial rollout after it
            # is dropped, so load it back before exporting
            model, extra = load_checkpoint(run_dir, device=args.device)
        else:
            callback.evaluate()
            save_checkpoint(run_dir, model, extra)
    final = run_dir / "final.zip"
    import io

    buf = io.BytesIO()
    model.save(buf)
    atomic_write_bytes(final, buf.getvalue())
    if args.export:  # the model and its learning curve, side by side
        atomic_write_bytes(args.export, final.read_bytes())
        curve = run_dir / "eval.csv"
        if curve.exists():
            atomic_write_bytes(args.export.with_suffix(".eval.csv"), curve.read_bytes())
    summary = {"game": args.game, "seed": args.seed, "timesteps": model.num_timesteps,
               "last_eval": extra["history"][-1] if extra.get("history") else None,
               "run_dir": str(run_dir)}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
