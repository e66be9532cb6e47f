"""Tests of the N-player learned-value player of 5000 (agents.fivethousand.learned_value): the
N-player turn solve against the two-player solve and against brute force, the network's values,
legal play from every seat with 3 and 4 players, a tiny training run (deterministic, resumable,
time-budgeted) and its CLI, and the exact evaluation of a mixed profile."""

from __future__ import annotations

import itertools
from functools import cache

import gymnasium as gym
import numpy as np
import pytest
import torch

import agents
from agents.cli import train_learned_value_fivethousand as LVCLI
from agents.evaluation import fivethousand_n_players as NE
from agents.evaluation.fivethousand_matches import play_fivethousand_matches
from agents.fivethousand import learned_value as LV
from agents.training.learned_value import fivethousand as VT
from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.observation import encode_observation
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.multi import five_thousand_v0

RULES = FiveThousandRules()
SMALL = FiveThousandRules(target=1000, entry=300)


def _tiny_config(**kw) -> VT.NTrainConfig:
    base = dict(num_players=3, hidden=(16,), states=128, fit_steps=3, batch=64,
                final_states=128, final_steps=3, min_iterations=1, max_iterations=4,
                minutes=None, progress=False)
    base.update(kw)
    return VT.NTrainConfig(**base)


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    torch.set_num_threads(1)


@pytest.fixture(scope="module")
def random_models():
    """Untrained networks of 3 and 4 players (legal players, not good ones)."""
    return {n: LV.NValueModel(RULES, n, hidden=(16,), seed=n) for n in (3, 4)}


# -- the turn solve ---------------------------------------------------------------------------
def test_n_solve_with_two_seats_is_the_two_player_solve():
    """The vector-valued solve with leaves ``(W, 1 - W)`` reproduces :func:`solve_turns`."""
    m = LV.build_turn_model(RULES)
    k = m.n_scores
    w = np.random.default_rng(0).uniform(0.05, 0.95, size=(k, k))
    ia, ib = np.divmod(np.arange(k * k), k)
    ref = LV.solve_turns(m, w, ia, ib)
    sol = LV.solve_n_turns(m, np.stack([ia, ib], axis=1),
                           lambda st: np.stack([w[st[:, 0], st[:, 1]],
                                                1 - w[st[:, 0], st[:, 1]]], axis=1),
                           tables=True)
    assert np.allclose(sol.start[:, 0], ref.start, atol=1e-13, rtol=0)
    assert np.allclose(sol.start.sum(axis=1), 1.0, atol=1e-13, rtol=0)
    assert np.array_equal(np.isnan(sol.roll), np.isnan(ref.roll))
    assert np.allclose(sol.roll, ref.roll, atol=1e-13, rtol=0, equal_nan=True)
    assert np.allclose(sol.bank, ref.bank, atol=1e-13, rtol=0, equal_nan=True)


@cache
def _throws(n: int) -> tuple[tuple[int, int, float], ...]:
    """``(points, dice left, probability)`` by brute force over the ``6**n`` face sequences."""
    out: dict[tuple[int, int], float] = {}
    for faces in itertools.product(range(1, 7), repeat=n):
        dice = np.zeros((1, R.N_DICE), dtype=np.int64)
        dice[0, :n] = faces
        p, u = (int(x[0]) for x in R.roll_score(dice))
        left = 0 if p == 0 else (n - u if n > u else R.N_DICE)
        out[(p, left)] = out.get((p, left), 0.0) + 6.0 ** -n
    return tuple((p, left, q) for (p, left), q in sorted(out.items()))


def _brute_turn(rules, scores: tuple[int, ...], value_of) -> tuple[np.ndarray, dict]:
    """The turn from ``scores`` (mover first) by plain recursion: the start vector and the
    mover's ``(roll, bank)`` values by ``(turn total, dice)``.  ``value_of(scores)`` values a
    turn start (next mover first); one game's banks by :func:`resolve_bank_one`."""
    n = len(scores)

    def handed_on(v):  # the next mover's frame -> this one's
        return np.roll(np.asarray(v, dtype=np.float64), 1)

    bust = handed_on(value_of(scores[1:] + scores[:1]))

    @cache
    def bank(t: int):
        if not R.bank_allowed(rules, scores[0], t):
            return None
        new, _, _, _, winner = R.resolve_bank_one(rules, list(scores), 0, t)
        if winner >= 0:
            return np.eye(n)[winner]
        return handed_on(value_of(tuple(new[1:] + new[:1])))

    seen: dict = {}

    @cache
    def roll(t: int, dice: int):
        if t > rules.target:
            return bust
        v = np.zeros(n)
        for p, left, q in _throws(dice):
            if p == 0:
                v = v + q * bust
                continue
            cont, bk = roll(t + p, left), bank(t + p)
            best = cont if bk is None or bk[0] < cont[0] - 1e-12 else bk
            v = v + q * best
        seen[(t, dice)] = (v[0], None if bank(t) is None else bank(t)[0])
        return v

    return roll(0, R.N_DICE), seen


@pytest.mark.parametrize("num_players, n_states", [(3, None), (4, 60)])
def test_n_solve_matches_brute_force(num_players, n_states):
    """Random leaf vectors on the grid of a 1000-point game (entry 300): bumps of several
    players, gifts to the lowest entered other player (and lost gifts), gift and bank wins."""
    m = LV.build_turn_model(SMALL)
    rng = np.random.default_rng(num_players)
    table = rng.dirichlet(np.ones(num_players), size=m.n_scores ** num_players)

    def value_fn(idx):
        return table[LV.state_codes(m, idx)]

    def value_of(scores):
        return table[LV.state_codes(m, m.index(np.array(scores))[None])[0]]

    idx = np.array(list(itertools.product(range(m.n_scores), repeat=num_players)))
    if n_states is not None:
        idx = idx[rng.choice(len(idx), n_states, replace=False)]
    sol = LV.solve_n_turns(m, idx, value_fn, tables=True)
    assert np.allclose(sol.start.sum(axis=1), 1.0, atol=1e-12)
    for i, row in enumerate(idx):
        scores = tuple(int(s) for s in m.scores[row])
        start, seen = _brute_turn(SMALL, scores, value_of)
        assert np.allclose(sol.start[i], start, atol=1e-12, rtol=0), scores
        for (t, dice), (v_roll, v_bank) in seen.items():
            j = int(m.slot(t))
            assert sol.roll[i, j, dice] == pytest.approx(v_roll, abs=1e-12)
            if v_bank is None and j < m.n_slots:
                assert np.isnan(sol.bank[i, j])
            elif j < m.n_slots:
                assert sol.bank[i, j] == pytest.approx(v_bank, abs=1e-12)


def test_leaves_by_hand():
    """Where a bank leads, the next player first: a gift to the lowest entered other player, a
    win, a total ending in 50, a bust, a gift that wins for its receiver, a lost gift, a bump
    of two players at once."""
    m = LV.build_turn_model(RULES)
    leaves = LV.n_turn_leaves(m, m.index(np.array([[4800, 0, 1500, 2500],
                                                    [4800, 4700, 0, 0],
                                                    [1000, 1500, 1500, 0]])))
    after = m.scores[leaves.states]
    assert after[leaves.bank[0, m.slot(300)]].tolist() == [0, 1800, 2500, 4800]
    assert leaves.bank[0, m.slot(200)] == -1                 # the banker wins
    assert leaves.bank[0, m.slot(250)] == LV.N_NO_BANK       # a total ending in 50
    assert after[leaves.bust[0]].tolist() == [0, 1500, 2500, 4800]
    assert leaves.bank[1, m.slot(300)] == -2                 # the gift takes seat 1 to 5000
    assert after[leaves.bank[1, m.slot(900)]].tolist() == [4700, 0, 0, 4800]  # gift lost
    assert after[leaves.bank[2, m.slot(500)]].tolist() == [0, 0, 0, 1500]     # two bumped
    assert leaves.bank[2, m.slot(100)] >= 0


def test_network_values_are_probabilities(random_models):
    for n, model in random_models.items():
        rng = np.random.default_rng(n)
        idx = VT.sample_states(rng, 500, n, model.turn_model.n_scores, 0.3)
        p = model.probabilities(idx)
        assert p.shape == (500, n)
        assert ((p >= 0) & (p <= 1)).all() and np.allclose(p.sum(axis=1), 1.0)
        start = LV.solve_n_turns(model.turn_model, idx[:50], model.probabilities).start
        assert ((start >= 0) & (start <= 1)).all() and np.allclose(start.sum(axis=1), 1.0)
        scores = model.turn_model.scores[idx[:3]]
        assert np.allclose(model.win_probabilities(scores), p[:3])


def test_features_keep_the_turn_order():
    """Rotating the others changes the input (who moves next matters)."""
    f = LV.NFeatures(RULES, 3)
    m = f.turn_model
    a = f.encode(m.index(np.array([[1000, 2000, 3000]])))
    b = f.encode(m.index(np.array([[1000, 3000, 2000]])))
    assert not np.array_equal(a[1], b[1])
    dense, cat = a
    assert dense.shape == (1, f.n_dense) and cat.shape == (1, f.n_cat)
    assert cat.max() < f.n_rows


# -- the player ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4])
def test_legal_play_from_every_seat(random_models, n):
    agent = LV.LearnedValueAgent(model=random_models[n])
    assert agent.num_players == n
    heur = agents.make("heuristic", "fivethousand")
    result = play_fivethousand_matches([agent] + [heur] * (n - 1), 4 * n, seed=n)
    assert (result.winner >= 0).all()
    # the AEC env, the agent in every seat (illegal actions raise)
    env = five_thousand_v0.env(num_players=n, illegal_action="raise")
    env.reset(seed=n)
    steps = 0
    for name in env.agent_iter(max_iter=4000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1, name
        env.step(action)
        steps += 1
    assert steps > 0
    # the Gymnasium env from each seat
    for seat in range(n):
        genv = gym.make("dice_env/FiveThousand-v0", num_players=n, agent_seat=seat,
                        opponents=[heur] * (n - 1))
        obs, info = genv.reset(seed=seat)
        done = False
        while not done:
            action = agent.act(obs, info["action_mask"])
            assert info["action_mask"][action] == 1
            obs, _, term, trunc, info = genv.step(action)
            done = term or trunc


def test_decisions_agree_with_values(random_models):
    agent = LV.LearnedValueAgent(model=random_models[3])
    rng = np.random.default_rng(3)
    state = G.FiveThousandState.empty(48, 3)
    G.start_games(RULES, state, np.ones(48, dtype=bool), rng)
    for _ in range(40):
        live = np.flatnonzero(~state.finished())
        actions = np.zeros(state.n, dtype=np.int64)
        actions[live] = agent.act_states(state.take(live))
        G.step_games(RULES, state, actions, rng)
    sub = state.take(np.flatnonzero(~state.finished()))
    masks = G.action_mask(RULES, sub)
    vals = agent.state_action_values(sub)
    acts = agent.act_states(sub, masks)
    both = masks.all(axis=1)
    assert both.any()
    assert np.array_equal(acts[both] == R.BANK,
                          vals[both, R.BANK] >= vals[both, R.ROLL] - LV.TIE_TOL)
    obs = encode_observation(RULES, sub, sub.current)
    assert np.array_equal(agent.act_batch(obs, masks), acts)
    small = LV.LearnedValueAgent(model=random_models[3], max_cached_states=5)  # evicts
    assert np.array_equal(small.act_batch(obs, masks), acts)
    assert np.array_equal(small.act_batch(obs[::-1], masks[::-1]), acts[::-1])
    assert np.allclose(agent.action_values(obs), vals, equal_nan=True)
    # the same decision seen from another seat's observation
    other = encode_observation(RULES, sub, (sub.current + 1) % 3)
    assert np.allclose(agent.action_values(other), vals, equal_nan=True)


def test_model_selection(random_models, tmp_path, monkeypatch):
    two = VT.train(VT.TrainConfig(hidden=(8,), fit_steps=1, final_steps=0, min_iterations=1,
                                  max_iterations=1, minutes=None, progress=False)).model
    with pytest.raises(FileNotFoundError, match="--players 5"):
        agents.make("learned-value", "fivethousand", num_players=5)
    path = random_models[3].save(tmp_path / "lv-3p.pt")
    agent = agents.make("learned-value", "fivethousand", num_players=3, model_path=path)
    assert agent.num_players == 3 and agent.model is None
    assert LV.LearnedValueAgent(model_path=path).num_players == 3
    with pytest.raises(ValueError, match="3-player"):
        agent.n_player_model(4)
    # no num_players: the N-player model where its file exists, else the leader approximation
    monkeypatch.setattr(LV.agent, "n_player_model_path", lambda n: tmp_path / f"lv-{n}p.pt")
    auto = LV.LearnedValueAgent(model=two)
    assert auto.n_player_model(3) is not None and auto.n_player_model(4) is None
    assert auto.n_player_model(2) is None
    leader = LV.LearnedValueAgent(model=two, num_players=2)
    assert leader.n_player_model(3) is None
    state = G.FiveThousandState.empty(1, 3)
    G.start_games(RULES, state, np.ones(1, dtype=bool), np.random.default_rng(0))
    state.scores[:] = [[600, 2500, 1800]]
    state.turn_total[:] = 0
    vals = leader.state_action_values(state)
    assert np.allclose(vals, leader.values([600], [2500], [0], state.roll), equal_nan=True)


# -- training -----------------------------------------------------------------------------------
def test_tiny_training_is_deterministic_and_resumes(tmp_path):
    full = VT.train_n(_tiny_config())
    again = VT.train_n(_tiny_config())
    ckpt = tmp_path / "run.ckpt"
    VT.train_n(_tiny_config(max_iterations=2), checkpoint=ckpt)
    resumed = VT.train_n(_tiny_config(), checkpoint=ckpt, resume=True)
    assert [r["phase"] for r in full.curve] == ["iterate"] * 4 + ["polish"]
    assert [r["states_solved"] for r in full.curve] == [128, 256, 384, 512, 640]
    assert set(VT.n_curve_columns(3)) <= set(full.curve[0])
    idx = VT.sample_states(np.random.default_rng(9), 200, 3, full.model.turn_model.n_scores,
                           0.25)
    w = full.model.probabilities(idx)
    assert np.array_equal(w, again.model.probabilities(idx))
    assert np.array_equal(w, resumed.model.probabilities(idx))
    keys = ("bellman_rms", "fit_rmse", "w_start_0")
    assert [[r[k] for k in keys] for r in resumed.curve] == [[r[k] for k in keys]
                                                              for r in full.curve]
    with pytest.raises(ValueError, match="another config"):
        VT.train_n(_tiny_config(states=64), checkpoint=ckpt, resume=True)


def test_time_budget_stops_the_iterations():
    ticks = iter(range(0, 10**6, 5))   # every reading of the clock: 5 s later
    result = VT.train_n(_tiny_config(max_iterations=50, minutes=2.0),
                        clock=lambda: float(next(ticks)))
    phases = [r["phase"] for r in result.curve]
    assert phases[-1] == "polish" and 1 <= phases.count("iterate") < 10


def test_cli_players(tmp_path, capsys):
    out, export = tmp_path / "run", tmp_path / "models" / "lv-3p.pt"
    small = ["--players", "3", "--out", str(out), "--states", "64", "--fit-steps", "1",
             "--final-steps", "1", "--hidden", "8", "--no-progress"]
    assert LVCLI.main(small + ["--max-iterations", "1", "--export", str(export)]) == 0
    assert (out / "model.pt").is_file() and (out / "model.ckpt").is_file()
    assert export.is_file() and (tmp_path / "models" / "lv-3p.curve.csv").is_file()
    assert LV.NValueModel.load(export).num_players == 3
    assert LVCLI.main(small + ["--max-iterations", "2", "--resume"]) == 0
    curve = (out / "model.curve.csv").read_text().splitlines()
    assert curve[0].startswith("iteration,phase") and curve[0].endswith("w_start_2")
    assert [line.split(",")[1] for line in curve[1:]] == ["iterate", "iterate", "polish"]
    capsys.readouterr()
    for bad in (["--players", "7"], ["--states", "10"], ["--players", "3", "--states", "0"]):
        with pytest.raises(SystemExit) as e:
            LVCLI.main(bad)
        assert e.value.code == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


# -- the exact evaluation of a mixed profile ------------------------------------------------------
def test_mixed_profile_values_reproduce_the_profile():
    """The three-player profile of a 1000-point game evaluated with itself in every seat gives
    its own exact values; a learned policy's seats are probabilities that sum with the others'
    to 1."""
    from agents.solvers import fivethousand_three as TP

    sol = TP.solve_three_player(SMALL, threads=1)
    mixed = NE.mixed_profile_values(sol.model, sol.policy, sol.policy)
    assert np.allclose(mixed["seat_win_probabilities"], sol.seat_win_probabilities,
                       atol=1e-10)
    model = LV.NValueModel(SMALL, 3, hidden=(8,), seed=1)
    pol = NE.learned_value_policy(model, sol.model)
    other = NE.mixed_profile_values(sol.model, pol, sol.policy)
    total = np.add(other["seat_win_probabilities"], other["others_win_probabilities"])
    assert other["converged"] and np.allclose(total, 1.0, atol=1e-9)
