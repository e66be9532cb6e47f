"""The environment speed report of ``results/``: ``env_speed.md`` and ``env_speed.json``, from
what :func:`agents.evaluation.env_speed.measure_env_speed` measured."""

from __future__ import annotations

import json
from pathlib import Path

from dice_env.io import atomic_write_text


def env_speed_markdown(results: dict) -> str:
    """``env_speed.md``: one row per env, and the AEC envs."""
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
        "Regenerate with `dice-env bench env`.",
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


def write_env_speed(out: Path, results: dict) -> None:
    """Write ``env_speed.md`` and ``env_speed.json`` into ``out``, atomically."""
    out = Path(out)
    atomic_write_text(out / "env_speed.md", env_speed_markdown(results))
    atomic_write_text(out / "env_speed.json", json.dumps(results, indent=2) + "\n")
