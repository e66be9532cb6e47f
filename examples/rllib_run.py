"""RLlib's PPO on Penta with action masking, through the project's RLlib support.

    python examples/rllib_run.py                      # 20,000 env steps
    python examples/rllib_run.py --timesteps 1000     # a smoke run
    DICE_ENV_EXAMPLE_STEPS=1000 python examples/rllib_run.py

Needs the ``ray`` and ``train`` extras (``pip install "dice-env[train,ray]"``; without them it
says which to install and exits 2). ``agents.training.ray.rllib`` gives the
pieces: ``make_env`` (the game's env, created with ``illegal_action="raise"``, its mask inside
a Dict observation), ``ppo_config`` (RLlib's ``PPOConfig`` with the action-masking RLModule and
the training config's PPO settings) and ``evaluate`` (the deterministic policy on the config's
fixed evaluation games). ``dice-env train-rllib`` is the same with a report and a checkpoint.
Ray's start-up takes seconds (about 14 s on a busy 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import sys


def install_hint(missing: ModuleNotFoundError) -> str:
    """One line saying which extra of dice-env brings the module that is missing: torch comes
    with ``train``, Ray and RLlib's dependencies with ``ray``."""
    extra = "train" if (missing.name or "").split(".")[0] == "torch" else "ray"
    return (f"rllib_run.py: error: this example needs the {extra!r} extra of dice-env, which is "
            f"not installed (no module named {missing.name!r}): pip install \"dice-env[{extra}]\" "
            f"(in a checkout: pip install -e \".[{extra}]\")")


try:  # the optional dependencies: a clear message, not a traceback, when one is missing
    import ray
    import torch
    from ray.tune.registry import register_env

    from agents.training.ppo import apply_overrides, load_config
    from agents.training.ray.rllib import RLlibSettings, evaluate, make_env, ppo_config
except ModuleNotFoundError as exc:
    print(install_hint(exc), file=sys.stderr)
    raise SystemExit(2) from None

torch.set_num_threads(1)  # a small network: extra threads only contend (see sb3_maskable_ppo.py)


def main() -> None:
    """Train for ``--timesteps`` env steps, then evaluate the policy on fixed games."""
    parser = argparse.ArgumentParser(description="RLlib's PPO with masks on Penta")
    parser.add_argument("--timesteps", type=int,
                        default=int(os.environ.get("DICE_ENV_EXAMPLE_STEPS", 20_000)),
                        help="env steps to sample (default $DICE_ENV_EXAMPLE_STEPS or 20000)")
    parser.add_argument("--eval-games", type=int, default=100, help="evaluation games")
    args = parser.parse_args()

    # the committed training config of Penta, made small: 8 envs, 500 steps per iteration
    config = apply_overrides(load_config("penta"), ["num_envs=8", f"eval.games={args.eval_games}"])
    settings = RLlibSettings(seed=0, timesteps=args.timesteps, train_batch=500,
                             envs_per_runner=8)
    # address="local": a new Ray on this machine (on a cluster: address="auto")
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        register_env("dice_env-rllib/penta", make_env)  # the name ppo_config's env refers to
        algo = ppo_config("penta", config, settings).build_algo()
        scale = config.get("reward_scale", 1.0)  # RLlib sees the config's scaled rewards
        steps = 0
        while steps < settings.timesteps:
            runners = algo.train()["env_runners"]
            steps = int(runners["num_env_steps_sampled_lifetime"])
            points = runners.get("episode_return_mean", float("nan")) / scale
            print(f"{steps:,} env steps, mean return {points:.1f} points")
        result = evaluate(algo.get_module(), config)
        print(f"deterministic policy: mean score {result['mean_score']:.1f} "
              f"± {result['sem']:.1f} over {result['games']} games")
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
