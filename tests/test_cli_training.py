"""The training commands (dice-env train, train-stages, ablations, ppo-seeds, ppo-recipe-seeds,
learned-value-seeds, train-learned-value, plot-results): the installed command, one-line errors,
and the tables their studies write."""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need

ROOT = Path(__file__).resolve().parent.parent
DICE_ENV = str(Path(sys.executable).with_name("dice-env"))
TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "trainer": "lean", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "policy_kwargs": {"net_arch": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 2,
                "gamma": 1.0},
        "eval": {"every_timesteps": 256, "games": 20, "seed": 1},
        "checkpoint_every_timesteps": 256}


def test_installed_dice_env_train_prints_a_dice_env_resume_command(tmp_path):
    """`dice-env train penta ...`, the installed command, run outside the checkout: a tiny run
    stopped by its time budget prints `dice-env train ... --resume`, which finishes it."""
    need("sb3_contrib", "pip install -e '.[train]'")
    (tmp_path / "tiny.json").write_text(json.dumps(TINY))
    first = subprocess.run([DICE_ENV, "train", "penta", "--no-progress", "--threads", "1",
                            "--config", "tiny.json", "--timesteps", "256", "--max-minutes",
                            "0.000001"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300)
    assert first.returncode == 0, first.stderr
    line = next(x for x in first.stderr.splitlines() if "continue with: " in x)
    command = line.split("continue with: ", 1)[1]
    assert command == "dice-env train penta --seed 0 --run-dir runs/penta-seed0 --resume"
    resumed = subprocess.run([DICE_ENV, *shlex.split(command)[1:], "--no-progress",
                              "--threads", "1"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["timesteps"] == 256
    assert (tmp_path / "runs" / "penta-seed0" / "final.zip").exists()


BAD_ARGUMENTS = [
    ("report plots", ["--models", "/nonexistent"], "no learning curves"),
    ("report ppo-seeds", ["--eval-games", "1"], "at least 2"),
    ("report ppo-seeds", ["--games", "chess"], "invalid choice"),
    ("report recipe-seeds", ["--eval-games", "1"], "at least 2"),
    ("report recipe-seeds", ["--seeds", "-1"], "at least 0"),
    ("report learned-value-seeds", ["--seeds", "-1"], "at least 0"),
    ("report ablations", ["--variants", "nope"], "unknown variants"),
    ("report ablations", ["--seeds", "-1"], "argument --seeds: must be at least 0, got -1"),
    ("train stages", ["chess"], "argument game: no stages for 'chess'"),
    ("train stages", ["penta", "--seed", "-1"], "argument --seed: must be at least 0, got -1"),
    ("train stages", ["penta", "--variant", "nope"], "argument --variant: unknown variant 'nope'"),
    ("train stages", ["penta", "--variant", "fast-half-steps", "--steps-scale", "0.3"],
     "argument --steps-scale: the variant sets its own"),
    ("train stages", ["penta", "--variant", "fast", "--export"], "argument --export: a variant"),
    ("train learned-value", ["penta", "--seed", "-1"], "at least 0"),
    ("train learned-value", ["fivethousand", "--players", "7"], "argument --players"),
]


@pytest.mark.parametrize(("command", "args", "message"), BAD_ARGUMENTS)
def test_bad_arguments_are_one_line_errors(command, args, message, capsys):
    """Exit status 2 and one line naming the argument, never a traceback or a partial run."""
    from agents.cli import main

    assert main([*command.split(), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("script", ["plot_results.py", "ppo_recipe_seeds.py"])
def test_the_scripts_are_the_same_commands(script):
    """`python scripts/x.py` runs the command of that older name, its messages naming the
    command (`dice-env report plots`, `dice-env report recipe-seeds`)."""
    result = subprocess.run([sys.executable, f"scripts/{script}", "--eval-games", "1"]
                            if script != "plot_results.py" else
                            [sys.executable, f"scripts/{script}", "--models", "/nonexistent"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    command = {"plot_results.py": "report plots", "ppo_recipe_seeds.py": "report recipe-seeds"}
    assert result.stderr.startswith(f"dice-env {command[script]}: error: ")


def test_exports_of_committed_models_need_a_checkout(tmp_path, monkeypatch, capsys):
    """The documented runs that re-export a committed model write into the checkout's
    agents/models/; anywhere else they stop at once with one line (nothing trained)."""
    from agents.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["report", "recipe-seeds", "--export"]) == 2
    assert "argument --export: " in capsys.readouterr().err
    assert main(["train", "stages", "penta", "--export", "--dry-run"]) == 2
    assert "not a dice-env checkout" in capsys.readouterr().err
    assert main(["report", "learned-value-seeds", "--export"]) == 2
    assert not (tmp_path / "runs").exists() and not (tmp_path / "results").exists()
    monkeypatch.chdir(ROOT)
    assert main(["train", "stages", "penta", "--export", "--dry-run"]) == 0
    assert "--export agents/models/penta.zip" in capsys.readouterr().out


def test_learned_value_default_export_goes_to_the_user_models_folder(tmp_path, monkeypatch):
    from agents.paths import HOME_ENV_VAR
    from agents.training.learned_value.files import export_path

    monkeypatch.setenv(HOME_ENV_VAR, str(tmp_path))
    assert export_path("default", "learned-value-penta") == \
        tmp_path / "models" / "learned-value-penta.pt"
    assert export_path("x/y.pt", "learned-value-penta") == Path("x/y.pt")
    assert export_path(None, "learned-value-penta") is None


def test_ppo_seeds_table_marks_the_median_seed_not_the_best():
    from agents.evaluation.reports.seeds import ppo_seeds_markdown
    from agents.training.studies.ppo_seeds import CONFIGS, OVERRIDES

    rows = {"penta": [{"seed": s, "timesteps": 10, "gap": g, "ci": [g - 1, g + 1],
                       "unit": "points", "value": 254.6 - g, "train_seconds": 60.0,
                       "steps_per_second": 1.0} for s, g in [(0, 30.0), (1, 20.0), (2, 40.0)]]}
    configs = {g: (CONFIGS[g], OVERRIDES[g]) for g in CONFIGS}
    table = ppo_seeds_markdown(rows, "python scripts/ppo_seeds.py", 100, configs)
    marked = [line for line in table.splitlines() if line.endswith("✓ |")]
    assert len(marked) == 1 and marked[0].startswith("| penta | 0 |")
    assert "**30.00** (20.00 – 40.00)" in table


def test_ablations_keep_only_the_earlier_rows_that_are_still_valid(tmp_path):
    """A run of some variants keeps the earlier table's other rows only when they were run
    from the same base config, overrides, budget and seed; the order is that of VARIANTS."""
    from agents.evaluation.reports.ablations import ablations_markdown
    from agents.training.studies import ablations

    def row(name, **changes):
        return {"variant": name, "overrides": ablations.VARIANTS[name][1], "timesteps": 100,
                "seed": 0, "config_digest": "abc", **changes}

    earlier = [row("baseline"), row("no-shaping", config_digest="old"),
               row("epochs-2", timesteps=50), row("net-128", overrides=["x=1"]),
               row("lr-linear", seed=1), row("entropy-0.01"), row("gae-0.6", gap=1.0)]
    path = tmp_path / "ablations.json"
    path.write_text(json.dumps(earlier))
    merged = ablations.merge_earlier_rows([row("gae-0.6", gap=2.0)], path, "abc")
    assert [r["variant"] for r in merged] == ["baseline", "entropy-0.01", "gae-0.6"]
    assert merged[-1]["gap"] == 2.0  # this run's row, not the earlier one
    assert ablations.merge_earlier_rows([row("baseline")], tmp_path / "none.json", "abc") == \
        [row("baseline")]
    committed = json.loads((ROOT / "results" / "ablations.json").read_text())[:1]
    changes = {name: change for name, (change, _) in ablations.VARIANTS.items()}
    header = ablations_markdown("penta", committed, "python scripts/ablations.py penta",
                                changes, ablations.EVAL_GAMES, ["baseline"]).splitlines()[2]
    assert "rows of baseline are kept from an earlier run" in header


def test_ablations_list_every_training_seed_of_a_variant(tmp_path):
    """The 'every seed' column: every measured training seed of the variant with the same
    overrides, budget and base config, found in its run folders (not the evaluation seed)."""
    from agents.evaluation.reports.ablations import seeds_cell
    from agents.training.studies import ablations

    name = "structured-linear"
    for seed, gap, overrides in [(0, 16.0, None), (1, 22.0, None), (2, 20.0, None),
                                 (3, 1.0, ["x=1"])]:
        run = tmp_path / f"{name}-seed{seed}-abc"
        run.mkdir()
        (run / "ablation.json").write_text(json.dumps(
            {"variant": name, "overrides": overrides or ablations.VARIANTS[name][1],
             "timesteps": 100, "seed": seed, "eval_seed": 0, "gap": gap}))
    row = {"variant": name, "overrides": ablations.VARIANTS[name][1], "timesteps": 100,
           "config_digest": "abc", "seed": 0}
    gaps = ablations.seed_gaps(tmp_path, row)
    assert gaps == {"0": 16.0, "1": 22.0, "2": 20.0}
    assert seeds_cell(gaps) == "16.00 / 22.00 / 20.00 (mean 19.33, seeds 0, 1, 2)"
    assert seeds_cell({"0": 16.0}) == "—"


def test_plot_results_draws_the_committed_curves(tmp_path):
    """plot-results reads the curves next to the committed models (package data) and writes
    the figure into --results."""
    from agents.cli import run

    assert run("plot-results", ["--results", str(tmp_path)]) == 0
    assert (tmp_path / "learning_curves.png").stat().st_size > 0


def test_train_stages_trains_a_committed_variant_where_recipe_variants_finds_it(capsys):
    """--variant: the variant's overrides on every stage, its training seed, its run folders
    under runs/variants/NAME; --seed and --run-root still win."""
    from agents.cli import main

    assert main(["train", "stages", "penta", "--variant", "fast-2-epochs-2048", "--dry-run"]) == 0
    first, second = capsys.readouterr().out.strip().splitlines()[-2:]
    for line in (first, second):
        assert "--seed 0 --run-dir runs/variants/fast-2-epochs-2048/penta-stage" in line
        assert "--set ppo.n_epochs=2 --set ppo.batch_size=2048" in line
    assert "learning_rate_schedule" in second and "--timesteps 30015488" in second
    assert main(["train", "stages", "penta", "--variant", "fast-2-epochs-2048-seed-1",
                 "--dry-run"]) == 0
    assert "--seed 1 --run-dir runs/variants/fast-2-epochs-2048-seed-1/penta-seed1-stage1" \
        in capsys.readouterr().out
    assert main(["train", "stages", "penta", "--variant", "fast-half-steps", "--seed", "2",
                 "--run-root", "runs/mine", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "--seed 2 --run-dir runs/mine/penta-seed2-stage1 --timesteps 5079040" in out
