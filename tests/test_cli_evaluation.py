"""The evaluation commands (dice-env evaluate, solve, replay, regret-report, optimal-report,
sweep-thresholds, bench-env, reproduce): the installed command and the documented scripts,
one-line errors, only the documented runs writing results/, and the tables they write."""

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import main as dice_env_main

ROOT = Path(__file__).resolve().parent.parent
DICE_ENV = str(Path(sys.executable).with_name("dice-env"))
CURVES = ROOT / "results" / "learning_curves.png"


def run(*args, **kwargs):
    """``python ARGS`` from the checkout's root (the documented script command lines)."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=300, **kwargs)


def dice_env(*args, cwd, check=True):
    """The installed ``dice-env`` command, run in ``cwd``."""
    return subprocess.run([DICE_ENV, *args], cwd=cwd, capture_output=True, text=True,
                          check=check, timeout=300)


# -- the installed command, outside the checkout -------------------------------------------------

def test_installed_dice_env_evaluate_runs_outside_the_checkout(tmp_path):
    out = dice_env("evaluate", "--agent", "heuristic", "--games", "20", "--out", "ev",
                   cwd=tmp_path).stdout
    lines = out.splitlines()
    assert lines[0].startswith("penta") and "heuristic" in lines[0] and "paired diff." in out
    rows = json.loads((tmp_path / "ev" / "evaluation.json").read_text())
    assert [r["agent"] for r in rows] == ["heuristic", "optimal"]


def test_installed_dice_env_solve_json_keeps_its_fields(tmp_path):
    """``dice-env solve penta --json``: the JSON line of ``scripts/solve.py``, field by field
    in the same order."""
    line = dice_env("solve", "penta", "--json", "--quiet", cwd=tmp_path).stdout
    record = json.loads(line)
    common = ["game", "expected_score", "seconds", "peak_mb", "source", "cache_path", "threads"]
    assert list(record)[:7] == common and list(record)[-1] == "wall_seconds"
    tail = (["solved_seconds", "solved_at"] if record["source"] == "cache" else
            ["prepare_seconds", "compile_seconds", "dp_seconds", "states"])
    assert list(record) == [*common, *tail, "wall_seconds"]
    assert record["expected_score"] == pytest.approx(254.484846)
    assert line == json.dumps(record) + "\n"


def test_installed_dice_env_replay_writes_the_file(tmp_path):
    out = dice_env("replay", "--agent", "ppo", "--game", "penta", "--seed", "3", "--out",
                   str(tmp_path / "r.html"), cwd=tmp_path).stdout
    assert out.startswith(f"wrote {tmp_path / 'r.html'}") and "regret (points): ppo" in out
    assert "Content-Security-Policy" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_replay_into_a_folder_that_is_not_there_makes_it_and_says_so(tmp_path):
    """Every command does the same with its output paths (tests/test_cli_input.py)."""
    result = dice_env("replay", "--agent", "greedy", "--game", "penta", "--seed", "1",
                      "--out", "new/dir/r.html", cwd=tmp_path)
    assert result.stderr.splitlines()[0] == \
        "dice-env replay: created folder new/dir for --out"
    assert (tmp_path / "new" / "dir" / "r.html").is_file()
    blocked = dice_env("replay", "--agent", "greedy", "--game", "penta", "--seed", "1",
                       "--out", "new/dir/r.html/x.html", cwd=tmp_path, check=False)
    assert blocked.returncode == 2 and blocked.stderr == (
        "dice-env replay: error: argument --out: cannot write new/dir/r.html/x.html: "
        "new/dir/r.html is a file, not a folder\n")


# -- one-line errors -----------------------------------------------------------------------------

SEED = "argument --seed: must be at least 0, got -1"
BAD_ARGUMENTS = [
    ("evaluate", ["--seed", "-1"], SEED),
    ("evaluate", ["--regret", "--seed", "-1"], SEED),
    ("evaluate", ["--scorecard-games", "pentaa"], "choose from"),
    ("evaluate", ["--agents", "foo"], "choose from"),
    ("evaluate", ["--games", "0"], "at least 1"),
    ("evaluate", ["--agent", "no_such_bot"], "unknown player"),
    ("evaluate", ["--agent", "missing/model.zip"], "no such model file"),
    ("evaluate", ["--agent", "heuristic", "--game", "pentaa"], "unknown game"),
    ("evaluate", ["--regret", "--games", "1"], "at least 2"),
    ("solve", ["penta", "--threads", "-3"], "at least 1"),
    ("solve", ["penta", "--threads", "0"], "at least 1"),
    ("solve", ["no-such-game"], "argument GAME: unknown game 'no-such-game'"),
    ("bench env", ["--repeats", "0"], "at least 1"),
    ("bench env", ["--sizes", "0"], "at least 1"),
    ("report thresholds", ["--games", "0"], "at least 2"),
    ("report thresholds", ["--seed", "-1"], SEED),
    ("report optimal", ["--batch-size", "0"], "at least 1"),
    ("report optimal", ["--seed", "-1"], SEED),
    ("report regret", ["--fivethousand-games", "1"], "0 or at least 2"),
    ("report regret", ["--scorecard-games", "pentaa"], "argument --scorecard-games"),
    ("report regret", ["--seed", "-1"], SEED),
    ("reproduce", ["--games", "0"], "at least 1"),
    ("reproduce", ["--seed", "-1"], SEED),
    ("replay", ["--agent", "greedy", "--game", "penta", "--seed", "1", "--out",
                f"{__file__}/r.html"], f"{__file__} is a file, not a folder"),
]


@pytest.mark.parametrize(("command", "args", "message"), BAD_ARGUMENTS)
def test_bad_arguments_are_one_line_errors(command, args, message, capsys):
    """Exit status 2 and one line naming the argument, never a traceback or a partial run."""
    assert dice_env_main([*command.split(), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert err.startswith(f"dice-env {command}: error: ")


@pytest.mark.parametrize("script, args, command", [
    ("evaluate.py", ["--seed", "-1"], "evaluate"),
    ("evaluate.py", ["--regret", "--seed", "-1"], "evaluate"),
    ("solve.py", ["penta", "--threads", "0"], "solve"),
    ("sweep_thresholds.py", ["--seed", "-1"], "report thresholds")])
def test_the_scripts_are_the_same_commands(script, args, command):
    """`python scripts/x.py` runs the command of that older name, its messages naming the
    command (never the script)."""
    result = subprocess.run([sys.executable, f"scripts/{script}", *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"dice-env {command}: error: argument ")
    assert len(result.stderr.strip().splitlines()) == 1


# -- evaluate -----------------------------------------------------------------------------------

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
    assert md.splitlines()[2].startswith("Generated by `dice-env evaluate --games 40 ")


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
    out = dice_env("evaluate", "--agent", "threshold", "--regret", "--games", "40",
                   "--game", "fivethousand", "--out", str(tmp_path), cwd=tmp_path).stdout
    assert "win rate vs optimal" in out
    assert json.loads((tmp_path / "regret.json").read_text())[0]["agent"] == "threshold"


def test_only_the_documented_run_writes_results(tmp_path, monkeypatch):
    """A small evaluate run (no --out) writes runs/evaluate/ of the current directory, never
    results/."""
    import argparse

    from agents.cli.args import output_folder
    from agents.cli.evaluate import main

    monkeypatch.chdir(tmp_path)
    main(["--games", "20", "--scorecard-games", "penta", "--agents", "random",
          "--fivethousand-agents"])
    assert (tmp_path / "runs" / "evaluate" / "benchmark.md").exists()
    assert not (tmp_path / "results").exists()
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--out", default=None)
    assert output_folder(parser, parser.parse_args([]), Path("adhoc")) == Path("results")
    assert output_folder(parser, parser.parse_args(["--games", "3"]), Path("adhoc")) == \
        Path("adhoc")
    assert output_folder(parser, parser.parse_args(["--games", "3", "--out", "x"]),
                         Path("adhoc")) == Path("x")


def test_evaluate_help_names_a_training_run_folder(capsys):
    assert dice_env_main(["evaluate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--agent SPEC" in text
    assert "dice-env train run folder (the policy of its latest checkpoint" in text
    assert "model zip" in text and "module:attr" in text and "registered name" in text


def test_missing_models_are_one_calm_note(monkeypatch, capsys):
    from agents.evaluation import benchmark
    from agents.evaluation.reports.benchmark import missing_models_note

    def make(name, game, seed=None):
        raise FileNotFoundError(f"no trained model for {name} on {game}; train one with ...")

    monkeypatch.setattr(benchmark, "make", make)
    roster = benchmark.Roster(0)
    assert roster.make("ppo", "yahtzee-official") is None
    assert roster.make("learned-value", "yahtzee-official") is None
    assert roster.make("ppo", "yahtzee-official") is None  # once per pair
    assert roster.make("ppo", "dice-poker") is None
    assert capsys.readouterr().out == ""  # nothing that reads like an error
    note = missing_models_note(roster.missing)
    assert "\n" not in note and "train one" not in note
    assert note.endswith("ppo, learned-value on yahtzee-official; ppo on dice-poker")
    assert missing_models_note([]) is None


def test_evaluate_run_prints_the_note_not_skipping_lines(tmp_path, monkeypatch, capsys):
    from agents.cli.evaluate import main
    from agents.evaluation import benchmark
    from agents.evaluation.reports.benchmark import missing_models_note

    real_make = benchmark.make

    def make(name, game, seed=None):
        if name == "ppo":
            raise FileNotFoundError("no trained model at somewhere.zip; train one with ...")
        return real_make(name, game, seed=seed)

    monkeypatch.setattr(benchmark, "make", make)
    main(["--games", "20", "--scorecard-games", "penta", "--agents", "random", "ppo",
          "--fivethousand-agents", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "skipping" not in out and "train one" not in out
    notes = [line for line in out.splitlines() if line.startswith("no trained model")]
    assert notes == [missing_models_note([("ppo", "penta")])]


def test_benchmark_md_embeds_only_images_that_are_there(tmp_path, monkeypatch):
    from agents.evaluation.reports.benchmark import benchmark_markdown, learning_curves_link

    results = ROOT / "results"
    assert learning_curves_link(results, CURVES) == "learning_curves.png"  # committed file
    assert learning_curves_link(results / "quick", CURVES) == "../learning_curves.png"
    assert learning_curves_link(tmp_path, CURVES) is None  # outside the checkout
    assert learning_curves_link(results / "quick", tmp_path / "r" / "none.png") is None
    monkeypatch.chdir(ROOT)  # the default: results/ of the checkout in the current directory
    assert learning_curves_link(Path("results")) == "learning_curves.png"
    monkeypatch.chdir(tmp_path)
    assert learning_curves_link(Path("results")) is None
    for out in [results, results / "quick", ROOT / "runs" / "evaluate"]:
        md = benchmark_markdown([], "cmd", {}, learning_curves_link(out, CURVES))
        images = re.findall(r"!\[[^]]*\]\(([^)]+)\)", md)
        assert len(images) == 2
        assert all((out / image).resolve().is_file() for image in images
                   if image != "score_distributions.png")  # that one is written by the run
    md = benchmark_markdown([], "cmd", {}, None)
    assert "learning_curves" not in md and "![score distributions]" in md


def test_committed_benchmark_md_is_unchanged_by_the_link():
    from agents.evaluation.reports.benchmark import benchmark_markdown, learning_curves_link

    head = (ROOT / "results" / "benchmark.md").read_text().split("\n## ")[0]
    command = re.search(r"Generated by `([^`]+)`", head).group(1)
    new = benchmark_markdown([], command, {}, learning_curves_link(ROOT / "results", CURVES))
    assert new.rstrip() == head.rstrip()


# -- regret-report ------------------------------------------------------------------------------

def test_regret_report_runs_small(tmp_path):
    run("scripts/regret_report.py", "--games", "12", "--fivethousand-games", "20",
        "--scorecard-games", "penta", "--out", str(tmp_path))
    text = (tmp_path / "regret.md").read_text()
    assert "## penta" in text and "## 5000" in text and "variance reduction" in text
    data = json.loads((tmp_path / "regret.json").read_text())
    assert {r["agent"] for r in data["scorecard"]["penta"]} >= {"greedy", "heuristic", "optimal"}
    assert (tmp_path / "regret.png").stat().st_size > 0
    # every player is probed: the optimum and the heuristic never reroll a sure bonus away, the
    # random player does in most positions
    probe = {r["agent"]: r.get("bonus_giveaway") for r in data["scorecard"]["penta"]}
    assert probe["optimal"] == 0 and probe["heuristic"] == 0 and probe["random"] > 0.5
    assert "sure bonus rerolled away (probe)" in text and "| optimal | **0.000**" in text
    row = next(line for line in text.splitlines() if line.startswith("| optimal |"))
    assert row.endswith(" 0.0% |")


def test_the_regret_report_seeds_its_players_so_a_random_row_is_the_same_in_every_run(monkeypatch):
    from agents.evaluation import players_regret

    monkeypatch.setattr(players_regret, "AGENTS", ["random"])
    monkeypatch.setattr(players_regret, "FIVE_THOUSAND_AGENTS", ["random"])

    def measure():
        r = players_regret.regret_of_every_player(["penta"], 4, 2, seed=7, note=lambda _: None)
        return r.scorecard["penta"][0].gap, r.fivethousand[0].gap

    assert measure() == measure()


def test_committed_regret_md_keeps_its_introduction():
    from agents.evaluation.reports.regret import INTRODUCTION

    assert INTRODUCTION in (ROOT / "results" / "regret.md").read_text()


# -- the reports' writers against the committed files ------------------------------------------

def test_committed_env_speed_md_is_what_its_json_gives():
    from agents.evaluation.reports.env_speed import env_speed_markdown

    results = json.loads((ROOT / "results" / "env_speed.json").read_text())
    assert env_speed_markdown(results) == (ROOT / "results" / "env_speed.md").read_text()


def test_committed_optimal_md_is_what_its_json_gives():
    from agents.evaluation.reports.optimal import optimal_markdown

    report = json.loads((ROOT / "results" / "optimal.json").read_text())
    committed = (ROOT / "results" / "optimal.md").read_text()
    assert committed.startswith(optimal_markdown(report).rstrip("\n") + "\n\n## ")


def test_sweep_thresholds_writes_its_tables(tmp_path, monkeypatch):
    """A tiny sweep (the grid cut to two points) writes both tables, the command in the
    header; the documented full run's header is the committed one's."""
    from agents.cli.sweep_thresholds import main
    from agents.evaluation import threshold_sweep
    from agents.evaluation.reports.threshold_sweep import sweep_markdown

    monkeypatch.setattr(threshold_sweep, "GRID", {"t12": [100, 300], "t3": [150], "t4": [500],
                                                  "t5": [1500]})
    summary = main(["--games", "20", "--final-games", "20", "--finalists", "1", "--out",
                    str(tmp_path)])
    md = (tmp_path / "threshold_sweep.md").read_text()
    assert md.splitlines()[2].startswith(
        "Generated by `dice-env report thresholds --games 20 --final-games 20 "
        "--finalists 1 --seed 0`.")
    assert f"**Best: thresholds {summary['best_thresholds']}**" in md
    rows = list(csv.reader((tmp_path / "threshold_sweep.csv").open()))
    assert [r[0] for r in rows] == ["stage", "final", "grid", "grid"]
    full = threshold_sweep.Sweep([], [{"thresholds": (1, 1, 1, 1, 1), "win_rate": 0.5,
                                       "sem": 0.01, "stage": "final"}], 2000, 40_000, 6, 0)
    committed = (ROOT / "results" / "threshold_sweep.md").read_text().splitlines()[2]
    assert sweep_markdown(full).splitlines()[2] == committed


# -- bench-env ----------------------------------------------------------------------------------

def test_bench_env_json(tmp_path):
    out = run("scripts/bench_env.py", "--ids", "dice_env/Penta-v0", "--sizes", "64",
              "--steps", "2000", "--single-steps", "200", "--repeats", "1", "--aec",
              "--out", str(tmp_path)).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["envs"]["dice_env/Penta-v0"]["batched"]["64"] > 0
    assert (tmp_path / "env_speed.md").exists()


@pytest.mark.parametrize("args", [["--ids", "dice_env/Pentaa-v0"],
                                  ["--ids", "dice_env/Penta-v0", "NoSuchEnv-v9"]])
def test_bench_env_refuses_an_unknown_id(args, capsys):
    assert dice_env_main(["bench", "env", *args, "--repeats", "1"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1
    assert error.startswith("dice-env bench env: error: argument --ids: unknown env id")
    assert repr(args[-1]) in error
    assert "dice_env/Penta-v0" in error and "CartPole-v1" in error  # the known ids


def test_bench_env_aec_names_are_plain_and_the_results_keys_unchanged(capsys):
    from agents.evaluation.env_speed import AEC_ENVS

    assert all(re.fullmatch(r"[a-z0-9-]+", name) for name in AEC_ENVS)
    committed = json.loads((ROOT / "results" / "env_speed.json").read_text())["aec"]
    assert [label for label, _, _ in AEC_ENVS.values()] == list(committed)
    assert dice_env_main(["bench", "env", "--aec", "penta (2 players)"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_bench_env_measures_an_aec_env_by_its_plain_name(tmp_path):
    out = dice_env("bench-env", "--ids", "--aec", "fivethousand-2p", "--sizes", "8",
                   "--steps", "16", "--single-steps", "50", "--repeats", "1",
                   "--out", str(tmp_path), cwd=tmp_path).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert list(result["aec"]) == ["five_thousand_v0 (2 players)"]
    assert result["aec"]["five_thousand_v0 (2 players)"]["single"] > 0
    assert "`five_thousand_v0 (2 players)`" in (tmp_path / "env_speed.md").read_text()


# -- solve --------------------------------------------------------------------------------------

def _record(**changes):
    return {"game": "penta", "expected_score": 254.484846, "seconds": 0.05, "peak_mb": 190.0,
            "cache_path": "/c/scorecard-penta.table", "threads": 2, **changes}


def test_solve_says_whether_it_solved_now_or_loaded_an_earlier_solve(tmp_path):
    from agents.solvers.records import describe, solved_at

    cached = describe(_record(source="cache", solved_seconds=6.1, solved_at="2025-01-02 13:45"))
    assert "not solved in this run" in cached
    assert "solved earlier (on 2025-01-02 13:45, in 6.10 s" in cached
    assert "solved now" not in cached
    solved = describe(_record(source="solved", seconds=6.2, prepare_seconds=0.1,
                              compile_seconds=5.7, dp_seconds=0.4, states=536_320))
    assert "solved now, in 6.20 s" in solved and "cache" not in solved.splitlines()[1]
    table = tmp_path / "t.table"
    table.write_bytes(b"x")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", solved_at([str(table)]))
    assert solved_at([str(tmp_path / "missing.table")]) is None


def test_solve_json_of_a_cached_table_says_when_it_was_solved(tmp_path):
    first = json.loads(run("scripts/solve.py", "penta", "--json", "--quiet", "--cache-dir",
                           str(tmp_path)).stdout)
    assert first["source"] == "solved" and "solved_at" not in first
    second = dice_env("solve", "penta", "--quiet", "--cache-dir", str(tmp_path),
                      cwd=tmp_path).stdout
    assert "not solved in this run" in second and "solved earlier (on " in second


# -- reproduce ----------------------------------------------------------------------------------

def test_reproduce_runs_its_stages_into_the_current_directory(tmp_path, monkeypatch):
    """The quick run's stages are the subcommands, with the tables relative to the current
    directory: results/quick/ for the documented run, runs/ for another seed."""
    from agents.cli import reproduce

    calls = []
    monkeypatch.setattr("agents.cli.run", lambda name, argv=None, prog=None:
                        calls.append((name, list(argv))) or 0)
    monkeypatch.chdir(tmp_path)
    summary = reproduce.main([])
    assert summary["out"] == str(Path("results") / "quick") and summary["mode"] == "quick"
    assert calls == [("solve", ["all", "--quiet"]),
                     ("evaluate", ["--games", "2000", "--fivethousand-games", "4000", "--seed",
                                   "0", "--out", "results/quick"])]
    calls.clear()
    summary = reproduce.main(["--full", "--seed", "1"])
    assert summary["out"] == "runs/reproduce-full"
    assert [name for name, _ in calls] == ["solve", "evaluate", "report optimal",
                                           "report regret", "report thresholds", "bench env"]
    assert list(summary["seconds"]) == ["solve", "evaluate", "optimal_report", "regret_report",
                                        "sweep", "bench_env"]
