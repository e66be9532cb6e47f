"""Scoring, Joker and bonus rules of the scorecard presets (docs/rules.md, section 1)."""

import numpy as np
import pytest

from dice_env import dice as D
from dice_env.scorecard.rules import (
    FIVE_FIFTY,
    FIVE_OPEN,
    FIVE_ZERO,
    PRESETS,
    box_outcomes,
    get_rules,
    upper_bonus_earned,
)

PENTA = get_rules("penta")
POKER = get_rules("dice-poker")


def box(rules, label):
    return rules.labels.index(label)


def outcomes(rules, dice, open_labels=None, five_state=FIVE_OPEN):
    open_boxes = np.ones(rules.n_boxes, dtype=bool)
    if open_labels is not None:
        open_boxes[:] = False
        for label in open_labels:
            open_boxes[box(rules, label)] = True
    legal, points, bonus = box_outcomes(rules, D.roll_index(dice), open_boxes, five_state)
    return legal[0], points[0], int(bonus[0])


def test_box_order_follows_the_rule_book():
    assert PENTA.labels[6:] == ("Brelan", "Carré", "Full", "Petite suite", "Grande suite",
                                "Chance", "Penta")
    assert POKER.labels[6:] == ("Pair", "Two pairs", "Three of a kind", "Four of a kind",
                                "Full house", "Small straight", "Large straight", "Poker",
                                "Chance")
    assert PRESETS["yahtzee-official"].labels[6:] == (
        "3 of a kind", "4 of a kind", "Full House", "Sm. Straight", "Lg. Straight", "YAHTZEE",
        "Chance")


# --- Checked examples of docs/rules.md ---------------------------------------------------
def test_penta_11346():
    _, points, _ = outcomes(PENTA, [1, 1, 3, 4, 6])
    assert points[box(PENTA, "Full")] == 0 and points[box(PENTA, "Grande suite")] == 0
    for label, value in [("Aces", 2), ("Threes", 3), ("Fours", 4), ("Sixes", 6),
                         ("Chance", 15)]:
        assert points[box(PENTA, label)] == value


def test_penta_must_scratch_example():
    legal, points, _ = outcomes(PENTA, [1, 2, 3, 4, 6], ["Fives", "Full", "Penta"])
    assert legal.sum() == 3 and points[legal].max() == 0


def test_penta_joker_forced_upper():
    legal, points, bonus = outcomes(PENTA, [4] * 5, ["Fours", "Full", "Chance", "Aces"],
                                    FIVE_FIFTY)
    assert np.flatnonzero(legal).tolist() == [box(PENTA, "Fours")]
    assert points[box(PENTA, "Fours")] == 20 and bonus == 100


def test_penta_joker_lower_at_full_value():
    lower = ["Brelan", "Carré", "Full", "Petite suite", "Grande suite", "Chance"]
    legal, points, bonus = outcomes(PENTA, [4] * 5, ["Aces"] + lower, FIVE_FIFTY)
    assert [PENTA.labels[k] for k in np.flatnonzero(legal)] == lower  # Aces not allowed
    expected = {"Brelan": 20, "Carré": 20, "Full": 25, "Petite suite": 30, "Grande suite": 40,
                "Chance": 20}
    assert {label: int(points[box(PENTA, label)]) for label in lower} == expected
    assert bonus == 100


def test_penta_joker_zero_in_upper_box():
    legal, points, bonus = outcomes(PENTA, [4] * 5, ["Aces", "Sixes"], FIVE_FIFTY)
    assert legal[box(PENTA, "Aces")] and legal[box(PENTA, "Sixes")]
    assert points[box(PENTA, "Aces")] == 0 and bonus == 100


def test_penta_scratched_box_no_bonus_no_joker():
    legal, points, bonus = outcomes(PENTA, [4] * 5, ["Grande suite", "Fours", "Full"], FIVE_ZERO)
    assert legal.sum() == 3  # no forcing to Fours
    assert points[box(PENTA, "Grande suite")] == 0 and points[box(PENTA, "Full")] == 0
    assert bonus == 0


def test_penta_first_penta_scores_50_and_is_not_full():
    _, points, bonus = outcomes(PENTA, [2] * 5)
    assert points[box(PENTA, "Penta")] == 50 and points[box(PENTA, "Full")] == 0 and bonus == 0
    knob = get_rules("penta", penta_counts_as_full=True)
    assert outcomes(knob, [2] * 5)[1][box(knob, "Full")] == 25


@pytest.mark.parametrize("dice,label,score", [
    ([5, 5, 3, 2, 1], "Pair", 16),
    ([2, 2, 5, 5, 1], "Two pairs", 15),
    ([5, 5, 5, 2, 5], "Three of a kind", 22),
    ([1, 1, 1, 1, 3], "Four of a kind", 7),
    ([2, 3, 4, 5, 5], "Small straight", 30),
])
def test_dice_poker_checked_examples(dice, label, score):
    assert outcomes(POKER, dice)[1][box(POKER, label)] == score


def test_dice_poker_two_pairs_needs_two_faces():
    assert outcomes(POKER, [3, 3, 3, 3, 1])[1][box(POKER, "Two pairs")] == 0
    assert outcomes(POKER, [3, 3, 3, 1, 1])[1][box(POKER, "Two pairs")] == 11
    knob = get_rules("dice-poker", four_kind_is_two_pairs=True)
    assert outcomes(knob, [3, 3, 3, 3, 1])[1][box(knob, "Two pairs")] == 13


def test_dice_poker_joker():
    legal, points, bonus = outcomes(POKER, [6] * 5, ["Sixes", "Pair"], FIVE_FIFTY)
    assert np.flatnonzero(legal).tolist() == [box(POKER, "Sixes")] and bonus == 100
    right = ["Pair", "Two pairs", "Three of a kind", "Four of a kind", "Full house",
             "Small straight", "Large straight", "Chance"]
    legal, points, bonus = outcomes(POKER, [6] * 5, ["Aces"] + right, FIVE_FIFTY)
    assert [POKER.labels[k] for k in np.flatnonzero(legal)] == right
    assert [int(points[box(POKER, r)]) for r in right] == [30, 30, 30, 30, 25, 30, 40, 30]
    legal, points, bonus = outcomes(POKER, [6] * 5, ["Aces", "Twos"], FIVE_FIFTY)
    assert legal.sum() == 2 and points.max() == 0 and bonus == 100
    legal, points, bonus = outcomes(POKER, [6] * 5, ["Aces", "Large straight"], FIVE_ZERO)
    assert legal.sum() == 2 and points[box(POKER, "Large straight")] == 0 and bonus == 0


def test_upper_bonus_thresholds():
    assert PENTA.upper_bonus_threshold == 63 and POKER.upper_bonus_threshold == 64
    assert upper_bonus_earned(PENTA, 60, 3) == 35
    assert upper_bonus_earned(POKER, 60, 3) == 0
    assert upper_bonus_earned(POKER, 60, 4) == 35
    assert upper_bonus_earned(PENTA, 63, 5) == 0  # earned once


def test_yahtzee_official_joker_applies_when_scratched():
    y = PRESETS["yahtzee-official"]
    legal, points, bonus = outcomes(y, [4] * 5, ["Fours", "Full House"], FIVE_ZERO)
    assert np.flatnonzero(legal).tolist() == [box(y, "Fours")] and bonus == 0
    legal, points, bonus = outcomes(y, [4] * 5, ["Full House", "Lg. Straight"], FIVE_ZERO)
    assert points[box(y, "Full House")] == 25 and points[box(y, "Lg. Straight")] == 40
    assert bonus == 0


def test_yahtzee_free_joker():
    y = PRESETS["yahtzee-free-joker"]
    # any open box; Full/straights at Joker value only once the Fours box is filled
    legal, points, bonus = outcomes(y, [4] * 5, ["Fours", "Full House", "Aces"], FIVE_FIFTY)
    assert legal.sum() == 3 and points[box(y, "Full House")] == 0 and bonus == 100
    legal, points, _ = outcomes(y, [4] * 5, ["Full House", "Lg. Straight", "Aces"], FIVE_FIFTY)
    assert points[box(y, "Full House")] == 25 and points[box(y, "Lg. Straight")] == 40
    assert legal[box(y, "Aces")]


def test_yahtzee_no_bonus():
    y = PRESETS["yahtzee-no-bonus"]
    legal, points, bonus = outcomes(y, [4] * 5, ["Aces", "Full House"], FIVE_FIFTY)
    assert legal.sum() == 2 and points[box(y, "Full House")] == 0 and bonus == 0


def test_unknown_game_and_knob_errors():
    with pytest.raises(ValueError, match="known presets"):
        get_rules("generala")
    with pytest.raises(ValueError, match="unknown rule knobs"):
        get_rules("penta", upper_bonus_treshold=60)
    with pytest.raises(ValueError, match="joker"):
        get_rules("penta", joker="sometimes")
