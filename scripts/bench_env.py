#!/usr/bin/env python
"""Steps per second of the environments, random legal actions (mask handling included).

Measures, for each env id: the single env in a Python loop as users get it from
``gymnasium.make`` (its default wrappers included) and without them (``.unwrapped``),
``gymnasium.vector.SyncVectorEnv`` of the single env, and the natively batched env at several
batch sizes; and the PettingZoo AEC envs stepped through ``env.last()`` / ``env.step``.
``CartPole-v1`` is measured alongside as the reference: each env's single-env figure is also
given as a multiple of CartPole's, measured the same way in the same run, the two timed in turn
(CartPole, the env, CartPole, ...) so that a change of load on a shared machine hits both.
Every number of one run is measured in that run (each figure is the best of ``--repeats``
timings).  Each env runs in this one process and thread:
the per-core figures divide the steps by the process's CPU time instead of the wall-clock time
(they match the per-process figures on an idle machine).  Prints a table and one JSON line;
writes ``env_speed.md`` and ``env_speed.json`` (atomically) into the output folder.
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

REFERENCE_ID = "CartPole-v1"
DEFAULT_IDS = [REFERENCE_ID, "dice_env/Penta-v0", "dice_env/DicePoker-v0",
               "dice_env/FiveThousand-v0", "dice_env/FiveThousandSolo-v0"]
#: PettingZoo AEC envs: name on the command line (``--aec``) -> (label in the tables and the
#: keys of ``env_speed.json``, module, keyword arguments of ``env()``)
AEC_ENVS = {
    "penta-2p": ("scorecard_v0 (penta, 2 players)", "dice_env.multi.scorecard_v0",
                 {"game": "penta", "num_players": 2}),
    "fivethousand-2p": ("five_thousand_v0 (2 players)", "dice_env.multi.five_thousand_v0",
                        {"num_players": 2}),
}


def random_legal_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (ties of 8-bit keys aside)."""
    keys = np.frombuffer(rng.bytes(masks.size), dtype=np.uint8).reshape(masks.shape)
    return ((keys | 1) * masks.astype(bool)).argmax(axis=1)


def _best_rate(step_fn, steps_per_call: int, calls: int, repeats: int) -> tuple[float, float]:
    """``(steps per wall-clock second, steps per CPU second of this process)``, best of
    ``repeats`` timings."""
    best_wall = best_cpu = 0.0
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            step_fn()
        steps = steps_per_call * calls
        best_wall = max(best_wall, steps / (time.perf_counter() - wall))
        best_cpu = max(best_cpu, steps / max(time.process_time() - cpu, 1e-9))
    return best_wall, best_cpu


def _mask_of(info: dict, n_actions: int) -> np.ndarray:
    """The action mask of an info dict, or every action for an env without masks."""
    mask = info.get("action_mask")
    return np.ones(n_actions, dtype=np.int8) if mask is None else mask


def single_env_loop(env_id: str, seed: int = 0, unwrapped: bool = False):
    """One step (an env step with a random legal action, a reset after the end) of one env, as
    ``gymnasium.make`` returns it (default wrappers included) or, with ``unwrapped``, bare."""
    env = gym.make(env_id)
    if unwrapped:
        env = env.unwrapped
    n_actions = int(env.action_space.n)
    rng = np.random.default_rng(seed)
    box = {"info": env.reset(seed=seed)[1]}

    def step():
        action = random_legal_actions(rng, _mask_of(box["info"], n_actions)[None])[0]
        _, _, terminated, truncated, box["info"] = env.step(action)
        if terminated or truncated:
            box["info"] = env.reset()[1]

    return step


def aec_env_loop(module: str, kwargs: dict, seed: int = 0):
    """One decision of a PettingZoo AEC env (``module.env(**kwargs)``): a random legal action
    through ``env.last()`` / ``env.step``, a new game after each one ends."""
    import importlib

    env = importlib.import_module(module).env(**kwargs)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def step():
        observation, _, terminated, truncated, _ = env.last()
        while terminated or truncated:  # finished agents step with None, then a new game
            env.step(None)
            if not env.agents:
                env.reset()
            observation, _, terminated, truncated, _ = env.last()
        env.step(random_legal_actions(rng, observation["action_mask"][None])[0])

    return step


def interleaved_rates(step_fns: list, steps: int, repeats: int) -> list[float]:
    """Steps/s of each loop, best of ``repeats`` timings taken in turn (one timing of each
    loop per round), so that the loops of one call see the same load."""
    best = [0.0] * len(step_fns)
    for _ in range(repeats):
        for k, step in enumerate(step_fns):
            best[k] = max(best[k], _best_rate(step, 1, steps, 1)[0])
    return best


def single_env_rate(env_id: str, steps: int, repeats: int, seed: int = 0,
                    unwrapped: bool = False) -> float:
    """Steps/s of one env in a Python loop (see :func:`single_env_loop`)."""
    return interleaved_rates([single_env_loop(env_id, seed, unwrapped)], steps, repeats)[0]


def vector_env_rate(env_id: str, num_envs: int, mode: str, steps: int, repeats: int,
                    seed: int = 0) -> tuple[float, float]:
    """``(steps/s, steps per CPU second)``, summed over the batch, of
    ``make_vec(env_id, num_envs, mode)``."""
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode)
    n_actions = int(env.single_action_space.n)
    rng = np.random.default_rng(seed)
    box = {"info": env.reset(seed=seed)[1]}

    def step():
        masks = box["info"].get("action_mask")
        if masks is None:
            masks = np.ones((num_envs, n_actions), dtype=np.int8)
        box["info"] = env.step(random_legal_actions(rng, masks))[4]

    calls = max(1, steps // num_envs)
    rates = _best_rate(step, num_envs, calls, repeats)
    env.close()
    return rates


def markdown_report(results: dict) -> str:
    sizes = results["batch_sizes"]
    ref = results["reference"]
    lines = [
        "# Environment speed",
        "",
        "Steps per second with random legal actions (mask handling included), best of "
        f"{results['repeats']} timings, all measured in one run on {results['machine']}.",
        f"*single env*: `gymnasium.make(id)` as users get it (default wrappers included); "
        f"*÷ {ref}*: that figure divided by {ref}'s, measured the same way in turn with it "
        f"(the {ref} row shows its best timing of the run); "
        "*unwrapped*: the bare env.  The batched envs run in one process and one thread: "
        "*per core* divides their steps by the process's CPU time (on an idle machine it "
        "equals the per-process figure).",
        "Regenerate with `python scripts/bench_env.py`.",
        "",
        f"| env | single env | ÷ {ref} | unwrapped | SyncVectorEnv N={results['sync_num_envs']} | "
        + " | ".join(f"batched N={n}" for n in sizes)
        + f" | batched N={max(sizes)} per core | batched / Sync |",
        "|---|" + "---:|" * (6 + len(sizes)),
    ]
    for env_id, r in results["envs"].items():
        cells = [f"{r['single']:,.0f}", f"{r['single_over_reference']:.3f}×",
                 f"{r['single_unwrapped']:,.0f}", f"{r['sync']:,.0f}"]
        cells += [f"{r['batched'][str(n)]:,.0f}" for n in sizes]
        cells.append(f"{r['batched_per_core'][str(max(sizes))]:,.0f}")
        cells.append(f"{r['batched_over_sync']:.0f}×")
        lines.append(f"| `{env_id}` | " + " | ".join(cells) + " |")
    if results["aec"]:
        lines += ["", "PettingZoo AEC envs (`env()` with its wrapper), decisions per second "
                  "through `env.last()` / `env.step`:", "",
                  f"| env | decisions/s | ÷ {ref} single env |", "|---|---:|---:|"]
        for name, r in results["aec"].items():
            lines.append(f"| `{name}` | {r['single']:,.0f} | {r['single_over_reference']:.3f}× |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", default=DEFAULT_IDS,
                        help=f"env ids to measure ({REFERENCE_ID}, the reference, is always "
                             "measured)")
    parser.add_argument("--aec", nargs="*", default=list(AEC_ENVS), choices=list(AEC_ENVS),
                        help="PettingZoo AEC envs to measure (" + "; ".join(
                            f"{k}: {v[0]}" for k, v in AEC_ENVS.items()) + ")")
    parser.add_argument("--sizes", nargs="*", type=int, default=[256, 1024, 4096],
                        help="batch sizes of the batched env")
    parser.add_argument("--steps", type=at_least(1), default=400_000,
                        help="env steps per batched measurement")
    parser.add_argument("--single-steps", type=at_least(1), default=5_000,
                        help="steps per single-env, AEC and SyncVectorEnv measurement")
    parser.add_argument("--repeats", type=at_least(1), default=3,
                        help="timings per figure (best kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder of env_speed.md / env_speed.json (default: results/ for "
                             "the documented full run, runs/bench_env/ otherwise; '' is the "
                             "current folder)")
    args = parser.parse_args(argv)
    unknown = [i for i in args.ids if i not in gym.registry]
    if unknown:
        known = [REFERENCE_ID] + [i for i in gym.registry if i.startswith("dice_env/")]
        parser.error(f"--ids: unknown env id {', '.join(map(repr, unknown))} (known: "
                     f"{', '.join(known)}, or any other registered Gymnasium id)")
    args.out = output_folder(parser, args, Path("runs") / "bench_env")

    sync_n = max(args.sizes)
    results = {"machine": f"{platform.machine()}, {platform.python_version()}",
               "repeats": args.repeats, "batch_sizes": args.sizes, "sync_num_envs": sync_n,
               "reference": REFERENCE_ID, "envs": {}, "aec": {}}
    ids = [REFERENCE_ID] + [i for i in dict.fromkeys(args.ids) if i != REFERENCE_ID]
    reference_loop = single_env_loop(REFERENCE_ID, args.seed)
    best_reference = 0.0

    def against_reference(loop) -> tuple[float, float]:
        """``(steps/s of loop, that / the reference's steps/s)``, timed in turn."""
        nonlocal best_reference
        reference, rate = interleaved_rates([reference_loop, loop], args.single_steps,
                                            args.repeats)
        best_reference = max(best_reference, reference)
        return rate, rate / reference

    for env_id in tqdm(ids, desc="envs"):
        if env_id == REFERENCE_ID:
            single = single_env_rate(env_id, args.single_steps, args.repeats, args.seed)
            ratio = 1.0
            best_reference = max(best_reference, single)
        else:
            single, ratio = against_reference(single_env_loop(env_id, args.seed))
        raw = single_env_rate(env_id, args.single_steps, args.repeats, args.seed,
                              unwrapped=True)
        sync = vector_env_rate(env_id, sync_n, "sync", args.single_steps, args.repeats,
                               args.seed)[0]
        batched = {str(n): vector_env_rate(env_id, n, "vector_entry_point", args.steps,
                                           args.repeats, args.seed) for n in args.sizes}
        results["envs"][env_id] = {
            "single": round(single), "single_over_reference": round(ratio, 3),
            "single_unwrapped": round(raw), "sync": round(sync),
            "batched": {k: round(v[0]) for k, v in batched.items()},
            "batched_per_core": {k: round(v[1]) for k, v in batched.items()},
            "batched_over_sync": round(batched[str(sync_n)][0] / sync, 1),
        }
        tqdm.write(f"{env_id:30s} single {single:10,.0f} ({ratio:.3f}x)  "
                   f"unwrapped {raw:10,.0f}  sync {sync:10,.0f}  "
                   + "  ".join(f"N={k}: {v[0]:12,.0f}" for k, v in batched.items()))
    for name in dict.fromkeys(args.aec):
        label, module, kwargs = AEC_ENVS[name]
        rate, ratio = against_reference(aec_env_loop(module, kwargs, args.seed))
        results["aec"][label] = {"single": round(rate), "single_over_reference": round(ratio, 3)}
        tqdm.write(f"{label:30s} single {rate:10,.0f} ({ratio:.3f}x)")
    results["envs"][REFERENCE_ID]["single"] = round(best_reference)  # its best timing
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "env_speed.md", markdown_report(results))
    atomic_write_text(args.out / "env_speed.json", json.dumps(results, indent=2) + "\n")
    print(json.dumps(results))
    return results


if __name__ == "__main__":
    main()
