"""The command-line scripts: --help everywhere, and tiny end-to-end runs into a temp folder."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p.name for p in (ROOT / "scripts").glob("*.py"))


def run(*args, **kwargs):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          check=True, **kwargs)


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script):
    out = run(f"scripts/{script}", "--help").stdout
    assert "usage:" in out


def test_evaluate_writes_the_benchmark_tables(tmp_path):
    run("scripts/evaluate.py", "--games", "40", "--scorecard-games", "penta",
        "--agents", "random", "greedy", "optimal", "--fivethousand-agents", "random",
        "threshold", "--opponents", "threshold", "--out", str(tmp_path))
    rows = list(csv.DictReader((tmp_path / "benchmark.csv").open()))
    assert {"game", "agent", "opponent", "games", "mean", "std", "sem", "win_rate"} <= set(rows[0])
    penta = {r["agent"]: r for r in rows if r["game"] == "penta"}
    assert set(penta) == {"random", "greedy", "optimal"}
    assert penta["random"]["opponent"] == "" and penta["random"]["win_rate"] == ""
    assert float(penta["greedy"]["diff_ci_high"]) < 0  # paired: greedy is worse than optimal
    five = [r for r in rows if r["game"] == "fivethousand"]
    assert {(r["agent"], r["opponent"]) for r in five} == {("random", "threshold")}
    assert 0 <= float(five[0]["win_rate"]) <= 1
    assert "## penta" in (tmp_path / "benchmark.md").read_text()


def test_bench_env_json(tmp_path):
    out = run("scripts/bench_env.py", "--ids", "dice_env/Penta-v0", "--sizes", "64",
              "--steps", "2000", "--single-steps", "200", "--repeats", "1",
              "--out", str(tmp_path)).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["envs"]["dice_env/Penta-v0"]["batched"]["64"] > 0
    assert (tmp_path / "env_speed.md").exists()
