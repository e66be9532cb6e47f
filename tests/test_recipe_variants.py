"""dice-env recipe-variants: variants of the PPO recipe trained through every stage, measured
like the recipe's seeds, and their table beside the recipe's seeds."""

import json

import pytest
from test_training import _tiny_config

from agents.evaluation.reports.recipe_variants import recipe_variants_markdown


def test_the_committed_variants_pass_the_checks():
    """Every committed variant's stages are a valid recipe (the check refuses nothing that
    trains), and the kept-dice row is the recipe without the one-reroll features."""
    from agents.training.ppo.stages import check_stage_configs, load_stages
    from agents.training.studies.recipe_variants import load_variants, variant_stages

    stages = load_stages()
    variants = load_variants()
    for game, named in variants.items():
        for variant in named.values():
            check_stage_configs(game, variant_stages(stages[game], variant))
    kept = variant_stages(stages["penta"], variants["penta"]["kept-dice"])
    assert [s["timesteps"] for s in kept] == [s["timesteps"] for s in stages["penta"]]
    assert all(s["set"]["policy_kwargs.reroll_features"] is False for s in kept)
    half = variant_stages(stages["penta"], variants["penta"]["fast-half-steps"])
    assert [s["timesteps"] for s in half] == [round(s["timesteps"] / 2)
                                              for s in stages["penta"]]


def test_a_malformed_variant_is_refused_with_its_name(tmp_path, capsys):
    from agents.cli import main

    bad = tmp_path / "variants.json"
    bad.write_text(json.dumps({"penta": {"odd": {"change": "x", "steps_scale": 0}}}))
    assert main(["train", "variants", "penta", "--variants-file", str(bad), "--no-train"]) == 2
    err = capsys.readouterr().err.strip()
    assert "penta variant 'odd'" in err and len(err.splitlines()) == 1
    bad.write_text(json.dumps({"penta": {"odd": {"change": "x", "seed": -1}}}))
    assert main(["recipe-variants", "penta", "--variants-file", str(bad), "--no-train"]) == 2
    assert "a training 'seed' from 0" in capsys.readouterr().err
    assert main(["recipe-variants", "penta", "--variants", "nope", "--no-train"]) == 2
    assert "unknown variant 'nope'" in capsys.readouterr().err
    assert main(["recipe-variants", "chess", "--no-train"]) == 2
    assert "no variants for 'chess'" in capsys.readouterr().err


def test_variants_train_through_every_stage_and_are_measured_once(tmp_path, monkeypatch,
                                                                  capsys):
    """A variant trains each stage with its overrides and steps scale, is measured on both
    sets of games (kept with the model), and sits in the table below the recipe's seeds; a
    variant that has not finished leaves the documented table alone."""
    from agents.cli import recipe_variants
    from agents.training.ppo import read_checkpoint
    from agents.training.studies import ppo_recipe

    config = _tiny_config(tmp_path, trainer="lean")
    stages = tmp_path / "stages.json"
    stages.write_text(json.dumps({"penta": [{"timesteps": 128, "config": str(config)},
                                            {"timesteps": 256, "config": str(config)}]}))
    variants = tmp_path / "variants.json"
    variants.write_text(json.dumps({"penta": {
        "one-epoch": {"change": "one epoch", "set": {"ppo.n_epochs": 1}, "steps_scale": 2,
                      "seed": 1},
        "never": {"change": "not trained here"}}}))
    recipe = tmp_path / "recipe.json"
    recipe.write_text(json.dumps({"penta": [
        {"seed": s, "timesteps": 256, "gap": g, "ci": [g - 1, g + 1], "train_seconds": 60.0}
        for s, g in ((0, 50.0), (1, 40.0), (2, 45.0))]}))
    common = ["penta", "--stages", str(stages), "--variants-file", str(variants),
              "--recipe", str(recipe), "--run-root", str(tmp_path / "runs"), "--eval-games",
              "2"]
    rows = recipe_variants.main([*common, "--variants", "one-epoch", "--out",
                                 str(tmp_path / "out")])
    (row,) = rows
    assert row["variant"] == "one-epoch" and row["timesteps"] == 512
    assert row["report"]["seed"] == 1000003 and row["train_cpu_seconds"] is not None
    last = tmp_path / "runs" / "one-epoch" / "penta-seed1-stage2"
    assert read_checkpoint(last)["extra"]["seed"] == 1 and row["seed"] == 1
    assert read_checkpoint(last)["extra"]["config"]["ppo"]["n_epochs"] == 1
    table = (tmp_path / "out" / "recipe_variants.md").read_text()
    assert "| recipe, seed 2 ✓ |" in table and "| **one-epoch** | one epoch | 512 |" in table
    assert "points against its seed 1 (the same training seed, 40.00)" in table
    assert 0.0 <= row["bonus_giveaway"] <= 1.0  # the bonus probe, read out in the summary
    assert (f"it rerolls a sure five-of-a-kind bonus away in {row['bonus_giveaway']:.1%} of the "
            "bonus probe's positions") in table

    def no_measuring(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(ppo_recipe, "measure_agent", no_measuring)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    again = recipe_variants.main([*common, "--no-train"])
    assert again == rows and "not finished (run again without --no-train to go on): never" in \
        capsys.readouterr().err
    assert (tmp_path / "runs" / "recipe-variants" / "recipe_variants.md").exists()
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(("gap", "where"), [(3.0, "below (better than)"), (6.0, "within"),
                                             (27.0, "above (worse than)")])
def test_the_table_says_where_a_variant_falls_against_the_seeds(gap, where):
    recipe = [{"seed": s, "timesteps": 30, "gap": g, "ci": [g - 0.5, g + 0.5]}
              for s, g in ((0, 6.29), (1, 5.95), (2, 5.94))]
    recipe[1]["report"] = {"gap": 6.86, "ci": [6.28, 7.44]}
    row = {"variant": "v", "change": "c", "timesteps": 15, "gap": gap, "ci": [gap - 1, gap + 1],
           "report": {"gap": gap, "ci": [gap - 1, gap + 1]}, "train_seconds": 600.0,
           "train_cpu_seconds": 300.0}
    text = recipe_variants_markdown("penta", [row], recipe, "cmd", 2000,
                                    [{"timesteps": 30}])
    assert f"{where} the range of the recipe's seeds, 5.94–6.29" in text
    assert f"{gap - 6.29:+.2f} points against its seed 0 (the same training seed, 6.29)" in text
    assert "| recipe, seed 1 ✓ | the committed recipe | 30 | — | — | — | 5.95 [5.45, 6.45] | " \
           "6.86 [6.28, 7.44] |" in text
    assert "| 10 min | 5 min | 20000000 |" in text


def test_a_variant_of_an_earlier_recipe_is_read_against_the_seed_runs_it_names():
    """A variant measured before the recipe changed names the runs of that recipe's seeds
    (``against``): its summary and the ablations' full-budget row read it against them, not
    against the committed recipe's seeds."""
    from agents.evaluation.reports.ablations import full_budget_lines

    recipe = [{"seed": s, "timesteps": 30, "gap": g, "ci": [g - 0.2, g + 0.2]}
              for s, g in ((0, 4.80), (1, 4.76), (2, 4.75))]
    old = [{"variant": f"old-{s}", "change": "c", "seed": s, "timesteps": 30, "gap": g,
            "ci": [g - 0.4, g + 0.4]} for s, g in ((0, 5.90), (1, 5.48), (2, 5.64))]
    lever = {"variant": "lever", "change": "c", "timesteps": 30, "gap": 5.53,
             "ci": [5.15, 5.90], "against": [r["variant"] for r in old]}
    text = recipe_variants_markdown("penta", [*old, lever], recipe, "cmd", 2000,
                                    [{"timesteps": 30}])
    assert ("**lever**: gap 5.53 on the selection games, within the range of the seeds it is "
            "read against (old-0, old-1, old-2), 5.48–5.90; -0.37 points against its seed 0 "
            "(the same training seed, 5.90)") in text
    # the old runs themselves name nothing: read against the committed recipe
    assert "**old-1**: gap 5.48 on the selection games, above (worse than) the range of the " \
           "recipe's seeds, 4.75–4.80; +0.72 points against its seed 1" in text
    row = next(line for line in full_budget_lines(recipe, [*old, lever])
               if line.startswith("| lever |"))
    assert row.endswith("| -0.37 to +0.05 |")


def test_a_variant_may_only_name_other_variants_of_its_game(tmp_path):
    from agents.training.studies.recipe_variants import load_variants

    path = tmp_path / "variants.json"
    path.write_text(json.dumps({"penta": {"a": {"change": "c", "against": ["b"]}}}))
    with pytest.raises(ValueError, match="'against', a list of other variants of penta"):
        load_variants(path)
    path.write_text(json.dumps({"penta": {"a": {"change": "c"},
                                          "b": {"change": "c", "against": ["a"]}}}))
    assert load_variants(path)["penta"]["b"]["against"] == ["a"]


def test_ablations_table_written_again_with_the_full_budget(tmp_path):
    """`dice-env ablations penta --variants` (no name) trains nothing and writes the table
    again from its earlier rows, with the full-budget section from recipe_variants.json."""
    import shutil
    from pathlib import Path

    from agents.cli import main

    results = Path(__file__).resolve().parent.parent / "results"
    shutil.copy(results / "ablations.json", tmp_path / "ablations.json")
    shutil.copy(results / "ppo_recipe_seeds.json", tmp_path / "ppo_recipe_seeds.json")
    earlier = json.loads((tmp_path / "ablations.json").read_text())
    (tmp_path / "recipe_variants.json").write_text(json.dumps({"penta": [
        {"variant": "kept-dice", "change": "the kept dice alone", "timesteps": 30015488,
         "gap": 27.11, "ci": [26.45, 27.77]}]}))
    assert main(["ablations", "penta", "--variants", "--out", str(tmp_path)]) == 0
    table = (tmp_path / "ablations.md").read_text()
    assert all(f"| {r['variant']} |" in table for r in earlier)
    assert "## At the full budget" in table
    seeds = [r["gap"] for r in json.loads((tmp_path / "ppo_recipe_seeds.json").read_text())
             ["penta"]]  # the committed recipe's seeds: the cost is against each of them
    assert "| kept-dice | the kept dice alone | 30,015,488 | **27.11** [26.45, 27.77] | " \
           f"+{27.11 - max(seeds):.2f} to +{27.11 - min(seeds):.2f} |" in table


def test_a_variant_whose_run_folder_is_gone_keeps_its_earlier_row(tmp_path, monkeypatch):
    """The committed table's rows outlive the run folders: a --no-train run without them keeps
    each variant's earlier row (measured as it would measure it), and measures nothing."""
    import shutil
    from pathlib import Path

    from agents.cli import recipe_variants
    from agents.training.studies import ppo_recipe

    results = Path(__file__).resolve().parent.parent / "results"
    shutil.copy(results / "recipe_variants.json", tmp_path / "recipe_variants.json")
    committed = json.loads((tmp_path / "recipe_variants.json").read_text())["penta"]

    def no_measuring(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(ppo_recipe, "measure_agent", no_measuring)
    rows = recipe_variants.main(["penta", "--no-train", "--run-root", str(tmp_path / "gone"),
                                 "--out", str(tmp_path)])
    assert rows == committed
    table = (tmp_path / "recipe_variants.md").read_text()
    assert all(f"| **{r['variant']}** |" in table for r in committed)
    with pytest.raises(SystemExit) as stop:  # measured with other games: not kept
        recipe_variants.main(["penta", "--no-train", "--eval-games", "100", "--run-root",
                              str(tmp_path / "gone"), "--out", str(tmp_path / "other")])
    assert stop.value.code == 1


def test_the_frontier_marks_the_runs_no_faster_run_beats():
    from agents.evaluation.reports.recipe_variants import time_frontier

    rows = [{"variant": name, "change": "c", "gap": gap, "ci": [gap - 1, gap + 1],
             "train_cpu_seconds": cpu, "timesteps": 10}
            for name, gap, cpu in (("slow-good", 6.3, 2400), ("fast-bad", 7.4, 1400),
                                   ("fast-good", 6.8, 1390), ("mid-worse", 7.0, 1600),
                                   ("untimed", 1.0, None))]
    # imitation reads the DP tables: a ceiling in the table, never on the frontier
    rows.append({"variant": "taught", "change": "c", "gap": 1.3, "ci": [1.2, 1.4],
                 "train_cpu_seconds": 1000, "timesteps": 10, "set": {"teacher": "optimal"}})
    marked = [(r["variant"], best) for r, best in time_frontier(rows)]
    assert marked == [("fast-good", True), ("fast-bad", False), ("mid-worse", False),
                      ("slow-good", True)]
    text = recipe_variants_markdown("penta", rows, [], "cmd", 2000, [{"timesteps": 30}])
    assert "| fast-good | 23 min | 10 | " in text and text.count("★ |") == 2
    assert "| **taught** |" in text and "| taught |" not in text


def test_a_full_run_trains_only_the_variants_without_a_row(tmp_path, monkeypatch, capsys):
    """Adding a variant to variants.json and running the documented command trains that one
    alone: the others keep the rows the table measured, their run folders gone."""
    import shutil
    from pathlib import Path

    from agents.cli import recipe_variants
    from agents.training.studies import recipe_variants as study

    results = Path(__file__).resolve().parent.parent / "results"
    shutil.copy(results / "recipe_variants.json", tmp_path / "recipe_variants.json")
    committed = json.loads((tmp_path / "recipe_variants.json").read_text())["penta"]
    variants = json.loads(study.variants_file().read_text())
    variants["penta"]["brand-new"] = {"change": "added after the table", "set": {}}
    (tmp_path / "variants.json").write_text(json.dumps(variants))
    trained = []
    monkeypatch.setattr(study, "run_stages",
                        lambda game, stages, root, **kw: trained.append(Path(root).name))
    names = [committed[0]["variant"], "brand-new"]
    rows = recipe_variants.main(["penta", "--variants", *names, "--variants-file",
                                 str(tmp_path / "variants.json"), "--run-root",
                                 str(tmp_path / "gone"), "--out", str(tmp_path)])
    assert trained == ["brand-new"]
    assert rows == committed[:1]  # brand-new is unfinished: nothing was really trained
    assert "run the same command again to go on): brand-new" in capsys.readouterr().err
