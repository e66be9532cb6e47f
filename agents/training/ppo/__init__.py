"""Masked PPO training runs, with exact checkpoint / resume (what ``dice-env train`` runs).

* :mod:`.config` -- the committed configs (``configs/<name>.json``), ``--set`` overrides and
  the policy network a config names (``"policy"``: ``"mlp"`` or ``"structured"``,
  :mod:`agents.policies.structured`); ``stages.json`` holds the stages the committed models were
  trained in (:mod:`.stages`, ``dice-env train stages``);
* :mod:`.envs` -- the batched training env of a config (opponents, SB3 wrappers, shaping) and
  its MaskablePPO model;
* :mod:`.shaping` -- potential-based upper-bonus reward shaping;
* :mod:`.lean` -- the lean trainer (SB3's algorithm and network on flat tensors);
* :mod:`.profiling` -- where a lean iteration's time goes (``dice-env bench trainer
  --profile``);
* :mod:`.evaluation` -- the evaluation during training, as each game family names it (its
  ``ppo_evaluation`` hook: mean score, or win rate against ``eval.opponent``; optionally the
  exact regret);
* :mod:`.checkpoints` -- a run folder's files: ``checkpoint.pkl``, ``final.zip``, ``eval.csv``;
* :mod:`.runs` -- a run: evaluation and checkpoints on a schedule, its logs (``logs/``: SB3's
  CSV and TensorBoard), stopping, and the policy of a run folder's latest checkpoint;
* :mod:`.session` -- a ``dice-env train`` run from start to finish (resume, finish, export);
* :mod:`.stages` -- the stages of ``stages.json``, run in order.

The names below are the trainer's API (the scripts import them from here).
"""

from agents.training.ppo.checkpoints import (
    CHECKPOINT_NAME,
    FINAL_NAME,
    load_checkpoint,
    read_checkpoint,
    read_learning_curve,
    save_checkpoint,
    write_final_model,
    write_learning_curve,
)
from agents.training.ppo.config import (
    CONFIG_DIR,
    apply_overrides,
    load_config,
    rollout_size,
    whole_rollouts,
)
from agents.training.ppo.envs import build_sb3_model, make_batched_env, make_training_env
from agents.training.ppo.runs import (
    LeanRun,
    StopRequest,
    checkpoint_model,
    checkpoint_timesteps,
    evaluate_policy_score,
    make_callback,
    open_run_logger,
    record_evaluation,
    run_folder_agent,
)

__all__ = ["CHECKPOINT_NAME", "CONFIG_DIR", "FINAL_NAME", "LeanRun", "StopRequest",
           "apply_overrides", "build_sb3_model", "checkpoint_model", "checkpoint_timesteps",
           "evaluate_policy_score", "load_checkpoint", "load_config", "make_batched_env",
           "make_callback", "make_training_env", "open_run_logger", "read_checkpoint",
           "record_evaluation",
           "read_learning_curve", "rollout_size", "run_folder_agent", "save_checkpoint",
           "whole_rollouts", "write_final_model", "write_learning_curve"]
