"""Training: a stopped and resumed run equals an uninterrupted one, bit for bit."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need
from conftest import train_penta as train

need("sb3_contrib", "pip install -e '.[train]'")

ROOT = Path(__file__).resolve().parent.parent
TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "policy_kwargs": {"net_arch": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 2,
                "gamma": 1.0},
        "eval": {"every_timesteps": 256, "games": 20, "seed": 1},
        "checkpoint_every_timesteps": 256}


def test_resume_is_exact(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(TINY))
    a, b = tmp_path / "a", tmp_path / "b"
    full = train("--config", config, "--timesteps", 768, "--run-dir", a)
    train("--config", config, "--timesteps", 256, "--run-dir", b)   # "killed" after 256
    resumed = train("--config", config, "--timesteps", 768, "--run-dir", b, "--resume")
    assert full["timesteps"] == resumed["timesteps"] == 768
    pa = MaskablePPO.load(a / "final.zip").policy.state_dict()
    pb = MaskablePPO.load(b / "final.zip").policy.state_dict()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert (a / "eval.csv").read_text().splitlines()[1:] != []
    import agents  # a run folder plays its latest checkpoint's policy

    folder = agents.load(str(a), "penta").model.policy.state_dict()
    assert all(torch.equal(pa[k], folder[k]) for k in pa)
    rows_a = [r.split(",")[:2] for r in (a / "eval.csv").read_text().splitlines()]
    rows_b = [r.split(",")[:2] for r in (b / "eval.csv").read_text().splitlines()]
    assert rows_a == rows_b  # the same learning curve, no duplicated point


def test_resume_refuses_a_missing_or_corrupt_checkpoint(tmp_path):
    from agents.training.ppo import load_checkpoint

    with pytest.raises(ValueError, match="no checkpoint"):
        load_checkpoint(tmp_path)
    (tmp_path / "checkpoint.pkl").write_bytes(b"\x80\x05garbage")
    with pytest.raises(ValueError, match="unreadable"):
        load_checkpoint(tmp_path)


def test_ppo_agent_needs_a_model(tmp_path):
    from agents.policies.committed import PPOAgent

    with pytest.raises(FileNotFoundError, match="train"):
        PPOAgent("penta", model_path=tmp_path / "none.zip")


def test_resume_with_shaping_and_overrides_is_exact(tmp_path):
    """--set overrides (reward shaping among them) are kept by the checkpoint and a resumed
    shaped run equals an uninterrupted one."""
    import torch
    from sb3_contrib import MaskablePPO

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(TINY))
    a, b = tmp_path / "a", tmp_path / "b"
    sets = ["--set", "shaping.upper_bonus=1", "--set", "ppo.ent_coef=0.02"]
    train("--config", config, "--timesteps", 512, "--run-dir", a, *sets)
    train("--config", config, "--timesteps", 256, "--run-dir", b, *sets)
    train("--config", config, "--timesteps", 512, "--run-dir", b, "--resume")
    pa = MaskablePPO.load(a / "final.zip").policy.state_dict()
    pb = MaskablePPO.load(b / "final.zip").policy.state_dict()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert MaskablePPO.load(b / "final.zip").ent_coef == 0.02


def test_apply_overrides():
    from agents.training.ppo import apply_overrides

    config = {"ppo": {"ent_coef": 0.003}, "num_envs": 8}
    out = apply_overrides(config, ["ppo.ent_coef=0.01", "shaping.upper_bonus=1",
                                   'ppo.learning_rate_schedule="constant"', "name=plain"])
    assert out["ppo"] == {"ent_coef": 0.01, "learning_rate_schedule": "constant"}
    assert out["shaping"] == {"upper_bonus": 1} and out["name"] == "plain"
    assert config["ppo"]["ent_coef"] == 0.003  # the original is untouched
    with pytest.raises(ValueError, match="key=value"):
        apply_overrides(config, ["ppo.ent_coef"])
    with pytest.raises(ValueError, match="not a section"):
        apply_overrides(config, ["num_envs.x=1"])


def test_bonus_shaping_telescopes_to_a_constant():
    """With gamma = 1 the shaping of a whole game sums to -Phi(s0): the optimal policy is
    unchanged.  Played with the heuristic through the SB3 adapter."""
    import numpy as np

    import agents
    from agents.training.ppo.shaping import BonusShapingVecEnv, bonus_potential
    from dice_env.sb3 import make_sb3_vec_env
    from dice_env.scorecard.rules import get_rules

    rules = get_rules("penta")
    venv = make_sb3_vec_env("dice_env/Penta-v0", num_envs=16, seed=3)
    shaped = BonusShapingVecEnv(venv, rules, weight=1.0)
    bot = agents.make("greedy", "penta")
    obs = shaped.reset()
    phi0 = bonus_potential(rules, obs)
    true_sum, shaped_sum = np.zeros(16), np.zeros(16)
    finished = np.zeros(16, dtype=bool)
    while not finished.all():
        actions = bot.act_batch(obs, shaped.action_masks())
        obs, rewards, done, infos = shaped.step(actions)
        live = ~finished
        shaped_sum[live] += rewards[live]
        for k in np.flatnonzero(live & done):
            true_sum[k] = infos[k]["score"]["total"]
        finished |= done
    np.testing.assert_allclose(shaped_sum, true_sum - phi0, atol=1e-3)


#: the structured policy (agents/policies/structured), small, on the bonus observation
TINY_STRUCTURED = {"policy": "structured", "env_kwargs": {"observation": "bonus"},
                   "policy_kwargs": {"state_hidden": [16], "action_hidden": [8],
                                     "value_hidden": [16]}}


@pytest.mark.parametrize("policy", ["mlp", "structured"])
def test_lean_trainer_resume_is_exact_and_exports_an_sb3_model(tmp_path, policy):
    """The lean trainer (config "trainer": "lean"), shaped: stopped at 256 steps and resumed,
    it ends with the same weights and learning curve as an uninterrupted run, and its final
    model is a MaskablePPO zip that agents.load plays -- with SB3's MlpPolicy network or the
    structured policy."""
    import torch
    from sb3_contrib import MaskablePPO

    import agents
    from agents.evaluation import play_scorecard_games

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "trainer": "lean",
                                  **(TINY_STRUCTURED if policy == "structured" else {})}))
    a, b = tmp_path / "a", tmp_path / "b"
    sets = ["--set", "shaping.upper_bonus=1"]
    full = train("--config", config, "--timesteps", 768, "--run-dir", a, *sets)
    train("--config", config, "--timesteps", 256, "--run-dir", b, *sets)
    resumed = train("--config", config, "--timesteps", 768, "--run-dir", b, "--resume")
    assert full["timesteps"] == resumed["timesteps"] == 768
    pa = MaskablePPO.load(a / "final.zip").policy.state_dict()
    pb = MaskablePPO.load(b / "final.zip").policy.state_dict()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    rows_a = [r.split(",")[:2] for r in (a / "eval.csv").read_text().splitlines()]
    rows_b = [r.split(",")[:2] for r in (b / "eval.csv").read_text().splitlines()]
    assert rows_a == rows_b and len(rows_a) == 5  # header + 0, 256, 512, 768
    player = agents.load(str(a / "final.zip"), "penta")
    assert type(player.model.policy).__name__ == \
        {"mlp": "MaskableActorCriticPolicy", "structured": "StructuredMaskablePolicy"}[policy]
    assert play_scorecard_games(player, "penta", 4, seed=0).shape == (4,)
    # the run folder itself plays its latest checkpoint: here the same weights as final.zip
    folder = agents.load(str(b), "penta").model.policy.state_dict()
    assert all(torch.equal(pa[k], folder[k]) for k in pa)
    with pytest.raises(ValueError, match="cannot use the model"):
        agents.load(str(b), "dice-poker")


def test_lean_network_is_sb3_mlp_policy():
    """ActorCritic has MlpPolicy's parameter names and computes the same masked distribution
    and value, so copying its weights into a MaskablePPO model loses nothing."""
    import numpy as np
    import torch

    from agents.training.ppo import build_sb3_model
    from agents.training.ppo.lean import ActorCritic

    config = {**TINY, "policy_kwargs": {"net_arch": {"pi": [32, 16], "vf": [24]}}}
    model = build_sb3_model(config, seed=0, num_envs=1)
    net = ActorCritic(45, 45, [32, 16], [24])
    model.policy.load_state_dict(net.state_dict())  # strict: the same names and shapes
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.random((6, 45)), dtype=torch.float32)
    mask = torch.as_tensor(rng.random((6, 45)) < 0.5)
    mask[:, 0] = True
    logp, values = net(obs, mask)
    dist = model.policy.get_distribution(obs, action_masks=mask.numpy())
    np.testing.assert_allclose(dist.distribution.probs.detach().numpy(), logp.exp().detach(),
                               atol=1e-6)
    np.testing.assert_allclose(model.policy.predict_values(obs).squeeze(-1).detach(),
                               values.detach(), atol=1e-6)


def test_lean_trainer_learns_and_refuses_unknown_settings():
    """A short lean run on Penta raises the mean return well above random play's (~46)."""
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    from agents.training.ppo.lean import LeanTrainer

    config = {"reward_scale": 0.01, "policy_kwargs": {"net_arch": [64, 64]},
              "ppo": {"learning_rate": 0.001, "n_steps": 39, "batch_size": 1024, "n_epochs": 4,
                      "gamma": 1.0, "gae_lambda": 0.95, "ent_coef": 0.0, "clip_range": 0.2,
                      "vf_coef": 0.5, "max_grad_norm": 0.5}}
    venv = gym.make_vec("dice_env/Penta-v0", num_envs=128, vectorization_mode="vector_entry_point",
                        autoreset_mode=AutoresetMode.SAME_STEP)
    trainer = LeanTrainer(venv, config, seed=0, total_timesteps=200_000)
    first = None
    for _ in range(40):
        stats = trainer.train_iteration()
        first = stats["mean_return"] if first is None else first
    assert stats["mean_return"] > first + 30, (first, stats["mean_return"])
    with pytest.raises(ValueError, match="use_sde"):
        LeanTrainer(venv, {**config, "ppo": {**config["ppo"], "use_sde": True}}, 0, 1000)


def _tiny_config(tmp_path, **changes):
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, **changes}))
    return config


def _train_proc(*args, **kwargs):
    return subprocess.run([sys.executable, "scripts/train.py", "penta", "--no-progress",
                           "--threads", "1", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, **kwargs)


@pytest.mark.parametrize("trainer", ["sb3", "lean"])
def test_sigint_writes_a_checkpoint_and_exits_0(tmp_path, trainer):
    """A real SIGINT mid-run: the current update finishes, the checkpoint is written, the
    resume command is printed, exit status 0; the run keeps its total for --resume."""
    import signal
    import time

    from agents.training.ppo import read_checkpoint

    config = _tiny_config(tmp_path, trainer=trainer)
    run_dir = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "scripts/train.py", "penta", "--no-progress",
                             "--threads", "1", "--config", str(config), "--timesteps",
                             "100000001", "--run-dir", str(run_dir)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (run_dir / "eval.csv").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "--resume" in err, err
    state = read_checkpoint(run_dir)
    assert state["extra"]["total_timesteps"] == 100000256  # whole rollouts of 8 x 32 steps
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["stopped"] == "SIGINT" and 0 < summary["timesteps"] < 100000001
    assert not (run_dir / "final.zip").exists()  # only a finished run has a final model


def test_resume_keeps_the_total_it_was_started_with(tmp_path):
    config = _tiny_config(tmp_path)
    run_dir = tmp_path / "run"
    first = _train_proc("--config", config, "--timesteps", 500, "--run-dir", run_dir,
                        "--max-minutes", "0.000001", check=True)
    assert "whole rollouts of 256 steps: 500 requested, 512 to run" in first.stdout
    assert json.loads(first.stdout.strip().splitlines()[-1])["timesteps"] == 0
    resumed = _train_proc("--config", config, "--run-dir", run_dir, "--resume", check=True)
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["timesteps"] == 512  # not 768


def _train_in_process(capsys, *args) -> tuple[int, str]:
    """``dice-env train penta ARGS`` in this process: its exit status and its stderr."""
    from agents.cli import run

    capsys.readouterr()
    try:
        status = run("train", ["penta", "--no-progress", "--threads", "1", *map(str, args)])
    except SystemExit as exc:  # argparse's errors
        status = exc.code
    return status, capsys.readouterr().err


def test_bad_arguments_and_checkpoints_are_one_line_errors(tmp_path, capsys):
    """Exit status 2, a message naming the problem and the fix, no traceback, nothing created.
    The script itself runs once (an unknown game); the argument errors run in this process,
    which shows the same message without starting Python and torch for each."""
    run_dir = tmp_path / "nothing"
    result = subprocess.run([sys.executable, "scripts/train.py", "bogus", "--run-dir",
                             str(run_dir)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "no training config" in result.stderr
    assert not run_dir.exists()
    for args, expected in [(["--run-dir", run_dir, "--resume"], "no checkpoint"),
                           (["--run-dir", run_dir, "--timesteps", "0"],
                            "argument --timesteps: must be at least 1"),
                           (["--run-dir", run_dir, "--set", "ppo.x"], "key=value"),
                           (["--run-dir", run_dir, "--set", "ppo.learning_rate=abc"],
                            "argument --set: ppo.learning_rate must be a positive number, got "
                            "'abc'"),
                           (["--run-dir", run_dir, "--set", "ppo.n_steps=-4"],
                            "argument --set: ppo.n_steps must be an integer of at least 1, got "
                            "-4"),
                           (["--run-dir", run_dir, "--seed", "-1"],
                            "argument --seed: must be at least 0, got -1")]:
        status, err = _train_in_process(capsys, *args)
        assert status == 2, err
        assert len(err.strip().splitlines()) == 1, err
        assert expected in err
        assert not run_dir.exists()
    # a truncated and a byte-flipped checkpoint
    config = _tiny_config(tmp_path)
    good = tmp_path / "good"
    _train_proc("--config", config, "--timesteps", 256, "--run-dir", good, check=True)
    data = (good / "checkpoint.pkl").read_bytes()
    for name, damaged in [("truncated", data[: len(data) // 2]),
                          ("flipped", data[:-5000] + bytes([data[-5000] ^ 0xFF]) + data[-4999:])]:
        bad = tmp_path / name
        bad.mkdir()
        (bad / "checkpoint.pkl").write_bytes(damaged)
        result = _train_proc("--config", config, "--run-dir", bad, "--resume")
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr
        assert "damaged" in result.stderr and str(bad / "checkpoint.pkl") in result.stderr


def test_ppo_agent_names_a_config_that_exists(tmp_path):
    import agents

    with pytest.raises(FileNotFoundError, match="no training config for 'yahtzee-free-joker'"):
        agents.make("ppo", "yahtzee-free-joker")


def test_lean_init_from_continues_an_exported_model(tmp_path):
    """``--init-from`` with the lean trainer starts from an exported model's weights, keeps
    counting its steps and extends its learning curve; a model of another shape is refused
    with a one-line error."""
    import torch
    from sb3_contrib import MaskablePPO

    config = _tiny_config(tmp_path, trainer="lean")
    first = tmp_path / "first.zip"
    train("--config", config, "--timesteps", 512, "--run-dir", tmp_path / "a", "--export", first)
    run_dir = tmp_path / "b"
    # zero further steps: the run ends at once and exports the weights it started from
    same = train("--config", config, "--timesteps", 512, "--run-dir", run_dir,
                 "--init-from", first)
    assert same["timesteps"] == 512
    pa = MaskablePPO.load(first).policy.state_dict()
    pb = MaskablePPO.load(run_dir / "final.zip").policy.state_dict()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert [r.split(",")[0] for r in (run_dir / "eval.csv").read_text().splitlines()[1:]] == \
        ["0", "256", "512"]  # first.eval.csv, exported beside first.zip
    more = train("--config", config, "--timesteps", 1024, "--run-dir", tmp_path / "c",
                 "--init-from", tmp_path / "a" / "final.zip")  # the run folder's eval.csv
    assert more["timesteps"] == 1024
    steps = [int(r.split(",")[0]) for r in (tmp_path / "c" / "eval.csv").read_text()
             .splitlines()[1:]]
    assert steps == [0, 256, 512, 768, 1024]  # the first model's curve, continued
    wide = _tiny_config(tmp_path, trainer="lean", policy_kwargs={"net_arch": [32]})
    result = _train_proc("--config", wide, "--timesteps", 1024, "--run-dir", tmp_path / "d",
                         "--init-from", first)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "does not fit" in result.stderr


def test_linear_learning_rate_decays_over_the_runs_own_steps():
    """A linear schedule decays from the run's first step to its total: from 0 for a new run,
    from the model's step count for a run continuing it (``--init-from``)."""
    from agents.training.ppo import make_batched_env
    from agents.training.ppo.lean import LeanTrainer

    config = {**TINY, "trainer": "lean",
              "ppo": {**TINY["ppo"], "learning_rate_schedule": "linear"}}
    trainer = LeanTrainer(make_batched_env(config, 0), config, 0, 1000)
    assert trainer.learning_rate() == pytest.approx(0.001)
    trainer.num_timesteps = 500
    assert trainer.learning_rate() == pytest.approx(0.0005)
    trainer.start_timesteps = 500  # a continuation that starts here
    assert trainer.learning_rate() == pytest.approx(0.001)
    trainer.num_timesteps = 750
    assert trainer.learning_rate() == pytest.approx(0.0005)
    trainer.num_timesteps = 1000
    assert trainer.learning_rate() == 0.0


def test_train_stages_chains_init_from_and_resumes(tmp_path):
    """dice-env train-stages: each stage starts from the last one's final model, carries its
    --set overrides, ends at its total; a finished stage is skipped on a second call, a
    stopped one resumed."""
    from agents.cli import train as train_cli
    from agents.cli import train_stages
    from agents.training.ppo.stages import load_stages, stage_args

    config = _tiny_config(tmp_path, trainer="lean")
    stages = tmp_path / "stages.json"
    stages.write_text(json.dumps({"penta": [
        {"timesteps": 256, "config": str(config)},
        {"timesteps": 512, "config": str(config), "set": {"ppo.gae_lambda": 0.6}}]}))
    root = tmp_path / "runs"
    common = ["penta", "--stages", str(stages), "--run-root", str(root)]
    # stage 1 cut short (a deadline inside train_stages could pass before it)
    stage1 = stage_args("penta", load_stages(stages)["penta"], 1, root)
    stopped = train_cli.main(stage1 + ["--no-progress", "--max-minutes", "0.000001"])
    assert stopped["stopped"] and stopped["timesteps"] < 256
    assert not (root / "penta-stage1" / "final.zip").exists()  # so the next call resumes it
    summaries = train_stages.main(common)
    assert [s["timesteps"] for s in summaries] == [256, 512]
    from agents.training.ppo import read_checkpoint

    second = read_checkpoint(root / "penta-stage2")["extra"]
    assert second["init_from"] == str(root / "penta-stage1" / "final.zip")
    assert second["config"]["ppo"]["gae_lambda"] == 0.6
    assert train_stages.main(common) == []  # both done
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"penta": [{"timesteps": 512}, {"timesteps": 256}]}))
    out = subprocess.run([sys.executable, "scripts/train_stages.py", "penta", "--stages",
                          str(bad)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and "not after the stage before it" in out.stderr
    committed = load_stages()  # the committed chains are well-formed
    assert {"penta", "dice-poker"} <= set(committed)
    seed1 = stage_args("penta", committed["penta"], 2, root, seed=1)
    assert seed1[:2] == ["penta", "--seed"] and seed1[2] == "1"
    assert str(root / "penta-seed1-stage2") in seed1
    assert str(root / "penta-seed1-stage1" / "final.zip") in seed1
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps({"penta": [{"timesteps": 512, "config": "no/such.json"}]}))
    with pytest.raises(ValueError, match="no/such.json, which is no file"):
        load_stages(missing)


def test_ppo_recipe_seeds_trains_measures_and_commits_the_median_seed(tmp_path, monkeypatch,
                                                                       capsys):
    """dice-env ppo-recipe-seeds: every seed runs the recipe's stages, is measured by its
    exact gap (once: the measurement is kept with the model), and --export copies the median
    seed's model and curve, never the best; a game with an unfinished seed is not exported."""
    from agents.cli import ppo_recipe_seeds
    from agents.evaluation.reports.seeds import median_row
    from agents.training.studies import ppo_recipe

    config = _tiny_config(tmp_path, trainer="lean")
    stages = tmp_path / "stages.json"
    stages.write_text(json.dumps({"penta": [{"timesteps": 256, "config": str(config)}]}))
    common = ["--games", "penta", "--eval-games", "4", "--stages", str(stages),
              "--run-root", str(tmp_path / "runs")]
    rows = ppo_recipe_seeds.main([*common, "--seeds", "0", "1", "2", "--export",
                                  "--out", str(tmp_path / "out")])["penta"]
    assert [r["seed"] for r in rows] == [0, 1, 2] and len({r["gap"] for r in rows}) == 3
    median = median_row(rows)["seed"]
    assert sorted(rows, key=lambda r: r["gap"])[1]["seed"] == median
    final = tmp_path / "runs" / ("penta-stage1" if median == 0 else f"penta-seed{median}-stage1")
    models = tmp_path / "out" / "models"
    assert (models / "penta.zip").read_bytes() == (final / "final.zip").read_bytes()
    assert (models / "penta.eval.csv").read_bytes() == (final / "eval.csv").read_bytes()
    table = (tmp_path / "out" / "ppo_recipe_seeds.md").read_text()
    marked = [line for line in table.splitlines() if line.endswith("✓ |")]
    assert len(marked) == 1 and marked[0].startswith(f"| penta | {median} | 256 |")

    def no_measuring(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(ppo_recipe, "measure_agent", no_measuring)
    last = ppo_recipe.curve_rows(final / "eval.csv")[-1]
    cpu = {r["seed"]: r["train_cpu_seconds"] for r in rows}
    assert cpu[median] == float(last["train_cpu_seconds"]) >= 0
    cache = final / ppo_recipe.MEASURE_FILE  # one kept before the CPU time was: added, unmeasured
    cache.write_text(json.dumps({k: v for k, v in json.loads(cache.read_text()).items()
                                 if k != "train_cpu_seconds"}))
    again = ppo_recipe_seeds.main([*common, "--seeds", "0", "1", "2", "--no-train",
                                   "--out", str(tmp_path / "again")])["penta"]
    assert again == rows
    assert json.loads(cache.read_text())["train_cpu_seconds"] == cpu[median]
    capsys.readouterr()
    ppo_recipe_seeds.main([*common, "--seeds", "0", "5", "--no-train", "--export",
                           "--out", str(tmp_path / "partial")])
    assert "not finished" in (err := capsys.readouterr().err) and "penta seed 5" in err
    table = (tmp_path / "partial" / "ppo_recipe_seeds.md").read_text()
    assert "| penta | 0 |" in table and "| penta | 5 |" not in table
    assert not (tmp_path / "partial" / "models").exists()


def test_ppo_recipe_seeds_keeps_finished_seeds_for_later_sessions(tmp_path, monkeypatch):
    """A finished seed is kept (model, curve, measurement) outside the run folders, so a later
    session whose runs/ is gone still measures and exports it without measuring again; rows of
    the table measured under another recipe with the same steps are never taken for this
    one's."""
    import shutil

    from agents.cli import ppo_recipe_seeds
    from agents.training.studies import ppo_recipe

    config = _tiny_config(tmp_path, trainer="lean")
    stages = tmp_path / "stages.json"
    stages.write_text(json.dumps({"penta": [{"timesteps": 256, "config": str(config)}]}))
    kept = tmp_path / "kept"
    common = ["--games", "penta", "--eval-games", "4", "--stages", str(stages),
              "--run-root", str(tmp_path / "runs"), "--keep", str(kept)]
    rows = ppo_recipe_seeds.main([*common, "--seeds", "0", "1", "--out",
                                  str(tmp_path / "out")])["penta"]
    recipe = ppo_recipe.recipe_digest(json.loads(stages.read_text())["penta"])
    for seed in (0, 1):
        folder = kept / f"penta-seed{seed}-{recipe}"
        assert {p.name for p in folder.iterdir()} == {"final.zip", "eval.csv",
                                                       "recipe_seed.json"}
    shutil.rmtree(tmp_path / "runs")  # the next session: no run folders

    def no_measuring(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(ppo_recipe, "measure_agent", no_measuring)
    again = ppo_recipe_seeds.main([*common, "--seeds", "0", "1", "--no-train", "--export",
                                   "--out", str(tmp_path / "again")])["penta"]
    assert again == rows and all(r["recipe"] == rows[0]["recipe"] for r in again)
    exported = (tmp_path / "again" / "models" / "penta.zip").read_bytes()
    assert exported in {(kept / f"penta-seed{s}-{recipe}" / "final.zip").read_bytes()
                        for s in (0, 1)}

    # the table's rows of this recipe are taken; under a changed recipe (same steps) they are not
    table = tmp_path / "again" / "ppo_recipe_seeds.json"
    recipe = json.loads(stages.read_text())
    assert set(ppo_recipe.earlier_rows(table, recipe, 4)["penta"]) == {0, 1}
    recipe["penta"][0]["set"] = {"ppo.n_epochs": 2}
    assert ppo_recipe.earlier_rows(table, recipe, 4) == {}


def test_torch_threads_stay_set_after_numba_starts_its_threads():
    """set_torch_threads(1) survives numba's OpenMP layer starting later (the kernels of the
    5000 optimal opponents, at the training env's reset), which a plain
    torch.set_num_threads(1) does not on a machine of several cores.  Fresh processes: this one
    may have started numba's threads already."""
    import os

    def threads_after_reset(setting: str) -> int:
        code = ("import json, torch\n"
                f"{setting}(1)\n"
                "torch.get_num_threads()\n"  # torch's pool starts first, as in training
                "from agents.training.ppo.envs import make_batched_env\n"
                "config = json.load(open('agents/training/ppo/configs/"
                "fivethousand-structured.json'))\n"
                "make_batched_env({**config, 'num_envs': 64}, seed=0).reset(seed=0)\n"
                "print(torch.get_num_threads())\n")
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return int(out.stdout.split()[-1])

    helper = "from agents.training.threads import set_torch_threads\nset_torch_threads"
    assert threads_after_reset(helper) == 1
    if (os.cpu_count() or 1) > 1:  # the trap the helper avoids
        assert threads_after_reset("torch.set_num_threads") > 1
    from agents.training.threads import set_torch_threads

    with pytest.raises(ValueError, match="at least 1"):
        set_torch_threads(0)


def test_a_game_without_a_config_file_of_its_own_resumes(tmp_path):
    """yahtzee-official trains from yahtzee-official-structured.json (it has no
    yahtzee-official.json): its stopped run resumes from the checkpoint's config."""
    from agents.cli import train as train_cli

    config = _tiny_config(tmp_path, trainer="lean", env_id="dice_env/YahtzeeOfficial-v0")
    run_dir = tmp_path / "run"
    stopped = train_cli.main(["yahtzee-official", "--config", str(config), "--run-dir",
                              str(run_dir), "--timesteps", "512", "--no-progress",
                              "--max-minutes", "0.000001"])
    assert stopped["stopped"] and stopped["timesteps"] < 512
    resumed = train_cli.main(["yahtzee-official", "--run-dir", str(run_dir), "--resume",
                              "--no-progress"])
    assert resumed["timesteps"] == 512


def test_train_stages_set_trains_a_variant_of_the_recipe(tmp_path, capsys):
    """--set joins every stage's overrides (and wins over a stage's own key), is checked before any
    stage starts, and a variant is never exported over the committed model."""
    from agents.cli import train_stages
    from agents.training.ppo.stages import with_overrides

    stages = [{"timesteps": 1, "config": "penta-structured"},
              {"timesteps": 2, "set": {"ppo.gae_lambda": 0.6, "ppo.ent_coef": 0.01}}]
    varied = with_overrides(stages, ["ppo.gae_lambda=0.9", "policy_kwargs.x=abc"])
    assert varied[0]["set"] == {"ppo.gae_lambda": 0.9, "policy_kwargs.x": "abc"}
    assert varied[1]["set"] == {"ppo.gae_lambda": 0.9, "policy_kwargs.x": "abc",
                                "ppo.ent_coef": 0.01}
    assert with_overrides(stages, []) == stages
    root = tmp_path / "variant"
    train_stages.main(["penta", "--set", "policy_kwargs.reroll_features=false", "--run-root",
                       str(root), "--dry-run"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and all("--set policy_kwargs.reroll_features=false" in line
                                   for line in lines)
    for argv, message in ((["--set", "policy_kwargs.reroll_feature=false"], "reroll_feature"),
                          (["--set", "novalue"], "key=value"),
                          (["--set", "ppo.n_epochs=2", "--export"], "never exported")):
        with pytest.raises(SystemExit) as stop:
            train_stages.main(["penta", "--run-root", str(root), "--dry-run", *argv])
        assert stop.value.code == 2 and message in capsys.readouterr().err
