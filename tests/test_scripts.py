"""The command-line scripts: --help everywhere, and tiny end-to-end runs into a temp folder."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p.name for p in (ROOT / "scripts").glob("*.py") if not p.name.startswith("_"))


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
    two = {(r["agent"], r["opponent"]): r for r in rows if r["game"] == "penta 2p"}
    assert set(two) == {("random", "greedy"), ("random", "optimal"), ("greedy", "optimal")}
    assert float(two["random", "optimal"]["mean"]) < 0.5 < float(two["greedy", "optimal"]
                                                                  ["loss_rate"])
    r = two["greedy", "optimal"]
    assert float(r["win_rate"]) + float(r["tie_rate"]) + float(r["loss_rate"]) == pytest.approx(1)
    assert float(r["first_seat"]) == 0 and float(r["margin"]) < 0
    md = (tmp_path / "benchmark.md").read_text()
    assert "## penta" in md and "## penta: two players, head to head" in md


def test_bench_env_json(tmp_path):
    out = run("scripts/bench_env.py", "--ids", "dice_env/Penta-v0", "--sizes", "64",
              "--steps", "2000", "--single-steps", "200", "--repeats", "1",
              "--out", str(tmp_path)).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["envs"]["dice_env/Penta-v0"]["batched"]["64"] > 0
    assert (tmp_path / "env_speed.md").exists()


def test_evaluate_regret_of_any_policy(tmp_path):
    """--agent SPEC --regret: a registered name and a policy function from a file, side by
    side; nothing written without --out."""
    bot = tmp_path / "my_bot.py"
    bot.write_text("import numpy as np\n\n"
                   "def policy(observation, action_mask):\n"
                   "    return int(np.flatnonzero(action_mask)[-1])  # always score a box\n")
    out = run("scripts/evaluate.py", "--agent", "heuristic", "--agent", f"{bot}:policy",
              "--regret", "--games", "30", "--game", "penta").stdout
    assert out.count("gap to the optimum") == 2
    assert "hold after roll 1" in out and "box after roll 3" in out
    assert "paired final scores" in out and "variance reduction" in out
    out = run("scripts/evaluate.py", "--agent", "threshold", "--regret", "--games", "40",
              "--game", "fivethousand", "--out", str(tmp_path)).stdout
    assert "win rate vs optimal" in out
    assert json.loads((tmp_path / "regret.json").read_text())[0]["agent"] == "threshold"


@pytest.mark.parametrize("args, message", [
    (["--agent", "no_such_bot"], "unknown player"),
    (["--agent", "missing/model.zip"], "no such model file"),
    (["--agent", "heuristic", "--game", "pentaa"], "unknown game"),
    (["--regret", "--games", "1"], "at least 2"),
])
def test_evaluate_refuses_bad_arguments(args, message):
    proc = subprocess.run([sys.executable, "scripts/evaluate.py", *args], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_regret_report_runs_small(tmp_path):
    run("scripts/regret_report.py", "--games", "12", "--fivethousand-games", "20",
        "--scorecard-games", "penta", "--out", str(tmp_path))
    text = (tmp_path / "regret.md").read_text()
    assert "## penta" in text and "## 5000" in text and "variance reduction" in text
    data = json.loads((tmp_path / "regret.json").read_text())
    assert {r["agent"] for r in data["scorecard"]["penta"]} >= {"greedy", "heuristic", "optimal"}
    assert (tmp_path / "regret.png").stat().st_size > 0


BAD_ARGUMENTS = [
    ("evaluate.py", ["--scorecard-games", "pentaa"], "choose from"),
    ("evaluate.py", ["--agents", "foo"], "choose from"),
    ("evaluate.py", ["--games", "0"], "at least 1"),
    ("solve.py", ["penta", "--threads", "-3"], "at least 1"),
    ("solve.py", ["penta", "--threads", "0"], "at least 1"),
    ("bench_env.py", ["--repeats", "0"], "at least 1"),
    ("sweep_thresholds.py", ["--games", "0"], "at least 2"),
    ("optimal_report.py", ["--batch-size", "0"], "at least 1"),
    ("reproduce.py", ["--games", "0"], "at least 1"),
    ("win_report.py", ["--players", "7"], "2 to 6"),
    ("win_report.py", ["--sets", "0"], "at least 1"),
    ("train_win_value.py", ["chess"], "invalid choice"),
    ("train_win_value.py", ["penta", "--states", "5"], "at least 100"),
]


@pytest.mark.parametrize(("script", "args", "message"), BAD_ARGUMENTS)
def test_bad_arguments_are_one_line_errors(script, args, message):
    """Exit status 2 and argparse's one-line message, never a traceback or a partial run."""
    result = subprocess.run([sys.executable, f"scripts/{script}", *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and message in result.stderr


def test_only_the_documented_run_writes_results(tmp_path, monkeypatch):
    """A small evaluate run (no --out) writes runs/evaluate/, never results/."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import evaluate
    from _cli_args import output_folder

    monkeypatch.chdir(tmp_path)
    evaluate.main(["--games", "20", "--scorecard-games", "penta", "--agents", "random",
                   "--fivethousand-agents"])
    assert (tmp_path / "runs" / "evaluate" / "benchmark.md").exists()
    assert not (tmp_path / "results").exists()
    parser = evaluate.argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--out", default=None)
    assert output_folder(parser, parser.parse_args([]), Path("adhoc")) == Path("results")
    assert output_folder(parser, parser.parse_args(["--games", "3"]), Path("adhoc")) == \
        Path("adhoc")
    assert output_folder(parser, parser.parse_args(["--games", "3", "--out", "x"]),
                         Path("adhoc")) == Path("x")


def test_win_report_commits_the_median_seed_not_the_best():
    sys.path.insert(0, str(ROOT / "scripts"))
    import win_report

    rows = [{"seed": s, "gain": [g, 0.01]} for s, g in [(0, 0.012), (1, 0.020), (2, 0.004)]]
    assert win_report.median_seed(rows) == 0
    assert win_report.median_seed(rows[1:]) == 2  # the lower middle of two


def test_win_report_keeps_the_rows_of_games_it_did_not_run(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import json

    import win_report

    def row(game, players, gain):
        return {"game": game, "players": players, "gain": [gain, 0.001]}

    earlier = {"command": "python scripts/win_report.py --games penta", "seconds": 10.0,
               "tables": [row("penta", 2, 0.01), row("penta", 4, 0.02)],
               "seeds": {"penta": [{"seed": 0}]}, "committed": {"penta": 0},
               "leads": {"penta": {"6": {"win-value": {"-10": [0.4, 3]}}}},
               "fivethousand": {"x": 1}}
    (tmp_path / "win.json").write_text(json.dumps(earlier))
    now = {"command": "python scripts/win_report.py --games dice-poker", "seconds": 5.0,
           "tables": [row("dice-poker", 2, 0.03), row("penta", 4, 0.05)], "seeds": {},
           "committed": {"dice-poker": 1}, "leads": {}}
    merged = win_report.merge_earlier(now, tmp_path / "win.json")
    assert [(r["game"], r["players"], r["gain"][0]) for r in merged["tables"]] == \
        [("penta", 2, 0.01), ("penta", 4, 0.05), ("dice-poker", 2, 0.03)]
    assert merged["committed"] == {"penta": 0, "dice-poker": 1}
    assert merged["leads"]["penta"][6]["win-value"][-10] == [0.4, 3]
    assert merged["fivethousand"] == {"x": 1} and merged["seconds"] == 15.0
    assert merged["commands"] == [earlier["command"], now["command"]]
