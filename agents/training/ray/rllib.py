"""RLlib's PPO with action masking on a game's env, timed against our lean trainer.

RLlib's new API stack (RLModule / Learner, ``SingleAgentEnvRunner``): the env is the game's
single Gymnasium env (the training config's ``env_id``, ``env_kwargs``, the 5000
``opponent``), created with ``illegal_action="raise"`` -- an illegal action stops the run with an
error (RLlib is told not to restart failed envs or env runners) -- and wrapped in
:class:`dice_env.wrappers.DictMaskObservation`, so that its observation is ``{"observations":
..., "action_mask": ...}``; the config's ``reward_scale`` scales the rewards (returns are
reported in points).  The env is registered with ``ray.tune.registry.register_env`` as
``dice_env-rllib/<GAME>``.  The policy is RLlib's example ``ActionMaskingTorchRLModule``, which
adds ``log(mask)`` to the logits, with the config's network (separate ``pi`` / ``vf`` MLPs,
tanh) and PPO settings (no KL term and no value clipping, as SB3).  The config's reward shaping
is not applied.  The report is written by :mod:`agents.evaluation.reports.rllib`.
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.training.ppo import rollout_size

__all__ = ["INSTALL_HINT", "RLlibPlayer", "RLlibSettings", "evaluate", "lean_rate", "make_env",
           "ppo_config", "require_rllib", "throughput", "train_and_time"]

INSTALL_HINT = 'pip install "dice-env[ray]" (in a checkout: pip install -e ".[ray]")'


@dataclass(frozen=True)
class RLlibSettings:
    """How RLlib trains: the seed, env steps to sample (``timesteps``), steps per iteration
    (``train_batch``; None: the config's rollout), env runners (0: sampling in this process)
    and envs per runner, and where Ray runs (``address`` of a cluster, or a local Ray of
    ``num_cpus``)."""

    seed: int = 0
    timesteps: int = 200_000
    train_batch: int | None = None
    num_env_runners: int = 0
    envs_per_runner: int = 64
    address: str | None = None
    num_cpus: int | None = None


def make_env(env_config: dict) -> Any:
    """RLlib's env creator: the config's single env, masks in a ``Dict`` observation.

    ``env_config``: ``{"config": <training config>, "seed": int}`` (RLlib adds its own keys,
    such as ``worker_index``, used to vary the 5000 opponents' seeds).
    """
    import gymnasium as gym

    import dice_env  # noqa: F401  (registers the env ids)
    from agents.registry import make
    from dice_env.wrappers import DictMaskObservation

    config = env_config["config"]
    kwargs = dict(config.get("env_kwargs", {}))
    if "opponent" in config:
        seed = int(env_config.get("seed", 0)) + 1000 * int(getattr(env_config, "worker_index", 0))
        opponent = make(config["opponent"], "fivethousand", seed=seed)
        kwargs["opponents"] = [opponent] * (kwargs.get("num_players", 2) - 1)
    env = gym.make(config["env_id"], illegal_action="raise", **kwargs)
    scale = float(config.get("reward_scale", 1.0))
    if scale != 1.0:
        env = gym.wrappers.TransformReward(env, lambda r: r * scale)
    return DictMaskObservation(env, observation_key="observations", mask_key="action_mask")


def require_rllib() -> str:
    """Ray's version; ``ImportError`` when Ray with RLlib's env registry is not installed."""
    import ray
    from ray.tune.registry import register_env  # noqa: F401

    return ray.__version__


def ppo_config(game: str, config: dict, settings: RLlibSettings) -> Any:
    """RLlib's ``PPOConfig`` for a training config (see the module doc for the mapping);
    ``ImportError`` without RLlib's dependencies, ``ValueError`` for a config it cannot train."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    if config.get("policy", "mlp") != "mlp":
        raise ValueError(f"RLlib trains its default MLP module, not the {config['policy']!r} "
                         "policy (dice-env train trains that one)")
    ppo = config["ppo"]
    net = (config.get("policy_kwargs") or {}).get("net_arch", {"pi": [64, 64], "vf": [64, 64]})
    if isinstance(net, list):
        net = {"pi": net, "vf": net}
    if net["pi"] != net["vf"]:
        raise ValueError(f"RLlib's default PPO module has one size for the pi and vf networks; "
                         f"the config has pi={net['pi']} vf={net['vf']}")
    train_batch = settings.train_batch or rollout_size(config)
    return (
        PPOConfig()
        .environment(env=f"dice_env-rllib/{game}", env_config={"config": config,
                                                               "seed": settings.seed})
        .env_runners(num_env_runners=settings.num_env_runners,
                     num_envs_per_env_runner=settings.envs_per_runner,
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
        .debugging(seed=settings.seed)
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
    ``dice-env train`` evaluates); None for a game that is won rather than scored, or with
    other than the plain observations."""
    from agents.games import resolve

    if resolve(config["env_id"]).family.outcome != "score" or \
            "observation" in config.get("env_kwargs", {}):
        return None
    from agents.evaluation import play_scorecard_games

    ev = config["eval"]
    totals = play_scorecard_games(RLlibPlayer(module), config["env_id"], ev["games"],
                                  seed=ev["seed"])
    return {"games": int(ev["games"]), "seed": ev["seed"], "mean_score": float(totals.mean()),
            "sem": float(totals.std(ddof=1) / np.sqrt(len(totals)))}


def lean_rate(config: dict, iterations: int, seed: int) -> dict:
    """Steps/s of our lean trainer on the same config (``dice-env bench trainer``'s
    measurement, :func:`agents.training.bench.lean_rate`: a warm-up iteration, then
    ``iterations`` rollouts + updates)."""
    from agents.training.bench import lean_rate as measure

    rate, share = measure(config, iterations, seed)
    return {"steps_per_s": rate, "rollout_share": share, "num_envs": config["num_envs"],
            "iterations": iterations, "steps": rollout_size(config) * iterations}


def throughput(rows: list[dict]) -> dict:
    """RLlib's env steps/s over the iterations ``rows`` (``env_steps``: the total after each,
    ``seconds``): the iterations after the first, which builds and warms up; when only one
    ran, that one, warm-up included (``warmup_included``), as nothing else was timed."""
    timed = rows[1:] or rows
    before = rows[0]["env_steps"] if len(rows) > 1 else 0
    return {"steps_per_s": (rows[-1]["env_steps"] - before) / sum(r["seconds"] for r in timed),
            "timed_iterations": len(timed), "warmup_included": len(rows) == 1}


def _train(game: str, config: dict, settings: RLlibSettings, algo_config: Any,
           checkpoint: Path) -> tuple[list[dict], dict | None, str]:
    """Train until ``settings.timesteps`` env steps; (a row per iteration, the evaluation, the
    checkpoint written)."""
    import ray
    from ray.tune.registry import register_env

    started_ray = False
    if not ray.is_initialized():
        clock = time.perf_counter()
        if settings.address:
            ray.init(address=settings.address, log_to_driver=False)
        else:
            ray.init(num_cpus=settings.num_cpus or os.cpu_count(), include_dashboard=False)
        started_ray = True
        print(f"Ray {ray.__version__} up in {time.perf_counter() - clock:.1f} s", flush=True)
    register_env(f"dice_env-rllib/{game}", make_env)
    scale = float(config.get("reward_scale", 1.0))
    rows: list[dict] = []
    try:
        algo = algo_config.build_algo()
        steps = 0
        while steps < settings.timesteps:
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
            print(f"iteration {len(rows)}: {steps:,}/{settings.timesteps:,} env steps, mean "
                  f"return {ret:.1f}, {rows[-1]['steps_per_s']:,.0f} steps/s", flush=True)
        eval_result = evaluate(algo.get_module(), config)
        saved = algo.save_to_path(str(checkpoint.resolve()))
        algo.stop()
        with contextlib.suppress(OSError):  # the empty log folder it made in ~/ray_results
            os.rmdir(algo.logdir)
    finally:
        if started_ray:
            ray.shutdown()
    return rows, eval_result, str(saved)


def train_and_time(game: str, config: dict, settings: RLlibSettings, algo_config: Any,
                   checkpoint: Path, lean_iterations: int = 2,
                   command: str = "") -> tuple[dict, list[dict]]:
    """Train RLlib's PPO (``algo_config``, from :func:`ppo_config`), evaluate its final policy,
    save its checkpoint at ``checkpoint``, then time ``lean_iterations`` iterations of our lean
    trainer in this process (0: none); returns (the run's summary, one row per RLlib
    iteration)."""
    import gymnasium
    import ray
    import torch

    rows, eval_result, saved = _train(game, config, settings, algo_config, checkpoint)
    summary = {
        "command": command, "game": game, "seed": settings.seed, "ray": ray.__version__,
        "gymnasium": gymnasium.__version__, "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "rllib": {"env_steps": rows[-1]["env_steps"], "iterations": len(rows),
                  **throughput(rows), "episode_return_mean": rows[-1]["episode_return_mean"],
                  "num_env_runners": settings.num_env_runners,
                  "envs_per_runner": settings.envs_per_runner,
                  "train_batch": settings.train_batch or rollout_size(config)},
        "eval": eval_result, "checkpoint": saved}
    if eval_result:
        print(f"final policy: mean score {eval_result['mean_score']:.2f} ± "
              f"{eval_result['sem']:.2f} on {eval_result['games']} evaluation games", flush=True)
    if lean_iterations:
        print(f"timing our lean trainer ({lean_iterations} iterations of "
              f"{rollout_size(config):,} steps)...", flush=True)
        summary["lean"] = lean_rate(config, lean_iterations, settings.seed)
    return summary, rows
