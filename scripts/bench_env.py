#!/usr/bin/env python
"""Steps per second of the environments, random legal actions (mask handling included).

Measures, for each env id: the single env in a Python loop, ``gymnasium.vector.SyncVectorEnv``
of the single env, and the natively batched env at several batch sizes.  Every number of one
run is measured in that run, so the ratios are fair even on a shared, noisy machine (each
figure is the best of ``--repeats`` timings).  Prints a table and one JSON line; writes
``results/env_speed.md`` and ``results/env_speed.json`` (atomically).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from _cli_args import at_least, output_folder
from tqdm import tqdm

import dice_env  # noqa: F401  (registers the env ids)
from dice_env.io import atomic_write_text

DEFAULT_IDS = ["dice_env/Penta-v0", "dice_env/DicePoker-v0", "dice_env/FiveThousand-v0",
               "dice_env/FiveThousandSolo-v0"]


def random_legal_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (ties of 8-bit keys aside)."""
    keys = np.frombuffer(rng.bytes(masks.size), dtype=np.uint8).reshape(masks.shape)
    return ((keys | 1) * masks.astype(bool)).argmax(axis=1)


def _best_rate(step_fn, steps_per_call: int, calls: int, repeats: int) -> float:
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            step_fn()
        best = max(best, steps_per_call * calls / (time.perf_counter() - start))
    return best


def single_env_rate(env_id: str, steps: int, repeats: int, seed: int = 0) -> float:
    """Steps/s of one env in a Python loop."""
    env = gym.make(env_id).unwrapped
    rng = np.random.default_rng(seed)
    box = {"info": env.reset(seed=seed)[1]}

    def step():
        action = random_legal_actions(rng, box["info"]["action_mask"][None])[0]
        _, _, terminated, truncated, box["info"] = env.step(action)
        if terminated or truncated:
            box["info"] = env.reset()[1]

    return _best_rate(step, 1, steps, repeats)


def vector_env_rate(env_id: str, num_envs: int, mode: str, steps: int, repeats: int,
                    seed: int = 0) -> float:
    """Steps/s (summed over the batch) of ``make_vec(env_id, num_envs, mode)``."""
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode)
    rng = np.random.default_rng(seed)
    box = {"info": env.reset(seed=seed)[1]}

    def step():
        actions = random_legal_actions(rng, box["info"]["action_mask"])
        box["info"] = env.step(actions)[4]

    calls = max(1, steps // num_envs)
    rate = _best_rate(step, num_envs, calls, repeats)
    env.close()
    return rate


def markdown_report(results: dict) -> str:
    sizes = results["batch_sizes"]
    lines = [
        "# Environment speed",
        "",
        "Steps per second with random legal actions (mask handling included), best of "
        f"{results['repeats']} timings, all measured in one run on {results['machine']}.",
        "Regenerate with `python scripts/bench_env.py`.",
        "",
        "| env | single env | SyncVectorEnv N=" + str(results["sync_num_envs"]) + " | "
        + " | ".join(f"batched N={n}" for n in sizes) + " | batched / Sync |",
        "|---|" + "---:|" * (3 + len(sizes)),
    ]
    for env_id, r in results["envs"].items():
        cells = [f"{r['single']:,.0f}", f"{r['sync']:,.0f}"]
        cells += [f"{r['batched'][str(n)]:,.0f}" for n in sizes]
        cells.append(f"{r['batched_over_sync']:.0f}×")
        lines.append(f"| `{env_id}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", default=DEFAULT_IDS, help="env ids to measure")
    parser.add_argument("--sizes", nargs="*", type=int, default=[256, 1024, 4096],
                        help="batch sizes of the batched env")
    parser.add_argument("--steps", type=at_least(1), default=400_000,
                        help="env steps per batched measurement")
    parser.add_argument("--single-steps", type=at_least(1), default=5_000,
                        help="steps per single-env and SyncVectorEnv measurement")
    parser.add_argument("--repeats", type=at_least(1), default=3,
                        help="timings per figure (best kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder of env_speed.md / env_speed.json ('' to skip writing)")
    args = parser.parse_args(argv)
    args.out = output_folder(parser, args, Path("runs") / "bench_env")

    sync_n = max(args.sizes)
    results = {"machine": f"{platform.machine()}, {platform.python_version()}",
               "repeats": args.repeats, "batch_sizes": args.sizes, "sync_num_envs": sync_n,
               "envs": {}}
    ids = [i for i in args.ids if i in gym.registry]
    for env_id in tqdm(ids, desc="envs"):
        single = single_env_rate(env_id, args.single_steps, args.repeats, args.seed)
        sync = vector_env_rate(env_id, sync_n, "sync", args.single_steps, args.repeats,
                               args.seed)
        batched = {str(n): vector_env_rate(env_id, n, "vector_entry_point", args.steps,
                                           args.repeats, args.seed) for n in args.sizes}
        results["envs"][env_id] = {
            "single": round(single), "sync": round(sync),
            "batched": {k: round(v) for k, v in batched.items()},
            "batched_over_sync": round(batched[str(sync_n)] / sync, 1),
        }
        tqdm.write(f"{env_id:30s} single {single:10,.0f}  sync {sync:10,.0f}  "
                   + "  ".join(f"N={k}: {v:12,.0f}" for k, v in batched.items()))
    if str(args.out):
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.out / "env_speed.md", markdown_report(results))
        atomic_write_text(args.out / "env_speed.json", json.dumps(results, indent=2) + "\n")
    print(json.dumps(results))
    return results


if __name__ == "__main__":
    main()
