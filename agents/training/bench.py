"""Env steps per second of the PPO trainers and policies (``dice-env bench-trainer``):
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

__all__ = ["DEFAULT_RUNS", "GAMES", "RUNS", "lean_rate", "lean_trainer", "measure", "profile",
           "run_config", "sb3_rate"]

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
    """(steps/s, rollout share) of the lean trainer: a warm-up iteration, then
    ``iterations``."""
    trainer = lean_trainer(config, seed)
    trainer.train_iteration()  # warm-up
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
#: the runs timed: name -> (trainer, policy, rate function)
RUNS: dict[str, tuple[str, str, Rate]] = {
    "sb3-mlp": ("MaskablePPO (SB3)", "mlp", sb3_rate),
    "lean-mlp": ("lean", "mlp", lean_rate),
    "lean-structured": ("lean", "structured", lean_rate),
    "sb3-structured": ("MaskablePPO (SB3)", "structured", sb3_rate)}
DEFAULT_RUNS = ["sb3-mlp", "lean-mlp", "lean-structured"]


def run_config(game: str, run: str, num_envs: int) -> dict:
    """The config a run trains: the game's committed config of the run's policy."""
    from agents.training.ppo import load_config

    name = game if RUNS[run][1] == "mlp" else f"{game}-{RUNS[run][1]}"
    return {**load_config(name), "num_envs": num_envs}


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
        for run in runs:
            rate, share = best[run]
            rows.append({"game": game, "run": run, "trainer": RUNS[run][0],
                         "policy": RUNS[run][1], "steps_per_s": rate,
                         "steps_per_s_per_core": rate / threads, "rollout_share": share,
                         "cost_vs_lean_mlp": reference / rate if reference else float("nan")})
    bar.close()
    return rows


def profile(game: str, runs: list[str], num_envs: int, seed: int, ops: int = 0) -> dict:
    """``{policy: phase_profile}`` of the lean runs of ``game`` (one warm-up iteration first:
    :func:`agents.training.ppo.profiling.phase_profile`); prints torch's profiler table of one
    update's top ``ops`` operators when ``ops``."""
    from agents.training.ppo.profiling import op_profile, phase_profile

    out = {}
    for run in dict.fromkeys(runs):
        if RUNS[run][0] != "lean":
            continue
        trainer = lean_trainer(run_config(game, run, num_envs), seed)
        trainer.train_iteration()  # warm-up
        out[RUNS[run][1]] = phase_profile(trainer)
        if ops:
            print(f"torch profiler, one update, {game}, {RUNS[run][1]} policy:")
            print(op_profile(trainer, ops))
    return out
