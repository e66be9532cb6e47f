"""Standard Yahtzee, the benchmark of record (``dice-env yahtzee-report``), and the two sets of
evaluation games behind every committed PPO model (selection games choose, report games
publish).

* the report on a few games with real players writes a well-formed table with every column,
  into ``runs/`` unless told otherwise;
* the statistics (median, upper-bonus rate, Yahtzee rate) on hand-made score cards;
* the selection and report games are disjoint, and the recipe study measures each seed on
  both (cached with the model, an older cache extended), keeps the rows of an earlier table
  whose run folders are gone, and measures the committed model in the median seed's place;
* ``agents.make("ppo", "yahtzee-official")`` names the missing model file and how to train it.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from agents.evaluation.game_sets import REPORT_SEED, SELECTION_SEED, game_streams
from agents.evaluation.reports.yahtzee import COLUMNS
from agents.evaluation.scorecard_games import ScorecardGames
from agents.evaluation.yahtzee import (
    GAME,
    median_score,
    score_statistics,
    upper_bonus_rate,
    yahtzee_rate,
)
from dice_env.dice import DiceStream
from dice_env.scorecard import game as G
from dice_env.scorecard.rules import get_rules


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_report_on_a_few_games_writes_every_column(tmp_path, monkeypatch, capsys):
    """Real players (the optimum and the heuristic) on 30 games: a row each with every column,
    the optimum's exact value beside its sampled mean and a zero gap, the published rows with
    their sources; a small run writes runs/yahtzee-report/, never results/."""
    from agents.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["yahtzee-report", "--games", "30", "--regret-games", "6",
                 "--players", "optimal", "heuristic"]) == 0
    assert "not the documented full run" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()
    out = tmp_path / "runs" / "yahtzee-report"
    table = (out / "yahtzee.md").read_text()
    lines = table.splitlines()
    header = lines.index("| " + " | ".join(COLUMNS) + " |")
    rows = []
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        rows.append(_cells(line))
    assert [len(r) for r in rows] == [len(COLUMNS)] * 5
    optimum, heuristic, pape, yahtzotron, dutschke = rows
    assert optimum[0].startswith("optimum") and "exact **254.5877**" in optimum[3]
    assert optimum[7].startswith("**0.00**")
    assert heuristic[0].startswith("heuristic") and heuristic[2] == "30"
    assert float(heuristic[7].split("**")[1]) > 0
    assert all(c.endswith(" %") for r in (optimum, heuristic) for c in (r[5], r[6]))
    assert pape[4] == "241.78" and pape[5] == "24.9 %" and pape[6] == "34.1 %"
    assert "arxiv.org/abs/2601.00007" in table and "github.com/dionhaefner/yahtzotron" in table
    assert dutschke[2] == "100" and dutschke[3] == "241.60" and "github.com/markusdutschke" in table
    assert f"({REPORT_SEED:,}, *i*)" in table
    data = json.loads((out / "yahtzee.json").read_text())
    assert data["seed"] == REPORT_SEED and [r["player"] for r in data["rows"]] == [
        "optimal", "heuristic"]
    assert data["rows"][0]["gap"] == 0.0 and data["rows"][1]["games"] == 30
    assert main(["yahtzee-report", "--games", "4", "--regret-games", "5"]) == 2
    assert "argument --regret-games" in capsys.readouterr().err

    def measured(rows):  # the figures, not the time they took
        return [{k: v for k, v in r.items() if "seconds" not in k} for r in rows]

    assert main(["yahtzee-report", "--games", "30", "--regret-games", "6", "--players",
                 "optimal", "heuristic", "--workers", "2", "--out", str(tmp_path / "w2")]) == 0
    again = json.loads((tmp_path / "w2" / "yahtzee.json").read_text())
    assert measured(again["rows"]) == measured(data["rows"])
    assert again["command"] == data["command"] + f" --out {tmp_path / 'w2'}"  # no --workers


def _cards(rows: list[tuple[list[int], int]]) -> ScorecardGames:
    """Finished Yahtzee cards: each row is the 13 box scores and the Yahtzee bonus points."""
    rules = get_rules(GAME)
    state = G.ScorecardState.empty(rules, len(rows))
    for i, (scores, bonus) in enumerate(rows):
        state.scores[i] = scores
        state.upper_total[i] = sum(scores[:6])
        state.five_bonus[i] = bonus
    games = ScorecardGames.empty(len(rows))
    games.record(rules, slice(0, len(rows)), state)
    return games


def test_statistics_on_hand_made_score_cards():
    """Upper bonus at exactly 63 and not at 62; the Yahtzee rate counts a Yahtzee box holding
    its 50 (not a zero there); the median of an even count is the mean of the middle two."""
    #            aces..sixes               3k  4k  FH  SS  LS  Yz  Ch
    exact_63 = ([3, 6, 9, 12, 15, 18] + [20, 0, 25, 30, 0, 50, 20], 0)      # bonus, Yahtzee
    short_62 = ([2, 6, 9, 12, 15, 18] + [20, 0, 25, 30, 40, 0, 20], 0)      # neither
    rich = ([4, 8, 12, 16, 20, 24] + [25, 26, 25, 30, 40, 50, 22], 200)     # both, 2 bonuses
    poor = ([1, 2, 3, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 5], 0)                  # neither
    games = _cards([exact_63, short_62, rich, poor])
    totals = [63 + 35 + 145, 62 + 135, 84 + 35 + 218 + 200, 6 + 5]
    assert games.total.tolist() == totals
    assert upper_bonus_rate(games) == 0.5
    assert yahtzee_rate(games) == 0.5
    assert median_score(games.total) == (totals[0] + totals[1]) / 2
    assert median_score(np.array([5, 1, 9])) == 5.0
    stats = score_statistics(games)
    assert stats["games"] == 4 and stats["mean"] == pytest.approx(np.mean(totals))
    assert stats["mean_ci"][0] < stats["mean"] < stats["mean_ci"][1]
    assert stats["yahtzee_bonus_rate"] == 0.25 and stats["median"] == median_score(totals)


def test_selection_and_report_games_are_disjoint():
    """No dice stream is in both sets, and the first games' dice differ."""
    assert SELECTION_SEED != REPORT_SEED
    assert not game_streams(SELECTION_SEED, 2000) & game_streams(REPORT_SEED, 100_000)
    rows = np.arange(3)
    selection, report = DiceStream(SELECTION_SEED, rows), DiceStream(REPORT_SEED, rows)
    assert not np.array_equal(np.stack([selection.draw(rows) for _ in range(10)]),
                              np.stack([report.draw(rows) for _ in range(10)]))


def _fake_model(folder, seed_bytes: bytes, timesteps: int = 30015488):
    folder.mkdir(parents=True)
    (folder / "final.zip").write_bytes(seed_bytes)
    (folder / "eval.csv").write_text(f"timesteps,mean_score,train_seconds\n{timesteps},1,60\n")
    return folder / "final.zip"


def test_recipe_seeds_are_chosen_on_the_selection_games_and_reported_on_the_others(
        tmp_path, monkeypatch):
    """measure_seed measures the selection games (seed 0) and the report games (seed
    1,000,003); the cache next to the model is reused, and an older cache without the report
    games gets only those added.  A seed whose run folder is gone keeps its earlier row; the
    committed model, when it is the median seed's, is measured on the report games in its
    place; the table says which set chose and shows both."""
    from agents.evaluation.reports.seeds import ppo_recipe_markdown
    from agents.training.studies import ppo_recipe

    calls = []

    def fake_measure(agent, game, games, seed=0):
        calls.append((agent, seed))
        gap = {b"s0": 7.0, b"committed": 6.0}[agent] + (seed == REPORT_SEED) * 0.001
        return {"gap": gap, "ci": [gap - 1, gap + 1], "unit": "points", "value": 254 - gap}

    monkeypatch.setattr(ppo_recipe, "measure_agent", fake_measure)
    monkeypatch.setattr(ppo_recipe, "_agent", lambda game, model: model.read_bytes())
    model = _fake_model(tmp_path / "runs" / "yahtzee-official-stage2", b"s0")
    row = ppo_recipe.measure_seed(GAME, 0, model, 8)
    assert calls == [(b"s0", SELECTION_SEED), (b"s0", REPORT_SEED)]
    assert row["selection_seed"] == SELECTION_SEED and row["gap"] == 7.0
    assert row["report"]["seed"] == REPORT_SEED and row["report"]["games"] == 8
    assert ppo_recipe.measure_seed(GAME, 0, model, 8) == row and len(calls) == 2
    old = {k: v for k, v in row.items() if k not in ("report", "selection_seed")}
    (model.parent / ppo_recipe.MEASURE_FILE).write_text(json.dumps(old))
    assert ppo_recipe.measure_seed(GAME, 0, model, 8) == row
    assert calls[2:] == [(b"s0", REPORT_SEED)]

    # seeds 1 and 2 were measured by an earlier table; their run folders are gone
    committed = tmp_path / "committed.zip"
    committed.write_bytes(b"committed")
    sha = hashlib.sha256(b"committed").hexdigest()
    earlier_table = tmp_path / "ppo_recipe_seeds.json"
    stages = {GAME: [{"timesteps": 10158080}, {"timesteps": 30015488}]}
    earlier_table.write_text(json.dumps({GAME: [
        {"seed": s, "timesteps": 30015488, "eval_games": 8, "gap": g, "ci": [g - 1, g + 1],
         "unit": "points", "value": 254 - g, "train_seconds": 60.0,
         "recipe": ppo_recipe.recipe_digest(stages[GAME]),
         "sha256": sha if s == 2 else "other"} for s, g in ((1, 5.0), (2, 6.5))]}))
    earlier = ppo_recipe.earlier_rows(earlier_table, stages, 8)
    assert set(earlier[GAME]) == {1, 2}
    assert ppo_recipe.earlier_rows(earlier_table, stages, 9) == {}
    del calls[:]
    rows, unfinished = ppo_recipe.run_recipe_seeds(
        [GAME], [0, 1, 2, 3], stages, tmp_path / "runs", 8, train=False, earlier=earlier,
        committed={GAME: committed})
    assert unfinished == {GAME: [3]} and calls == []  # a game with an unfinished seed waits
    rows, unfinished = ppo_recipe.run_recipe_seeds(
        [GAME], [0, 1, 2], stages, tmp_path / "runs", 8, train=False, earlier=earlier,
        committed={GAME: committed})
    by_seed = {r["seed"]: r for r in rows[GAME]}
    assert not unfinished and calls == [(b"committed", REPORT_SEED)]
    assert by_seed[2]["report"]["measured"] == "committed model"  # the median (6.5)
    assert "report" not in by_seed[1] and "report" in by_seed[0]
    table = ppo_recipe_markdown(rows, "cmd", 8, stages)
    assert f"evaluation seed {SELECTION_SEED})" in table and f"{REPORT_SEED:,}" in table
    marked = [_cells(line) for line in table.splitlines() if line.endswith("✓ |")]
    assert len(marked) == 1 and marked[0][1] == "2"
    assert marked[0][4].startswith("**6.00") and "(committed model)" in marked[0][4]
    seed1 = next(_cells(line) for line in table.splitlines() if line.startswith(f"| {GAME} | 1 "))
    assert seed1[3].startswith("5.00") and seed1[4] == "—"

    # --export: the median seed's run folder is gone, so its model comes from the committed
    # file (the same bytes); a models folder holding another model gets nothing
    (tmp_path / "committed.eval.csv").write_text("curve")
    models = tmp_path / "models"
    assert ppo_recipe.export_median(GAME, rows[GAME], 2, tmp_path / "runs", models,
                                    committed) == models / f"{GAME}.zip"
    assert (models / f"{GAME}.zip").read_bytes() == b"committed"
    assert (models / f"{GAME}.eval.csv").read_text() == "curve"
    assert ppo_recipe.export_median(GAME, rows[GAME], 2, tmp_path / "runs", models) == (
        models / f"{GAME}.zip")  # already there
    (models / f"{GAME}.zip").write_bytes(b"another")
    assert ppo_recipe.export_median(GAME, rows[GAME], 2, tmp_path / "runs", models) is None


def test_ppo_on_yahtzee_names_the_missing_model_file(tmp_path, monkeypatch):
    """Until a model is committed, agents.make("ppo", "yahtzee-official") says which file is
    missing and the command that trains the recipe and commits its median seed."""
    import agents
    from agents.policies import committed

    monkeypatch.setattr(committed, "committed_model", lambda name: tmp_path / name)
    with pytest.raises(FileNotFoundError) as err:
        agents.make("ppo", GAME)
    message = str(err.value)
    assert str(tmp_path / "yahtzee-official.zip") in message
    assert "dice-env report recipe-seeds --games yahtzee-official --export" in message


def test_committed_yahtzee_models_play():
    """The committed learned-value and structured PPO models (the median seed of the recipe)
    play yahtzee-official, by exact gap close to the optimum and near the 6.5 points of
    results/yahtzee.md."""
    import agents
    from agents.evaluation import optimality_gap, play_scorecard_games
    from agents.paths import committed_model

    learned = agents.make("learned-value", GAME)
    assert optimality_gap(learned, GAME, games=20, seed=REPORT_SEED, paired=False).gap < 1.0
    assert committed_model("yahtzee-official.zip").is_file()
    ppo = agents.make("ppo", GAME)
    totals = play_scorecard_games(ppo, GAME, 20, seed=REPORT_SEED)
    assert totals.shape == (20,) and totals.mean() > 150
    assert 1.0 < optimality_gap(ppo, GAME, games=20, seed=REPORT_SEED, paired=False).gap < 15.0
