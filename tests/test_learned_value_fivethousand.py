"""Tests of the 5000 learned-value player (agents.fivethousand): the exact within-turn solve
against brute force, a tiny training run and its CLI, legal complete games, the import rule."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest
import torch

import agents
from agents.cli import train_learned_value_fivethousand as LVCLI
from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.fivethousand import learned_value as LV
from agents.training.learned_value import fivethousand as VT
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules

RULES = FiveThousandRules()


@pytest.fixture(scope="module")
def tiny_result():
    """A few seconds of training of a tiny network (not a good player: a legal one)."""
    torch.set_num_threads(1)
    cfg = VT.TrainConfig(hidden=(16,), fit_steps=5, final_steps=5, min_iterations=1,
                         max_iterations=3, minutes=None, progress=False)
    return VT.train(cfg)


@pytest.fixture(scope="module")
def tiny_agent(tiny_result):
    return LV.LearnedValueAgent("fivethousand", model=tiny_result.model)


# -- the within-turn solve --------------------------------------------------------------------
@cache
def _throws(n: int) -> list[tuple[int, int, float]]:
    """``(points, dice left, probability)`` of every face sequence of ``n`` dice, by brute
    force over the ``6**n`` throws (independent of ``outcome_distribution``)."""
    faces = np.array(list(itertools.product(range(1, 7), repeat=n)), dtype=np.int64)
    dice = np.zeros((len(faces), R.N_DICE), dtype=np.int64)
    dice[:, :n] = faces
    pts, used = R.roll_score(dice)
    out: dict[tuple[int, int], float] = {}
    for p, u in zip(pts.tolist(), used.tolist()):
        left = 0 if p == 0 else (n - u if n > u else R.N_DICE)
        out[(p, left)] = out.get((p, left), 0.0) + 6.0 ** -n
    return [(p, left, q) for (p, left), q in out.items()]


def _brute_roll_value(w_of, a: int, b: int, t: int, n: int) -> float:
    """Win probability of rolling ``n`` dice on at turn total ``t`` (scores ``a`` vs ``b``),
    by plain recursion; ``w_of(x, y)`` values a turn start."""
    memo: dict = {}
    bust = 1.0 - w_of(b, a)

    @cache
    def bank(tt: int) -> float | None:
        if not R.bank_allowed(RULES, a, tt):
            return None
        out = R.resolve_bank(RULES, [[a, b]], [0], [tt])
        if out.winner[0] >= 0:
            return 1.0 if out.winner[0] == 0 else 0.0
        a2, b2 = (int(x) for x in out.scores[0])
        return 1.0 - w_of(b2, a2)

    def roll(tt: int, nn: int) -> float:
        if tt > RULES.target:   # every bank from here is a lost gift: worth a bust
            return bust
        if (tt, nn) not in memo:
            v = 0.0
            for p, left, q in _throws(nn):
                if p == 0:
                    v += q * bust
                else:
                    cont = roll(tt + p, left)
                    bk = bank(tt + p)
                    v += q * (cont if bk is None else max(cont, bk))
            memo[(tt, nn)] = v
        return memo[(tt, nn)]

    return roll(t, n)


def test_solve_one_die_by_hand():
    """W = c everywhere; 4800 vs a player not yet entered, turn total 150, one die to throw:
    a 5 (1/6) makes 200 and a bank wins; a 1 makes 250, past 5000 whatever follows (no gift
    receiver): worth a bust like the other four faces.  So the value is 1/6 + 5/6 (1 - c)."""
    m = LV.build_turn_model(RULES)
    c = 0.3
    w = np.full((m.n_scores, m.n_scores), c)
    ia, ib = m.index([4800]), m.index([0])
    sol = LV.solve_turns(m, w, ia, ib)
    assert sol.roll[0, m.slot(150), 1] == pytest.approx(1 / 6 + 5 / 6 * (1 - c), abs=1e-12)
    assert sol.bank[0, m.slot(200)] == 1.0
    assert np.isnan(sol.bank[0, m.slot(250)])          # a total ending in 50
    assert sol.roll[0, m.slot(250), 5] == pytest.approx(1 - c, abs=1e-12)
    assert sol.roll[0, m.slot(150), 1] == pytest.approx(
        _brute_roll_value(lambda x, y: c, 4800, 0, 150, 1), abs=1e-12)


@pytest.mark.parametrize("a, b, t, n", [(4800, 4700, 150, 1), (4500, 4700, 0, 2),
                                        (0, 600, 300, 2), (3900, 4700, 4100, 3)])
def test_solve_matches_brute_force(a, b, t, n):
    """Random leaves: bumps, gifts, an opponent's gift win, the entry, against recursion."""
    m = LV.build_turn_model(RULES)
    rng = np.random.default_rng(0)
    w = rng.uniform(0.05, 0.95, size=(m.n_scores, m.n_scores))
    sol = LV.solve_turns(m, w, m.index([a]), m.index([b]))

    def w_of(x, y):
        return float(w[m.index(x), m.index(y)])

    assert sol.roll[0, m.slot(t), n] == pytest.approx(_brute_roll_value(w_of, a, b, t, n),
                                                      abs=1e-10)


def test_turn_start_is_one_backup():
    m = LV.build_turn_model(RULES)
    w = np.full((m.n_scores, m.n_scores), 0.5)
    v = LV.turn_start_values(m, w)
    sol = LV.solve_turns(m, w, m.index([0, 4500]), m.index([0, 4900]))
    assert v.shape == (m.n_scores, m.n_scores)
    assert np.allclose(sol.start, [v[0, 0], v[m.index(4500), m.index(4900)]])
    assert ((v >= 0) & (v <= 1)).all()


# -- training, save / load, CLI ---------------------------------------------------------------
def test_tiny_training(tiny_result, tmp_path):
    curve = tiny_result.curve
    assert [r["phase"] for r in curve] == ["iterate"] * 3 + ["polish"]
    assert [r["states_solved"] for r in curve[:3]] == [2116, 4232, 6348]
    assert all(set(VT.CURVE_COLUMNS) <= set(r) for r in curve)
    paths = VT.write_outputs(tiny_result, tmp_path / "m.pt")
    assert paths["curve_csv"].read_text().splitlines()[0] == ",".join(VT.CURVE_COLUMNS)
    assert paths["curve_json"].is_file()
    loaded = LV.ValueModel.load(paths["model"])
    assert np.allclose(loaded.w_table(), tiny_result.model.w_table())
    assert loaded.meta["iterations"] == 4
    agent = LV.LearnedValueAgent("dice_env/FiveThousand-v0", model_path=paths["model"])
    assert agent.win_probability(0, 0) == pytest.approx(loaded.w_table()[0, 0])


def test_cli(tmp_path, capsys):
    out, export = tmp_path / "run", tmp_path / "models" / "lv.pt"
    code = LVCLI.main(["--out", str(out), "--export", str(export), "--max-iterations", "1",
                    "--fit-steps", "1", "--final-steps", "1", "--no-progress"])
    assert code == 0
    assert (out / "model.pt").is_file() and (out / "model.curve.csv").is_file()
    assert export.is_file() and (tmp_path / "models" / "lv.curve.json").is_file()
    capsys.readouterr()  # the run's own messages ("created folder ... for --out")
    with pytest.raises(SystemExit) as e:
        LVCLI.main(["--minutes", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "--minutes" in err and len(err.splitlines()) == 1


def test_refusals(tmp_path, tiny_result):
    with pytest.raises(FileNotFoundError, match="train learned-value fivethousand"):
        LV.LearnedValueAgent("fivethousand", model_path=tmp_path / "none.pt")
    with pytest.raises(ValueError, match="literal rules"):
        LV.LearnedValueAgent({"choose_scoring_dice": True}, model=tiny_result.model)
    with pytest.raises(ValueError, match="solo"):
        LV.rules_of("dice_env/FiveThousandSolo-v0")
    with pytest.raises(ValueError, match="trained for"):
        LV.LearnedValueAgent(rules={"entry": 0}, model=tiny_result.model)


# -- play ---------------------------------------------------------------------------------------
def test_plays_legal_complete_games(tiny_agent):
    result = play_fivethousand_matches([tiny_agent, agents.make("threshold", "fivethousand")],
                                       200, seed=1)
    assert (result.winner >= 0).all()
    three = play_fivethousand_matches([tiny_agent, agents.make("threshold", "fivethousand"),
                                       agents.make("threshold", "fivethousand")], 30, seed=2)
    assert (three.winner >= 0).all()


def test_act_agrees_with_state_values(tiny_agent):
    rng = np.random.default_rng(3)
    state = G.FiveThousandState.empty(64, 2)
    G.start_games(RULES, state, np.ones(64, dtype=bool), rng)
    for _ in range(30):   # walk into the game a little
        live = np.flatnonzero(~state.finished())
        actions = np.zeros(state.n, dtype=np.int64)
        actions[live] = tiny_agent.act_states(state.take(live))
        G.step_games(RULES, state, actions, rng)
    live = np.flatnonzero(~state.finished())
    sub = state.take(live)
    vals = tiny_agent.state_action_values(sub)
    masks = G.action_mask(RULES, sub)
    assert vals.shape == (len(live), 2)
    assert np.isfinite(vals[:, R.ROLL]).all()
    assert np.isfinite(vals[masks[:, R.BANK], R.BANK]).all()
    from dice_env.fivethousand.observation import encode_observation

    obs = encode_observation(RULES, sub, sub.current)
    acts = tiny_agent.act_batch(obs, masks)
    assert np.array_equal(acts, tiny_agent.act_states(sub, masks))
    assert tiny_agent.act(obs[0], masks[0]) == acts[0]
    # each action is legal and has the better value of the legal ones (ties to banking)
    rows = np.arange(len(live))
    assert masks[rows, acts].all()
    legal = np.where(masks, vals, -np.inf)
    np.testing.assert_allclose(vals[rows, acts], legal.max(axis=1), rtol=0, atol=1e-12)
    both = masks.all(axis=1)
    clear = both & (np.abs(vals[:, R.BANK] - vals[:, R.ROLL]) > 1e-9)
    assert np.array_equal(acts[clear], np.argmax(vals[clear], axis=1))  # ROLL 0, BANK 1
    assert set(acts[clear].tolist()) == {R.ROLL, R.BANK}  # real choices, of both kinds
    assert all(tiny_agent.act(obs[i], masks[i]) == acts[i] for i in np.flatnonzero(clear))


