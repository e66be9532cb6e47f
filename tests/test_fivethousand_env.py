"""The single-agent 5000 envs: API, masks, observation, state dicts, illegal actions, bots."""

import json
import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dice_env
from dice_env.errors import IllegalActionError
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.bots import RandomBot, ThresholdBot
from dice_env.fivethousand.env import FiveThousandEnv
from dice_env.fivethousand.observation import decode_observation, observation_slices
from dice_env.fivethousand.scripted import ScriptedDice
from dice_env.fivethousand.solo import FiveThousandSoloEnv

IDS = list(dice_env.FIVE_THOUSAND_IDS)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("choose", [False, True])
def test_check_env(env_id, choose):
    env = gym.make(env_id, choose_scoring_dice=choose)
    check_env(env.unwrapped, skip_render_check=True)
    assert env.action_space.n == (64 if choose else 2)


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_with_render_modes(env_id, capsys):
    check_env(gym.make(env_id).unwrapped)


def state(scores, dice, turn_total=0, current=0, **extra):
    return dict(scores=scores, dice=dice, turn_total=turn_total, current_player=current,
                **extra)


def test_masks_forbid_illegal_banks():
    env = FiveThousandEnv(agent_seat=0)
    # entry below 500 cannot be banked
    _, info = env.reset(options={"state": state([0, 0], [1, 1, 2, 3, 4], 200)})
    assert info["action_mask"].tolist() == [1, 0]
    assert info["action_mask"].dtype == np.int8 and env.action_masks().dtype == bool
    # a turn total ending in 50 cannot be banked, even entered
    _, info = env.reset(options={"state": state([1000, 0], [5, 2, 3, 6, 6], 200)})
    assert info["action_mask"].tolist() == [1, 0]
    # entered: 300 is fine; 500 enters
    _, info = env.reset(options={"state": state([1000, 0], [1, 2, 3, 4, 6], 200)})
    assert info["action_mask"].tolist() == [1, 1]
    _, info = env.reset(options={"state": state([0, 600], [1, 1, 1, 2, 3])})
    assert info["action_mask"].tolist() == [1, 1]
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))


def test_observation_layout_and_decoding():
    env = FiveThousandEnv(num_players=3, agent_seat=1, max_turns=40)
    s = state([700, 0, 2500], [1, 5, 3], turn_total=600, current=1, turns=[3, 2, 3])
    obs, _ = env.reset(options={"state": s})
    sl = observation_slices(3)
    assert obs.shape == (23,) and obs.dtype == np.float32
    assert obs[sl["score"]].tolist() == pytest.approx([0, 0.5, 0.14])  # agent first
    assert obs[sl["entered"]].tolist() == [0, 1, 1]
    assert obs[sl["to_move"]].tolist() == [1, 0, 0]
    d = decode_observation(env.rules, obs)
    assert d["scores"].tolist() == [0, 2500, 700]
    assert (d["turn_before"], d["roll_points"], d["turn_total"]) == (600, 150, 750)
    assert d["dice_thrown"] == 3 and d["face_counts"].tolist() == [1, 0, 1, 0, 1, 0]
    assert d["dice_left"] == 1 and not d["can_bank"] and not d["overshoot"]
    assert obs[sl["progress"]][0] == pytest.approx(2 / 40)
    assert env.observation_space.contains(obs)


def test_state_round_trip_is_json():
    env = FiveThousandEnv(num_players=3, agent_seat="random")
    env.reset(seed=5)
    for _ in range(10):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    got = env.get_state()
    assert json.loads(json.dumps(got)) == got
    twin = FiveThousandEnv(num_players=3)
    obs, info = twin.reset(options={"state": got})
    assert twin.get_state() == got
    assert np.array_equal(obs, env._observation())
    assert np.array_equal(info["action_mask"], env.action_masks().astype(np.int8))


@pytest.mark.parametrize("bad, message", [
    ("not a dict", "must be a dict"),
    ({"scores": [0, 0], "dice": [1]}, "missing"),
    (state([0, 0], [1, 2, 3, 4, 6]) | {"colour": 1}, "unknown state keys"),
    (state([0], [1, 2, 3, 4, 6]), "list of 2"),
    (state([250, 0], [1, 2, 3, 4, 6]), "impossible"),
    (state([5000, 0], [1, 2, 3, 4, 6]), "game is over"),
    (state([0, 0], [2, 2, 3, 4, 6]), "bust"),
    (state([0, 0], [1, 2, 7]), "faces from 1 to 6"),
    (state([0, 0], [1, 2, 3], turn_total=0), "five dice"),
    (state([0, 0], [1, 2, 3, 4, 6], turn_total=120), "multiple of 50"),
    (state([0, 0], [1, 2, 3, 4, 6], current=2), "seat"),
    (state([0, 0], [1, 2, 3, 4, 6], rules={"target": 10000, "entry": 500,
                                            "choose_scoring_dice": False}), "rules"),
    (state([0, 0], [1, 2, 3, 4, 6], num_players=3), "num_players"),
    (state([0, 0], [1, 2, 3, 4, 6], current=0, agent_seat=1), "agent_seat"),
])
def test_malformed_states_raise_value_error(bad, message):
    env = FiveThousandEnv()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"state": bad})


def test_unknown_options_and_arguments_raise():
    env = FiveThousandEnv()
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"stat": {}})
    with pytest.raises(ValueError, match="illegal_action"):
        FiveThousandEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="num_players"):
        FiveThousandEnv(num_players=1)
    with pytest.raises(ValueError, match="num_players"):
        FiveThousandEnv(num_players=9)
    with pytest.raises(ValueError, match="agent_seat"):
        FiveThousandEnv(agent_seat=2)
    with pytest.raises(ValueError, match="opponents"):
        FiveThousandEnv(num_players=3, opponents=[ThresholdBot()])
    with pytest.raises(ValueError, match="unknown 5000 rule knobs"):
        FiveThousandEnv(rules={"entri": 500})
    with pytest.raises(TypeError):
        FiveThousandEnv(opponents=[42])


def test_illegal_action_raise_names_action_and_keeps_state():
    env = FiveThousandEnv(agent_seat=0, illegal_action="raise")
    env.reset(options={"state": state([1000, 0], [5, 2, 3, 6, 6], 200)})
    before = env.get_state()
    with pytest.raises(IllegalActionError, match=r"1 \(bank\).*ends in 50.*legal actions: \[0\]"):
        env.step(R.BANK)
    assert issubclass(IllegalActionError, ValueError)
    assert env.get_state() == before
    with pytest.raises(IllegalActionError, match="not an action"):
        env.step(7)
    env.step(R.ROLL)  # a legal step still works
    assert env.get_state() != before


def test_illegal_action_penalize_and_terminate():
    env = FiveThousandEnv(agent_seat=0)  # registered default: penalize
    assert env.illegal_action == "penalize"
    env.reset(options={"state": state([1000, 0], [5, 2, 3, 6, 6], 200)})
    before = env.get_state()
    obs, reward, term, trunc, info = env.step(R.BANK)
    assert reward == -1.0 and not term and not trunc and info["illegal_action"]
    assert env.get_state() == before
    env = FiveThousandEnv(agent_seat=0, illegal_action="terminate", illegal_penalty=-2.0)
    env.reset(options={"state": state([1000, 0], [5, 2, 3, 6, 6], 200)})
    _, reward, term, _, info = env.step(R.BANK)
    assert reward == -2.0 and term and info["illegal_action"]
    with pytest.raises(RuntimeError):
        env.step(R.ROLL)


def test_penalize_loop_is_truncated_by_max_steps():
    env = FiveThousandSoloEnv(max_steps=5)
    env.reset(options={"state": state([0], [1, 2, 3, 4, 6])})
    for _ in range(4):
        assert not env.step(R.BANK)[3]
    assert env.step(R.BANK)[3]


def test_render_ansi_shows_scores_turn_total_and_dice():
    env = FiveThousandEnv(num_players=3, agent_seat=0, render_mode="ansi")
    env.reset(options={"state": state([1200, 0, 3400], [1, 1, 5, 3, 4], 300)})
    text = env.render()
    for needle in ("1200", "3400", "not entered", "[1] [1] [3] [4] [5]", "Turn total 550",
                   "ends in 50", "(you)"):
        assert needle in text, needle


def test_opponents_play_inside_step_and_events_report_it():
    script = ScriptedDice([[1, 5, 5, 5, 4], [2, 3, 4, 6, 6], [3, 3, 3, 4, 6], [1, 2, 3, 4, 6]])
    env = FiveThousandEnv(agent_seat=0, opponents=ThresholdBot())
    env.reset(options={"state": state([900, 600], [1, 1, 2, 3, 4], 300, turns=[4, 4])})
    env.np_random = script
    obs, reward, term, trunc, info = env.step(R.BANK)
    assert info["events"] == [
        {"type": "bank", "player": 0, "points": 500, "score": 1400},
        {"type": "bank", "player": 1, "points": 600, "score": 1200},   # 1 + three 5s
        {"type": "bust", "player": 0, "lost": 0, "dice": None, "opening": True},
        {"type": "bank", "player": 1, "points": 300, "score": 1500},
    ]
    assert info["scores"] == [1400, 1500] and info["turns"] == 6
    assert reward == 0.0 and not term and not trunc and script.remaining == 0
    assert env.get_state()["dice"] == [1, 2, 3, 4, 6]


def test_bump_between_agent_decisions():
    script = ScriptedDice([[1, 1, 1, 2, 3], [1, 2, 3, 4, 6]])
    env = FiveThousandEnv(agent_seat=0)
    env.reset(options={"state": state([700, 600], [1, 2, 3, 4, 6], 900)})
    env.np_random = script
    _, _, _, _, info = env.step(R.BANK)  # 700 + 1000 = 1700; the bot banks 1100 onto it
    assert info["events"] == [
        {"type": "bank", "player": 0, "points": 1000, "score": 1700},
        {"type": "bank", "player": 1, "points": 1100, "score": 1700},
        {"type": "bump", "player": 0, "by": 1, "lost": 1700},
    ]
    assert info["scores"] == [0, 1700]
    obs, info = env.reset(options={"state": env.get_state()})
    assert info["action_mask"].tolist() == [1, 0]  # bumped: must enter again (100 < 500)


def test_win_and_loss_rewards():
    env = FiveThousandEnv(agent_seat=0)
    env.reset(options={"state": state([3900, 0], [1, 1, 1, 2, 3])})
    _, reward, term, _, info = env.step(R.BANK)
    assert (reward, term, info["winner"]) == (1.0, True, 0)
    # the agent overshoots and gifts the opponent exactly to 5000: a loss
    env.reset(options={"state": state([4800, 3900], [1, 1, 1, 2, 3])})
    _, reward, term, _, info = env.step(R.BANK)
    assert (reward, term, info["winner"]) == (-1.0, True, 1)
    assert [e["type"] for e in info["events"]] == ["overshoot", "gift", "win"]


def test_agent_seat_random_and_seeded_reproducibility():
    env = FiveThousandEnv(num_players=4, opponents=RandomBot())
    seats = {env.reset(seed=s)[1]["agent_seat"] for s in range(30)}
    assert seats == {0, 1, 2, 3}

    def episode(seed):
        obs, info = env.reset(seed=seed)
        trace = [obs.tolist()]
        rng = np.random.default_rng(0)
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, r, term, trunc, info = env.step(a)
            trace.append((obs.tolist(), r, info["events"]))
            done = term or trunc
        return trace

    assert episode(11) == episode(11)


def test_callable_opponents_see_their_own_seat():
    seen = []

    def opponent(obs, mask):
        seen.append(obs.copy())
        assert mask.dtype == np.int8
        return R.ROLL if not mask[R.BANK] else R.BANK

    env = FiveThousandEnv(agent_seat=1, opponents=opponent)
    env.reset(seed=3)
    for _ in range(20):
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if term or trunc:
            break
    assert seen and all(o[observation_slices(2)["to_move"]].tolist() == [1, 0] for o in seen)


def test_illegal_opponent_raises():
    env = FiveThousandEnv(agent_seat=1, opponents=lambda obs, mask: 1)
    with pytest.raises(RuntimeError, match="illegal action"):
        for s in range(20):
            env.reset(seed=s)


def test_solo_reward_is_minus_one_per_turn():
    env = FiveThousandSoloEnv()
    bot = ThresholdBot(env.rules)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, r, term, trunc, info = env.step(bot.act(obs, info["action_mask"]))
            assert math.copysign(1.0, r) == 1.0 or r < 0, "a step that ends no turn gives +0.0"
            total += r
            done = term or trunc
        assert term and info["scores"] == [5000]
        assert total == -info["turns"]


def test_solo_overshoot_is_lost_and_truncation():
    env = FiveThousandSoloEnv(max_turns=3)
    env.reset(options={"state": state([4800], [1, 1, 1, 2, 3], turns=[2])})
    env.np_random = ScriptedDice([[1, 2, 3, 4, 6]])
    obs, r, term, trunc, info = env.step(R.BANK)
    assert info["scores"] == [4800] and r == -1.0 and not term and trunc
    assert [e["type"] for e in info["events"]] == ["overshoot", "gift_lost"]


def test_bots_batch_matches_single_and_are_legal():
    env = FiveThousandEnv(num_players=3, agent_seat=0, opponents=RandomBot())
    obs_list, masks = [], []
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        obs_list.append(obs)
        masks.append(info["action_mask"])
    obs_arr, mask_arr = np.array(obs_list), np.array(masks)
    bot = ThresholdBot(env.rules)
    batch = bot.act_batch(obs_arr, mask_arr)
    single = [bot.act(o, m) for o, m in zip(obs_arr, mask_arr)]
    assert batch.tolist() == single and all(m[a] for m, a in zip(mask_arr, batch))
    assert bot.thresholds[1:].tolist() == [300, 300, 350, 950, 3550]


def test_threshold_bot_banks_the_exact_win_and_refuses_overshoots():
    env = FiveThousandEnv(agent_seat=0)
    bot = ThresholdBot(env.rules)
    obs, info = env.reset(options={"state": state([4900, 0], [1, 2, 3, 4, 6])})
    assert bot.act(obs, info["action_mask"]) == R.BANK
    obs, info = env.reset(options={"state": state([4900, 0], [1, 1, 2, 3, 4])})
    assert bot.act(obs, info["action_mask"]) == R.ROLL


def test_threshold_bot_in_choose_mode_drops_a_five_to_bank():
    rules = R.FiveThousandRules(choose_scoring_dice=True)
    env = FiveThousandEnv(agent_seat=0, rules=rules)
    bot = ThresholdBot(rules)
    obs, info = env.reset(options={"state": state([1000, 0], [1, 5, 3], 300)})
    a = bot.act(obs, info["action_mask"])
    assert a == R.encode_action(rules, [1, 5, 3], bank=True, set_aside=[1])


def replay_scores(scores: list[int], events: list[dict], target: int) -> int | None:
    """Apply ``events`` to ``scores`` (in place) by the documented meaning of each event type,
    checking the numbers each one carries; returns the winner, if one was announced."""
    winner = None
    for e in events:
        kind = e["type"]
        if kind == "bank":
            scores[e["player"]] += e["points"]
            assert scores[e["player"]] == e["score"] <= target, e
        elif kind == "bump":
            assert scores[e["player"]] == e["lost"] == scores[e["by"]], e
            scores[e["player"]] = 0
        elif kind == "overshoot":
            assert scores[e["player"]] == e["score"] and e["score"] + e["points"] > target, e
        elif kind == "gift":
            scores[e["to"]] += e["points"]
            assert scores[e["to"]] == e["score"] <= target, e
        elif kind == "win":
            assert scores[e["player"]] == target, e
            winner = e["player"]
        else:
            assert kind in ("roll", "bust", "gift_lost"), e
    return winner


@pytest.mark.parametrize("choose", [False, True])
def test_random_play_step_by_step_is_consistent(choose):
    """Random actions against a random bot, game after game: every observation lies in the
    space, the mask is the legal actions, the events replayed from 0-0 give the scores the
    env reports, and a game ends exactly when a win is announced, rewarding its winner."""
    env = FiveThousandEnv(choose_scoring_dice=choose, opponents=RandomBot())
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    scores = [0, 0]
    assert replay_scores(scores, info["events"], 5000) is None
    games, seen = 0, set()
    for _ in range(1500):
        assert env.observation_space.contains(obs)
        assert np.flatnonzero(info["action_mask"]).tolist() == env.legal_actions() != []
        obs, reward, term, trunc, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"]))))
        seen.update(e["type"] for e in info["events"])
        winner = replay_scores(scores, info["events"], 5000)
        assert info["scores"] == scores
        assert term == (winner is not None) and not trunc
        if term:
            assert info["winner"] == winner and not info["action_mask"].any()
            assert reward == (1.0 if winner == info["agent_seat"] else -1.0)
            games += 1
            obs, info = env.reset()
            scores = [0, 0]
            assert replay_scores(scores, info["events"], 5000) is None
        else:
            assert reward == 0.0 and "winner" not in info
    assert games >= 10 and seen == {"roll", "bust", "bank", "bump", "overshoot", "gift",
                                    "gift_lost", "win"}


def test_choose_mode_illegal_reasons():
    rules = R.FiveThousandRules(choose_scoring_dice=True)
    env = FiveThousandEnv(agent_seat=0, rules=rules, illegal_action="raise")
    env.reset(options={"state": state([0, 0], [1, 1, 2, 4, 6])})
    assert env.legal_actions() == [2, 6]
    with pytest.raises(IllegalActionError, match="leftmost dice of each face.*action 2"):
        env.step(4)                      # the second 1 instead of the first
    with pytest.raises(IllegalActionError, match="not a set-aside"):
        env.step(2 * 0b100)              # the 2 does not score
    with pytest.raises(IllegalActionError, match="entering needs 500"):
        env.step(2 * 0b11 + 1)


def test_solo_turns_ended_inside_reset_are_charged_on_the_first_step():
    env = FiveThousandSoloEnv()
    for seed in range(300):
        _, info = env.reset(seed=seed)
        if info["events"]:
            break
    else:
        pytest.fail("no opening bust in 300 resets")
    carried = len(info["events"])
    assert info["turns"] == carried and all(e["opening"] for e in info["events"])
    turns_before = info["turns"]
    _, reward, _, _, info = env.step(R.ROLL)
    assert reward == -(carried + info["turns"] - turns_before)


def test_restored_states_reseed_random_opponents_reproducibly():
    def run(seed):
        env = FiveThousandEnv(agent_seat=0, opponents=RandomBot())
        env.reset(seed=seed, options={"state": state([1000, 2000], [1, 2, 3, 4, 6], 300)})
        trace = []
        for _ in range(30):
            _, _, term, trunc, info = env.step(R.BANK if env.action_masks()[R.BANK] else R.ROLL)
            trace.append(info["events"])
            if term or trunc:
                break
        return trace

    assert run(7) == run(7)


@pytest.mark.filterwarnings("ignore:.*possible render_modes")
def test_unsupported_render_mode_warns_for_sb3_make_vec_env():
    # stable-baselines3's make_vec_env asks for render_mode="rgb_array" and only falls back
    # on a TypeError: the env must not raise, but rendering is off (gym.make warns about the
    # mode; render() says why it returns None)
    env = gym.make("dice_env/FiveThousand-v0", render_mode="rgb_array")
    assert env.unwrapped.render_mode is None
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="not supported"):
        assert env.render() is None


def test_fixed_seat_is_restored_after_a_state_reset():
    env = FiveThousandEnv(agent_seat=1)
    env.reset(options={"state": state([0, 0], [1, 2, 3, 4, 6], current=0)})
    assert env.agent_seat == 0
    _, info = env.reset(seed=1)
    assert env.agent_seat == 1 and info["agent_seat"] == 1


def test_encode_observation_is_batched_over_games_and_seats():
    from dice_env.fivethousand import game as G
    from dice_env.fivethousand.observation import encode_observation

    rules = R.FiveThousandRules()
    env = FiveThousandEnv(num_players=3, agent_seat=0)
    rows = []
    for seed in range(4):
        env.reset(seed=seed)
        rows.append(env._state)
    batch = G.FiveThousandState.empty(4, 3)
    for i, s in enumerate(rows):
        batch.put([i], s)
    seats = np.array([0, 1, 2, 1])
    obs = encode_observation(rules, batch, seats, max_turns=10)
    for i in range(4):
        single = encode_observation(rules, rows[i], seats[i], max_turns=10)[0]
        assert np.array_equal(obs[i], single)
    batch.winner[2] = 0
    obs = encode_observation(rules, batch, seats)
    sl = observation_slices(3)
    assert not obs[2, sl["to_move"].start:].any() and obs[3, sl["to_move"]].any()
