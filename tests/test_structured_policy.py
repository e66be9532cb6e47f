"""The structured scorecard policy (agents/policies/structured): its features against a slow
reference computed from the rules, its masks, the lean and SB3 forms of its network, and a
tiny training run of each trainer that agents.load plays and the exact regret measures."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import need

need("sb3_contrib", "pip install -e '.[train]'")
torch = need("torch", "pip install -e '.[train]'")

from agents.policies.structured.features import (  # noqa: E402
    PureActionFeatures,
    ScorecardActionFeatures,
    afterstate_names,
    box_feature_names,
    hold_feature_names,
    pure_box_feature_names,
    pure_hold_feature_names,
)
from agents.policies.structured.network import StructuredActorCritic  # noqa: E402
from dice_env import dice as D  # noqa: E402
from dice_env.scorecard.observation import (  # noqa: E402
    bonus_features,
    decode_observation,
    encode_observation,
    observation_size,
    observation_slices,
)
from dice_env.scorecard.rules import (  # noqa: E402
    FIVE_FIFTY,
    box_outcomes,
    five_state_after,
    get_rules,
)

ROOT = Path(__file__).resolve().parent.parent


def random_states(rules, n: int, seed: int):
    """``n`` random positions (any roll, rerolls left, open boxes, upper total, five-of-a-kind
    state -- the Joker and the bonus included): their "bonus" observations and action masks."""
    rng = np.random.default_rng(seed)
    roll = rng.integers(0, D.N_ROLLS, n)
    roll[: n // 4] = np.flatnonzero(rules.tables.is_five_kind)[rng.integers(0, 6, n // 4)]
    open_boxes = rng.random((n, rules.n_boxes)) < rng.uniform(0.2, 1.0, (n, 1))
    open_boxes[np.arange(n), rng.integers(0, rules.n_boxes, n)] = True
    five_state = np.where(open_boxes[:, rules.five_kind_box], 0, rng.integers(1, 3, n))
    rolls_left = rng.integers(0, rules.rolls_per_turn, n)
    upper = rng.integers(0, rules.upper_bonus_threshold + 20, n)
    legal, points, _ = box_outcomes(rules, roll, open_boxes, five_state)
    obs = encode_observation(rules, D.ROLLS[roll], roll, rolls_left, open_boxes, points, upper,
                             five_state, kind="bonus")
    mask = np.zeros((n, D.N_HOLDS + rules.n_boxes), dtype=bool)
    mask[:, :D.N_HOLDS] = D.CANONICAL_REROLL[roll] & (rolls_left > 0)[:, None]
    mask[:, D.N_HOLDS:] = legal
    return obs, mask


def reference_hold_features(rules, obs: np.ndarray) -> np.ndarray:
    """``(32, Fh)`` the hold features of one observation, by enumerating every reroll."""
    state = decode_observation(rules, obs[:observation_size(rules)])
    open_ = state["open"].astype(float)
    fifty = float(state["five_state"] == FIVE_FIFTY)
    out = []
    for hold in range(D.N_HOLDS):
        kept = [int(state["dice"][i]) for i in range(D.N_DICE) if hold >> i & 1]
        counts = np.bincount(kept, minlength=7)[1:]
        run = best = 0
        for c in counts:
            run = run + 1 if c else 0
            best = max(best, run)
        outcomes = [sorted(kept + list(r))
                    for r in itertools.product(range(1, 7), repeat=D.N_DICE - len(kept))]
        finals = np.array([D.roll_index(o) for o in outcomes])
        score = rules.tables.score[finals].astype(float)
        final_counts = D.ROLL_COUNTS[finals]
        expected = score.mean(axis=0) / 50 * open_
        chance = (score > 0).mean(axis=0) * open_
        out.append([*(counts / 5), len(kept) / 5, counts.max() / 5, best / 5, sum(kept) / 30,
                    (counts > 0).sum() / 5, *expected, *chance,
                    *((final_counts >= 3).mean(axis=0) * open_[:6]),
                    (final_counts.max(axis=1) == 5).mean() * fifty,
                    expected.max(), chance.max()])
    return np.array(out)


def reference_box_features(rules, obs: np.ndarray) -> np.ndarray:
    """``(B, Fb)`` the box features of one observation, from the rules' scoring functions."""
    state = decode_observation(rules, obs[:observation_size(rules)])
    _, points, _ = box_outcomes(rules, state["roll"], state["open"], state["five_state"])
    points = np.minimum(points[0], 50).astype(float)
    open_ = state["open"]
    t = rules.upper_bonus_threshold
    box_max = np.maximum(rules.tables.score.max(axis=0), rules.tables.joker_score.max(axis=0))
    need = t - state["upper_capped"]
    par = sum(3 * (f + 1) for f in range(6) if open_[f])
    out = []
    for b in range(rules.n_boxes):
        upper = [0.0, 0.0, 0.0]
        if b < 6 and open_[b]:
            need_after = max(need - points[b], 0)
            upper = [need_after / t, (points[b] - 3 * (b + 1)) / t,
                     float(np.clip((par - 3 * (b + 1) - need_after) / t, -1, 1))]
        out.append([float(open_[b]), points[b] / 50, points[b] / box_max[b],
                    float(open_[b] and points[b] == 0), *upper, *np.eye(rules.n_boxes)[b]])
    return np.array(out)


@pytest.mark.parametrize("game", ["penta", "dice-poker"])
def test_features_equal_a_slow_reference_from_the_rules(game):
    rules = get_rules(game)
    obs, _ = random_states(rules, 12, seed=1)
    features = ScorecardActionFeatures(rules)
    holds = features.dense_hold_features(torch.as_tensor(obs)).numpy()
    boxes = features.box_features(torch.as_tensor(obs)).numpy()
    assert holds.shape[-1] == len(hold_feature_names(rules))
    assert boxes.shape[-1] == len(box_feature_names(rules))
    for i in range(len(obs)):
        np.testing.assert_allclose(holds[i], reference_hold_features(rules, obs[i]), atol=1e-5)
        np.testing.assert_allclose(boxes[i], reference_box_features(rules, obs[i]), atol=1e-6)
    # the upper-bonus slack agrees with the env's own "bonus" entries
    upper_open = obs[:, observation_slices(rules)["open"]][:, :6]
    env_slack = bonus_features(rules, obs[:, :observation_size(rules)])[:, 5:]
    np.testing.assert_allclose(boxes[:, :6, 6], np.where(upper_open > 0.5, 2 * env_slack - 1, 0),
                               atol=1e-6)


@pytest.mark.parametrize("game", ["penta", "yahtzee-official", "yatzy"])
def test_the_bonus_feature_is_the_bonus_the_rules_pay_for_scoring_now(game):
    """With bonus_now the box features end with the five-of-a-kind bonus that box_outcomes says
    scoring the dice earns now (/ 50), in every open box; the other features are unchanged.
    Yatzy has no such bonus: the column is 0."""
    rules = get_rules(game)
    obs, mask = random_states(rules, 64, seed=5)
    plain = ScorecardActionFeatures(rules).box_features(torch.as_tensor(obs)).numpy()
    with_bonus = ScorecardActionFeatures(rules, bonus_now=True)
    boxes = with_bonus.box_features(torch.as_tensor(obs)).numpy()
    assert boxes.shape[-1] == len(box_feature_names(rules, bonus_now=True)) == \
        plain.shape[-1] + 1 == with_bonus.n_box_features
    np.testing.assert_array_equal(boxes[..., :-1], plain)
    earned = 0
    for i in range(len(obs)):
        state = decode_observation(rules, obs[i, :observation_size(rules)])
        _, _, bonus = box_outcomes(rules, state["roll"], state["open"], state["five_state"])
        np.testing.assert_allclose(boxes[i, :, -1], state["open"] * bonus[0] / 50, atol=1e-6)
        earned += bonus[0] > 0
    assert (earned > 0) == (rules.five_kind_bonus > 0)
    net = StructuredActorCritic(obs.shape[1], game, bonus_feature=True, linear_term=True)
    logp, _ = net(torch.as_tensor(obs), torch.as_tensor(mask))
    assert torch.isfinite(logp[torch.as_tensor(mask)]).all()
    # the pure agent's box points become all that scoring there earns: the bonus included
    basic = torch.as_tensor(obs[:, :observation_size(rules)])
    pure = PureActionFeatures(rules).box_features(basic).numpy()
    pure_bonus = PureActionFeatures(rules, bonus_now=True)
    with_points = pure_bonus.box_features(basic).numpy()
    assert pure_bonus.n_box_features == len(pure_box_feature_names(rules)) == pure.shape[-1]
    np.testing.assert_allclose(with_points[..., 1], pure[..., 1] + boxes[..., -1], atol=1e-6)
    np.testing.assert_array_equal(np.delete(with_points, 1, -1), np.delete(pure, 1, -1))
    net = StructuredActorCritic(obs.shape[1], game, bonus_feature=True, pure=True)
    assert net.mlp_extractor.features.bonus_now


@pytest.mark.parametrize("game", ["penta", "yahtzee-official", "dice-poker"])
def test_afterstates_are_the_scorecard_the_rules_leave(game):
    """The afterstate of each open box is the scorecard part of the observation the rules give
    after scoring the dice there (open boxes, capped upper total, five-of-a-kind state, turn:
    box_outcomes, five_state_after and encode_observation), and the afterstate scorer adds
    one shared score of it to each box's logit."""
    rules = get_rules(game)
    obs, mask = random_states(rules, 64, seed=6)
    features = ScorecardActionFeatures(rules)
    o = torch.as_tensor(obs)
    rows, boxes, _, _ = features.open_box_features(o)
    after = features.afterstates(o, rows, boxes).numpy()
    assert after.shape == (len(rows), len(afterstate_names(rules)))
    s = observation_slices(rules)
    card = np.r_[s["open"], s["upper_progress"], s["five_state"], s["turn"]]
    for row, box, got in zip(rows.tolist(), boxes.tolist(), after, strict=True):
        state = decode_observation(rules, obs[row, :observation_size(rules)])
        _, points, _ = box_outcomes(rules, state["roll"], state["open"], state["five_state"])
        open_after = state["open"].copy()
        open_after[box] = False
        upper = state["upper_capped"] + (points[0, box] if box < 6 else 0)
        five = five_state_after(rules, state["five_state"], box, points[0, box])
        want = encode_observation(rules, state["dice"][None], state["roll"][None],
                                  np.zeros(1, int), open_after[None], np.zeros((1, rules.n_boxes)),
                                  np.array([upper]), np.atleast_1d(five))[0]
        np.testing.assert_allclose(got, want[card], atol=1e-6)
    net = StructuredActorCritic(obs.shape[1], game, afterstate_hidden=[16])
    plain = StructuredActorCritic(obs.shape[1], game)
    plain.load_state_dict({k: v for k, v in net.state_dict().items()
                           if not k.startswith("mlp_extractor.afterstate.")})
    for p in net.mlp_extractor.afterstate.parameters():
        p.data.normal_(0, 0.3)
    with torch.no_grad():
        logits = net.mlp_extractor.forward_actor(o)
        base = plain.mlp_extractor.forward_actor(o)
        scores = net.mlp_extractor.afterstate(torch.as_tensor(after))
    np.testing.assert_allclose(logits[:, :32].numpy(), base[:, :32].numpy(), atol=1e-6)
    np.testing.assert_allclose((logits - base)[:, 32:][rows, boxes].numpy(), scores.numpy(),
                               atol=1e-5)
    logp, _ = net(o, torch.as_tensor(mask))
    assert torch.isfinite(logp[torch.as_tensor(mask)]).all()


@pytest.mark.parametrize("game,encoding", [("yahtzee-official", "counts"),
                                           ("dice-poker", "count-onehot"),
                                           ("yahtzee-official", "keep")])
def test_pure_features_are_the_kept_dice_and_the_boxes_points_only(game, encoding):
    """The pure agent's inputs (issue 45): a hold is the face counts of the dice it keeps, a
    box is open / what the current dice score there / which box -- read off a basic
    observation, nothing else (no statistics of the dice, no reroll chances, no bonus par)."""
    rules = get_rules(game)
    obs, mask = random_states(rules, 12, seed=3)
    basic = obs[:, :observation_size(rules)]
    features = PureActionFeatures(rules, encoding)
    holds = features.dense_hold_features(torch.as_tensor(basic)).numpy()
    boxes = features.box_features(torch.as_tensor(basic)).numpy()
    assert holds.shape[-1] == len(pure_hold_feature_names(encoding))
    assert boxes.shape[-1] == len(pure_box_feature_names(rules)) == 2 + rules.n_boxes
    for i in range(len(obs)):
        state = decode_observation(rules, basic[i])
        _, points, _ = box_outcomes(rules, state["roll"], state["open"], state["five_state"])
        for hold in range(D.N_HOLDS):
            kept = [int(state["dice"][k]) for k in range(D.N_DICE) if hold >> k & 1]
            counts = np.bincount(kept, minlength=7)[1:]
            if encoding == "counts":
                expected = counts / 5
            elif encoding == "count-onehot":
                expected = np.eye(6)[counts].ravel()
            else:
                expected = np.eye(D.N_KEEPS)[D.keep_index(kept)]
            np.testing.assert_allclose(holds[i, hold], expected, atol=1e-6)
        np.testing.assert_allclose(boxes[i, :, 0], state["open"].astype(float))
        np.testing.assert_allclose(boxes[i, :, 1], np.minimum(points[0], 50) / 50, atol=1e-6)
        np.testing.assert_allclose(boxes[i, :, 2:], np.eye(rules.n_boxes))
    # the network runs on a basic observation and never puts weight on a masked action
    net = StructuredActorCritic(basic.shape[1], game, pure=True, linear_term=True,
                                hold_encoding=encoding)
    logp, values = net(torch.as_tensor(basic), torch.as_tensor(mask))
    probs = logp.exp().detach().numpy()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    assert (probs[~mask] < 1e-12).all() and values.shape == (len(obs),)
    # the logits of the listed holds (features handed as keep indices under "keep") are those
    # of the dense one-hot rows
    for p in net.parameters():
        p.data.normal_(0, 0.3)
    heads, o = net.mlp_extractor, torch.as_tensor(basic)
    with torch.no_grad():
        hidden, linear = heads.hold_head.state_terms(heads.trunk(o))
        dense = heads.hold_head(hidden[:, None], linear[:, None],
                                heads.features.dense_hold_features(o))
        canonical = heads.features.canonical_of[heads.features.rolls(o)]
        holds = torch.as_tensor(mask[:, :D.N_HOLDS])
        np.testing.assert_allclose(heads.forward_actor(o)[:, :D.N_HOLDS][holds].numpy(),
                                   dense.gather(1, canonical)[holds].numpy(), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="unknown hold encoding 'dice'"):
        PureActionFeatures(rules, "dice")


def test_listed_actions_give_every_action_its_logit_and_masked_ones_are_never_chosen():
    """The hold head runs on one canonical hold per keep; every hold making that keep gets
    the same logit as the dense computation over all 32 holds (every open box as over all the
    boxes), and sampling never picks a masked action (the lean network, and the SB3 policy
    given the masks)."""
    from agents.training.ppo import build_sb3_model
    from agents.training.ppo.config import structured_policy_kwargs

    rules = get_rules("penta")
    obs, mask = random_states(rules, 64, seed=2)
    config = json.loads((ROOT / "agents/training/ppo/configs/penta-structured.json").read_text())
    torch.manual_seed(0)
    net = StructuredActorCritic(obs.shape[1], **structured_policy_kwargs(config))
    for p in net.parameters():  # away from the near-uniform start
        p.data.normal_(0, 0.3)
    heads = net.mlp_extractor
    o, m = torch.as_tensor(obs), torch.as_tensor(mask)
    with torch.no_grad():
        logits = heads.forward_actor(o)
        state = heads.trunk(o)
        hidden, linear = heads.hold_head.state_terms(state)
        dense = heads.hold_head(hidden[:, None], linear[:, None],
                                heads.features.dense_hold_features(o))
        hidden, linear = heads.box_head.state_terms(state)
        dense_boxes = heads.box_head(hidden[:, None], linear[:, None],
                                     heads.features.box_features(o))
        logp, _ = net(o, m)
    can_roll = obs[:, observation_slices(rules)["rolls_left"]].argmax(axis=1) > 0
    roll = decode_observation(rules, obs[:, :observation_size(rules)])["roll"]
    equivalent = D.HOLD_KEEP[roll] != D.ROLL_AS_KEEP[roll][:, None]  # not all five held
    checked = can_roll[:, None] & equivalent
    np.testing.assert_allclose(logits[:, :32].numpy()[checked], dense.numpy()[checked],
                               rtol=1e-5, atol=1e-5)
    open_ = obs[:, observation_slices(rules)["open"]] > 0.5
    np.testing.assert_allclose(logits[:, 32:].numpy()[open_], dense_boxes.numpy()[open_],
                               rtol=1e-5, atol=1e-5)
    assert torch.all(logp.exp()[~m] == 0)
    draws = torch.multinomial(logp.exp(), 500, replacement=True)
    assert m.gather(1, draws).all()
    model = build_sb3_model(config, 0, num_envs=1)
    model.policy.load_state_dict(net.state_dict())
    for _ in range(20):
        actions, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[np.arange(len(obs)), actions].all()


def test_lean_network_is_the_sb3_policy():
    """The lean trainer's structured network and the MaskablePPO policy have the same
    parameters and compute the same masked distribution and values (the afterstate scorer
    too)."""
    from agents.training.ppo import build_sb3_model
    from agents.training.ppo.lean import build_network

    config = json.loads((ROOT / "agents/training/ppo/configs/dice-poker-structured.json")
                        .read_text())
    config["policy_kwargs"] = {"action_hidden": [16, 8], "linear_term": True,
                               "action_activation": "tanh", "afterstate_hidden": [8]}
    model = build_sb3_model(config, seed=0, num_envs=1)
    obs, mask = random_states(get_rules("dice-poker"), 16, seed=3)
    net = build_network(config, obs.shape[1], mask.shape[1])
    model.policy.load_state_dict(net.state_dict())  # strict: the same names and shapes
    o, m = torch.as_tensor(obs), torch.as_tensor(mask)
    with torch.no_grad():
        logp, values = net(o, m)
        dist = model.policy.get_distribution(o, action_masks=mask)
        np.testing.assert_allclose(dist.distribution.probs.numpy(), logp.exp().numpy(),
                                   atol=1e-6)
        np.testing.assert_allclose(model.policy.predict_values(o).squeeze(-1).numpy(),
                                   values.numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="unknown policy_kwargs"):
        build_sb3_model({**config, "policy_kwargs": {"hidden": [3]}}, seed=0, num_envs=1)
    scorecard_only = {k: v for k, v in config["policy_kwargs"].items()
                      if k != "afterstate_hidden"}
    with pytest.raises(ValueError, match="scorecard games"):
        build_network({**config, "family": "fivethousand", "policy_kwargs": scorecard_only},
                      10, 10)


@pytest.mark.parametrize("trainer", ["lean", "sb3"])
def test_a_tiny_run_saves_a_zip_that_agents_load_plays_and_the_regret_measures(tmp_path,
                                                                              trainer):
    import agents
    from agents.evaluation import optimality_gap

    run_dir = tmp_path / "run"
    sets = [f"trainer={trainer}", "num_envs=8", "ppo.n_steps=32", "ppo.batch_size=128",
            "eval.games=10", "eval.every_timesteps=256", "checkpoint_every_timesteps=256"]
    subprocess.run([sys.executable, "scripts/train.py", "penta-structured", "--no-progress",
                    "--threads", "1", "--timesteps", "512", "--run-dir", str(run_dir),
                    *(a for s in sets for a in ("--set", s))], cwd=ROOT, check=True,
                   capture_output=True, text=True)
    agent = agents.load(str(run_dir / "final.zip"), "penta")
    assert type(agent.model.policy).__name__ == "StructuredMaskablePolicy"
    result = optimality_gap(agent, "penta", games=20, paired=False)
    assert 0 < result.gap < 200
