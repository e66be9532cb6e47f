"""Env steps per second of the PPO trainers and policies (``dice-env bench trainer``):
MaskablePPO (SB3) and the lean trainer, with the MLP policy and the structured one.

Each run trains a game's committed config (``agents/training/ppo/configs/<GAME>.json`` for the
MLP policy, ``<GAME>-structured.json`` for the structured policy), one rollout plus one update
per iteration.  After a warm-up iteration each run is timed for ``iterations`` iterations, in
alternating rounds (sb3, lean, lean structured, sb3, ...), and the best round of each counts:
all are measured in the same run, so the ratios are fair on a shared, noisy machine even though
the absolute rates are not.  The share of the time spent in the rollout (env steps plus forward
passes) says whether the learner is the bottleneck.  The tables are written by
:mod:`agents.evaluation.reports.trainer_speed`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["BASELINE", "DEFAULT_RUNS", "GAMES", "RECIPE_CHANGES", "RUNS", "lean_rate",
           "lean_trainer", "measure", "profile", "roofline_of", "run_config", "sb3_rate",
           "timed_iterations"]

GAMES = ["penta", "dice-poker"]


def sb3_rate(config: dict, iterations: int, seed: int) -> tuple[float, float]:
    """(steps/s, rollout share) of MaskablePPO: a warm-up iteration, then ``iterations``."""
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.training.ppo import build_sb3_model

    model = build_sb3_model(config, seed)
    per_iteration = config["num_envs"] * config["ppo"]["n_steps"]

    class Clock(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.rollout = 0.0

        def _on_rollout_start(self) -> None:
            self._start = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.rollout += time.perf_counter() - self._start

        def _on_step(self) -> bool:
            return True

    model.learn(per_iteration, reset_num_timesteps=False)  # warm-up
    clock = Clock()
    start = time.perf_counter()
    model.learn(per_iteration * iterations, callback=clock, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    return per_iteration * iterations / elapsed, clock.rollout / elapsed


def lean_trainer(config: dict, seed: int) -> Any:
    """A lean trainer of ``config`` on its batched env (no total: it trains while asked)."""
    from agents.training.ppo import make_batched_env
    from agents.training.ppo.lean import LeanTrainer

    return LeanTrainer(make_batched_env(config, seed), config, seed, 10**9)


def lean_rate(config: dict, iterations: int, seed: int) -> tuple[float, float]:
    """(steps/s, rollout share) of the lean trainer: a warm-up iteration (with ``lean.compile``
    it compiles), then ``iterations``."""
    trainer = lean_trainer(config, seed)
    trainer.train_iteration()  # warm-up
    return timed_iterations(trainer, iterations)


def timed_iterations(trainer: Any, iterations: int) -> tuple[float, float]:
    """(steps/s, rollout share) of a lean trainer over ``iterations`` more iterations."""
    config = trainer.config
    steps = rollout = elapsed = 0.0
    for _ in range(iterations):
        stats = trainer.train_iteration()
        per = config["num_envs"] * config["ppo"]["n_steps"]
        seconds = per / stats["steps_per_s"]
        steps += per
        elapsed += seconds
        rollout += stats["rollout_share"] * seconds
    return steps / elapsed, rollout / elapsed


Rate = Callable[[dict, int, int], tuple[float, float]]
#: the runs timed: name -> (trainer, policy, rate function, the lean trainer's speed settings:
#: config section ``lean``)
RUNS: dict[str, tuple[str, str, Rate, dict]] = {
    "sb3-mlp": ("MaskablePPO (SB3)", "mlp", sb3_rate, {}),
    "lean-mlp": ("lean", "mlp", lean_rate, {}),
    # the lean trainer as it was before issue 37: the structured network's features computed
    # again in every minibatch's forward pass, float32, eager torch, each minibatch's samples
    # in random order (the baseline)
    "lean-structured-before": ("lean, before (features recomputed)", "structured", lean_rate,
                               {"reuse_features": False, "matmul_dtype": "float32",
                                "compile": False, "sorted_minibatches": False}),
    "lean-structured": ("lean (features reused)", "structured", lean_rate,
                        {"reuse_features": True, "matmul_dtype": "float32", "compile": False}),
    "lean-structured-fast": ("lean, compiled, bfloat16 wide products", "structured", lean_rate,
                             {"reuse_features": True, "matmul_dtype": "bfloat16",
                              "compile": True}),
    # the faster trainer with the recipe change of variant fast-2-epochs-2048 (RECIPE_CHANGES)
    "lean-structured-fast-2x2048": ("lean, compiled, bfloat16, 2 epochs of 2,048 (recipe "
                                    "change)", "structured", lean_rate,
                                    {"reuse_features": True, "matmul_dtype": "bfloat16",
                                     "compile": True}),
    "sb3-structured": ("MaskablePPO (SB3)", "structured", sb3_rate, {})}
#: the runs that also change the recipe, not only the trainer's speed: the Penta variant of
#: ``variants.json`` whose settings they train, and the change in words (what such a run
#: learns is measured through the full recipe by dice-env train variants)
RECIPE_CHANGES: dict[str, tuple[str, str]] = {
    "lean-structured-fast-2x2048": ("fast-2-epochs-2048",
                                    "2 epochs of minibatches of 2,048 instead of 4 of 8,192")}
DEFAULT_RUNS = ["sb3-mlp", "lean-mlp", "lean-structured-before", "lean-structured",
                "lean-structured-fast", "lean-structured-fast-2x2048"]
#: the run the structured runs' speed-up is measured against
BASELINE = "lean-structured-before"


def run_config(game: str, run: str, num_envs: int) -> dict:
    """The config a run trains: the game's committed config of the run's policy, with the
    run's speed settings."""
    from agents.training.ppo import load_config

    name = game if RUNS[run][1] == "mlp" else f"{game}-{RUNS[run][1]}"
    config = {**load_config(name), "num_envs": num_envs}
    if RUNS[run][3]:
        config["lean"] = dict(RUNS[run][3])
    if run in RECIPE_CHANGES:
        from agents.training.ppo.config import apply_overrides, override_args
        from agents.training.studies.recipe_variants import load_variants

        variant = load_variants()["penta"][RECIPE_CHANGES[run][0]]
        config = apply_overrides(config, override_args(variant["set"]))
    return config


def measure(games: list[str], runs: list[str], *, iterations: int = 3, rounds: int = 2,
            num_envs: int = 512, threads: int = 2, seed: int = 0,
            progress: bool = True) -> list[dict]:
    """One row per game and run: the best of ``rounds`` alternating rounds of its steps/s
    (also per torch thread), its rollout share, and its cost per env step against the lean
    trainer's MLP policy (NaN when ``lean-mlp`` is not among the runs)."""
    from agents.progress import progress_bar

    runs = list(dict.fromkeys(runs))
    rows = []
    bar = progress_bar(total=len(games) * rounds * len(runs), desc="timing", unit="run",
               disable=not progress)
    for game in games:
        best = {run: (0.0, 0.0) for run in runs}
        for _ in range(rounds):
            for run in runs:
                rate = RUNS[run][2](run_config(game, run, num_envs), iterations, seed)
                best[run] = max(best[run], rate)
                bar.update()
        reference = best["lean-mlp"][0] if "lean-mlp" in best else None
        baseline = best[BASELINE][0] if BASELINE in best else None
        for run in runs:
            rate, share = best[run]
            structured = RUNS[run][1] == "structured" and RUNS[run][0] != RUNS["sb3-mlp"][0]
            rows.append({"game": game, "run": run, "trainer": RUNS[run][0],
                         "policy": RUNS[run][1], "steps_per_s": rate,
                         "steps_per_s_per_core": rate / threads, "rollout_share": share,
                         "cost_vs_lean_mlp": reference / rate if reference else float("nan"),
                         "speedup_vs_before": rate / baseline if baseline and structured
                         else float("nan")})
    bar.close()
    return rows


def roofline_of(game: str, runs: list[str], num_envs: int, seed: int,
                iterations: int = 1) -> dict:
    """``{run: roofline}`` of the lean structured runs of ``game``
    (:func:`agents.training.roofline.roofline`): each trainer warmed up, its phases timed over
    ``iterations`` iterations as it trains, then its matrix products recorded and timed."""
    from agents.training.roofline import roofline

    out = {}
    for run in dict.fromkeys(runs):
        if not run.startswith("lean-structured"):
            continue
        trainer = lean_trainer(run_config(game, run, num_envs), seed)
        trainer.train_iteration()  # warm-up (and compile)
        rate, share = timed_iterations(trainer, iterations)
        out[run] = roofline(trainer, {"rollout": share / rate, "update": (1 - share) / rate})
        if run in RECIPE_CHANGES:
            variant, words = RECIPE_CHANGES[run]
            out[run]["update"]["recipe_change"] = f"{words}: variant {variant}"
    return out


def profile(game: str, runs: list[str], num_envs: int, seed: int, ops: int = 0) -> dict:
    """``{policy: phase_profile}`` of the lean runs of ``game`` (one warm-up iteration first:
    :func:`agents.training.ppo.profiling.phase_profile`); prints torch's profiler table of one
    update's top ``ops`` operators when ``ops``."""
    from agents.training.ppo.profiling import op_profile, phase_profile

    out = {}
    for run in dict.fromkeys(runs):
        if RUNS[run][2] is not lean_rate or RUNS[run][3].get("compile"):
            continue  # (a compiled forward pass is no module call the profile could time)
        trainer = lean_trainer(run_config(game, run, num_envs), seed)
        trainer.train_iteration()  # warm-up
        out[run] = phase_profile(trainer)
        if ops:
            print(f"torch profiler, one update, {game}, {RUNS[run][1]} policy:")
            print(op_profile(trainer, ops))
    return out
