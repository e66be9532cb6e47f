"""The scaling study (``dice-env scaling``, issue 45): snapshots at given steps (config
``snapshots_at``), the study's runs carried across sessions, and its report.  Tiny configs
(a few hundred steps of a tiny network) and, where the real measurement is not the point, a
stand-in for the exact gap."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: a rollout is 8 envs x 32 steps = 256 steps
TINY = {"env_id": "dice_env/Penta-v0", "family": "scorecard", "trainer": "lean", "num_envs": 8,
        "total_timesteps": 768, "reward_scale": 0.01, "policy_kwargs": {"net_arch": [16]},
        "ppo": {"learning_rate": 0.001, "n_steps": 32, "batch_size": 64, "n_epochs": 2,
                "gamma": 1.0},
        "eval": {"every_timesteps": 256, "games": 10, "seed": 1},
        "checkpoint_every_timesteps": 256}


def _config(tmp_path, **changes) -> Path:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({**TINY, **changes}))
    return path


def _train(config, run_dir, timesteps, points=None, resume=False, init_from=None, hook=None):
    from agents.training.ppo.session import TrainOptions, train

    overrides = () if points is None else (f"snapshots_at={json.dumps(points)}",)
    options = TrainOptions(game="penta", config=None if resume else config, run_dir=run_dir,
                           timesteps=timesteps, resume=resume, init_from=init_from,
                           overrides=() if resume else overrides, progress=False, threads=1)
    return train(options, on_snapshot=hook)


def _weights(path):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu").policy.state_dict()


def _same(a, b) -> bool:
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_snapshots_are_taken_once_at_the_first_update_at_or_past_each_point(tmp_path):
    """snapshot-<T>.zip at the first update boundary at or past T, loadable as a player; a run
    stopped and resumed takes the same snapshots (the same weights), none twice; the hook sees
    each once and may use the random generators without changing the training; a run started
    from another model (--init-from) leaves the points that model had passed."""
    import numpy as np
    import torch

    import agents
    from agents.training.ppo.checkpoints import read_checkpoint

    config = _config(tmp_path)
    points = [300, 512, 600, 1024]
    seen = []

    def hook(path, record):
        seen.append((path.name, record["timesteps"]))
        torch.rand(3), np.random.rand(3)  # a measurement may draw: the run must not notice

    full, plain, part = tmp_path / "full", tmp_path / "plain", tmp_path / "part"
    _train(config, full, 1024, points, hook=hook)
    assert seen == [("snapshot-300.zip", 512), ("snapshot-512.zip", 512),
                    ("snapshot-600.zip", 768), ("snapshot-1024.zip", 1024)]
    assert sorted(p.name for p in full.glob("snapshot-*")) == sorted(
        [f"snapshot-{t}.{s}" for t in points for s in ("zip", "json")])
    record = json.loads((full / "snapshot-600.json").read_text())
    assert record["at"] == 600 and record["timesteps"] == 768 and record["train_seconds"] >= 0
    assert [s["at"] for s in read_checkpoint(full)["extra"]["snapshots"]] == points
    assert _same(_weights(full / "snapshot-1024.zip"), _weights(full / "final.zip"))
    player = agents.load(str(full / "snapshot-600.zip"), "penta")
    assert player is not None

    _train(config, plain, 1024)  # no snapshots, no hook: the same training
    assert not list(plain.glob("snapshot-*"))
    assert _same(_weights(plain / "final.zip"), _weights(full / "final.zip"))

    seen.clear()
    _train(config, part, 512, points, hook=hook)  # stopped at 512 ...
    first = {p.name: p.stat().st_mtime_ns for p in part.glob("snapshot-*.zip")}
    assert sorted(first) == ["snapshot-300.zip", "snapshot-512.zip"]
    _train(config, part, 1024, resume=True, hook=hook)  # ... and resumed
    assert seen == [("snapshot-300.zip", 512), ("snapshot-512.zip", 512),
                    ("snapshot-600.zip", 768), ("snapshot-1024.zip", 1024)]
    assert {n: (part / n).stat().st_mtime_ns for n in first} == first  # none written again
    for t in (600, 1024):
        assert _same(_weights(part / f"snapshot-{t}.zip"), _weights(full / f"snapshot-{t}.zip"))

    seen.clear()
    _train(config, tmp_path / "next", 1536, [512, 1024, 1280], init_from=full / "final.zip",
           hook=hook)
    assert seen == [("snapshot-1280.zip", 1280)]


def test_sb3_trainer_takes_snapshots_too(tmp_path):
    config = _config(tmp_path, trainer="sb3")
    run = tmp_path / "sb3"
    _train(config, run, 512, [256, 512])
    assert sorted(p.name for p in run.glob("snapshot-*.zip")) == ["snapshot-256.zip",
                                                                  "snapshot-512.zip"]
    assert json.loads((run / "snapshot-256.json").read_text())["timesteps"] == 256


@pytest.mark.parametrize("value", ["[0]", "5", "[1.5]", '["a"]'])
def test_snapshots_at_must_be_positive_steps(tmp_path, value):
    out = subprocess.run([sys.executable, "scripts/train.py", "penta", "--config",
                          str(_config(tmp_path)), "--run-dir", str(tmp_path / "r"), "--set",
                          f"snapshots_at={value}"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "snapshots_at must be a list of positive integers" in out.stderr
    assert not (tmp_path / "r").exists()


# -- the study -------------------------------------------------------------------------------

def test_the_committed_store_is_one_recipe_the_scaling_stages_and_not_the_committed_models():
    """Every row the study has measured and every carried run is of the stages the study scales
    (scaling_stages.json), kept apart from the committed recipe (stages.json): a change of the
    committed recipe never mixes another recipe into the curve."""
    from agents.paths import checkout_models_dir
    from agents.training.ppo.stages import load_stages, scaled
    from agents.training.studies.ppo_recipe import recipe_digest
    from agents.training.studies.scaling import (
        RUNS,
        STEPS_SCALE,
        STORE_NAME,
        load_store,
        scaling_stages_file,
    )

    stages = load_stages(scaling_stages_file())
    digests = {g: recipe_digest(scaled(stages[g], STEPS_SCALE)) for g in RUNS}
    rows = load_store(checkout_models_dir() / "carry" / "scaling" / STORE_NAME)
    assert {r["game"] for r in rows} == set(RUNS)
    assert all(r["recipe"] == digests[r["game"]] for r in rows)


def test_the_documented_points_are_about_six_on_a_log_scale_snapped_to_the_stage_ends():
    from agents.training.ppo.stages import load_stages, scaled, stage_steps
    from agents.training.studies.scaling import scaling_stages_file, snapshot_points

    for game in ("yahtzee-official", "penta"):
        ends = [stage_steps(game, s) for s in scaled(load_stages(scaling_stages_file())[game], 10)]
        assert ends == [101_580_800, 300_154_880]
        assert snapshot_points(ends) == [1_000_000, 3_000_000, 10_000_000, 30_000_000, *ends]
    assert snapshot_points([512, 1024], [100, 256, 600, 768, 2000]) == [100, 256, 512, 768, 1024]


def _stages(tmp_path) -> Path:
    config = _config(tmp_path)
    path = tmp_path / "stages.json"
    path.write_text(json.dumps({"penta": [
        {"timesteps": 512, "config": str(config)},
        {"timesteps": 1024, "config": str(config),
         "set": {"ppo.learning_rate_schedule": "linear"}}]}))
    return path


def _fake_measure(calls):
    def measure_agent(agent, game, games, seed=0, split=False):
        calls.append((game, games, seed))
        gap = 10.0 / len(calls)
        out = {"gap": gap, "ci": [0.0, 1.0], "unit": "points", "value": 200.0}
        if split:
            out.update(by_kind={"hold": gap / 2, "box": gap / 2}, by_turn=[gap / 13] * 13,
                       mistakes=[["reroll", "Fours", 2, gap / 4]], bonus_giveaway=0.5)
        return out
    return measure_agent


def test_runs_are_carried_across_sessions_and_resume_exactly(tmp_path, monkeypatch, capsys):
    """A study stopped (Ctrl-C) mid-way carries each unfinished run: the run between stages its
    finished stage's final.zip (the next starts from it), the run inside a stage its checkpoint;
    with its run folders gone, the next session restores them, finishes (each snapshot measured
    once, stored), deletes the carried files and ends with the same model as a run never
    stopped."""
    import os
    import shutil
    import signal

    from agents.cli import scaling as cli
    from agents.training.studies import scaling

    calls = []
    monkeypatch.setattr(scaling, "measure_agent", _fake_measure(calls))
    carry, runs, store = tmp_path / "carry", tmp_path / "runs", tmp_path / "carry" / "measured.json"
    common = ["--runs", "penta:0,1", "--steps-scale", "1", "--points", "256", "768",
              "--eval-games", "4", "--stages", str(_stages(tmp_path)), "--out",
              str(tmp_path / "out")]
    hook = scaling.ScalingStudy.hook

    def interrupting(self, game, seed):  # Ctrl-C when seed 1 has its first snapshot
        inner = hook(self, game, seed)

        def on_snapshot(path, record):
            inner(path, record)
            if seed == 1 and record["at"] == 256:
                os.kill(os.getpid(), signal.SIGINT)
        return on_snapshot

    monkeypatch.setattr(scaling.ScalingStudy, "hook", interrupting)
    assert cli.main([*common, "--run-root", str(runs), "--carry", str(carry)]) is False
    out = capsys.readouterr().out
    assert "carried the unfinished runs" in out
    manifest = {s: json.loads((carry / f"penta-seed{s}" / "carry.json").read_text())
                for s in (0, 1)}
    assert manifest[0]["stage"] == 2 and manifest[0]["files"] == ["stage1/eval.csv",
                                                                  "stage1/final.zip"]
    assert manifest[1]["stage"] == 1 and manifest[1]["timesteps"] == 256
    assert manifest[1]["files"] == ["stage1/checkpoint.pkl", "stage1/eval.csv"]
    rows = scaling.load_store(store)
    assert sorted((r["seed"], r["at"]) for r in rows) == [(0, 256), (0, 512), (1, 256)]
    # three snapshots and the reference player (the heuristic), on the same games
    assert len(calls) == 4 and all(c == ("penta", 4, 0) for c in calls)
    assert [r["player"] for r in scaling.load_references(store)] == ["heuristic"]
    page = (tmp_path / "out" / "scaling.md").read_text()
    assert "| 768 | pending | pending |" in page

    shutil.rmtree(runs)  # the next session, on another machine
    monkeypatch.setattr(scaling.ScalingStudy, "hook", hook)
    assert cli.main([*common, "--run-root", str(runs), "--carry", str(carry)]) is True
    assert "restored from" in capsys.readouterr().out
    assert [p.name for p in carry.iterdir()] == ["measured.json"]  # carried files deleted
    rows = scaling.load_store(store)
    assert sorted((r["seed"], r["at"], r["timesteps"]) for r in rows) == [
        (s, t, t) for s in (0, 1) for t in (256, 512, 768, 1024)]
    assert len(calls) == 9  # each snapshot once, the reference once
    assert all(r["train_cpu_seconds"] is not None and r["times_from"] == "eval.csv"
               for r in rows)
    again = cli.main([*common, "--run-root", str(runs), "--carry", str(carry)])
    assert again is True and len(calls) == 9  # finished: nothing trained or measured

    # the same run never stopped, never carried: the same final model
    monkeypatch.setattr(scaling, "measure_agent", _fake_measure([]))
    cli.main([*common[:1], "penta:1", *common[2:], "--run-root", str(tmp_path / "whole")])
    assert _same(_weights(runs / "penta-seed1-stage2" / "final.zip"),
                 _weights(tmp_path / "whole" / "penta-seed1-stage2" / "final.zip"))
    page = json.loads((tmp_path / "out" / "scaling.json").read_text())
    assert page["games"]["penta"]["seeds"] == [1]


def _points(gaps: dict[int, list[float]], steps: list[int], half: float = 0.4) -> list[dict]:
    from agents.evaluation.reports.scaling import point_summaries

    rows = [{"seed": s, "at": t, "timesteps": t, "gap": g, "ci": [g - half, g + half],
             "train_seconds": t * 5e-5, "train_cpu_seconds": t * 4e-5}
            for s, values in gaps.items() for t, g in zip(steps, values) if g is not None]
    return point_summaries({"seeds": list(gaps), "points": steps, "stage_ends": steps[-2:],
                            "rows": rows})


STEPS = [1_000_000, 3_000_000, 10_000_000, 30_000_000, 101_580_800, 300_154_880]


def test_the_report_says_where_the_curve_flattens_from_the_numbers():
    from agents.evaluation.reports.scaling import flattening, scaling_markdown

    falling = _points({0: [40, 20, 10, 7, 5.0, 3.0], 1: [42, 21, 11, 7.5, 5.3, 3.2],
                       2: [39, 19, 9.5, 6.8, 5.1, 2.9]}, STEPS)
    text = flattening(falling, "points")
    assert "went from 5.13 to 3.03 points: a drop of 2.10" in text
    assert "more than the noise of 0.40" in text and "still falling at 300.2M steps" in text
    assert "has not flattened by 300.2M steps" in text and "**Yes**" in text
    assert falling[-1]["drop_per_decade"] == pytest.approx(2.1 / math.log10(STEPS[5] / STEPS[4]))

    flat = _points({0: [40, 20, 10, 7, 6.9, 6.8], 1: [42, 21, 11, 7.5, 7.2, 7.3],
                    2: [39, 19, 9.5, 6.8, 6.7, 6.6]}, STEPS)
    text = flattening(flat, "points")
    assert "It flattens at about 30M steps (about 0.33 CPU hours per run)" in text
    assert "flat within the noise at 300.2M steps" in text and "**No**" in text

    pending = _points({0: [40, 20, 10, 7, 5.0, 4.8], 1: [42, 21, 11, 7.5, 5.3, None]}, STEPS)
    text = flattening(pending, "points")
    assert "still falling at 101.6M steps" in text and "not known yet" in text
    assert "Pending (not every seed measured yet): 300.2M steps" in text
    page = scaling_markdown([{"game": "yahtzee-official", "seeds": [0, 1], "points": STEPS,
                              "stage_ends": STEPS[-2:], "unit": "points", "digits": 2,
                              "rows": []}], "dice-env scaling", 2000, 10)
    table = [line for line in page.splitlines() if line.startswith("| ") and "M" in line[:12]]
    assert len(table) == len(STEPS)
    assert all(line.count("| pending ") == 6 for line in table)  # nothing invented
    assert "Not enough points measured yet: 0 of 6" in page

    one_seed = _points({0: [30, 15, 8, 6.0, 5.5, 5.4]}, STEPS, half=0.3)  # Penta: its CI
    text = flattening(one_seed, "points")
    assert "within the noise of 0.30" in text and "flattens at about 101.6M steps" in text
    assert "Not enough points" in flattening(one_seed[:1], "points")


def test_the_report_says_how_far_the_last_slope_is_from_the_reference_and_that_it_is_a_guess():
    """The last drop per decade, carried on as a straight line on the log scale, meets the
    reference's gap at steps = last * 10 ** ((gap - target) / drop); the CPU hours scale with
    the steps; the text calls it an extrapolation and says when the drops have been shrinking.
    Nothing is said without a reference, on a flat or rising curve, or once below it."""
    from agents.evaluation.reports.scaling import extrapolation, scaling_markdown, short_steps

    gaps = {0: [40, 20, 10, 7, 5.0, 4.2], 1: [42, 21, 11, 7.5, 5.3, 4.4],
            2: [39, 19, 9.5, 6.8, 5.1, 4.3]}
    slowing = _points(gaps, STEPS)
    heuristic = {"player": "heuristic", "gap": 2.0}
    reach = extrapolation(slowing, heuristic, "points")
    per_decade = (15.4 / 3 - 12.9 / 3) / math.log10(STEPS[5] / STEPS[4])
    factor = 10 ** ((12.9 / 3 - 2.0) / per_decade)
    assert reach["per_decade"] == pytest.approx(per_decade)
    assert reach["steps"] == pytest.approx(STEPS[5] * factor, rel=1e-6)
    assert reach["cpu_hours"] == pytest.approx(STEPS[5] * 4e-5 / 3600 * factor, rel=1e-6)
    assert f"at about {short_steps(reach['steps'])} steps" in reach["text"]
    assert "B steps" in reach["text"]  # past a billion
    assert "an extrapolation, not a measurement" in reach["text"]
    assert reach["shrinking"] and "the optimistic case" in reach["text"]
    assert reach["drops"] == pytest.approx([p["drop_per_decade"] for p in slowing[1:]])
    game = {"game": "penta", "seeds": [0, 1, 2], "points": STEPS, "stage_ends": STEPS[-2:],
            "unit": "points", "digits": 2, "reference": heuristic,
            "rows": [{"seed": s, "at": t, "timesteps": t, "gap": g, "ci": [g - 0.4, g + 0.4]}
                     for s, gs in gaps.items() for t, g in zip(STEPS, gs, strict=True)]}
    assert "**How far to the heuristic.** Were the mean gap" in scaling_markdown(
        [game], "dice-env report scaling", 2000, 10)
    assert extrapolation(slowing, None, "points") is None
    assert extrapolation(slowing, {"player": "heuristic", "gap": 4.5}, "points") is None
    flat = _points({0: [40, 20, 10, 7, 6.9, 7.0]}, STEPS)
    assert extrapolation(flat, heuristic, "points") is None
    assert extrapolation(slowing[:1], heuristic, "points") is None
    bent = _points({0: [40, 20, 10, 7, 5.0, 3.0]}, STEPS)  # the last drop grew
    assert "optimistic" not in extrapolation(bent, heuristic, "points")["text"]


@pytest.mark.parametrize(("args", "expected"), [
    (["--runs", "bogus:0"], "no stages for 'bogus'"),
    (["--runs", "penta"], "argument --runs: expected GAME:SEEDS"),
    (["--runs", "penta:0,0"], "argument --runs: expected GAME:SEEDS"),
    (["--runs", "penta:0", "penta:1"], "name each game once"),
    (["--steps-scale", "0"], "argument --steps-scale: must be positive"),
    (["--points", "0"], "argument --points: must be at least 1"),
    (["--eval-games", "abc"], "argument --eval-games: expected a number of games from 2 to"),
    (["--set", "x=1"], "unrecognized arguments"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, args, expected):
    from agents.cli import scaling as cli

    with pytest.raises(SystemExit) as stop:
        cli.main([*args, "--run-root", str(tmp_path / "runs"), "--no-train"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert expected in err and not (tmp_path / "runs").exists()


def test_a_carry_of_another_recipe_is_refused(tmp_path, capsys):
    from agents.cli import scaling as cli

    carried = tmp_path / "carry" / "penta-seed0"
    carried.mkdir(parents=True)
    (carried / "carry.json").write_text(json.dumps({"recipe": "0123", "steps_scale": 3,
                                                    "stage": 1, "timesteps": 0, "files": []}))
    with pytest.raises(SystemExit) as stop:
        cli.main(["--runs", "penta:0", "--run-root", str(tmp_path / "runs"), "--carry",
                  str(tmp_path / "carry"), "--no-train"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert "carries a run of another recipe (steps scale 3)" in err


def test_rows_measured_before_the_split_get_it_from_the_model_still_there(tmp_path, monkeypatch):
    """A stored row without the gap's split is measured again where the model it measured is
    still in the run folders -- here, for the row at stage 1's end, that stage's final model
    (the snapshot there was another file of the same weights) -- and keeps its other fields; a
    row whose model is gone keeps none."""
    from agents.training.ppo.stages import load_stages, scaled
    from agents.training.studies import scaling

    calls = []
    monkeypatch.setattr(scaling, "measure_agent", _fake_measure(calls))
    stages = {"penta": scaled(load_stages(_stages(tmp_path))["penta"], 1)}
    store = tmp_path / "measured.json"
    study = scaling.ScalingStudy(runs={"penta": [0]}, stages=stages, run_root=tmp_path / "runs",
                                 store=store, eval_games=4, steps_scale=1)
    final = study.folder("penta", 0, 1) / "final.zip"
    final.parent.mkdir(parents=True)
    final.write_bytes(b"a model")
    base = {"game": "penta", "seed": 0, "eval_games": 4, "selection_seed": 0, "gap": 3.0,
            "ci": [2.0, 4.0], "unit": "points", "value": 200.0, "train_seconds": 9.0,
            "train_cpu_seconds": 8.0, "times_from": "eval.csv", "recipe": study.recipe("penta"),
            "steps_scale": 1.0}
    scaling.add_to_store(store, {**base, "at": 256, "timesteps": 256, "sha256": "gone"})
    assert study.ends("penta")[0] == 512
    scaling.add_to_store(store, {**base, "at": 512, "timesteps": 512, "sha256": "the snapshot"})
    import agents.policies.sb3_models as models

    monkeypatch.setattr(models, "SB3Agent", lambda game, model_path: model_path)
    study.measure_split("penta", 0)
    rows = {r["at"]: r for r in scaling.load_store(store)}
    assert "by_kind" not in rows[256] and rows[256]["gap"] == 3.0
    assert rows[512]["by_kind"] == {"hold": 5.0, "box": 5.0} and rows[512]["gap"] == 10.0
    assert rows[512]["train_cpu_seconds"] == 8.0 and len(calls) == 1
    study.measure_split("penta", 0)  # nothing left that it can measure
    assert len(calls) == 1


def test_the_page_says_where_the_gap_is_lost_beside_the_reference():
    from agents.evaluation.reports.scaling import loss_split, scaling_markdown

    def row(seed, at, hold, box, turns):
        return {"seed": seed, "at": at, "timesteps": at, "gap": hold + box, "ci": [0, 1],
                "by_kind": {"hold": hold, "box": box}, "by_turn": turns, "eval_games": 2000,
                "mistakes": [["reroll", "Fours", 5, 0.2], ["Sixes", "Chance", 40, 0.05]]
                if seed == 0 else [["reroll", "Fours", 3, 0.1]],
                "bonus_giveaway": 0.5 + 0.1 * seed}

    game = {"game": "penta", "seeds": [0, 1], "points": STEPS[-2:], "stage_ends": STEPS[-2:],
            "unit": "points", "digits": 2,
            "rows": [{"seed": 0, "at": STEPS[-2], "timesteps": STEPS[-2], "gap": 9.0,
                      "ci": [8, 10]},  # measured before the split was kept
                     row(0, STEPS[-1], 1.0, 3.0, [0.1] * 10 + [1.0, 1.0, 1.0]),
                     row(1, STEPS[-1], 1.2, 2.6, [0.1] * 10 + [0.9, 0.9, 1.0])],
            "reference": {"player": "heuristic", "gap": 2.0, "ci": [1.8, 2.2],
                          "by_kind": {"hold": 1.0, "box": 1.0}, "by_turn": [2.0 / 13] * 13}}
    split = loss_split(game)
    assert [p["at"] for p in split["points"]] == [STEPS[-1]]
    assert split["phases"] == [(1, 5), (6, 9), (10, 13)]
    assert split["points"][0]["kinds"] == pytest.approx({"hold": 1.1, "box": 2.8})
    assert split["excess"]["gap"] == pytest.approx(1.9)
    page = scaling_markdown([game], "dice-env report scaling", 2000, 10)
    assert "| PPO at 300.2M steps | 0, 1 | 3.90 | 1.10 | 2.80 | 0.50 | 0.40 | 3.00 | 55.0% |" \
        in page
    assert "| heuristic (reference) | — | 2.00 | 1.00 | 1.00 |" in page
    assert page.count(" — |\n") == 1  # the reference was measured without the probe
    assert ("At 300.2M steps PPO loses 1.90 points a game more than the heuristic: 1.80 in "
            "'box' (95 %), 0.10 in 'hold' (5 %); by phase the most in turns 10–13") in page
    assert ("The costliest box choices at 300.2M steps (mean over the seeds of each seed's "
            "eight costliest; \"reroll\" is a hold where scoring was optimal): reroll instead "
            "of Fours, 0.15 points a game (8 times, 75.0 each); Sixes instead of Chance, 0.03 "
            "points a game (40 times, 2.5 each).") in page
    assert loss_split({**game, "rows": game["rows"][:1]}) is None


def _write_rows(store, seed):
    from agents.training.studies import scaling

    for at in range(30):
        scaling.add_to_store(store, {"game": "g", "seed": seed, "at": at, "recipe": "r",
                                     "eval_games": 1})


def test_studies_of_different_runs_share_the_store_without_losing_a_row(tmp_path):
    """Two studies training different runs at once (--runs) write one store: its writes are
    locked, so no row is lost to the other's read-modify-write."""
    import multiprocessing

    from agents.training.studies import scaling

    store = tmp_path / "measured.json"
    scaling.add_reference(store, {"game": "g", "player": "heuristic", "eval_games": 1,
                                  "selection_seed": 0, "gap": 2.0})
    workers = [multiprocessing.get_context("spawn").Process(target=_write_rows,
                                                            args=(store, s)) for s in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted((r["seed"], r["at"]) for r in scaling.load_store(store)) == [
        (s, at) for s in range(3) for at in range(30)]
    assert len(scaling.load_references(store)) == 1  # kept by every row's write
