"""5000 event lines: the human's seat (``you=``) in the second person, bots in the third."""

from __future__ import annotations

import re

import pytest

from dice_env.fivethousand.env import FiveThousandEnv
from dice_env.fivethousand.render import describe_event, render_game

NAMES = ["you", "bot 1", "bot 2"]

#: (event, line with you=0 for seat 0, line for a bot at seat 1 -- also the you=None line)
CASES = [
    ({"type": "roll", "player": 0, "set_aside": 100, "turn_total": 100, "dice_thrown": 4,
      "hot_dice": False},
     "you set aside 100, turn total 100, roll 4 dice",
     "bot 1 sets aside 100, turn total 100, rolls 4 dice"),
    ({"type": "roll", "player": 0, "set_aside": 1500, "turn_total": 1500, "dice_thrown": 5,
      "hot_dice": True},
     "you set aside 1500 (hot dice!), turn total 1500, roll 5 dice",
     "bot 1 sets aside 1500 (hot dice!), turn total 1500, rolls 5 dice"),
    ({"type": "bust", "player": 0, "lost": 350, "dice": [2, 3, 4], "opening": False},
     "you bust with [2 3 4] and lose 350",
     "bot 1 busts with [2 3 4] and loses 350"),
    ({"type": "bust", "player": 0, "lost": 0, "dice": None, "opening": True},
     "you bust on the opening throw",
     "bot 1 busts on the opening throw"),
    ({"type": "bank", "player": 0, "points": 300, "score": 800},
     "you bank 300 -> 800",
     "bot 1 banks 300 -> 800"),
    ({"type": "overshoot", "player": 0, "points": 400, "score": 4800},
     "you overshoot with 400 (stay at 4800)",
     "bot 1 overshoots with 400 (stays at 4800)"),
    ({"type": "win", "player": 0},
     "you reach the target and win!",
     "bot 1 reaches the target and wins!"),
]


def _at(event: dict, seat: int) -> dict:
    return {**event, "player": seat}


@pytest.mark.parametrize("event,second,third", CASES)
def test_the_human_is_spoken_to_in_the_second_person(event, second, third):
    assert describe_event(_at(event, 0), NAMES, you=0) == second


@pytest.mark.parametrize("event,second,third", CASES)
def test_bot_lines_stay_in_the_third_person(event, second, third):
    assert describe_event(_at(event, 1), NAMES, you=0) == third
    assert describe_event(_at(event, 1), NAMES) == third  # default: no second person
    # without you=, even a seat named "you" is spoken of in the third person (the old lines)
    assert describe_event(_at(event, 0), ["bot 1", "x"]) == third


def test_bumps_and_gifts_either_way_round():
    bump_you = {"type": "bump", "player": 0, "by": 1, "lost": 500}
    bump_bot = {"type": "bump", "player": 1, "by": 0, "lost": 500}
    assert describe_event(bump_you, NAMES, you=0) == "you are bumped to 0 by bot 1 (lost 500)"
    assert describe_event(bump_bot, NAMES, you=0) == "bot 1 is bumped to 0 by you (lost 500)"
    assert describe_event(bump_you, NAMES) == "you is bumped to 0 by bot 1 (lost 500)"
    gift = {"type": "gift", "from": 1, "to": 0, "points": 100, "score": 900}
    assert describe_event(gift, NAMES, you=0) == "100 go to you as a gift -> 900"
    lost = {"type": "gift_lost", "from": 1, "points": 300, "reason": "receiver_overshoot",
            "to": 0}
    assert describe_event(lost, NAMES, you=0) == ("the gift of 300 is lost (you would pass the "
                                                  "target)")
    nobody = {**lost, "reason": "no_receiver", "to": None}
    assert describe_event(nobody, NAMES, you=0) == "the gift of 300 is lost (nobody has entered)"


_WRONG = re.compile(r"\byou (sets|rolls|busts|loses|banks|is|overshoots|stays|reaches|wins)\b")


def test_a_whole_game_rendered_for_the_human_has_no_third_person_you():
    env = FiveThousandEnv(num_players=3, agent_seat=0, target=1000, entry=0)
    _, info = env.reset(seed=3)
    lines, done, seen = [], False, set()
    while not done:
        mask = info["action_mask"]
        action = 1 if mask[1] else 0
        _, _, term, trunc, info = env.step(action)
        done = term or trunc
        for e in info["events"]:
            seen.add(e["type"])
            lines.append(describe_event(e, NAMES, you=0))
    text = "\n".join(lines)
    assert not _WRONG.search(text), text
    assert {"roll", "bank"} <= seen
    state = env._state  # the finished game (a state dict of a finished game cannot be restored)
    board = render_game(env.rules, state, names=NAMES, events=info["events"], you=0)
    assert not _WRONG.search(board), board
    winner = info["winner"]
    assert f"Game over: {NAMES[winner]} {'win' if winner == 0 else 'wins'}." in board
    # the envs' own renders (no you=) are unchanged: third person throughout
    old = render_game(env.rules, state, names=NAMES, events=info["events"])
    assert f"Game over: {NAMES[winner]} wins." in old
