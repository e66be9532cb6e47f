"""Train sb3-contrib's MaskablePPO on Penta's batched env, save it, and measure its exact gap.

    python examples/sb3_maskable_ppo.py                  # 200,000 steps: minutes
    python examples/sb3_maskable_ppo.py --steps 4096     # a smoke run: seconds
    DICE_ENV_EXAMPLE_STEPS=4096 python examples/sb3_maskable_ppo.py

The model is an ordinary MaskablePPO zip: ``agents.load(path, "penta")`` plays it, and so do
``dice-env evaluate --agent PATH --regret`` and ``dice-env web --agent PATH``. ``dice-env
train`` (agents/training/ppo/) is the project's own trainer for long runs.
"""

from __future__ import annotations

import argparse
import os

import torch

# One torch thread. Torch starts a thread per core; a small network gains nothing from them,
# and when other work shares the cores (another training run, the env) the threads wait on
# each other: on a busy 2-core machine learn(4096) took 90.9 s with 2 threads, 5.4 s with 1.
torch.set_num_threads(1)


def main() -> None:
    """Train for ``--steps`` env steps, save the model, print its exact gap to the optimum."""
    from sb3_contrib import MaskablePPO

    import agents
    from agents.evaluation import optimality_gap
    from dice_env.sb3 import RolloutSizeCheck, make_sb3_vec_env

    parser = argparse.ArgumentParser(description="MaskablePPO on dice_env/Penta-v0")
    parser.add_argument("--steps", type=int,
                        default=int(os.environ.get("DICE_ENV_EXAMPLE_STEPS", 200_000)),
                        help="env steps to train (default $DICE_ENV_EXAMPLE_STEPS or 200000)")
    parser.add_argument("--games", type=int, default=500, help="games of the exact-gap check")
    parser.add_argument("--out", default="penta_maskable_ppo.zip", help="where to save it")
    args = parser.parse_args()

    # 64 games per step; the masks reach MaskablePPO through the VecEnv's action_masks()
    venv = make_sb3_vec_env("dice_env/Penta-v0", num_envs=64, seed=0)
    # one rollout is n_steps x num_envs = 4,096 steps, and learn() only stops between
    # rollouts: keep n_steps small on a batched env (RolloutSizeCheck warns if it is not)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=1024, seed=0, verbose=0)
    model.learn(args.steps, callback=RolloutSizeCheck())
    model.save(args.out)
    print(f"trained {model.num_timesteps:,} steps; saved {args.out}")

    player = agents.load(args.out, "penta")  # masked inference: never an illegal action
    print(optimality_gap(player, "penta", games=args.games, seed=0).format_text())


if __name__ == "__main__":
    main()
