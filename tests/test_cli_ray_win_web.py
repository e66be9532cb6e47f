"""The commands of Ray, the win-value player, trainer speed and the web tools (``dice-env tune``,
``train-rllib``, ``bench-trainer``, ``train-win-value``, ``win-report``, ``web``, ``web-load``,
``web-screenshot``): one-line errors, the scripts and the installed command alike, and the
library they call -- the win study's median seed, its merge with an earlier report, where it
exports the median model, and the trainer's run folder.  (The Ray runs are in test_ray.py, the
web load test in test_web_load.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need

from agents import cli

ROOT = Path(__file__).resolve().parent.parent
DICE_ENV = str(Path(sys.executable).with_name("dice-env"))
SEED = "argument --seed: must be at least 0, got -1"

BAD_ARGUMENTS = [
    ("report win", ["--players", "7"], "argument --players: takes 2 to 6 players, got 7"),
    ("report win", ["--sets", "0"], "argument --sets: must be at least 1, got 0"),
    ("report win", ["--seeds", "0", "-1"], "argument --seeds: must be at least 0, got -1"),
    ("report win", ["--seed", "-1"], SEED),
    ("train win-value", ["chess"], "argument game: invalid choice"),
    ("train win-value", ["penta", "--states", "5"], "argument --states: must be at least 100"),
    ("train win-value", ["penta", "--seed", "-1"], SEED),
    ("train rllib", ["penta", "--seed", "-1"], SEED),
    ("train rllib", ["penta", "--envs-per-runner", "0"], "argument --envs-per-runner"),
    ("train rllib", ["nonesuch"], "no training config"),
    ("train tune", ["penta", "--seeds", "0"], "argument --seeds: must be at least 1, got 0"),
    ("bench trainer", ["--iterations", "0"], "argument --iterations: must be at least 1, got 0"),
    ("bench trainer", ["--games", "chess"], "argument --games: invalid choice"),
    ("bench trainer", ["--seed", "-1"], SEED),
    ("bench web", ["--games", "0"], "argument --games: must be at least 1, got 0"),
    ("bench web", ["--seed", "-1"], SEED),
    ("report screenshots", ["--seed", "-1"], SEED),
    ("report screenshots", ["--width", "10"], "argument --width: must be at least 600, got 10"),
    ("web", ["--port", "70000"], "argument --port"),
]


@pytest.mark.parametrize(("command", "args", "message"), BAD_ARGUMENTS)
def test_bad_arguments_are_one_line_errors(command, args, message, capsys):
    """Exit status 2 and argparse's one-line message naming the argument, before any work."""
    assert cli.main([*command.split(), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dice-env {command}: error: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(("script", "args", "command"), [
    ("win_report", ["--players", "7"], "report win"),
    ("web_load", ["--seed", "-1"], "bench web"),
    ("web", ["--port", "70000"], "web"),
])
def test_the_script_and_the_installed_command_say_the_same(script, args, command, tmp_path):
    """``python scripts/X.py ARGS`` (the command's older name) and ``dice-env COMMAND ARGS``
    (run outside the checkout): the same exit status and message, naming the command."""
    ran = [subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
           for argv in ([sys.executable, str(ROOT / "scripts" / f"{script}.py"), *args],
                        [DICE_ENV, *command.split(), *args])]
    assert [r.returncode for r in ran] == [2, 2], [r.stderr for r in ran]
    assert ran[0].stderr.startswith(f"dice-env {command}: error: ")
    assert ran[0].stderr == ran[1].stderr and ran[0].stderr.count("\n") == 1


# -- train-win-value ---------------------------------------------------------------------------

def test_train_win_value_writes_its_run_folder_and_the_default_export(tmp_path):
    """The installed command, outside the checkout: the run folder under ./runs, no checkpoint
    left once complete, and ``--export default`` into the user's models folder."""
    home = tmp_path / "home"
    env = {**os.environ, "DICE_ENV_HOME": str(home)}
    result = subprocess.run([DICE_ENV, "train", "win-value", "penta", "--states", "100",
                             "--steps", "2", "--no-progress", "--export", "default"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    run = tmp_path / "runs" / "win-value-penta-seed0"
    assert {p.name for p in run.iterdir()} == {"model.pt", "model.curve.json",
                                               "model.curve.csv"}
    exported = home / "models" / "win-value-penta.pt"
    assert exported.is_file() and exported.with_suffix(".curve.json").is_file()
    assert f"exported to {exported}" in result.stdout
    curve = json.loads((run / "model.curve.json").read_text())
    assert curve["config"]["states_per_layer"] == 100 and len(curve["curve"]) == 12


@pytest.mark.parametrize(("prog", "shown"), [
    ("dice-env train win-value", "dice-env train win-value"),
    (None, "dice-env train win-value")])
def test_train_win_value_interrupted_prints_the_command_that_resumes(prog, shown, tmp_path,
                                                                     monkeypatch, capsys):
    import agents.training.win_value as trainer
    from agents.cli.train_win_value import main

    def interrupted(config, folder, resume=False):
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(trainer, "train_run", interrupted)
    assert main(["penta", "--seed", "3", "--no-progress"], prog=prog) == 130
    err = capsys.readouterr().err
    assert err.rstrip().endswith(f"{shown} penta --seed 3 --no-progress --resume"), err
    # a checkpoint left in the run folder is continued only when asked
    (tmp_path / "runs" / "win-value-penta-seed3").mkdir(parents=True)
    (tmp_path / "runs" / "win-value-penta-seed3" / "model.pt.ckpt").write_bytes(b"x")
    with pytest.raises(SystemExit) as exit_:
        main(["penta", "--seed", "3"], prog=prog)
    assert exit_.value.code == 2 and "holds a checkpoint; add --resume" in \
        capsys.readouterr().err


# -- win-report --------------------------------------------------------------------------------

def test_win_report_commits_the_median_seed_not_the_best():
    from agents.training.studies.win import median_seed

    rows = [{"seed": s, "gain": [g, 0.01]} for s, g in [(0, 0.012), (1, 0.020), (2, 0.004)]]
    assert median_seed(rows) == 0
    assert median_seed(rows[1:]) == 2  # the lower middle of two


def test_win_report_keeps_the_rows_of_games_it_did_not_run(tmp_path):
    from agents.training.studies.win import merge_earlier

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
    merged = merge_earlier(now, tmp_path / "win.json")
    assert [(r["game"], r["players"], r["gain"][0]) for r in merged["tables"]] == \
        [("penta", 2, 0.01), ("penta", 4, 0.05), ("dice-poker", 2, 0.03)]
    assert merged["committed"] == {"penta": 0, "dice-poker": 1}
    assert merged["leads"]["penta"][6]["win-value"][-10] == [0.4, 3]
    assert merged["fivethousand"] == {"x": 1} and merged["seconds"] == 15.0
    assert merged["commands"] == [earlier["command"], now["command"]]


def _table(game: str, players: int) -> dict:
    ci = [0.5, 0.01]
    return {"game": game, "players": players, "sets": 10, "matches": 10 * players,
            "share": ci, "reference_share": ci, "gain": [0.01, 0.005], "total_cost": [-4.0, 1.0],
            "rates": {"win": 0.5, "tie": 0.01, "loss": 0.49}, "seats": [ci] * players,
            "paired_share": [1 / players + 0.01, 0.005]}


def test_win_report_writes_its_files_and_reads_the_curves_of_the_runs(tmp_path, monkeypatch):
    """The report's files in the output folder (its lock file there too), the learning curves
    read from ./runs, and the second save merged with the first."""
    from agents.training.studies.win import save

    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "win-value-penta-seed0"
    run.mkdir(parents=True)
    (run / "model.curve.json").write_text(json.dumps(
        {"curve": [{"layer": k, "val_rmse": 0.01 * (k + 1)} for k in (10, 5, 0)]}))
    bins = {"win-value": {-10: [0.4, 300], 0: [0.5, 300]},
            "score-optimal": {-10: [0.38, 300], 0: [0.5, 300]}}
    report = {"command": "python scripts/win_report.py --games penta", "seed": 0,
              "seed_sets": 2, "seeds": {"penta": [{"seed": 0, "gain": [0.01, 0.02],
                                                   "total_cost": [-1.0, 1.0],
                                                   "train_seconds": 3.0}]},
              "committed": {"penta": 0}, "tables": [_table("penta", 2)],
              "leads": {"penta": {6: bins, 9: bins}}, "seconds": 1.0}
    out = Path("out")
    save(report, out)
    assert {p.name for p in out.iterdir()} == {".win.lock", "win.md", "win.json",
                                               "win_leads.png", "win_curves.png"}
    md = (out / "win.md").read_text()
    assert "| penta | 2 | 20 | 50.00 % ± 1.00 |" in md and "## penta: training seeds" in md
    later = {**report, "command": "python scripts/win_report.py --games dice-poker",
             "seeds": {}, "committed": {}, "tables": [_table("dice-poker", 4)], "leads": {}}
    merged = save(later, out)
    assert [(r["game"], r["players"]) for r in merged["tables"]] == [("penta", 2),
                                                                      ("dice-poker", 4)]
    assert json.loads((out / "win.json").read_text())["commands"] == \
        [report["command"], later["command"]]


@pytest.mark.parametrize(("args", "models"), [
    ([], "checkout"),                                   # the documented run
    (["--games", "penta", "--out", "results"], "checkout"),  # a partial run into results/
    (["--games", "penta"], "runs/win-report/models"),
    (["--out", "elsewhere"], "elsewhere/models"),
    (["--no-seeds"], None),
    (["--no-export"], None),
])
def test_win_report_exports_the_median_seed_over_the_checkouts_models_only_into_results(
        args, models, tmp_path, monkeypatch):
    """A run writing results/ re-exports the committed models of the checkout in the current
    directory (agents/models/), never the installed package; other runs export beside their
    output; and outside a checkout the documented run is refused before any work."""
    import agents.training.studies.win as study

    seen = {}

    def run_study(settings, command, models=None):
        seen["models"] = models
        return {"command": command, "seeds": {}}

    monkeypatch.setattr(study, "run_study", run_study)
    monkeypatch.setattr(study, "save", lambda report, out, merge=True: report)
    monkeypatch.chdir(tmp_path)
    if models == "checkout":
        with pytest.raises(SystemExit) as exit_:
            cli.run("win-report", args)
        assert exit_.value.code == 2 and not seen
        (tmp_path / "pyproject.toml").write_text("")
        (tmp_path / "agents" / "models").mkdir(parents=True)
        models = "agents/models"
    cli.run("win-report", args)
    if models is None:
        assert seen["models"] is None
    else:
        assert Path(seen["models"]).resolve() == (tmp_path / models).resolve()


# -- bench-trainer, web-screenshot -------------------------------------------------------------

def test_bench_trainer_times_and_profiles_a_tiny_run(tmp_path):
    """``dice-env bench trainer`` (the installed command): the table, its JSON line, the
    profile by phase, and the files of --out."""
    need("torch", "pip install -e '.[train]'")
    result = subprocess.run([DICE_ENV, "bench", "trainer", "--games", "penta", "--runs",
                             "lean-mlp", "--iterations", "1", "--rounds", "1", "--num-envs",
                             "8", "--threads", "1", "--profile", "--no-progress", "--out",
                             "speed"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["rows"][0]["run"] == "lean-mlp" and line["rows"][0]["steps_per_s"] > 0
    assert line["rows"][0]["cost_vs_lean_mlp"] == 1.0 and "lean-mlp" in line["profiles"]["penta"]
    md = (tmp_path / "speed" / "trainer_speed.md").read_text()
    assert "Generated by `dice-env bench trainer --games penta" in md
    assert "## Where a lean iteration's time goes: penta" in md and "| env step |" in md
    assert json.loads((tmp_path / "speed" / "trainer_speed.json").read_text())["meta"]


def test_web_screenshot_without_chromium_is_one_line_and_exit_1(tmp_path, capsys,
                                                                monkeypatch):
    """A machine without Chromium, stood in for by a PATH with no browser on it (and no
    DICE_ENV_CHROMIUM); test_web_browser.py drives the real one."""
    need("playwright", "pip install -e '.[dev]'")
    need("starlette", "pip install -e '.[web]'")
    from agents.play.web.browser import chromium_path

    (tmp_path / "empty-bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv("DICE_ENV_CHROMIUM", raising=False)
    assert chromium_path() is None
    assert cli.main(["report", "screenshots", "--out", str(tmp_path / "play.png")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dice-env report screenshots: error: no Chromium found")
    assert not (tmp_path / "play.png").exists()
    assert cli.main(["report", "screenshots", "--bot", "nobody"]) == 2
    assert "argument --bot: 'nobody' is not a Penta player" in capsys.readouterr().err
