#!/usr/bin/env python
"""Steps per second of the environments, with random legal actions (mask handling included).

Prints a table and one JSON line; ``--out`` also writes a Markdown report.  The machine is
shared and noisy: compare the numbers of one run with each other, not across runs.
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym
import numpy as np

import dice_env


def single_env_steps_per_second(env_id: str, steps: int, seed: int = 0) -> float:
    """Steps/s of one env in a Python loop, random legal actions drawn from the mask."""
    env = gym.make(env_id).unwrapped
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", default=list(dice_env.SCORECARD_IDS),
                        help="env ids to measure (default: every scorecard id)")
    parser.add_argument("--steps", type=int, default=20_000, help="steps per measurement")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = {"single_env_steps_per_second": {}}
    for env_id in args.ids:
        rate = single_env_steps_per_second(env_id, args.steps, args.seed)
        result["single_env_steps_per_second"][env_id] = round(rate)
        print(f"{env_id:32s} single env: {rate:12,.0f} steps/s")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
