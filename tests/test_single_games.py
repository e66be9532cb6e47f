"""The one-game fast paths (``dice_env/*/single.py``) against the batched cores as a batch of
one: same dice, observations, masks, rewards, infos and events, over many seeded games."""

import numpy as np
import pytest

from dice_env import dice as D
from dice_env.fivethousand import game as FG
from dice_env.fivethousand import rules as FR
from dice_env.fivethousand.aec import FiveThousandAECEnv
from dice_env.fivethousand.bots import ThresholdBot
from dice_env.fivethousand.observation import encode_observation as encode_5000
from dice_env.fivethousand.observation import encode_observation_one as encode_5000_one
from dice_env.fivethousand.single import FiveThousandGame
from dice_env.scorecard import game as SG
from dice_env.scorecard.aec import ScorecardAECEnv
from dice_env.scorecard.env import ScorecardEnv
from dice_env.scorecard.match import (
    MatchState,
    apply_match_actions,
    match_action_mask,
    start_matches,
)
from dice_env.scorecard.match.observation import encode_match_observation
from dice_env.scorecard.observation import encode_observation
from dice_env.scorecard.rules import get_rules, upper_bonus_earned

SCORECARD_VARIANTS = [
    ("penta", {}), ("dice-poker", {}), ("yahtzee-official", {}), ("yahtzee-free-joker", {}),
    ("yahtzee-no-bonus", {}), ("penta", {"joker": "free", "joker_when_scratched": True}),
    ("dice-poker", {"joker_when_scratched": True, "penta_counts_as_full": True}),
]


def greedy_for_five(rng, dice, mask):
    """Hold the most common face most of the time (many five-of-a-kinds: Joker and bonus
    cases), else a random legal action."""
    face = max(set(dice), key=dice.count)
    hold = D.hold_bits(i for i, d in enumerate(dice) if d == face)
    if hold != D.ALL_HELD and mask[hold] and rng.random() < 0.8:
        return hold
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("game,knobs", SCORECARD_VARIANTS)
def test_scorecard_env_is_the_batched_core_as_a_batch_of_one(game, knobs):
    observation = "bonus" if game == "penta" and not knobs else "basic"
    policy = np.random.default_rng(1)
    for seed in range(3):
        canonical = seed != 2
        env = ScorecardEnv(game, observation=observation, canonical_holds=canonical, **knobs)
        rules = env.rules
        obs, info = env.reset(seed=seed)
        state = SG.ScorecardState.empty(rules, 1)
        rng = np.random.default_rng(seed)
        SG.start_games(rules, state, np.ones(1, dtype=bool), rng)
        terminated = False
        while not terminated:
            legal, points, bonus = SG.box_options(rules, state)
            assert np.array_equal(obs, encode_observation(
                rules, state.dice, state.roll, state.rolls_left, state.open_boxes(), points,
                state.upper_total, state.five_state(rules), observation)[0])
            mask = SG.action_mask(rules, state, canonical, legal)[0]
            assert info["action_mask"].dtype == np.int8
            assert np.array_equal(info["action_mask"], mask.astype(np.int8))
            assert np.array_equal(env.action_masks(), mask)
            assert info["box_points"].dtype == points.dtype
            assert np.array_equal(info["box_points"], points[0])
            assert info["must_scratch"] is bool(SG.must_scratch(legal, points)[0])
            assert env.get_state()["dice"] == state.dice[0].tolist()
            action = greedy_for_five(policy, env.get_state()["dice"], info["action_mask"])
            obs, reward, terminated, _, info = env.step(action)
            rewards = SG.apply_actions(rules, state, np.array([action]), rng,
                                       options=(legal, points, bonus))[0]
            assert reward == float(rewards[0])
            assert terminated == bool(state.finished()[0])
        assert info["score"] == {k: int(v[0]) for k, v in
                                 state.score_breakdown(rules).items()}
        assert np.array_equal(info["action_mask"], np.zeros_like(info["action_mask"]))


@pytest.mark.parametrize("game,players", [("penta", 2), ("dice-poker", 3)])
def test_scorecard_aec_is_the_batched_match_core(game, players):
    env = ScorecardAECEnv(game=game, num_players=players)
    rules = env.rules
    policy = np.random.default_rng(2)
    for seed in range(3 - players):
        env.reset(seed=seed)
        state = MatchState.empty(rules, 1, players)
        rng = np.random.default_rng(seed)
        start_matches(rules, state, np.ones(1, dtype=bool), rng)
        while not all(env.terminations.values()):
            for seat, agent in enumerate(env.possible_agents):
                seen = env.observe(agent)
                assert np.array_equal(seen["observation"], encode_match_observation(
                    rules, state, np.array([seat]))[0])
            mask = match_action_mask(rules, state)[0]
            assert np.array_equal(env.observe(env.agent_selection)["action_mask"],
                                  mask.astype(np.int8))
            assert env.infos[env.agent_selection]["scores"] == state.score_breakdowns(rules)
            dice = env.get_state()["dice"]
            assert dice == state.cards.dice[state.mover_rows()[0]].tolist()
            action = greedy_for_five(policy, dice, mask)
            env.step(action)
            apply_match_actions(rules, state, np.array([action]), rng)
        assert env.get_state()["cards"] == [
            {"scores": s, "penta_bonus": b} for s, b in zip(
                [[None if x == SG.OPEN else x for x in row] for row in state.cards.scores.tolist()],
                state.cards.five_bonus.tolist())]


def test_dice_stream_rows_deal_the_same_dice_one_game_at_a_time():
    stream_a, stream_b = D.DiceStream(3, [10, 11, 12]), D.DiceStream(3, [10, 11, 12])
    dice = tuple(int(x) for x in D.ROLLS[100])
    for k in range(60):
        row, hold = k % 3, k % 32
        new, roll = D.reroll(stream_a, np.array([dice], dtype=np.int8), np.array([hold]),
                             np.array([row]))
        assert D.reroll_one(stream_b, dice, hold, row) == (tuple(new[0].tolist()), int(roll[0]))


def test_upper_bonus_of_one_game_matches_the_arrays():
    for rules in (get_rules("penta"), get_rules("dice-poker")):
        before, added = np.meshgrid(np.arange(70), np.arange(31))
        table = upper_bonus_earned(rules, before, added)
        for b, a in [(0, 0), (60, 3), (60, 4), (63, 5), (40, 30), (62, 0)]:
            one = upper_bonus_earned(rules, b, a)
            assert type(one) is int and one == table[a, b]


# --------------------------------------------------------------------------------------------
# 5000
# --------------------------------------------------------------------------------------------
FIVE_THOUSAND_VARIANTS = [(1, {}), (1, {"choose_scoring_dice": True, "entry": 0}), (2, {}),
                          (3, {"choose_scoring_dice": True}), (4, {"target": 2000})]


@pytest.mark.parametrize("players,knobs", FIVE_THOUSAND_VARIANTS)
def test_fivethousand_game_is_the_batched_core_as_a_batch_of_one(players, knobs):
    rules = FR.FiveThousandRules(**knobs)
    game = FiveThousandGame(rules, players)
    policy = np.random.default_rng(3)
    for seed in range(3):
        rng_one, rng_batch = np.random.default_rng(seed), np.random.default_rng(seed)
        state = FG.FiveThousandState.empty(1, players)
        first = seed % players
        opening = FG.start_games(rules, state, np.ones(1, dtype=bool), rng_batch, first)
        assert game.start(rng_one, first) == int(opening[0])
        for _ in range(120):
            for field in ("scores", "current", "turn_total", "dice", "roll", "turns", "winner"):
                assert np.array_equal(getattr(game.to_state(), field), getattr(state, field))
            mask = FG.action_mask(rules, state)[0]
            assert game.action_mask() == mask.astype(int).tolist()
            for seat in range(players):
                max_turns = (None, 40)[seat % 2]
                got = encode_5000_one(rules, game.scores, game.current, game.turn_total,
                                      game.roll, game.turns, game.winner, seat, max_turns)
                assert got.dtype == np.float32
                assert np.array_equal(got, encode_5000(rules, state, seat, max_turns)[0])
            if game.finished():
                break
            action = int(policy.choice(np.flatnonzero(mask)))
            events = game.step(action, rng_one)
            record = FG.step_games(rules, state, np.array([action]), rng_batch)
            assert events == FG.step_events(record, 0)


def test_fivethousand_aec_replays_the_batched_core():
    env = FiveThousandAECEnv(num_players=3, choose_scoring_dice=True)
    rules = env.rules
    policy = np.random.default_rng(4)
    env.reset(seed=9)
    state = FG.FiveThousandState.empty(1, 3)
    rng = np.random.default_rng(9)
    FG.start_games(rules, state, np.ones(1, dtype=bool), rng)
    for _ in range(300):
        if all(env.terminations.values()):
            break
        for seat, agent in enumerate(env.possible_agents):
            assert np.array_equal(env.observe(agent)["observation"],
                                  encode_5000(rules, state, seat)[0])
        mask = FG.action_mask(rules, state)[0]
        assert np.array_equal(env.observe(env.agent_selection)["action_mask"],
                              mask.astype(np.int8))
        action = int(policy.choice(np.flatnonzero(mask)))
        env.step(action)
        events = FG.step_events(FG.step_games(rules, state, np.array([action]), rng), 0)
        assert env.unwrapped._last_events == events
    assert all(env.terminations.values())


@pytest.mark.parametrize("knobs", [{}, {"choose_scoring_dice": True}, {"target": 1000,
                                                                       "entry": 0}])
@pytest.mark.parametrize("players", [1, 2, 4])
def test_threshold_bot_act_is_its_batched_choice(knobs, players):
    rules = FR.FiveThousandRules(**knobs)
    bots = [ThresholdBot(rules), ThresholdBot(rules, thresholds=[100, 100, 150, 500, 1500]),
            ThresholdBot(rules, threshold=600)]
    rng = np.random.default_rng(players)
    n = 200
    state = FG.FiveThousandState.empty(n, players)
    FG.start_games(rules, state, np.ones(n, dtype=bool), rng)
    # random scores near the target and random turn totals: every branch of the bots
    state.scores[:] = rng.integers(0, rules.target // 100, size=(n, players)) * 100
    state.scores[rng.random((n, players)) < 0.2] = 0
    state.turn_total[:] = rng.integers(0, 40, size=n) * 50
    seats = rng.integers(players, size=n)
    obs = encode_5000(rules, state, seats)
    masks = FG.action_mask(rules, state).astype(np.int8)
    odd = rng.random(masks.shape) < 0.3  # masks that forbid the bot's choice now and then
    masks = np.where(rng.random(n)[:, None] < 0.2, odd, masks).astype(np.int8)
    for bot in bots:
        batch = bot.act_batch(obs, masks)
        assert [bot.act(o, m) for o, m in zip(obs, masks)] == batch.tolist()


def test_bank_of_one_game_is_the_batched_bank():
    rules = FR.FiveThousandRules()
    rng = np.random.default_rng(5)
    for players in (1, 2, 3, 6):
        n = 500
        scores = rng.integers(0, 50, size=(n, players)) * 100
        scores[rng.random((n, players)) < 0.3] = 0
        banker = rng.integers(players, size=n)
        points = rng.integers(1, 40, size=n) * 50
        out = FR.resolve_bank(rules, scores, banker, points)
        for i in range(n):
            new, outcome, receiver, bumped, winner = FR.resolve_bank_one(
                rules, scores[i].tolist(), int(banker[i]), int(points[i]))
            assert (new, outcome, receiver, bumped, winner) == (
                out.scores[i].tolist(), out.outcome[i], out.receiver[i], out.bumped[i].tolist(),
                out.winner[i])
            assert FR.bank_allowed(rules, int(scores[i, 0]), int(points[i])) == bool(
                FR.bank_allowed(rules, scores[i:i + 1, 0], points[i:i + 1])[0])
