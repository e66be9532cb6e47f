"""The faster lean trainer (issue 37): the structured network's features computed once per
rollout (the same numbers), the wide layers' products in bfloat16, the minibatch loss compiled,
and the roofline's bookkeeping.  Speed itself is a benchmark (dice-env bench-trainer), never a
timed test."""

import pytest
from conftest import need

need("sb3_contrib", "pip install -e '.[train]'")
torch = need("torch", "pip install -e '.[train]'")

from agents.policies.structured.prepared import Listed, Prepared  # noqa: E402
from agents.training.bench import lean_trainer, run_config  # noqa: E402


def _tiny(game: str, **lean) -> dict:
    config = run_config(game, "lean-structured", 16)
    config["ppo"] = {**config["ppo"], "n_steps": 8, "batch_size": 40, "n_epochs": 2}
    config["lean"] = {**config.get("lean", {}), **lean}
    return config


def _parameters(trainer) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in trainer.net.parameters()])


@pytest.mark.parametrize("game", ["penta", "dice-poker", "fivethousand"])
def test_prepared_features_give_the_same_network_outputs(game):
    """A rollout's features joined step by step, then any minibatch selected from them, give
    exactly what the network computes from the observations itself."""
    torch.set_num_threads(1)
    trainer = lean_trainer(_tiny(game), 0)
    batch = trainer.collect()
    assert isinstance(batch["prepared"], Prepared)
    idx = torch.randperm(len(batch["action"]))[:37]
    obs, mask = batch["obs"][idx], batch["mask"][idx]
    with torch.no_grad():
        direct = trainer.net(obs, mask)
        given = trainer.net(obs, mask, batch["prepared"].select(idx))
        fresh = trainer.net.prepare(obs)
    for a, b in zip(direct, given, strict=True):
        assert torch.equal(a, b)
    for name, listed in batch["prepared"].select(idx).listed.items():
        for field in ("rows", "index", "counts", "features"):
            assert torch.equal(getattr(listed, field), getattr(fresh.listed[name], field)), name


def test_listed_select_and_cat_keep_each_observation_rows():
    counts = torch.tensor([2, 0, 3, 1])
    rows = torch.repeat_interleave(torch.arange(4), counts)
    features = torch.arange(6.0)[:, None]
    listed = Listed(rows, torch.arange(6) * 10, counts, features)
    picked = listed.select(torch.tensor([2, 1, 0]))
    assert picked.counts.tolist() == [3, 0, 2]
    assert picked.rows.tolist() == [0, 0, 0, 2, 2]
    assert picked.index.tolist() == [20, 30, 40, 0, 10]
    assert picked.features[:, 0].tolist() == [2.0, 3.0, 4.0, 0.0, 1.0]
    assert len(listed.select(torch.tensor([1])).rows) == 0
    both = Listed.cat([listed, picked])
    assert both.rows.tolist() == rows.tolist() + [4, 4, 4, 6, 6]
    assert torch.equal(both.select(torch.arange(4, 7)).features, picked.features)


def test_reusing_the_features_trains_the_same_numbers():
    """lean.reuse_features (the default) against the trainer as it was: the same weights, bit
    for bit, after two iterations."""
    torch.set_num_threads(1)
    weights = []
    for reuse in (False, True):
        trainer = lean_trainer(_tiny("penta", reuse_features=reuse), 0)
        for _ in range(2):
            trainer.train_iteration()
        assert ("prepared" in trainer.collect()) == reuse
        weights.append(_parameters(trainer))
    assert torch.equal(weights[0], weights[1])


def test_bfloat16_products_are_close_and_only_in_the_wide_layers():
    from agents.policies.structured.heads import MixedLinear, set_matmul_dtype

    torch.manual_seed(0)
    trainer = lean_trainer(_tiny("penta"), 0)
    names = set_matmul_dtype(trainer.net, torch.bfloat16)
    # the value MLP's second layer and the heads' state projections read 256 inputs; the
    # observation's layers and the per-action layers stay float32
    assert names == ["mlp_extractor.hold_head.state_in", "mlp_extractor.box_head.state_in",
                     "mlp_extractor.value_net.2"]
    layer = MixedLinear(256, 64)
    x = torch.randn(100, 256)
    exact = layer(x)
    layer.matmul_dtype = torch.bfloat16
    rounded = layer(x)
    assert rounded.dtype == torch.float32 and not torch.equal(rounded, exact)
    assert (rounded - exact).abs().max() < 0.02 * exact.abs().max()
    assert set(layer.state_dict()) == {"weight", "bias"}  # a model file is unchanged
    set_matmul_dtype(trainer.net, None)
    assert all(m.matmul_dtype is None for m in trainer.net.modules()
               if isinstance(m, MixedLinear))


def test_a_compiled_bfloat16_trainer_trains_close_to_the_eager_one():
    """lean.compile with bfloat16 products: the first iteration's losses near the float32
    eager trainer's (the same rollout: the same seed and weights)."""
    torch.set_num_threads(1)
    stats = []
    for lean in ({}, {"compile": True, "matmul_dtype": "bfloat16"}):
        trainer = lean_trainer(_tiny("penta", **lean), 0)
        stats.append(trainer.train_iteration())
    for key in ("policy_loss", "value_loss", "entropy"):
        assert stats[1][key] == pytest.approx(stats[0][key], rel=0.05, abs=1e-3), key
    # the compiled feature computation gives the eager one's numbers, written over the last
    # rollout's memory
    _assert_features_of_their_observations(trainer, trainer.collect())


def _assert_features_of_their_observations(trainer, batch) -> None:
    with torch.no_grad():
        fresh = trainer.net.prepare(batch["obs"])
    for name, listed in batch["prepared"].listed.items():
        for field in ("rows", "index", "counts", "features"):
            assert torch.equal(getattr(listed, field), getattr(fresh.listed[name], field)), name
    for name, value in batch["prepared"].per_row.items():
        assert torch.equal(value, fresh.per_row[name]), name


def test_the_next_rollout_writes_its_features_over_the_last_ones():
    torch.set_num_threads(1)
    trainer = lean_trainer(_tiny("penta"), 0)
    first = trainer.collect()["prepared"].listed["holds"].features
    pointer = first.untyped_storage().data_ptr()
    second = trainer.collect()
    assert second["prepared"].listed["holds"].features.untyped_storage().data_ptr() == pointer
    _assert_features_of_their_observations(trainer, second)


def test_cat_into_an_earlier_result_gives_the_same_rows():
    parts = [Listed(torch.zeros(n, dtype=torch.long), torch.arange(n), torch.tensor([n]),
                    torch.full((n, 3), float(n))) for n in (2, 5, 1)]
    old = Listed.cat(parts[:1])
    joined = Listed.cat(parts, into=old)
    plain = Listed.cat(parts)
    for field in ("rows", "index", "counts", "features"):
        assert torch.equal(getattr(joined, field), getattr(plain, field))
    assert joined.features.shape == (8, 3) and joined.rows.tolist() == [0, 0, 1, 1, 1, 1, 1, 2]


def test_sorted_minibatches_train_the_same_minibatches():
    """lean.sorted_minibatches (the default) only reorders each minibatch's samples: after an
    iteration the weights are those of the unsorted trainer up to rounding."""
    torch.set_num_threads(1)
    weights = []
    for ordered in (False, True):
        trainer = lean_trainer(_tiny("penta", sorted_minibatches=ordered), 0)
        trainer.train_iteration()
        weights.append(_parameters(trainer))
    assert not torch.equal(weights[0], weights[1])
    assert torch.allclose(weights[0], weights[1], atol=1e-5)


def test_roofline_counts_the_products_of_each_phase():
    from agents.training.roofline import flops, record_matmuls, roofline

    a, b = torch.randn(8, 5), torch.randn(5, 3)
    calls = record_matmuls(lambda: torch.nn.functional.linear(a, b.t(), torch.zeros(3)) @
                           torch.ones(3))
    assert [c[0][0] for c in calls] == ["addmm", "mv"]
    assert flops(calls[0][0]) == 2 * 8 * 5 * 3 and flops(calls[1][0]) == 2 * 8 * 3
    torch.set_num_threads(1)
    trainer = lean_trainer(_tiny("penta"), 0)
    trainer.train_iteration()
    out = roofline(trainer, {"rollout": 1e-5, "update": 5e-5})
    rollout, update = out["rollout"], out["update"]
    # the update runs each sample forward and backward once per epoch: about 3x the forward
    # FLOPs, twice (2 epochs)
    assert 4 < update["flops_per_step"] / rollout["flops_per_step"] < 8
    assert rollout["measured_us"] == pytest.approx(10.0) and update["bf16_share"] == 0.0
    assert update["fp32_gflops"] > 0 and update["bf16_gflops"] > 0
    shares = update["time_shares"]
    assert sum(shares.values()) == pytest.approx(1.0)
    assert 0 < shares["matrix products"] < 1 and shares["the rest of the loss"] > 0
    from agents.evaluation.reports.trainer_speed import roofline_markdown

    text = roofline_markdown({"penta": {"lean-structured": out}})
    assert "What bounds the update" in text and "| lean-structured | " in text
    assert f"the update is bound by the {1 - shares['matrix products']:.0%}" in text


def test_a_recipe_change_run_is_said_apart_from_the_speed_levers():
    """The bench's recipe-change run trains the variant's PPO settings, and the roofline says
    its fewer FLOPs apart: the bound sentence is about the fastest run of the same recipe."""
    from agents.evaluation.reports.trainer_speed import bound_lines
    from agents.training.bench import RECIPE_CHANGES, run_config

    (run,) = RECIPE_CHANGES
    assert run_config("penta", run, 64)["ppo"]["n_epochs"] == 2
    assert run_config("penta", "lean-structured-fast", 64)["ppo"]["n_epochs"] == 4

    def phase(us, flops, **extra):
        return {"update": {"measured_us": us, "flops_per_step": flops, "matmul_bf16_us": 5.0,
                           "time_shares": {"matrix products": 0.3, "the rest": 0.7}, **extra}}

    lines = "\n".join(bound_lines({"lean-structured-fast": phase(50.0, 3_200_000),
                                   run: phase(26.0, 1_600_000, recipe_change="2 epochs")}))
    assert "In the fastest run (lean-structured-fast)" in lines
    assert f"{run} changes the recipe (2 epochs): its update does 1,600 kFLOP per env step " \
           "against 3,200 in lean-structured-fast, and takes 26.0 µs against 50.0" in lines
