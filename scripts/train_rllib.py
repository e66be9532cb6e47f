#!/usr/bin/env python
"""Train RLlib's PPO with action masking on a game's env, and time it against our lean trainer.

RLlib's new API stack (RLModule / Learner, ``SingleAgentEnvRunner``): the env is the game's
single Gymnasium env (``agents/training/ppo/configs/<GAME>.json``: ``env_id``, ``env_kwargs``, the
5000 ``opponent``), created with ``illegal_action="raise"`` -- an illegal action stops the run
with an error (RLlib is told not to restart failed envs or env runners) -- and wrapped in
:class:`dice_env.wrappers.DictMaskObservation`, so that its observation is ``{"observations":
..., "action_mask": ...}``; the config's ``reward_scale`` scales the rewards (returns are
reported in points).  The env is registered with
``ray.tune.registry.register_env`` as ``dice_env-rllib/<GAME>``.  The policy is RLlib's example
``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``),
which adds ``log(mask)`` to the logits, with the config's network (separate ``pi`` / ``vf``
MLPs, tanh) and PPO settings (learning rate, gamma, GAE lambda, clip range, entropy and value
coefficients, gradient-norm clip, epochs, minibatch size; no KL term and no value clipping, as
SB3).  The config's reward shaping is not applied.

Every iteration samples ``--train-batch`` env steps (default: the config's rollout, ``num_envs x
n_steps``) with ``--num-env-runners`` runners (0: in this process) of ``--envs-per-runner``
envs each, then updates.  At the end (scorecard games) the deterministic policy plays the
config's fixed evaluation games, as ``scripts/train.py`` evaluates; ``--lean-iterations``
iterations of our lean trainer (:mod:`agents.training.ppo.lean`, as ``scripts/bench_trainer.py``
times it) run in the same process for the steps/s comparison.  Writes ``rllib.md`` / ``.json`` /
``.csv`` (per iteration) and RLlib's checkpoint ``checkpoint/`` to ``--out`` (default
``runs/rllib/<GAME>``).  ``--address auto`` uses a running Ray cluster.

Example: ``python scripts/train_rllib.py penta --timesteps 200000``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _cli_args import at_least

from agents.training.ppo import apply_overrides, load_config, rollout_size
from dice_env.io import atomic_write_text

INSTALL_HINT = 'pip install -e ".[ray]"'


def make_env(env_config: dict) -> Any:
    """RLlib's env creator: the config's single env, masks in a ``Dict`` observation.

    ``env_config``: ``{"config": <training config>, "seed": int}`` (RLlib adds its own keys,
    such as ``worker_index``, used to vary the 5000 opponents' seeds).
    """
    import gymnasium as gym

    import agents
    import dice_env  # noqa: F401  (registers the env ids)
    from dice_env.wrappers import DictMaskObservation

    config = env_config["config"]
    kwargs = dict(config.get("env_kwargs", {}))
    if "opponent" in config:
        seed = int(env_config.get("seed", 0)) + 1000 * int(getattr(env_config, "worker_index", 0))
        opponent = agents.make(config["opponent"], "fivethousand", seed=seed)
        kwargs["opponents"] = [opponent] * (kwargs.get("num_players", 2) - 1)
    env = gym.make(config["env_id"], illegal_action="raise", **kwargs)
    scale = float(config.get("reward_scale", 1.0))
    if scale != 1.0:
        env = gym.wrappers.TransformReward(env, lambda r: r * scale)
    return DictMaskObservation(env, observation_key="observations", mask_key="action_mask")


def ppo_config(game: str, config: dict, args: argparse.Namespace) -> Any:
    """RLlib's ``PPOConfig`` for a training config (see the module doc for the mapping)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    if config.get("policy", "mlp") != "mlp":
        raise ValueError(f"RLlib trains its default MLP module, not the {config['policy']!r} "
                         "policy (scripts/train.py trains that one)")
    ppo = config["ppo"]
    net = (config.get("policy_kwargs") or {}).get("net_arch", {"pi": [64, 64], "vf": [64, 64]})
    if isinstance(net, list):
        net = {"pi": net, "vf": net}
    if net["pi"] != net["vf"]:
        raise ValueError(f"RLlib's default PPO module has one size for the pi and vf networks; "
                         f"the config has pi={net['pi']} vf={net['vf']}")
    train_batch = args.train_batch or rollout_size(config)
    return (
        PPOConfig()
        .environment(env=f"dice_env-rllib/{game}", env_config={"config": config,
                                                               "seed": args.seed})
        .env_runners(num_env_runners=args.num_env_runners,
                     num_envs_per_env_runner=args.envs_per_runner,
                     rollout_fragment_length="auto")
        # an env error (an illegal action above all) fails the run instead of being restarted
        .fault_tolerance(restart_failed_sub_environments=False,
                         restart_failed_env_runners=False, ignore_env_runner_failures=False)
        .learners(num_learners=0)
        .training(lr=ppo.get("learning_rate", 3e-4), gamma=ppo.get("gamma", 0.99),
                  lambda_=ppo.get("gae_lambda", 0.95), clip_param=ppo.get("clip_range", 0.2),
                  entropy_coeff=ppo.get("ent_coef", 0.0), vf_loss_coeff=ppo.get("vf_coef", 0.5),
                  grad_clip=ppo.get("max_grad_norm", 0.5), grad_clip_by="global_norm",
                  num_epochs=ppo.get("n_epochs", 10),
                  minibatch_size=min(ppo.get("batch_size", 64), train_batch),
                  train_batch_size_per_learner=train_batch,
                  use_kl_loss=False, vf_clip_param=float("inf"))
        .rl_module(rl_module_spec=RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": list(net["pi"]), "fcnet_activation": "tanh",
                          "vf_share_layers": False, "head_fcnet_hiddens": []}))
        .debugging(seed=args.seed)
    )


class RLlibPlayer:
    """The deterministic masked policy of an RLModule as an agent (``act_batch``) for
    :func:`agents.evaluation.play_scorecard_games`."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The most likely legal action of each row."""
        import torch
        from ray.rllib.core.columns import Columns

        batch = {Columns.OBS: {"observations": torch.as_tensor(observations,
                                                                dtype=torch.float32),
                               "action_mask": torch.as_tensor(masks, dtype=torch.float32)}}
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        return out[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()


def evaluate(module: Any, config: dict) -> dict | None:
    """Mean score of the deterministic policy on the config's fixed evaluation games (as
    ``scripts/train.py``); None for games other than the scorecard ones with plain
    observations."""
    if config.get("family", "scorecard") != "scorecard" or \
            "observation" in config.get("env_kwargs", {}):
        return None
    from agents.evaluation import play_scorecard_games

    ev = config["eval"]
    totals = play_scorecard_games(RLlibPlayer(module), config["env_id"], ev["games"],
                                  seed=ev["seed"])
    return {"games": int(ev["games"]), "seed": ev["seed"], "mean_score": float(totals.mean()),
            "sem": float(totals.std(ddof=1) / np.sqrt(len(totals)))}


def lean_rate(config: dict, iterations: int, seed: int) -> dict:
    """Steps/s of our lean trainer on the same config (``scripts/bench_trainer.py``'s
    measurement: a warm-up iteration, then ``iterations`` rollouts + updates)."""
    from bench_trainer import _lean_rate

    rate, share = _lean_rate(config, iterations, seed)
    return {"steps_per_s": rate, "rollout_share": share, "num_envs": config["num_envs"],
            "iterations": iterations}


def throughput(rows: list[dict]) -> dict:
    """RLlib's env steps/s over the iterations ``rows`` (``env_steps``: the total after each,
    ``seconds``): the iterations after the first, which builds and warms up; when only one
    ran, that one, warm-up included (``warmup_included``), as nothing else was timed."""
    timed = rows[1:] or rows
    before = rows[0]["env_steps"] if len(rows) > 1 else 0
    return {"steps_per_s": (rows[-1]["env_steps"] - before) / sum(r["seconds"] for r in timed),
            "timed_iterations": len(timed), "warmup_included": len(rows) == 1}


def to_markdown(summary: dict) -> str:
    """The run's report: RLlib's throughput beside ours, and the final evaluation."""
    r, lean = summary["rllib"], summary.get("lean")
    if r.get("warmup_included"):
        timing = ("Steps/s time the only iteration that ran (sampling + update), so they "
                  "include its warm-up (the one-time setup of the first sampling and update) "
                  "and understate RLlib's rate; with --timesteps of two iterations or more, "
                  "the iterations after the first are timed"
                  + ("; ours excludes its warm-up iteration." if lean else "."))
    else:
        timing = ("Steps/s count whole iterations (sampling + update) after the first"
                  + ("; both trainers ran in this process, one after the other, so their ratio "
                     "is fair on a shared machine even where the absolute rates are not."
                     if lean else "."))
    lines = ["# RLlib PPO with action masking", "", f"Generated by `{summary['command']}`.", "",
             f"Game **{summary['game']}**; Ray {summary['ray']}, gymnasium "
             f"{summary['gymnasium']}, torch {summary['torch']} ({summary['threads']} threads), "
             f"{summary['machine']}.  RLlib: {r['num_env_runners']} env runners (0: sampling in "
             f"the driver) x {r['envs_per_runner']} envs, {r['train_batch']:,} steps per "
             f"iteration.  {timing}", "",
             "| trainer | env steps | iterations | env steps/s | mean return (points) |",
             "|---|---:|---:|---:|---:|",
             f"| RLlib PPO (ActionMaskingTorchRLModule) | {r['env_steps']:,} | "
             f"{r['iterations']} | {r['steps_per_s']:,.0f} | {r['episode_return_mean']:.1f} |"]
    if lean:
        lines.append(f"| ours: lean PPO ({lean['num_envs']} batched envs) | "
                     f"{lean['steps']:,} | {lean['iterations']} | {lean['steps_per_s']:,.0f} | "
                     "– |")
        lines += ["", f"Ours / RLlib: **{lean['steps_per_s'] / r['steps_per_s']:.1f}×**."]
    ev = summary.get("eval")
    if ev:
        lines += ["", f"RLlib's final policy (deterministic): mean score **{ev['mean_score']:.2f}**"
                  f" ± {ev['sem']:.2f} on the config's {ev['games']:,} fixed evaluation games "
                  f"(seed {ev['seed']}), after {r['env_steps']:,} env steps."]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``scripts/train_rllib.py``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a config name: penta, dice-poker, fivethousand")
    parser.add_argument("--config", type=Path, default=None, help="config file to use instead")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config entry (as train.py; repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timesteps", type=at_least(1), default=200_000,
                        help="train until this many env steps are sampled (default "
                             "%(default)s)")
    parser.add_argument("--train-batch", type=at_least(1), default=None,
                        help="env steps per iteration (default: the config's num_envs x n_steps)")
    parser.add_argument("--num-env-runners", type=at_least(0), default=0,
                        help="RLlib env runners (0: sample in this process; default "
                             "%(default)s)")
    parser.add_argument("--envs-per-runner", type=at_least(1), default=64,
                        help="envs per env runner (default %(default)s)")
    parser.add_argument("--threads", type=at_least(1), default=None,
                        help="torch threads (default: torch's)")
    parser.add_argument("--lean-iterations", type=at_least(0), default=2,
                        help="timed iterations of our lean trainer for the comparison (0: "
                             "skip; default %(default)s)")
    parser.add_argument("--num-cpus", type=at_least(1), default=None,
                        help="CPUs of the local Ray (default: all); ignored with --address")
    parser.add_argument("--address", default=None, help="join this Ray cluster (e.g. auto)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default runs/rllib/<GAME>)")
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Train, evaluate, time, write the report; returns the summary dict."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = apply_overrides(load_config(args.game, args.config), args.set)
        config.setdefault("game", args.game)
    except ValueError as err:
        parser.error(str(err))
    try:
        import ray
        from ray.tune.registry import register_env
    except ImportError:
        parser.error(f"train_rllib.py needs Ray with RLlib: {INSTALL_HINT}")
    try:
        algo_config = ppo_config(args.game, config, args)
    except ImportError as err:
        parser.error(f"RLlib does not import ({err}): {INSTALL_HINT}")
    except (KeyError, TypeError, ValueError) as err:
        parser.error(f"config: {err}")
    import gymnasium
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    out = args.out or Path("runs") / "rllib" / args.game
    started_ray = False
    clock = time.perf_counter()
    if not ray.is_initialized():
        if args.address:
            ray.init(address=args.address, log_to_driver=False)
        else:
            ray.init(num_cpus=args.num_cpus or os.cpu_count(), include_dashboard=False)
        started_ray = True
        print(f"Ray {ray.__version__} up in {time.perf_counter() - clock:.1f} s", flush=True)
    if __name__ != "__main__":  # imported (tests): ship this module's code to the workers
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    register_env(f"dice_env-rllib/{args.game}", make_env)
    scale = float(config.get("reward_scale", 1.0))
    rows: list[dict] = []
    try:
        algo = algo_config.build_algo()
        steps = 0
        while steps < args.timesteps:
            start = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - start
            runners = result["env_runners"]
            now = int(runners["num_env_steps_sampled_lifetime"])
            ret = float(runners.get("episode_return_mean", float("nan"))) / scale
            rows.append({"iteration": len(rows) + 1, "env_steps": now,
                         "episode_return_mean": round(ret, 3), "seconds": round(seconds, 3),
                         "steps_per_s": round((now - steps) / seconds, 1)})
            steps = now
            print(f"iteration {len(rows)}: {steps:,}/{args.timesteps:,} env steps, mean return "
                  f"{ret:.1f}, {rows[-1]['steps_per_s']:,.0f} steps/s", flush=True)
        module = algo.get_module()
        eval_result = evaluate(module, config)
        checkpoint = algo.save_to_path(str((out / "checkpoint").resolve()))
        algo.stop()
        with contextlib.suppress(OSError):  # the empty log folder it made in ~/ray_results
            os.rmdir(algo.logdir)
    finally:
        if started_ray:
            ray.shutdown()
    summary = {
        "command": "python scripts/train_rllib.py " + shlex.join(sys.argv[1:] if argv is None
                                                                 else argv),
        "game": args.game, "seed": args.seed, "ray": ray.__version__,
        "gymnasium": gymnasium.__version__, "torch": torch.__version__,
        "threads": torch.get_num_threads(), "machine": f"{platform.machine()}, "
                                                        f"{os.cpu_count()} CPUs",
        "rllib": {"env_steps": steps, "iterations": len(rows), **throughput(rows),
                  "episode_return_mean": rows[-1]["episode_return_mean"],
                  "num_env_runners": args.num_env_runners,
                  "envs_per_runner": args.envs_per_runner,
                  "train_batch": args.train_batch or rollout_size(config)},
        "eval": eval_result, "checkpoint": str(checkpoint)}
    if eval_result:
        print(f"final policy: mean score {eval_result['mean_score']:.2f} ± "
              f"{eval_result['sem']:.2f} on {eval_result['games']} evaluation games", flush=True)
    if args.lean_iterations:
        print(f"timing our lean trainer ({args.lean_iterations} iterations of "
              f"{rollout_size(config):,} steps)...", flush=True)
        lean = lean_rate(config, args.lean_iterations, args.seed)
        lean["steps"] = rollout_size(config) * args.lean_iterations
        summary["lean"] = lean
    atomic_write_text(out / "rllib.md", to_markdown(summary))
    atomic_write_text(out / "rllib.json", json.dumps(summary, indent=1) + "\n")
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(out / "rllib.csv", buf.getvalue())
    print(to_markdown(summary))
    print(f"wrote {out}/rllib.md, rllib.json, rllib.csv and checkpoint/")
    return summary


if __name__ == "__main__":
    main()
