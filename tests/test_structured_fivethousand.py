"""The structured policy of 5000 (agents/policies/structured/fivethousand_*): its features on
hand-computed positions and against a slow reference built from the rules' own functions, its
masks, the lean and SB3 forms of its network, an exported zip that agents.load plays, and the
config's refusals."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import need

need("sb3_contrib", "pip install -e '.[train]'")
torch = need("torch", "pip install -e '.[train]'")

from agents.policies.structured.fivethousand_features import (  # noqa: E402
    FiveThousandActionFeatures,
    feature_names,
)
from agents.policies.structured.network import StructuredActorCritic  # noqa: E402
from dice_env.fivethousand import rules as R  # noqa: E402
from dice_env.fivethousand.game import FiveThousandState  # noqa: E402
from dice_env.fivethousand.observation import encode_observation  # noqa: E402
from dice_env.fivethousand.rules import FiveThousandRules  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NAMES = feature_names()
LITERAL, CHOOSE = FiveThousandRules(), FiveThousandRules(choose_scoring_dice=True)


def observe(rules, scores, turn_before, rolls, seats=None):
    """Observations and masks of positions: ``scores`` ``(N, P)`` (absolute seats), the points
    set aside before the roll, the roll indices, the seat to move (and observing)."""
    scores = np.atleast_2d(np.asarray(scores, dtype=np.int64))
    n, p = scores.shape
    seats = np.zeros(n, dtype=np.int64) if seats is None else np.asarray(seats, dtype=np.int64)
    state = FiveThousandState.empty(n, p)
    state.scores[:] = scores
    state.current[:] = seats
    state.turn_total[:] = turn_before
    state.roll[:] = rolls
    obs = encode_observation(rules, state, seats)
    mask = R.legal_action_mask(rules, scores[np.arange(n), seats], state.turn_total, state.roll)
    return obs, mask


def roll_of(*faces):
    return int(R.roll_index_of(R.pad_dice(faces)))


def features_of(rules, scores, turn_before, faces):
    """``{action: {feature name: value}}`` of one position where seat 0 moves."""
    obs, _ = observe(rules, [scores], [turn_before], [roll_of(*faces)])
    dense = FiveThousandActionFeatures(rules, len(scores)).dense_features(torch.as_tensor(obs))
    return {a: dict(zip(NAMES, row.tolist(), strict=True)) for a, row in enumerate(dense[0])}


def test_hand_computed_positions_of_the_literal_rules():
    # 1 1 5 2 3, nothing set aside before, not entered: 250 (three scoring dice), two left
    roll, bank = features_of(LITERAL, [0, 1200], 0, (1, 1, 5, 2, 3)).values()
    assert roll["points"] == pytest.approx(0.25) and roll["turn_total"] == pytest.approx(0.25)
    assert roll["dice_set_aside"] == pytest.approx(0.6) and roll["dice_left"] == pytest.approx(0.4)
    assert roll["left_2"] == 1 and roll["hot_dice"] == 0 and roll["roll"] == 1
    assert roll["bank_allowed"] == 0 and roll["ends_in_50"] == 1  # below 500, and a 50
    assert roll["bust_chance"] == pytest.approx(4 / 9)  # neither of two dice is a 1 or a 5
    assert roll["expected_points"] == pytest.approx(0.05)  # 2 x (100 + 50) / 6
    assert roll["at_risk"] == pytest.approx(4 / 9 * 0.25)
    assert roll["bankable_chance"] == 0  # 300 to 450: never the 500 that enters
    assert bank["bank"] == 1 and bank["roll"] == 0 and bank["bust_chance"] == 0
    assert roll["bank"] == 0 and roll["bank_wins"] == 0
    # entered at 1000: the next throw must add 50 or 150 (a 5 and a blank, or a 1 and a 5)
    roll = features_of(LITERAL, [1000, 1200], 0, (1, 1, 5, 2, 3))[0]
    assert roll["bankable_chance"] == pytest.approx(10 / 36)
    # at 4700: one 5 (and a blank) lands exactly on 5000; 100, 150 or 200 more overshoot
    roll = features_of(LITERAL, [4700, 1200], 0, (1, 1, 5, 2, 3))[0]
    assert roll["exact_chance"] == pytest.approx(8 / 36)
    assert roll["overshoot_chance"] == pytest.approx(12 / 36)
    assert roll["to_target"] == pytest.approx(50 / 5000)
    # 4500 with 400 set aside, a 1 on three dice: banking 500 wins
    roll, bank = features_of(LITERAL, [4500, 3000], 400, (1, 4, 6)).values()
    assert bank["bank_wins"] == 1 and bank["score_after"] == 1 and bank["bank_overshoots"] == 0
    assert bank["lead_after"] == pytest.approx(2000 / 5000)
    assert roll["passes_win"] == 1 and roll["passes_bank"] == 1 and roll["left_2"] == 1
    # hot dice: 1 1 1 5 5 scores 1200 with every die, so a roll-on throws five again
    roll = features_of(LITERAL, [1000, 0], 0, (1, 1, 1, 5, 5))[0]
    assert roll["points"] == pytest.approx(1.2) and roll["hot_dice"] == 1
    assert roll["dice_left"] == 1 and roll["left_5"] == 1
    assert roll["bust_chance"] == pytest.approx(R.outcome_distribution(5).bust_prob)


@pytest.mark.parametrize("opponent, gift, gift_wins, gift_lost, lead", [
    (2000, 0.3, 0, 0, 4800 - 2300), (4700, 0.3, 1, 0, 4800 - 5000),
    (4800, 0, 0, 1, 0), (0, 0, 0, 1, 4800)])
def test_an_overshoot_gifts_to_the_lowest_entered_opponent(opponent, gift, gift_wins, gift_lost,
                                                           lead):
    # 4800 and 1 1 5 5 3: 300 more would make 5100
    bank = features_of(LITERAL, [4800, opponent], 0, (1, 1, 5, 5, 3))[1]
    assert bank["bank_overshoots"] == 1 and bank["bank_wins"] == 0
    assert bank["score_after"] == pytest.approx(4800 / 5000)
    assert (bank["gift"], bank["gift_wins"], bank["gift_lost"]) == pytest.approx(
        (gift, gift_wins, gift_lost))
    assert bank["lead_after"] == pytest.approx(lead / 5000)


def test_a_bank_that_enters_and_bumps():
    # not entered, 400 set aside, a 1 and a 5 ... : 550 ends in 50; a 1 alone: 500 enters
    bank = features_of(LITERAL, [0, 500, 1500], 400, (1, 3, 4))[1]
    assert bank["bank_enters"] == 1 and bank["bank_allowed"] == 1 and bank["bank_bumps"] == 1
    assert bank["lead_after"] == pytest.approx((500 - 1500) / 5000)
    bank = features_of(LITERAL, [0, 500], 400, (1, 5, 4))[1]
    assert bank["bank_allowed"] == 0 and bank["ends_in_50"] == 1


def test_choosing_the_scoring_dice():
    """With choose_scoring_dice, each legal set-aside of 1 1 5 2 3 has its roll-on and bank."""
    f = features_of(CHOOSE, [1000, 0], 0, (1, 1, 5, 2, 3))
    for aside, points, left in (((1,), 100, 4), ((1, 1), 200, 3), ((5,), 50, 4),
                                ((1, 5), 150, 3), ((1, 1, 5), 250, 2)):
        roll = f[R.encode_action(CHOOSE, (1, 1, 5, 2, 3), False, aside)]
        bank = f[R.encode_action(CHOOSE, (1, 1, 5, 2, 3), True, aside)]
        assert roll["points"] == pytest.approx(points / 1000)
        assert roll["points_left_behind"] == pytest.approx((250 - points) / 1000)
        assert roll["all_scoring"] == (len(aside) == 3)
        assert roll["dice_left"] == pytest.approx(left / 5) and roll[f"left_{left}"] == 1
        assert roll["bust_chance"] == pytest.approx(R.outcome_distribution(left).bust_prob)
        assert bank["bank_allowed"] == (points % 100 == 0)
        assert bank["score_after"] == pytest.approx((1000 + points) / 5000)


def random_positions(rules, n, seed, players=2):
    """Positions of every kind: entered or not, near the target, bumps and gifts at hand, any
    scoring roll of 1 to 5 dice, any seat to move."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(5, 50, (n, players)) * 100
    scores[rng.random((n, players)) < 0.3] = 0
    near = rng.random(n) < 0.4
    scores[near] = 5000 - rng.integers(1, 12, (near.sum(), players)) * 100
    turn_before = rng.integers(0, 20, n) * 50
    sizes = rng.integers(1, 6, n)
    rolls = np.array([rng.choice(np.flatnonzero((R.ROLL_SIZE == k) & (R.ROLL_POINTS > 0)))
                      for k in sizes])
    seats = rng.integers(0, players, n)
    bump = rng.random(n) < 0.2  # an opponent sits where banking every scoring die lands
    lands = scores[np.arange(n), seats] + turn_before + R.ROLL_POINTS[rolls]
    other = (seats + 1) % players
    scores[bump, other[bump]] = np.where(lands[bump] <= 5000, lands[bump], 0)
    return scores, turn_before, rolls, seats


def reference_features(rules, scores, turn_before, roll, seat):
    """``(A, F)`` the features of one position, from the rules' own functions (the bank by
    ``resolve_bank_one``, the next throw by ``outcome_distribution``)."""
    rel = [int(s) for s in np.roll(scores, -seat)]  # turn order from the player to move
    s, target = rel[0], rules.target
    if rules.choose_scoring_dice:
        options = [(int(R.SETASIDE_POINTS[roll, m]), int(R.SETASIDE_DICE[roll, m]),
                    m == R.ROLL_SCORING_MASK[roll]) for m in range(32)]
        options = [(max(p, 0), k if p >= 0 else 0, a and p >= 0) for p, k, a in options]
    else:
        options = [(int(R.ROLL_POINTS[roll]), int(R.ROLL_SCORING_DICE[roll]), True)]
    n = int(R.ROLL_SIZE[roll])
    out = []
    for points, k, all_scoring in options:
        legal = points > 0
        left = int(R.dice_left_after(n, k)) if legal else 0
        total = int(turn_before) + points
        allowed = bool(R.bank_allowed(rules, s, total))
        common = [points / 1000, k / 5, float(all_scoring), (R.ROLL_POINTS[roll] - points)
                  / 1000 if legal else 0.0, total / 1000,
                  float(np.clip((target - s - total) / target, -1, 1)), allowed,
                  total % 100 != 0]
        new, outcome, receiver, bumped, winner = R.resolve_bank_one(rules, rel, 0, total)
        gifted = outcome == R.GIFTED
        bank = [1, winner == 0, s + total > target, s == 0, sum(bumped), new[0] / target,
                (new[0] - max(new[1:], default=0)) / target, total / 1000 if gifted else 0,
                gifted and winner == receiver, outcome in (R.GIFT_LOST_NO_RECEIVER,
                                                           R.GIFT_LOST_OVERSHOOT)]
        throw = [0.0] * 6
        if legal:
            o = R.outcome_distribution(left)
            after = [(p > 0, total + int(p), q) for p, q in zip(o.points, o.prob)]
            throw = [o.bust_prob, float(o.points @ o.prob) / 1000, o.bust_prob * total / 1000,
                     sum(q for ok, t, q in after if ok and R.bank_allowed(rules, s, t)),
                     sum(q for ok, t, q in after if ok and s + t == target),
                     sum(q for ok, t, q in after if ok and s + t > target)]
        roll_on = [1, left / 5, legal and k == n, *np.eye(6)[left][1:], *throw, allowed,
                   allowed and s + total == target]
        zeros_bank, zeros_roll = [0] * len(bank), [0] * len(roll_on)
        out += [common + zeros_bank + roll_on, common + bank + zeros_roll]
    return np.array(out, dtype=np.float64)


@pytest.mark.parametrize("rules, players", [(LITERAL, 2), (LITERAL, 3), (CHOOSE, 2)])
def test_features_equal_a_slow_reference_from_the_rules(rules, players):
    scores, before, rolls, seats = random_positions(rules, 40, seed=players, players=players)
    obs, mask = observe(rules, scores, before, rolls, seats)
    features = FiveThousandActionFeatures(rules, players)
    dense = features.dense_features(torch.as_tensor(obs)).numpy()
    assert dense.shape == (40, rules.n_actions, len(NAMES))
    for i in range(len(obs)):
        np.testing.assert_allclose(dense[i], reference_features(rules, scores[i], before[i],
                                                                rolls[i], seats[i]), atol=1e-6)
    # the features' legality is the env's mask: the options listed, a bank where allowed
    legal = features.legal[features.rolls(torch.as_tensor(obs))].numpy()
    np.testing.assert_array_equal(np.repeat(legal, 2, axis=1) & np.tile(
        [True, False], rules.n_actions // 2), mask & np.tile([True, False], rules.n_actions // 2))
    np.testing.assert_array_equal(np.repeat(legal, 2, axis=1)[:, 1::2]
                                  & (dense[:, 1::2, NAMES.index("bank_allowed")] > 0.5),
                                  mask[:, 1::2])


@pytest.mark.parametrize("rules", [LITERAL, CHOOSE])
def test_listed_actions_get_the_dense_logits_and_masked_ones_are_never_chosen(rules):
    scores, before, rolls, seats = random_positions(rules, 64, seed=5)
    obs, mask = observe(rules, scores, before, rolls, seats)
    torch.manual_seed(0)
    net = StructuredActorCritic(obs.shape[1], rules.knobs(), family="fivethousand",
                                linear_term=True)
    for p in net.parameters():  # away from the near-uniform start
        p.data.normal_(0, 0.3)
    heads = net.mlp_extractor
    o, m = torch.as_tensor(obs), torch.as_tensor(mask)
    with torch.no_grad():
        logits = heads.forward_actor(o)
        hidden, linear = heads.action_head.state_terms(heads.trunk(o))
        dense = heads.action_head(hidden[:, None], linear[:, None],
                                  heads.features.dense_features(o))
        logp, values = net(o, m)
    listed = np.repeat(heads.features.legal[heads.features.rolls(o)].numpy(), 2, axis=1)
    np.testing.assert_allclose(logits.numpy()[listed], dense.numpy()[listed], rtol=1e-5,
                               atol=1e-5)
    assert torch.all(logits[~torch.as_tensor(listed)] == 0) and values.shape == (64,)
    assert torch.all(logp.exp()[~m] == 0)
    draws = torch.multinomial(logp.exp(), 200, replacement=True)
    assert m.gather(1, draws).all()


def tiny_config(**env_kwargs):
    """The committed structured config with cheap opponents and a small network."""
    config = json.loads((ROOT / "agents/training/ppo/configs/fivethousand-structured.json")
                        .read_text())
    config.update(opponent="heuristic", num_envs=1)
    config["eval"] = {**config["eval"], "opponent": "heuristic"}
    config["env_kwargs"] = {**config["env_kwargs"], **env_kwargs}
    config["policy_kwargs"] = {"state_hidden": [32], "action_hidden": [16, 8],
                               "value_hidden": [32], "action_activation": "tanh",
                               "linear_term": True}
    return config


@pytest.mark.parametrize("env_kwargs", [{}, {"choose_scoring_dice": True}])
def test_lean_network_is_the_sb3_policy(env_kwargs):
    """The lean trainer's network and the MaskablePPO policy have the same parameters and
    compute the same masked distribution and values."""
    from agents.training.ppo import build_sb3_model
    from agents.training.ppo.lean import build_network

    config = tiny_config(**env_kwargs)
    rules = FiveThousandRules(**env_kwargs)
    model = build_sb3_model(config, seed=0, num_envs=1)
    obs, mask = observe(rules, *random_positions(rules, 16, seed=3))
    net = build_network(config, obs.shape[1], mask.shape[1])
    for p in net.parameters():
        p.data.normal_(0, 0.3)
    model.policy.load_state_dict(net.state_dict())  # strict: the same names and shapes
    o = torch.as_tensor(obs)
    with torch.no_grad():
        logp, values = net(o, torch.as_tensor(mask))
        dist = model.policy.get_distribution(o, action_masks=mask)
        np.testing.assert_allclose(dist.distribution.probs.numpy(), logp.exp().numpy(),
                                   atol=1e-6)
        np.testing.assert_allclose(model.policy.predict_values(o).squeeze(-1).numpy(),
                                   values.numpy(), atol=1e-6)


def test_an_exported_zip_loads_with_agents_load_and_plays_legal_actions(tmp_path):
    """The lean network copied into MaskablePPO (as the lean trainer exports it) saves a zip
    whose policy class is StructuredMaskablePolicy; agents.load plays it in matches (an
    illegal action would raise) with the same weights."""
    import zipfile

    import agents
    from agents.evaluation.fivethousand_matches import play_fivethousand_matches
    from agents.training.ppo import build_sb3_model
    from agents.training.ppo.lean import build_network

    config = tiny_config()
    model = build_sb3_model(config, seed=0, num_envs=1)
    net = build_network(config, 20, 2)
    model.policy.load_state_dict(net.state_dict())
    model.save(tmp_path / "final.zip")
    data = json.loads(zipfile.ZipFile(tmp_path / "final.zip").read("data"))
    assert data["policy_kwargs"]["family"] == "fivethousand"
    agent = agents.load(str(tmp_path / "final.zip"), "fivethousand")
    policy = agent.model.policy
    assert type(policy).__name__ == "StructuredMaskablePolicy"
    assert policy.family == "fivethousand" and policy.options["linear_term"] is True
    assert all(torch.equal(v, net.state_dict()[k]) for k, v in policy.state_dict().items())
    result = play_fivethousand_matches([agent, agents.make("heuristic", "fivethousand")], 6,
                                       seed=0)
    assert len(result.winner) == 6


def test_the_config_switch_and_its_refusals():
    from agents.training.ppo.config import policy_name, structured_policy_kwargs

    config = json.loads((ROOT / "agents/training/ppo/configs/fivethousand-structured.json")
                        .read_text())
    assert policy_name(config) == "structured"
    kwargs = structured_policy_kwargs(config)
    assert kwargs["family"] == "fivethousand" and kwargs["rules"] == "fivethousand"
    assert kwargs["linear_term"] is True
    choose = {**config, "env_kwargs": {"num_players": 2, "choose_scoring_dice": True}}
    assert structured_policy_kwargs(choose)["rules"] == CHOOSE.knobs()
    with pytest.raises(ValueError, match=r"unknown policy_kwargs \['reroll_features'\].*"
                                         r"throw_features"):
        structured_policy_kwargs({**config, "policy_kwargs": {"reroll_features": False}})
    with pytest.raises(ValueError, match="unknown policy 'transformer'"):
        policy_name({**config, "policy": "transformer"})
    with pytest.raises(ValueError, match="families"):
        policy_name({**config, "family": "farkle"})
    with pytest.raises(ValueError, match="plays .*FiveThousand.*not dice_env/Penta-v0"):
        structured_policy_kwargs({**config, "env_id": "dice_env/Penta-v0"})
