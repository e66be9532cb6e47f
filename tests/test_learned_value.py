"""The scorecard learned-value player (agents.scorecard): the exact turn expectimax against a
brute-force enumeration, a tiny training run, legal complete games, and the import rule."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.evaluation import play_scorecard_games
from agents.scorecard import learned_value as LV
from agents.training.learned_value import scorecard as VT
from dice_env import dice as D
from dice_env.scorecard import game as G
from dice_env.scorecard.rules import FIVE_FIFTY, FIVE_OPEN, FIVE_ZERO, get_rules

ROOT = Path(__file__).resolve().parent.parent
PENTA = get_rules("penta")
BOX = {kind: k for k, kind in enumerate(PENTA.boxes)}


# -- the turn expectimax against brute force ------------------------------------------------------
# An independent player of Penta's last turns: ordered dice, every hold of every position, the
# rules written out by hand (forced Joker: an extra five of a kind goes in its upper box if open,
# else any open lower box at full value, else 0 in an open upper box).

def _points(kind: str, dice: tuple[int, ...], joker: bool) -> int:
    counts = [dice.count(f) for f in range(1, 7)]
    if kind in LV_UPPER:
        return counts[LV_UPPER.index(kind)] * (LV_UPPER.index(kind) + 1)
    if kind == "chance":
        return sum(dice)
    if kind == "five_kind":
        return 50 if max(counts) == 5 else 0
    if kind == "full_house":
        return 25 if joker or sorted(c for c in counts if c) == [2, 3] else 0
    raise NotImplementedError(kind)


LV_UPPER = ("aces", "twos", "threes", "fours", "fives", "sixes")


def _choices(open_kinds: tuple[str, ...], dice, five: int) -> list[tuple[str, int, int]]:
    """``(box, points, bonus)`` of every legal box for ``dice`` (Penta's rules)."""
    five_kind = len(set(dice)) == 1
    bonus = 100 if five_kind and five == FIVE_FIFTY else 0
    if not (five_kind and five == FIVE_FIFTY):
        return [(k, _points(k, dice, False), bonus) for k in open_kinds]
    face_box = LV_UPPER[dice[0] - 1]
    if face_box in open_kinds:
        return [(face_box, _points(face_box, dice, True), bonus)]
    lower = [k for k in open_kinds if k not in LV_UPPER]
    if lower:
        return [(k, _points(k, dice, True), bonus) for k in lower]
    return [(k, 0, bonus) for k in open_kinds]


@cache
def brute_value(open_kinds: tuple[str, ...], upper: int, five: int) -> float:
    """Expected points still to come from a turn start, by plain enumeration."""
    if not open_kinds:
        return 0.0

    def score(dice) -> float:
        best = -np.inf
        for kind, pts, bonus in _choices(open_kinds, dice, five):
            add = pts if kind in LV_UPPER else 0
            ub = 35 if upper < 63 <= upper + add else 0
            five_after = (FIVE_FIFTY if pts > 0 else FIVE_ZERO) if kind == "five_kind" else five
            rest = tuple(k for k in open_kinds if k != kind)
            best = max(best, pts + bonus + ub + brute_value(rest, min(upper + add, 63),
                                                             five_after))
        return best

    @cache
    def roll_value(dice: tuple[int, ...], rerolls: int) -> float:
        best = score(dice)
        if rerolls:
            for held in itertools.product((False, True), repeat=5):
                if not all(held):
                    kept = tuple(d for d, h in zip(dice, held) if h)
                    best = max(best, keep_value(tuple(sorted(kept)), rerolls - 1))
        return best

    @cache
    def keep_value(kept: tuple[int, ...], rerolls: int) -> float:
        outcomes = itertools.product(range(1, 7), repeat=5 - len(kept))
        vals = [roll_value(tuple(sorted(kept + new)), rerolls) for new in outcomes]
        return float(np.mean(vals))

    return keep_value((), 2)


def _state(open_kinds, upper, five):
    open_ = np.zeros((1, PENTA.n_boxes), dtype=bool)
    open_[0, [BOX[k] for k in open_kinds]] = True
    return open_, np.array([upper]), np.array([five])


def _brute_next(open_, upper, five):
    kinds = [tuple(k for k in PENTA.boxes if o[BOX[k]]) for o in open_]
    return np.array([brute_value(k, int(u), int(f)) for k, u, f in zip(kinds, upper, five)])


@pytest.mark.parametrize("open_kinds, upper, five", [
    (("sixes",), 40, FIVE_FIFTY),          # Joker (0 in sixes for other faces), both bonuses
    (("chance",), 63, FIVE_ZERO),
    (("five_kind",), 10, FIVE_OPEN),
    (("sixes", "full_house"), 45, FIVE_FIFTY),  # two boxes: the next turn from brute force
    (("aces", "five_kind"), 62, FIVE_OPEN),
])
def test_turn_expectimax_matches_brute_force(open_kinds, upper, five):
    def no_next(*_):
        raise AssertionError("a full card must not be valued")

    next_value = _brute_next if len(open_kinds) > 1 else no_next
    got = LV.turn_start_values(PENTA, *_state(open_kinds, upper, five), next_value)
    assert got[0] == pytest.approx(brute_value(open_kinds, upper, five), abs=1e-9)


def test_action_values_match_brute_force():
    """One decision's holds and boxes, against the enumeration."""
    open_kinds, upper, five = ("sixes", "chance"), 50, FIVE_FIFTY
    solution = LV.solve_turns(PENTA, *_state(open_kinds, upper, five), _brute_next)
    dice = (2, 3, 6, 6, 6)
    roll = D.roll_index(dice)
    vals = solution.action_values(np.array([0]), np.array([roll]), np.array([1]))[0]
    held = (0, 0, 1, 1, 1)  # the three sixes
    hold = D.hold_bits(i for i, h in enumerate(held) if h)
    kept_value = np.mean([max(_leaf(open_kinds, upper, five, tuple(sorted((6, 6, 6) + new))))
                          for new in itertools.product(range(1, 7), repeat=2)])
    assert vals[hold] == pytest.approx(kept_value, abs=1e-9)
    assert vals[G.N_HOLD_ACTIONS + BOX["sixes"]] == pytest.approx(
        18 + 35 + brute_value(("chance",), 63, five))
    assert vals[G.N_HOLD_ACTIONS + BOX["chance"]] == pytest.approx(
        23 + brute_value(("sixes",), 50, five))
    assert vals[D.ALL_HELD] == -np.inf and vals[G.N_HOLD_ACTIONS + BOX["aces"]] == -np.inf


def _leaf(open_kinds, upper, five, dice):
    out = []
    for kind, pts, bonus in _choices(open_kinds, dice, five):
        add = pts if kind in LV_UPPER else 0
        ub = 35 if upper < 63 <= upper + add else 0
        rest = tuple(k for k in open_kinds if k != kind)
        out.append(pts + bonus + ub + brute_value(rest, min(upper + add, 63), five))
    return out


def test_keep_tables_agree_with_the_dice_tables():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(3, D.N_ROLLS))
    assert np.allclose(LV.keep_values(v), v @ D.KEEP_TO_ROLL_PROB.T)
    keeps = LV.keep_values(v)
    expected = np.where(D.CANONICAL_HOLD, keeps[:, D.HOLD_KEEP], -np.inf).max(axis=2)
    assert np.allclose(LV.best_reroll(keeps), expected)


# -- training and play ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny():
    torch.manual_seed(0)
    config = VT.TrainConfig(game="penta", seed=1, hidden=(16,), states_per_layer=100, steps=10,
                            refine_passes=1, refine_games=30, refine_steps=5, progress=False)
    return VT.train(config)


def test_tiny_training_run(tiny, tmp_path):
    layers = [r for r in tiny.curve if r["layer"] != "all"]
    assert [r["layer"] for r in layers] == list(range(12, -1, -1)) * 2
    assert [r["pass"] for r in layers] == [0] * 13 + [1] * 13
    solved = [r["states_solved"] for r in tiny.curve]
    assert solved == sorted(solved) and all(np.isfinite(r["train_rmse"]) for r in layers)
    games = [r for r in tiny.curve if r["layer"] == "all"]
    assert [g["games"] for g in games] == [30, 30] and games[-1]["mean_score"] > 0
    paths = VT.write_outputs(tiny, tmp_path / "lv.pt")
    assert paths["curve_csv"].read_text().startswith("pass,layer,")
    assert paths["model"].stat().st_size < 1_000_000
    agent = LV.LearnedValueAgent("penta", model_path=paths["model"])
    assert agent.meta["config"]["seed"] == 1
    states = VT.sample_states(PENTA, 5, 20, np.random.default_rng(0))
    assert np.allclose(agent.value(*states), tiny.model.value(*states), atol=1e-5)


def test_time_budget_scales_the_steps_down():
    # A fake clock that moves 50 ms a reading, so the budget's decisions do not depend on
    # the machine's speed: the first fit "costs" more than the 1.2 s budget affords 13 times.
    ticks = itertools.count()
    config = VT.TrainConfig(game="penta", hidden=(8,), states_per_layer=60, steps=200,
                            refine_passes=1, refine_games=10, refine_steps=200,
                            max_minutes=0.02, progress=False)
    curve = VT.train(config, clock=lambda: 0.05 * next(ticks)).curve
    steps = [r["steps"] for r in curve if r["layer"] != "all"]
    assert len(steps) == 13  # the sweep completes, the refinement pass is skipped
    assert steps[0] == 200 and min(steps) < 200
    assert curve[-1]["layer"] == "all" and curve[-1]["pass"] == 0


def test_sampled_states_are_distinct_and_reachable():
    reach = VT.reachable_upper(PENTA)
    for filled in (0, 3, 11, 12):
        open_, upper, five = VT.sample_states(PENTA, filled, 500, np.random.default_rng(filled))
        assert ((~open_).sum(axis=1) == filled).all()
        masks = (~open_[:, :6]).astype(int) @ (1 << np.arange(6))
        assert reach[masks, upper].all()
        assert ((five == FIVE_OPEN) == open_[:, BOX["five_kind"]]).all()
        keys = {(tuple(o), u, f) for o, u, f in zip(open_.tolist(), upper, five)}
        assert len(keys) == len(upper)
    assert len(VT.sample_states(PENTA, 12, 10**6, np.random.default_rng(0))[1]) == \
        VT.layer_size(PENTA, 12) == 1598


@pytest.mark.parametrize("game", ["penta", "dice-poker"])
def test_plays_legal_complete_games(tiny, game):
    model = tiny.model if game == "penta" else LV.ValueModel(get_rules(game), (8,))
    agent = LV.LearnedValueAgent(game, model=model)
    totals = play_scorecard_games(agent, game, 40, seed=3)
    assert totals.shape == (40,) and (totals > 0).all()


def test_single_and_batched_decisions_agree(tiny):
    agent = LV.LearnedValueAgent("penta", model=tiny.model)
    rng = np.random.default_rng(2)
    state = G.ScorecardState.empty(PENTA, 50)
    G.start_games(PENTA, state, np.ones(50, dtype=bool), rng)
    for _ in range(12):  # walk a little into the games
        G.apply_actions(PENTA, state, agent.act_states(state, G.action_mask(PENTA, state)), rng)
    from agents.evaluation import scorecard_observations

    masks = G.action_mask(PENTA, state)
    obs = scorecard_observations(PENTA, state)
    batch = agent.act_batch(obs, masks)
    assert np.array_equal(batch, agent.act_states(state, masks))
    assert masks[np.arange(50), batch].all()
    fresh = LV.LearnedValueAgent("penta", model=tiny.model)
    assert [fresh.act(o, m.astype(np.int8)) for o, m in zip(obs[:10], masks[:10])] == \
        batch[:10].tolist()


def test_missing_model_and_wrong_game(tmp_path, tiny):
    with pytest.raises(FileNotFoundError, match="train learned-value penta"):
        LV.LearnedValueAgent("penta", model_path=tmp_path / "none.pt")
    with pytest.raises(ValueError, match="penta"):
        LV.LearnedValueAgent("dice-poker", model=tiny.model)


def test_cli_rejects_bad_arguments_in_one_line(capsys):
    from agents.cli import train_learned_value as cli

    for args, word in ((["nope"], "unknown game"), (["penta", "--minutes", "0"], "--minutes"),
                       (["penta", "--hidden", "a"], "--hidden"),
                       (["penta", "--refine-games", "-1"], "--refine-games")):
        with pytest.raises(SystemExit) as e:
            cli.main(args)
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and word in err and len(err.splitlines()) == 1, err


