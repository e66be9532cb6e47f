"""dice-env train (and scripts/train.py) as a new user meets it: the logs a run folder
promises, resume commands that work from where the user is, what a second Ctrl-C leaves, and a
--resume with nothing left to train."""

import csv
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import need

need("sb3_contrib", "pip install -e '.[train]'")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "train.py"
TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "policy_kwargs": {"net_arch": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 2,
                "gamma": 1.0},
        "eval": {"every_timesteps": 256, "games": 20, "seed": 1},
        "checkpoint_every_timesteps": 256}


@pytest.fixture(scope="module")
def train_module():
    from agents.cli import train

    return train


def _config(tmp_path, name="tiny.json", **changes):
    path = tmp_path / name
    path.write_text(json.dumps({**TINY, **changes}))
    return path


def _main(train_module, *args):
    """train.main in this process (quicker than a subprocess); torch's thread count is put
    back after (--threads sets it for the process)."""
    import torch

    threads = torch.get_num_threads()
    try:
        return train_module.main(["penta", "--no-progress", "--threads", "1", *map(str, args)])
    finally:
        torch.set_num_threads(threads)


def _csv(path):
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


# -- 1. logs/ for the lean trainer, as SB3 writes them ---------------------------------------
def test_lean_run_writes_sb3_logs_and_resume_adds_a_segment(tmp_path, train_module):
    """A lean run writes logs/segment-0/ (progress.csv and TensorBoard events) with the keys
    an SB3 run writes, one row per iteration at the step it ended (eval/* where evaluated); a
    resumed session adds segment-1 and leaves segment-0 as it was."""
    lean, sb3 = _config(tmp_path, "lean.json", trainer="lean"), _config(tmp_path)
    run = tmp_path / "lean"
    _main(train_module, "--config", lean, "--timesteps", 256, "--run-dir", run)
    first = run / "logs" / "segment-0" / "progress.csv"
    before = first.read_text()
    _main(train_module, "--run-dir", run, "--resume", "--timesteps", 512)
    assert first.read_text() == before  # not clobbered by the resumed session
    rows0, rows1 = _csv(first), _csv(run / "logs" / "segment-1" / "progress.csv")
    assert [int(r["time/total_timesteps"]) for r in rows0] == [0, 256]
    assert [int(r["time/total_timesteps"]) for r in rows1] == [512]
    assert rows0[0]["eval/mean_score"] and not rows0[0]["train/loss"]  # step 0: evaluated only
    evals = {int(r["timesteps"]): float(r["mean_score"]) for r in _csv(run / "eval.csv")}
    for row in rows0 + rows1:
        assert float(row["eval/mean_score"]) == evals[int(row["time/total_timesteps"])]
    last = rows1[-1]
    for key in ("rollout/ep_rew_mean", "train/loss", "train/entropy_loss", "train/value_loss",
                "train/policy_gradient_loss", "train/approx_kl", "train/clip_fraction",
                "train/learning_rate", "time/fps"):
        float(last[key])  # present and a number
    assert float(last["train/learning_rate"]) == 0.001
    assert 0 < float(last["rollout/ep_rew_mean"]) < 3.75  # Penta points x reward_scale 0.01
    for segment in ("segment-0", "segment-1"):
        assert list((run / "logs" / segment).glob("events.out.tfevents.*"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "logs" / "segment-0"))
    events.Reload()
    assert {"train/loss", "rollout/ep_rew_mean", "eval/mean_score"} <= \
        set(events.Tags()["scalars"])
    assert [e.step for e in events.Scalars("train/loss")] == [256]
    # the SB3 trainer's logs: the same files and keys (SB3 writes train/* from its second
    # iteration on)
    _main(train_module, "--config", sb3, "--timesteps", 512, "--run-dir", tmp_path / "sb3")
    assert list((tmp_path / "sb3" / "logs" / "segment-0").glob("events.out.tfevents.*"))
    with (tmp_path / "sb3" / "logs" / "segment-0" / "progress.csv").open() as fh:
        sb3_keys = set(next(csv.reader(fh)))
    assert set(rows0[0]) == sb3_keys


def test_lean_logging_does_not_change_the_training(tmp_path):
    """The same lean run with and without a logger ends with the same weights."""
    import torch

    from agents.training.ppo import LeanRun, open_run_logger

    weights = []
    for name, logged in (("plain", False), ("logged", True)):
        run_dir = tmp_path / name
        run_dir.mkdir()
        config = {**TINY, "trainer": "lean", "game": "penta"}
        extra = {"game": "penta", "seed": 0, "config": config}
        run = LeanRun.start(run_dir, config, extra, seed=0, total=512)
        run.run(512, progress=False, logger=open_run_logger(run_dir) if logged else None)
        weights.append(run.trainer.net.state_dict())
        assert (run_dir / "logs").exists() == logged
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_log_segments_never_reuse_a_number(tmp_path):
    from agents.training.ppo import open_run_logger

    (tmp_path / "logs" / "segment-1").mkdir(parents=True)  # segment-0 deleted by the user
    logger = open_run_logger(tmp_path)
    logger.close()
    assert (tmp_path / "logs" / "segment-2" / "progress.csv").exists()


# -- 2. resume commands that work from the current directory ---------------------------------
def test_resume_command_works_from_another_directory(tmp_path):
    """Started from a folder outside the repository with the script's absolute path, the
    printed resume command is the `dice-env train` command line, and it resumes from there."""
    _config(tmp_path, trainer="lean")
    first = subprocess.run([sys.executable, str(SCRIPT), "penta", "--no-progress", "--threads",
                            "1", "--config", "tiny.json", "--timesteps", "256",
                            "--max-minutes", "0.000001"], cwd=tmp_path, capture_output=True,
                           text=True, check=True)
    line = next(x for x in first.stderr.splitlines() if "continue with: " in x)
    command = line.split("continue with: ", 1)[1]
    assert command == "dice-env train penta --seed 0 --run-dir runs/penta-seed0 --resume"
    argv = shlex.split(command)
    resumed = subprocess.run([sys.executable, str(SCRIPT), *argv[2:], "--no-progress",
                              "--threads", "1"],
                             cwd=tmp_path, capture_output=True, text=True, check=True)
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["timesteps"] == 256
    assert (tmp_path / "runs" / "penta-seed0" / "final.zip").exists()


def test_paths_are_shown_as_reachable_from_the_current_directory(tmp_path, train_module):
    from agents.training.ppo.session import shown_path as shown

    assert shown(SCRIPT, cwd=ROOT) == "scripts/train.py"
    assert shown(SCRIPT, cwd=tmp_path) == str(SCRIPT)
    assert shown(Path("runs/x"), cwd=tmp_path) == "runs/x"  # relative to the cwd already
    assert shown(tmp_path / "a b" / "run", cwd=tmp_path) == "a b/run"
    # run as dice-env, the commands it prints are dice-env's, wherever it runs
    for prog in ("dice-env train", None):
        assert train_module.command_renderer(prog)(["penta", "--run-dir", "a b"]) == \
            "dice-env train penta --run-dir 'a b'"
    assert train_module.command_renderer(None, "train stages")([]) == "dice-env train stages"


# -- 3. a second Ctrl-C says what is left ------------------------------------------------------
def test_abort_message_says_whether_a_checkpoint_exists(tmp_path, monkeypatch, capsys):
    from agents.training.ppo import StopRequest
    from agents.training.ppo.checkpoints import write_checkpoint

    stop = StopRequest(run_dir=tmp_path, resume_command="python train.py penta --resume",
                       start_command="python train.py penta")
    assert stop.abort_message() == ("aborted before the first checkpoint; nothing was saved, "
                                    "start again with: python train.py penta")
    write_checkpoint(tmp_path, {"trainer": "lean", "lean": {"num_timesteps": 4096},
                                "extra": {}})
    written = time.strftime("%Y-%m-%d %H:%M:%S",
                            time.localtime((tmp_path / "checkpoint.pkl").stat().st_mtime))
    assert stop.abort_message() == (f"aborted; the last checkpoint (4,096 timesteps, written "
                                    f"at {written}) is intact, resume with: python train.py "
                                    "penta --resume")
    write_checkpoint(tmp_path, {"num_timesteps": 2048, "extra": {}})  # the SB3 trainer's
    assert "(2,048 timesteps, written at " in stop.abort_message()
    (tmp_path / "checkpoint.pkl").write_bytes(b"garbage")  # unreadable: still says it is there
    assert stop.abort_message().startswith("aborted; the last checkpoint (written at ")
    assert StopRequest().abort_message() == "aborted; the last checkpoint, if any, is intact"

    class Exited(Exception):
        pass

    def fake_exit(status):
        raise Exited(status)

    monkeypatch.setattr(os, "_exit", fake_exit)
    fresh = StopRequest(run_dir=tmp_path / "new", start_command="python train.py penta")
    fresh._handle(signal.SIGINT, None)  # the first: finish the update, then checkpoint
    assert fresh.reason == "SIGINT" and fresh()
    with pytest.raises(Exited) as exited:
        fresh._handle(signal.SIGINT, None)
    assert exited.value.args == (130,)
    assert "aborted before the first checkpoint; nothing was saved, start again with: python " \
           "train.py penta" in capsys.readouterr().err


def test_second_sigint_before_the_first_checkpoint(tmp_path):
    """A real double Ctrl-C during the first (long) rollout: exit 130 and the truth about the
    checkpoint (none, unless the first update had finished by then)."""
    config = _config(tmp_path, trainer="lean", checkpoint_every_timesteps=10 ** 9,
                     eval={**TINY["eval"], "every_timesteps": 10 ** 9},
                     ppo={**TINY["ppo"], "n_steps": 4096, "n_epochs": 1, "batch_size": 4096})
    # A first Ctrl-C that lands before the first rollout starts stops the run cleanly at 0
    # steps (checked, then tried again, the Ctrl-C later): three tries reach the rollout.
    for attempt, wait in enumerate([0.0, 0.5, 1.5]):
        run_dir = tmp_path / f"run{attempt}"
        proc = subprocess.Popen([sys.executable, str(SCRIPT), "penta", "--no-progress",
                                 "--threads", "1", "--config", str(config), "--timesteps",
                                 "10000000", "--run-dir", str(run_dir)], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not (run_dir / "eval.csv").exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # evaluated at step 0: the first rollout (~1 s) is under way
        time.sleep(wait)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if proc.returncode == 130:
            break
        # Too early: the run stopped cleanly at 0 steps and exited (0), or the second Ctrl-C
        # landed during the interpreter's shutdown, after the handlers were restored (-SIGINT).
        assert proc.returncode in (0, -signal.SIGINT) and "stopped (SIGINT) at 0 of" in err, err
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    if (run_dir / "checkpoint.pkl").exists():  # (a very slow machine)
        assert "aborted; the last checkpoint (" in err, err
    else:
        assert "aborted before the first checkpoint; nothing was saved, start again with: " \
               "dice-env train penta --no-progress" in err, err


# -- 4. --resume with nothing left to train ----------------------------------------------------
def test_resume_below_the_steps_done_says_so(tmp_path, train_module, capsys):
    """A run stopped at 256 of 768 steps, resumed with --timesteps 256: one line says there is
    nothing to train, the run ends there (final model, --export), exit 0; a plain --resume
    then says the run is at its total; a larger --timesteps continues it."""
    from agents.training.ppo import LeanRun, read_checkpoint

    config = {**TINY, "trainer": "lean", "game": "penta"}
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    extra = {"game": "penta", "seed": 0, "config": config, "init_from": None,
             "total_timesteps": 768}
    run = LeanRun.start(run_dir, config, extra, seed=0, total=768)
    assert run.run(768, should_stop=lambda: run.num_timesteps >= 256, progress=False)
    export = tmp_path / "model.zip"
    summary = _main(train_module, "--run-dir", run_dir, "--resume", "--timesteps", 200,
                    "--export", export)
    err = capsys.readouterr().err
    assert (f"the run is already at 256 timesteps, which is at least --timesteps 200: nothing "
            f"to train; pass a larger --timesteps to continue (the run's total was 768); it "
            f"ends here, its final model in {run_dir / 'final.zip'}") in err
    assert summary["timesteps"] == summary["total_timesteps"] == 256
    assert summary["stopped"] is None and export.exists() and (run_dir / "final.zip").exists()
    assert read_checkpoint(run_dir)["extra"]["total_timesteps"] == 256
    assert not (run_dir / "logs").exists()  # no empty log segment
    again = _main(train_module, "--run-dir", run_dir, "--resume")
    assert "the run is already at 256 timesteps, its total: nothing to train; pass a larger " \
           "--timesteps to continue" in capsys.readouterr().err
    assert again["timesteps"] == 256
    more = _main(train_module, "--run-dir", run_dir, "--resume", "--timesteps", 512)
    assert more["timesteps"] == 512 and "nothing to train" not in capsys.readouterr().err


def test_sb3_resume_of_a_finished_run_says_so_and_exports(tmp_path, train_module, capsys):
    run_dir = tmp_path / "run"
    _main(train_module, "--config", _config(tmp_path), "--timesteps", 256, "--run-dir", run_dir)
    capsys.readouterr()
    export = tmp_path / "model.zip"
    summary = _main(train_module, "--run-dir", run_dir, "--resume", "--timesteps", 256,
                    "--export", export)
    assert ("the run is already at 256 timesteps, which is at least --timesteps 256: nothing "
            "to train; pass a larger --timesteps to continue (the run's total was 256)\n"
            ) in capsys.readouterr().err
    assert summary["timesteps"] == 256 and export.exists()
    assert [p.name for p in (run_dir / "logs").iterdir()] == ["segment-0"]  # none added
    assert [r["timesteps"] for r in _csv(run_dir / "eval.csv")] == ["0", "256"]
