"""The lean trainer's settings beyond SB3's PPO: value normalisation (ppo.normalize_value),
the auxiliary value head on the policy's embedding (ppo.aux_value_coef) and the entropy
coefficient's schedule (ppo.ent_coef_schedule)."""

import json

import numpy as np
import pytest
from conftest import need, train_penta

need("sb3_contrib", "pip install -e '.[train]'")

TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "trainer": "lean",
        "policy": "structured", "env_kwargs": {"observation": "bonus"},
        "policy_kwargs": {"state_hidden": [16], "action_hidden": [8], "value_hidden": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 2,
                "gamma": 1.0, "normalize_value": True, "aux_value_coef": 0.5},
        "eval": {"every_timesteps": 256, "games": 20, "seed": 1},
        "checkpoint_every_timesteps": 256}


def test_the_normaliser_keeps_running_statistics_and_the_heads_outputs():
    """Its mean and variance are those of every return merged so far; each update rescales
    the head so that its outputs in return units do not move; folded into the head, the
    statistics give the same values in return units."""
    import torch
    from torch import nn

    from agents.training.ppo.value_norm import ValueNormalizer

    torch.manual_seed(0)
    head = nn.Linear(5, 1)
    x = torch.randn(7, 5)
    norm = ValueNormalizer()
    seen = []
    for scale, shift in ((2.0, 1.0), (0.5, -3.0), (10.0, 4.0)):
        returns = torch.randn(100) * scale + shift
        seen.append(returns)
        before = norm.denormalize(head(x)).detach()
        norm.update(returns, head)
        after = norm.denormalize(head(x)).detach()
        torch.testing.assert_close(after, before, rtol=1e-5, atol=1e-5)
    everything = torch.cat(seen).double()
    assert norm.mean == pytest.approx(float(everything.mean()), abs=1e-9)
    assert norm.var == pytest.approx(float(everything.var(unbiased=False)), rel=1e-9)
    assert norm.count == 300
    torch.testing.assert_close(norm.normalize(norm.denormalize(x)), x)
    folded = nn.Linear(5, 1)
    folded.load_state_dict(norm.folded(head.state_dict(), prefix=""))
    torch.testing.assert_close(folded(x), norm.denormalize(head(x)), rtol=1e-5, atol=1e-5)
    again = ValueNormalizer.from_state(json.loads(json.dumps(norm.state())))
    assert again.state() == norm.state()


def _trainer(config, seed=0):
    from agents.training.ppo import make_batched_env
    from agents.training.ppo.lean import LeanTrainer

    return LeanTrainer(make_batched_env(config, seed), config, seed, config["total_timesteps"])


def test_the_exported_value_is_in_return_units_and_the_aux_head_is_not_exported():
    """After updates that moved the statistics, the MaskablePPO model made from the trainer's
    export gives the values the trainer uses in its rollouts (return units), and the same
    action probabilities; the auxiliary head trains (its loss is logged) and stays out of the
    export."""
    import torch

    from agents.training.ppo import build_sb3_model

    trainer = _trainer(TINY)
    for _ in range(2):
        stats = trainer.train_iteration()
    assert stats["aux_value_loss"] > 0 and np.isfinite(stats["aux_value_loss"])
    assert trainer.value_norm.count == 2 * 32 * 8 and trainer.value_norm.std != 1.0
    model = build_sb3_model(TINY, seed=0, num_envs=1)
    model.policy.load_state_dict(trainer.policy_state_dict())  # strict: no aux head
    obs, mask = torch.from_numpy(trainer.obs), torch.from_numpy(trainer.mask)
    with torch.no_grad():
        logp, values = trainer.net(obs, mask)
        exported = model.policy.predict_values(obs).squeeze(-1)
        probs = model.policy.get_distribution(obs, action_masks=mask.numpy()).distribution.probs
    torch.testing.assert_close(exported, trainer._values(values), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(probs, logp.exp(), rtol=1e-5, atol=1e-6)
    plain = _trainer({**TINY, "ppo": {**TINY["ppo"], "normalize_value": False,
                                      "aux_value_coef": 0.0}})
    assert "aux_value_loss" not in plain.train_iteration()
    assert plain.value_norm is None and plain.aux_head is None


def test_a_resumed_run_with_both_settings_is_exact(tmp_path):
    """Stopped at 256 steps and resumed, a run with value normalisation and the auxiliary
    head ends with the same exported weights as one that never stopped: the statistics and
    the auxiliary head are in the checkpoint."""
    import torch
    from sb3_contrib import MaskablePPO

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(TINY))
    a, b = tmp_path / "a", tmp_path / "b"
    train_penta("--config", config, "--timesteps", 768, "--run-dir", a)
    train_penta("--config", config, "--timesteps", 256, "--run-dir", b)
    train_penta("--config", config, "--timesteps", 768, "--run-dir", b, "--resume")
    pa = MaskablePPO.load(a / "final.zip").policy.state_dict()
    pb = MaskablePPO.load(b / "final.zip").policy.state_dict()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)


@pytest.mark.parametrize("compiled", [False, True])
def test_the_entropy_coefficient_follows_the_learning_rate_when_asked(compiled):
    """With ppo.ent_coef_schedule "learning-rate" the entropy coefficient is scaled as the
    learning rate is: constant under the constant schedule, decaying to 0 with the linear one
    (compiled too: the coefficient goes in as a tensor); the default keeps it constant."""
    config = {**TINY, "ppo": {**TINY["ppo"], "normalize_value": False, "aux_value_coef": 0.0,
                              "ent_coef": 0.01, "learning_rate_schedule": "linear",
                              "ent_coef_schedule": "learning-rate"},
              "lean": {"compile": compiled}}
    trainer = _trainer(config)
    assert trainer.entropy_coefficient() == pytest.approx(0.01)
    coefs = []
    while trainer.num_timesteps < config["total_timesteps"]:
        coefs.append(trainer.entropy_coefficient())
        assert coefs[-1] == pytest.approx(0.01 * trainer.learning_rate() / 0.001)
        stats = trainer.train_iteration()
        assert np.isfinite(stats["loss"])
    assert coefs[0] > coefs[-1] > 0 and trainer.entropy_coefficient() == 0.0
    constant = _trainer({**config, "ppo": {**config["ppo"], "learning_rate_schedule": "constant"}})
    constant.train_iteration()
    assert constant.entropy_coefficient() == pytest.approx(0.01)
    default = _trainer({**config, "ppo": {k: v for k, v in config["ppo"].items()
                                          if k != "ent_coef_schedule"}})
    default.train_iteration()
    assert default.entropy_coefficient() == 0.01


def test_the_sb3_trainer_refuses_them_by_name():
    from agents.training.ppo.config import check_config

    for name, value in (("normalize_value", True), ("aux_value_coef", 0.5),
                        ("ent_coef_schedule", "learning-rate")):
        config = {**TINY, "trainer": "sb3", "ppo": {"n_steps": 32, name: value}}
        with pytest.raises(ValueError, match=f"ppo.{name} needs the lean trainer"):
            check_config(config)
    check_config({**TINY, "trainer": "sb3", "ppo": {"n_steps": 32, "normalize_value": False}})
    check_config(TINY)
    with pytest.raises(ValueError, match="ppo.aux_value_coef must be a number of at least 0"):
        check_config({**TINY, "ppo": {**TINY["ppo"], "aux_value_coef": -1}})
    with pytest.raises(ValueError, match="ppo.ent_coef_schedule"):
        check_config({**TINY, "ppo": {**TINY["ppo"], "ent_coef_schedule": "cosine"}})
