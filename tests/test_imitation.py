"""Imitation in the lean trainer (config ``"teacher"``): the policy learns the teacher's action
in each state its own rollouts meet, a diagnostic of how well the network can play, not a
model-free agent."""

import numpy as np
import pytest
from conftest import need, train_penta

need("sb3_contrib", "pip install -e '.[train]'")

TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "num_envs": 16,
        "total_timesteps": 4096, "reward_scale": 0.01, "trainer": "lean",
        "policy": "structured", "env_kwargs": {"observation": "bonus"},
        "policy_kwargs": {"state_hidden": [32], "action_hidden": [16], "value_hidden": [16]},
        "teacher": "optimal",
        "ppo": {"learning_rate": 0.003, "n_steps": 32, "batch_size": 128, "n_epochs": 4,
                "gamma": 1.0, "ent_coef": 0.0},
        "eval": {"every_timesteps": 4096, "games": 20, "seed": 1},
        "checkpoint_every_timesteps": 2048}


def _trainer(config, seed=0):
    from agents.training.ppo import make_batched_env
    from agents.training.ppo.lean import LeanTrainer

    return LeanTrainer(make_batched_env(config, seed), config, seed, config["total_timesteps"])


def test_the_labels_are_the_optimal_players_actions_in_the_policys_own_states():
    """Every state of a rollout is labelled with the optimal player's legal action, and the
    states are those the policy's sampled actions led to (DAgger's, not the teacher's)."""
    import agents

    trainer = _trainer(TINY)
    batch = trainer.collect()
    obs, mask = batch["obs"].numpy(), batch["mask"].numpy()
    labels = batch["label"].numpy()
    assert mask[np.arange(len(labels)), labels].all()
    optimal = agents.make("optimal", "penta")
    assert (labels == optimal.act_batch(obs, mask)).all()
    # the policy acts on its own: a fresh network disagrees with the optimum in most states
    assert (batch["action"].numpy() != labels).mean() > 0.5
    # the stored probability is the policy's of the teacher's action at collection time
    logp, _ = trainer._forward(batch["obs"], batch["mask"])
    np.testing.assert_allclose(batch["label_logp"].numpy(),
                               logp.gather(1, batch["label"][:, None]).squeeze(1)
                               .detach().numpy(), atol=1e-5)


def test_imitation_learns_the_teachers_moves():
    """The cross-entropy of the teacher's action falls and the policy's sampled actions agree
    with it more and more (logged as train/teacher_agreement)."""
    import torch

    torch.manual_seed(0)
    trainer = _trainer(TINY)
    first = trainer.train_iteration()
    for _ in range(6):
        last = trainer.train_iteration()
    assert last["policy_loss"] < 0.7 * first["policy_loss"]
    assert last["teacher_agreement"] > first["teacher_agreement"] + 0.1
    assert 0.0 <= last["teacher_agreement"] <= 1.0


def test_an_imitation_run_trains_resumes_exactly_and_exports(tmp_path):
    """Through ``dice-env train``: the run stops and resumes with the same numbers, and the
    export is an ordinary model that plays."""
    import json

    import gymnasium as gym

    import agents

    config = tmp_path / "imitate.json"
    config.write_text(json.dumps(TINY))
    whole = train_penta("--config", config, "--run-dir", tmp_path / "whole",
                        "--export", tmp_path / "whole.zip")
    train_penta("--config", config, "--run-dir", tmp_path / "split", "--timesteps", 2048)
    split = train_penta("--config", config, "--run-dir", tmp_path / "split", "--resume",
                        "--timesteps", 4096, "--export", tmp_path / "split.zip")
    assert whole["timesteps"] == split["timesteps"] == 4096
    a = (tmp_path / "whole" / "eval.csv").read_text().splitlines()[-1].split(",")[:3]
    b = (tmp_path / "split" / "eval.csv").read_text().splitlines()[-1].split(",")[:3]
    assert a == b
    player = agents.load(str(tmp_path / "split.zip"), "penta")
    env = gym.make("dice_env/Penta-v0", observation="bonus")
    obs, info = env.reset(seed=0)
    assert info["action_mask"][player.act(obs, info["action_mask"])]


@pytest.mark.parametrize("changes, message", [
    ({"teacher": "nobody"}, "teacher must be a player of the scorecard games .*got 'nobody'"),
    ({"trainer": "sb3", "ppo": {"n_steps": 32}}, "teacher needs the lean trainer"),
])
def test_a_teacher_that_is_no_player_or_on_sb3_is_refused(changes, message):
    from agents.training.ppo.config import check_config

    with pytest.raises(ValueError, match=message):
        check_config({**TINY, **changes})


def test_a_teacher_that_cannot_label_a_batch_is_refused(monkeypatch):
    """A player (a user's, say) with only ``act`` cannot label a rollout's states at once."""
    import agents.registry
    from agents.training.ppo.lean import make_teacher

    class OneAtATime:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    monkeypatch.setattr(agents.registry, "make", lambda name, game, **kw: OneAtATime())
    with pytest.raises(ValueError, match="teacher: player 'mine' cannot label a batch of "
                                         "states"):
        make_teacher({**TINY, "teacher": "mine"})
    assert make_teacher({k: v for k, v in TINY.items() if k != "teacher"}) is None
