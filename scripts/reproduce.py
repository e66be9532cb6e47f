#!/usr/bin/env python
"""The main job: reproduce the benchmark numbers of the README.

``--quick`` (the default) plays a few hundred games of every game with a random legal agent
and prints the mean score; later stages (solves, evaluation of every agent) are added here as
the project grows.
"""

from __future__ import annotations

import argparse
import json

import gymnasium as gym
import numpy as np
from tqdm import tqdm

import dice_env


def random_legal_scores(env_id: str, games: int, seed: int) -> np.ndarray:
    """Final totals of ``games`` games of ``env_id`` played uniformly over legal actions."""
    env = gym.make(env_id).unwrapped
    rng = np.random.default_rng(seed)
    totals = np.zeros(games)
    for g in tqdm(range(games), desc=env_id, leave=False):
        _, info = env.reset(seed=seed + g)
        done, total = False, 0.0
        while not done:
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            _, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        totals[g] = total
    return totals


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the quick reproduction (default)")
    mode.add_argument("--full", action="store_true", help="everything (longer)")
    parser.add_argument("--games", type=int, default=None,
                        help="games per game (default 300 quick, 5000 full)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    games = args.games or (5000 if args.full else 300)
    summary = {}
    print(f"Random legal agent, {games} games each (seed {args.seed})")
    for env_id in dice_env.SCORECARD_IDS:
        totals = random_legal_scores(env_id, games, args.seed)
        sem = totals.std(ddof=1) / np.sqrt(len(totals))
        summary[env_id] = {"mean": round(float(totals.mean()), 2), "sem": round(float(sem), 2)}
        print(f"  {env_id:30s} mean {totals.mean():7.2f} ± {sem:.2f}")
    print(json.dumps({"random_agent": summary}))
    return summary


if __name__ == "__main__":
    main()
