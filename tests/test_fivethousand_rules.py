"""5000 rules engine: roll scoring tables, set-asides, banking, bumps, gifts, distributions."""

import itertools
from collections import Counter

import numpy as np
import pytest

from dice_env.fivethousand import game as G
from dice_env.fivethousand import rules as R
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.fivethousand.scripted import ScriptedDice

RULES = FiveThousandRules()


def score(dice):
    pts, k = R.roll_score(R.pad_dice(dice))
    return int(pts), int(k)


# Every 5000 row of the worked examples of docs/rules.md (section 5).
@pytest.mark.parametrize("dice, points", [
    ([1, 1, 5, 6, 4], 250),
    ([1, 1, 1, 2, 3], 1100),
    ([2, 2, 2, 2, 6], 400),
    ([1, 1, 1, 1, 1], 4400),
    ([2, 3, 4, 5, 6], 1500),
    ([2, 2, 3, 4, 6], 0),
])
def test_checked_examples(dice, points):
    assert score(dice)[0] == points
    assert score(list(reversed(dice)))[0] == points  # order does not matter


@pytest.mark.parametrize("dice, points, scoring", [
    ([1, 1, 1, 1, 5], 2250, 5),    # four 1s + a 5
    ([1, 1, 1, 1, 2], 2200, 4),
    ([5, 5, 5, 5, 5], 2000, 5),
    ([6, 6, 6, 6, 6], 2400, 5),
    ([2, 2, 2, 2], 400, 4),
    ([5, 5, 5, 1, 3], 600, 4),
    ([1, 2, 3, 4, 5], 1500, 5),
    ([1, 5, 6, 4], 150, 2),
    ([3, 3, 3], 300, 3),
    ([1], 100, 1),
    ([5], 50, 1),
    ([2], 0, 0),
    ([4, 6], 0, 0),
    ([1, 1, 5, 6, 4], 250, 3),     # the 6 and the 4 are rolled again
])
def test_more_roll_scores(dice, points, scoring):
    assert score(dice) == (points, scoring)


def reference_score(counts):
    """An independent formula: straights, else per face (n of a kind or singles)."""
    present = [c > 0 for c in counts]
    if sum(counts) == 5 and (all(present[:5]) or all(present[1:])):
        return 1500, 5
    pts = used = 0
    for face, c in enumerate(counts, start=1):
        if c >= 3:
            pts += R.three_of_a_kind_points(face) * {3: 1, 4: 2, 5: 4}[c]
            used += c
        elif face in (1, 5):
            pts += c * (100 if face == 1 else 50)
            used += c
    return pts, used


def test_table_matches_an_independent_formula_on_every_roll():
    for n in range(0, 6):
        for roll in R.all_rolls(n):
            counts = [roll.count(f) for f in range(1, 7)]
            assert score(list(roll)) == reference_score(counts), roll


def test_scoring_mask_selects_the_scoring_dice():
    for n in range(1, 6):
        for roll in R.all_rolls(n):
            idx = int(R.roll_index_of(R.pad_dice(roll)))
            m = int(R.ROLL_SCORING_MASK[idx])
            kept = [roll[i] for i in range(n) if m >> i & 1]
            assert len(kept) == R.ROLL_SCORING_DICE[idx]
            assert score(kept)[0] == R.ROLL_POINTS[idx]


def test_throw_probabilities_match_enumeration():
    for n in range(1, 6):
        counts = Counter(int(R.roll_index_of(R.pad_dice(t)))
                         for t in itertools.product(range(1, 7), repeat=n))
        for idx, c in counts.items():
            assert R.THROW_PROB[n, idx] == pytest.approx(c / 6**n)
        assert R.THROW_PROB[n].sum() == pytest.approx(1.0)


def test_outcome_distribution():
    busts = {1: 2 / 3, 2: 4 / 9, 3: 60 / 216, 4: 204 / 1296, 5: 600 / 7776}
    for n, bust in busts.items():
        od = R.outcome_distribution(n)
        assert od.prob.sum() == pytest.approx(1.0)
        assert od.bust_prob == pytest.approx(bust)
        assert od.points[0] == 0 and od.dice_left[0] == 0
        scoring = od.points > 0
        assert np.all(od.dice_left[scoring] == np.where(od.scoring_dice[scoring] == n, 5,
                                                        n - od.scoring_dice[scoring]))
    od = R.outcome_distribution(1)
    assert sorted(zip(od.points.tolist(), od.prob.tolist())) == [
        (0, pytest.approx(4 / 6)), (50, pytest.approx(1 / 6)), (100, pytest.approx(1 / 6))]
    with pytest.raises(ValueError):
        R.outcome_distribution(6)
    rolls, probs = R.throw_distribution(3)
    assert probs.sum() == pytest.approx(1.0) and np.all(R.ROLL_SIZE[rolls] == 3)


def test_throw_dice_draws_five_faces_per_game_and_pads():
    rng, twin = np.random.default_rng(3), np.random.default_rng(3)
    dice, roll = R.throw_dice(rng, np.array([1, 3, 5]))
    twin.integers(1, 7, size=(3, 5), dtype=np.int8)
    assert rng.bit_generator.state == twin.bit_generator.state
    assert (dice > 0).sum(axis=1).tolist() == [1, 3, 5]
    assert np.all(dice[0, 1:] == 0) and np.all(dice[1, 3:] == 0)
    for row in dice:
        live = row[row > 0]
        assert np.all(np.diff(live) >= 0)
    assert np.array_equal(R.ROLL_SIZE[roll], [1, 3, 5])


def setasides(dice):
    idx = int(R.roll_index_of(R.pad_dice(dice)))
    d = sorted(dice)
    out = {}
    for m in range(32):
        if R.SETASIDE_POINTS[idx, m] >= 0:
            faces = tuple(d[i] for i in range(len(d)) if m >> i & 1)
            assert len(faces) == R.SETASIDE_DICE[idx, m]
            out[faces] = int(R.SETASIDE_POINTS[idx, m])
    return out


def test_setaside_options():
    assert setasides([1, 1, 1, 5, 3]) == {
        (1,): 100, (1, 1): 200, (1, 1, 1): 1100, (5,): 50, (1, 5): 150, (1, 1, 5): 250,
        (1, 1, 1, 5): 1150}
    assert setasides([2, 2, 2, 3, 4]) == {(2, 2, 2): 200}
    assert setasides([1, 2, 3, 4, 5]) == {(1,): 100, (5,): 50, (1, 5): 150,
                                         (1, 2, 3, 4, 5): 1500}
    assert setasides([2, 2, 2, 2, 6]) == {(2, 2, 2): 200, (2, 2, 2, 2): 400}
    assert setasides([2, 3, 4, 6, 6]) == {}


def test_setaside_table_invariants():
    for idx in range(R.N_MULTISETS):
        legal = R.SETASIDE_POINTS[idx] >= 0
        n = int(R.ROLL_SIZE[idx])
        assert not legal[0]  # the empty set-aside
        assert not np.any(legal[np.arange(32) >= (1 << n)])  # no die past the roll
        if R.ROLL_POINTS[idx] == 0:
            assert not legal.any()
            continue
        full = int(R.ROLL_SCORING_MASK[idx])
        assert legal[full] and R.SETASIDE_POINTS[idx, full] == R.ROLL_POINTS[idx]
        assert R.SETASIDE_POINTS[idx].max() == R.ROLL_POINTS[idx]


def test_bank_allowed():
    ok = R.bank_allowed
    assert ok(RULES, 0, 500) and ok(RULES, 0, 600)
    assert not ok(RULES, 0, 400)      # entry below 500 cannot be banked
    assert not ok(RULES, 0, 550)      # ends in 50
    assert not ok(RULES, 1000, 250)   # a 250 cannot be banked
    assert ok(RULES, 1000, 100) and not ok(RULES, 1000, 50) and not ok(RULES, 1000, 0)
    assert ok(RULES, 4900, 300)       # an overshoot is a legal bank (it gifts)
    assert np.array_equal(ok(RULES, np.array([0, 0, 700]), np.array([500, 450, 200])),
                          [True, False, True])
    assert "ends in 50" in R.bank_refusal(RULES, 1000, 250)
    assert "500" in R.bank_refusal(RULES, 0, 400)
    assert R.bank_refusal(RULES, 0, 500) is None
    low_entry = FiveThousandRules(entry=0)
    assert ok(low_entry, 0, 100) and not ok(low_entry, 0, 50)


def bank(scores, banker, points):
    out = R.resolve_bank(RULES, np.array([scores]), np.array([banker]), np.array([points]))
    return (out.scores[0].tolist(), int(out.outcome[0]), int(out.receiver[0]),
            out.bumped[0].tolist(), int(out.winner[0]))


def test_bank_and_bump():
    assert bank([0, 0], 0, 500) == ([500, 0], R.BANKED, -1, [False, False], -1)
    # bumping: the banker lands on another player's score, that player drops to 0
    scores, kind, _, bumped, _ = bank([600, 1000, 1000], 0, 400)
    assert scores == [1000, 0, 0] and bumped == [False, True, True] and kind == R.BANKED
    out = R.resolve_bank(RULES, np.array([[600, 1000]]), np.array([0]), np.array([400]))
    assert out.bumped_from[0].tolist() == [0, 1000]
    # entering onto a score bumps too
    assert bank([0, 500], 0, 500)[0] == [500, 0]


def test_exact_target_wins():
    assert bank([4500, 3000], 0, 500) == ([5000, 3000], R.BANKED, -1, [False, False], 0)


def test_overshoot_gift_goes_to_the_lowest_entered_other_player():
    # player 1 has not entered; player 2 (1500) is the lowest entered other player
    scores, kind, recv, _, winner = bank([4800, 0, 1500, 2500], 0, 300)
    assert (scores, kind, recv, winner) == ([4800, 0, 1800, 2500], R.GIFTED, 2, -1)
    # ties: the first such player after the banker in turn order
    assert bank([1500, 4800, 900, 900], 1, 300)[2] == 2
    assert bank([900, 2000, 4800, 900], 2, 300)[2] == 3    # 3 comes before 0 after seat 2
    assert bank([900, 2000, 900, 4800], 3, 300)[:3] == ([1200, 2000, 900, 4800], R.GIFTED, 0)


def test_overshoot_gift_lost():
    # nobody entered besides the banker
    scores, kind, recv, _, _ = bank([4800, 0, 0], 0, 300)
    assert (scores, kind, recv) == ([4800, 0, 0], R.GIFT_LOST_NO_RECEIVER, -1)
    # the gift would push its receiver past the target
    scores, kind, recv, _, _ = bank([4800, 4900], 0, 300)
    assert (scores, kind, recv) == ([4800, 4900], R.GIFT_LOST_OVERSHOOT, 1)
    # alone: always lost
    out = R.resolve_bank(RULES, np.array([[4900]]), np.array([0]), np.array([200]))
    assert out.scores[0].tolist() == [4900] and out.outcome[0] == R.GIFT_LOST_NO_RECEIVER


def test_gift_to_exact_target_wins_for_receiver_and_bumps_nobody():
    scores, kind, recv, bumped, winner = bank([4800, 4700], 0, 300)
    assert (scores, kind, recv, winner) == ([4800, 5000], R.GIFTED, 1, 1)
    scores, kind, recv, bumped, winner = bank([4800, 1000, 1300], 0, 300)
    assert scores == [4800, 1300, 1300] and not any(bumped) and winner == -1


def test_resolve_bank_is_batched_and_pure():
    scores = np.array([[600, 1000], [4800, 4700], [100, 0]])
    before = scores.copy()
    out = R.resolve_bank(RULES, scores, np.array([0, 0, 0]), np.array([400, 300, 0]),
                         banking=np.array([True, True, False]))
    assert np.array_equal(scores, before)
    assert out.scores.tolist() == [[1000, 0], [4800, 5000], [100, 0]]
    assert out.outcome.tolist() == [R.BANKED, R.GIFTED, R.NO_BANK]
    assert out.winner.tolist() == [-1, 1, -1]


def test_rules_validation():
    with pytest.raises(ValueError, match="target"):
        FiveThousandRules(target=5050)
    with pytest.raises(ValueError, match="entry"):
        FiveThousandRules(entry=6000)
    with pytest.raises(ValueError, match="choose_scoring_dice"):
        FiveThousandRules(choose_scoring_dice="yes")
    with pytest.raises(ValueError, match="unknown 5000 rule knobs"):
        FiveThousandRules.from_knobs({"tagret": 5000})
    assert FiveThousandRules(choose_scoring_dice=True).n_actions == 64
    assert FiveThousandRules().n_actions == 2


def test_legal_action_mask_literal_and_choose():
    roll = int(R.roll_index_of(R.pad_dice([1, 1, 5, 4, 6])))  # 250
    m = R.legal_action_mask(RULES, [0, 1000, 0], [0, 0, 300], [roll] * 3)
    assert m.tolist() == [[True, False], [True, False], [True, False]]  # 250 / 550 end in 50
    m = R.legal_action_mask(RULES, [0], [250], [roll])
    assert m.tolist() == [[True, True]]                                 # 500 enters
    choose = FiveThousandRules(choose_scoring_dice=True)
    mask = R.legal_action_mask(choose, [1000], [0], [roll])[0]
    # dice sorted [1, 1, 4, 5, 6]: set-asides {1}, {1,1}, {5}, {1,5}, {1,1,5}
    rolls_on = {a >> 1 for a in np.flatnonzero(mask) if a % 2 == 0}
    banks = {a >> 1 for a in np.flatnonzero(mask) if a % 2 == 1}
    assert rolls_on == {0b1, 0b11, 0b1000, 0b1001, 0b1011}
    assert banks == {0b1, 0b11}  # 100 and 200; 50, 150 and 250 end in 50
    assert R.encode_action(choose, [1, 1, 5, 4, 6], bank=True, set_aside=[1, 1]) == 2 * 0b11 + 1
    assert R.encode_action(choose, [1, 1, 5, 4, 6], bank=False) == 2 * 0b1011
    assert R.encode_action(RULES, [1, 1, 5, 4, 6], bank=True) == R.BANK
    with pytest.raises(ValueError):
        R.encode_action(choose, [1, 1, 5, 4, 6], bank=True, set_aside=[5, 5])


def start(throws, num_players=2, rules=RULES):
    rng = ScriptedDice(throws)
    state = G.FiveThousandState.empty(1, num_players)
    G.start_games(rules, state, np.ones(1, dtype=bool), rng)
    return state, rng


def test_three_ones_over_two_rolls_score_300():
    state, rng = start([[1, 1, 2, 3, 4], [1, 6, 6]])
    assert state.full_turn_total()[0] == 200 and state.dice_left()[0] == 3
    G.step_games(RULES, state, [R.ROLL], rng)
    assert R.ROLL_SIZE[state.roll[0]] == 3          # only the non-scoring dice rolled
    assert state.full_turn_total()[0] == 300         # not 1100


def test_hot_dice_give_all_five_back_and_keep_the_total():
    state, rng = start([[1, 1, 1, 5, 5], [2, 2, 2, 3, 4]])
    assert state.dice_left()[0] == 5
    record = G.step_games(RULES, state, [R.ROLL], rng)
    assert record.hot_dice[0] and record.dice_thrown[0] == 5
    assert R.ROLL_SIZE[state.roll[0]] == 5
    assert state.turn_total[0] == 1200 and state.full_turn_total()[0] == 1400


def test_bust_loses_the_turn_total_and_passes_the_dice():
    state, rng = start([[1, 5, 2, 3, 6], [2, 3, 4], [1, 2, 3, 4, 6]])
    record = G.step_games(RULES, state, [R.ROLL], rng)
    assert record.busted[0] and record.lost[0] == 150
    assert state.current[0] == 1 and state.turn_total[0] == 0
    assert state.scores[0].tolist() == [0, 0] and state.turns[0].tolist() == [1, 0]
    events = G.step_events(record)
    assert [e["type"] for e in events] == ["roll", "bust"]


def test_opening_busts_pass_the_turn_on():
    state, rng = start([[2, 2, 3, 4, 6], [3, 3, 4, 4, 6], [5, 2, 3, 4, 6]], num_players=3)
    assert state.current[0] == 2 and state.turns[0].tolist() == [1, 1, 0]


def test_game_ends_at_exactly_the_target():
    state, rng = start([[1, 1, 1, 2, 3]])
    state.scores[0] = [3900, 1000]
    rec = G.step_games(RULES, state, [R.BANK], rng)
    assert state.scores[0].tolist() == [5000, 1000] and state.winner[0] == 0
    assert rec.winner[0] == 0 and G.action_mask(RULES, state).sum() == 0
    assert rng.remaining == 0  # no throw after the end
    # a finished game ignores further steps
    G.step_games(RULES, state, [R.ROLL], rng)
    assert state.scores[0].tolist() == [5000, 1000]


def test_choose_scoring_dice_sets_aside_a_subset():
    choose = FiveThousandRules(choose_scoring_dice=True)
    state, rng = start([[1, 1, 1, 5, 3], [1, 2, 3, 6]], rules=choose)
    action = R.encode_action(choose, [1, 1, 1, 5, 3], bank=False, set_aside=[1])
    record = G.step_games(choose, state, [action], rng)
    assert record.set_aside_points[0] == 100 and record.dice_thrown[0] == 4
    assert state.turn_total[0] == 100 and R.ROLL_SIZE[state.roll[0]] == 4
    assert state.full_turn_total()[0] == 200


def test_the_rule_books_three_player_gift_example():
    """docs/rules.md, section 2.4: Ann 4800 banks 300 with Ben 2000 and Cleo 0 (not entered)."""
    from dice_env.fivethousand.rules import FiveThousandRules, resolve_bank_one

    rules = FiveThousandRules()
    scores, _, receiver, bumped, winner = resolve_bank_one(rules, [4800, 2000, 0], 0, 300)
    assert scores == [4800, 2300, 0] and receiver == 1 and not any(bumped) and winner == -1
    assert resolve_bank_one(rules, [4800, 4900, 0], 0, 300)[0] == [4800, 4900, 0]  # lost
    scores, _, _, _, winner = resolve_bank_one(rules, [4800, 4700, 0], 0, 300)
    assert scores == [4800, 5000, 0] and winner == 1
    assert resolve_bank_one(rules, [4800, 2000, 2000], 0, 300)[2] == 1  # first after Ann
