"""What a new user met on a fresh clone: bad ids refused, help that names every --agent form,
calm notes for models that are not there, truthful solve and timing reports, and benchmark
tables that embed only images that exist."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))


def run_script(script, *args, check=True):
    return subprocess.run([sys.executable, f"scripts/{script}", *args], cwd=ROOT,
                          capture_output=True, text=True, check=check, timeout=300)


# -- bench_env.py ------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["--ids", "dice_env/Pentaa-v0"],
                                  ["--ids", "dice_env/Penta-v0", "NoSuchEnv-v9"]])
def test_bench_env_refuses_an_unknown_id(args):
    result = run_script("bench_env.py", *args, "--repeats", "1", check=False)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("bench_env.py: error: --ids: unknown env id")
    assert repr(args[-1]) in error
    assert "dice_env/Penta-v0" in error and "CartPole-v1" in error  # the known ids


def test_bench_env_aec_names_are_plain_and_the_results_keys_unchanged():
    import bench_env

    assert all(re.fullmatch(r"[a-z0-9-]+", name) for name in bench_env.AEC_ENVS)
    committed = json.loads((ROOT / "results" / "env_speed.json").read_text())["aec"]
    assert [label for label, _, _ in bench_env.AEC_ENVS.values()] == list(committed)
    result = run_script("bench_env.py", "--aec", "penta (2 players)", check=False)
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_bench_env_measures_an_aec_env_by_its_plain_name(tmp_path):
    out = run_script("bench_env.py", "--ids", "--aec", "fivethousand-2p", "--sizes", "8",
                     "--steps", "16", "--single-steps", "50", "--repeats", "1",
                     "--out", str(tmp_path)).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert list(result["aec"]) == ["five_thousand_v0 (2 players)"]
    assert result["aec"]["five_thousand_v0 (2 players)"]["single"] > 0
    assert "`five_thousand_v0 (2 players)`" in (tmp_path / "env_speed.md").read_text()


# -- evaluate.py -------------------------------------------------------------------------------

def test_evaluate_help_names_a_training_run_folder():
    text = " ".join(run_script("evaluate.py", "--help").stdout.split())
    assert "--agent SPEC" in text
    assert "scripts/train.py run folder (the policy of its latest checkpoint" in text
    assert "model zip" in text and "module:attr" in text and "registered name" in text


def test_missing_models_are_one_calm_note(monkeypatch, capsys):
    import evaluate

    def make(name, game, seed=None):
        raise FileNotFoundError(f"no trained model for {name} on {game}; train one with ...")

    monkeypatch.setattr(evaluate.agents, "make", make)
    monkeypatch.setattr(evaluate, "MISSING_MODELS", [])
    assert evaluate.try_make("ppo", "yahtzee-official", 0) is None
    assert evaluate.try_make("learned-value", "yahtzee-official", 0) is None
    assert evaluate.try_make("ppo", "yahtzee-official", 0) is None  # once per pair
    assert evaluate.try_make("ppo", "dice-poker", 0) is None
    assert capsys.readouterr().out == ""  # nothing that reads like an error
    note = evaluate.missing_models_note(evaluate.MISSING_MODELS)
    assert "\n" not in note and "train one" not in note
    assert note.endswith("ppo, learned-value on yahtzee-official; ppo on dice-poker")
    assert evaluate.missing_models_note([]) is None


def test_evaluate_run_prints_the_note_not_skipping_lines(tmp_path, monkeypatch, capsys):
    import evaluate

    real_make = evaluate.agents.make

    def make(name, game, seed=None):
        if name == "ppo":
            raise FileNotFoundError("no trained model at somewhere.zip; train one with ...")
        return real_make(name, game, seed=seed)

    monkeypatch.setattr(evaluate.agents, "make", make)
    evaluate.main(["--games", "20", "--scorecard-games", "penta", "--agents", "random", "ppo",
                   "--fivethousand-agents", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "skipping" not in out and "train one" not in out
    notes = [line for line in out.splitlines() if line.startswith("no trained model")]
    assert notes == [evaluate.missing_models_note([("ppo", "penta")])]


def test_benchmark_md_embeds_only_images_that_are_there(tmp_path):
    import evaluate

    results = ROOT / "results"
    assert evaluate.learning_curves_link(results) == "learning_curves.png"  # committed file
    assert evaluate.learning_curves_link(results / "quick") == "../learning_curves.png"
    assert evaluate.learning_curves_link(tmp_path) is None  # outside the repository
    assert evaluate.learning_curves_link(results / "quick", tmp_path / "r" / "none.png") is None
    for out in [results, results / "quick", ROOT / "runs" / "evaluate"]:
        md = evaluate.to_markdown([], "cmd", {}, evaluate.learning_curves_link(out))
        images = re.findall(r"!\[[^]]*\]\(([^)]+)\)", md)
        assert len(images) == 2
        assert all((out / image).resolve().is_file() for image in images
                   if image != "score_distributions.png")  # that one is written by the run
    md = evaluate.to_markdown([], "cmd", {}, None)
    assert "learning_curves" not in md and "![score distributions]" in md


def test_committed_benchmark_md_is_unchanged_by_the_link():
    import evaluate

    head = (ROOT / "results" / "benchmark.md").read_text().split("\n## ")[0]
    command = re.search(r"Generated by `([^`]+)`", head).group(1)
    new = evaluate.to_markdown([], command, {}, evaluate.learning_curves_link(ROOT / "results"))
    assert new.rstrip() == head.rstrip()


# -- solve.py ----------------------------------------------------------------------------------

def _record(**changes):
    return {"game": "penta", "expected_score": 254.484846, "seconds": 0.05, "peak_mb": 190.0,
            "cache_path": "/c/scorecard-penta.table", "threads": 2, **changes}


def test_solve_says_whether_it_solved_now_or_loaded_an_earlier_solve(tmp_path):
    import solve

    cached = solve.describe(_record(source="cache", solved_seconds=6.1,
                                    solved_at="2025-01-02 13:45"))
    assert "not solved in this run" in cached
    assert "solved earlier (on 2025-01-02 13:45, in 6.10 s" in cached
    assert "solved now" not in cached
    solved = solve.describe(_record(source="solved", seconds=6.2, prepare_seconds=0.1,
                                    compile_seconds=5.7, dp_seconds=0.4, states=536_320))
    assert "solved now, in 6.20 s" in solved and "cache" not in solved.splitlines()[1]
    table = tmp_path / "t.table"
    table.write_bytes(b"x")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", solve.solved_at([str(table)]))
    assert solve.solved_at([str(tmp_path / "missing.table")]) is None


def test_solve_json_of_a_cached_table_says_when_it_was_solved(tmp_path):
    first = json.loads(run_script("solve.py", "penta", "--json", "--quiet", "--cache-dir",
                                  str(tmp_path)).stdout)
    assert first["source"] == "solved" and "solved_at" not in first
    second = run_script("solve.py", "penta", "--quiet", "--cache-dir", str(tmp_path)).stdout
    assert "not solved in this run" in second and "solved earlier (on " in second


# -- train_rllib.py ----------------------------------------------------------------------------

def _rows(*iterations):
    """Rows of train_rllib's loop from ``(env steps, seconds)`` of each iteration."""
    rows, total = [], 0
    for steps, seconds in iterations:
        total += steps
        rows.append({"iteration": len(rows) + 1, "env_steps": total, "seconds": seconds})
    return rows


def test_rllib_throughput_excludes_the_warm_up_unless_it_is_all_there_is():
    import train_rllib

    assert train_rllib.throughput(_rows((1000, 9.0), (1000, 1.0), (1000, 1.0))) == {
        "steps_per_s": 1000.0, "timed_iterations": 2, "warmup_included": False}
    assert train_rllib.throughput(_rows((1000, 4.0))) == {
        "steps_per_s": 250.0, "timed_iterations": 1, "warmup_included": True}


@pytest.mark.parametrize("lean", [False, True])
def test_rllib_report_says_when_the_warm_up_is_timed(lean):
    import train_rllib

    def summary(rows):
        s = {"command": "python scripts/train_rllib.py penta", "game": "penta", "ray": "2",
             "gymnasium": "1", "torch": "2", "threads": 2, "machine": "x86_64, 2 CPUs",
             "rllib": {"env_steps": rows[-1]["env_steps"], "iterations": len(rows),
                       **train_rllib.throughput(rows), "episode_return_mean": 100.0,
                       "num_env_runners": 0, "envs_per_runner": 64, "train_batch": 1000},
             "eval": None}
        if lean:
            s["lean"] = {"steps_per_s": 5000.0, "num_envs": 64, "iterations": 2, "steps": 2000}
        return s

    one = " ".join(train_rllib.to_markdown(summary(_rows((1000, 4.0)))).split())
    assert "include its warm-up" in one and "count whole iterations" not in one
    assert "their ratio is fair" not in one
    two = " ".join(train_rllib.to_markdown(summary(_rows((1000, 4.0), (1000, 1.0)))).split())
    assert "count whole iterations (sampling + update) after the first" in two
    assert "warm-up" not in two
    assert ("their ratio is fair" in two) is lean
