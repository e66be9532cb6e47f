"""The front-end-free game models of a human's game (:mod:`agents.play.scorecard_session`,
:mod:`agents.play.fivethousand_session`), which the terminal and the web app both drive."""

from __future__ import annotations

import re

import numpy as np
import pytest

import agents
from agents.play.fivethousand_session import BANK, ROLL, FiveThousandSession
from agents.play.scorecard_session import N_HOLDS, ScorecardSession, kept_positions
from agents.play.seats import IllegalMove
from dice_env.scorecard.rules import get_rules


def _bank_when_allowed(mask) -> int:
    return BANK if mask[BANK] else ROLL


@pytest.mark.parametrize("bots, seed", [(["heuristic"], 7), (["threshold", "random"], 3)])
def test_fivethousand_session_deals_the_envs_game(bots, seed):
    """A seed deals the same game as ``FiveThousandEnv(agent_seat=0)`` with the same bots
    (what the terminal program played before the session existed)."""
    from dice_env.fivethousand.env import FiveThousandEnv

    env = FiveThousandEnv(num_players=1 + len(bots), agent_seat=0,
                          opponents=[agents.make(b, "fivethousand") for b in bots])
    _, info = env.reset(seed=seed)
    session = FiveThousandSession(bots, seed)
    events = list(session.start_events)
    for move in session.play_bots():
        events += move.events
    for _ in range(300):
        assert session.state() == env.get_state()
        assert events == info["events"]
        action = _bank_when_allowed(info["action_mask"])
        _, _, done, truncated, info = env.step(action)
        move = session.play(action)
        events = list(move.events)
        for bot_move in session.play_bots():
            events += bot_move.events
        if done or truncated:
            break
    assert session.over() and events == info["events"]
    assert session.summary().winner == info["winner"]


def test_fivethousand_solo_session_and_advice():
    from dice_env.fivethousand.solo import FiveThousandSoloEnv

    env = FiveThousandSoloEnv()
    _, info = env.reset(seed=5)
    session = FiveThousandSession([], 5, advise=True)
    optimal = agents.make("optimal", "fivethousand")
    decisions = 0
    while not session.over():
        assert session.state() == env.get_state()
        values = session.advice()
        assert values == optimal.advise(env.get_state())
        action = _bank_when_allowed(info["action_mask"])
        move = session.play(action)
        assert move.verdict.cost == pytest.approx(max(values[action] - min(values.values()), 0))
        _, _, done, truncated, info = env.step(action)
        decisions += 1
    assert done or truncated
    summary = session.summary()
    assert summary.decisions == decisions and summary.unit == "turns"
    with pytest.raises(IllegalMove, match="over"):
        session.check_action(ROLL)


def test_fivethousand_refuses_a_bank_with_the_reason():
    for seed in range(50):
        session = FiveThousandSession(["heuristic"], seed)
        if session.human_to_move() and not session.mask()[BANK]:
            break
    with pytest.raises(IllegalMove, match="You cannot bank now") as exc:
        session.play(BANK)
    assert exc.value.legal == ["roll on"]
    with pytest.raises(ValueError, match="at most 7 bots"):
        FiveThousandSession(["random"] * 8)


def test_scorecard_session_moves_advice_and_verdicts():
    rules = get_rules("penta")
    s = ScorecardSession(rules, ["heuristic"], seed=9, advise=True)
    optimal = agents.make("optimal", "penta")
    assert s.human_to_move() and s.advice().values == optimal.advise(s.table.card(0))
    shown = s.advice().shown
    assert len(shown) >= 8 and any(o.action >= N_HOLDS for o in shown)
    with pytest.raises(IllegalMove, match="all five"):
        s.hold_action(range(5))
    with pytest.raises(IllegalMove, match="no box"):
        s.score_action(13)
    dice = s.table.dice()
    action = s.hold_action([0, 2])
    move = s.play(action)
    assert move.kept == [dice[0], dice[2]] and move.dice_after is not None
    assert sorted(move.dice_after[i] for i in kept_positions(move.dice_after, move.kept)) == \
        sorted(move.kept)
    assert move.verdict.cost >= 0 and len(s.log.losses) == 1
    s.play(s.hold_action([]))
    assert s.auto_scores()
    box = s.auto_box()
    move = s.play(N_HOLDS + box, auto=True)
    assert move.box == box and move.auto
    with pytest.raises(IllegalMove, match="heuristic's turn"):
        s.score_action(box)
    assert {m.seat for m in s.play_bots()} == {1}
    with pytest.raises(IllegalMove, match="already filled"):
        s.score_action(box)
    s.set_advise(False)
    assert s.advice() is None and not s.advising


def test_scorecard_session_plays_a_whole_game_with_bots():
    s = ScorecardSession(get_rules("dice-poker"), ["greedy", "random"], seed=1)
    while not s.over():
        if s.human_to_move():
            s.play(s.score_action(int(np.flatnonzero(s.table.mask[N_HOLDS:])[0])))
        else:
            s.bot_step()
    summary = s.summary()
    assert len(summary.totals) == 3 and summary.loss is None
    assert summary.winners == [i for i, t in enumerate(summary.totals)
                               if t == max(summary.totals)]
    with pytest.raises(IllegalMove, match="over"):
        s.hold_action([0])
    with pytest.raises(RuntimeError):
        s.bot_step()


# -- pass and play: several people at one screen -------------------------------------------------
def test_people_are_checked_and_seated_first():
    from agents.play.seats import check_people, check_seats

    assert check_people(None) == ["you"] and check_people([]) == ["you"]
    assert check_people(["  Ann ", "Bob  Marley"]) == ["Ann", "Bob Marley"]
    for names, message in [(["Ann", "ann"], "two people are called 'ann'"),
                           (["Ann", " "], "empty"), (["x" * 25], "longer than 24"),
                           (["A\x07nn"], "cannot be shown")]:
        with pytest.raises(ValueError, match=message):
            check_people(names)
    with pytest.raises(ValueError, match="at most 6 players; 2 people and 5 bots make 7"):
        check_seats(2, 5, 6)
    with pytest.raises(ValueError, match="at most 6 players"):
        ScorecardSession(get_rules("penta"), ["random"] * 4, people=["A", "B", "C"])
    with pytest.raises(ValueError, match="at most 8 players"):
        FiveThousandSession(["random"] * 6, people=["A", "B", "C"])
    s = ScorecardSession(get_rules("penta"), ["heuristic"], seed=1, people=["Ann", "heuristic"])
    assert s.names == ["Ann", "heuristic", "heuristic 2"] and s.people == [0, 1]
    assert not s.unnamed and ScorecardSession(get_rules("penta"), [], seed=1).unnamed


def test_standings_share_the_top_as_the_rule_book_says():
    """docs/rules.md 1.6: players level on the highest TOTAL share the top and nobody wins;
    a 5000 winner (who reached the target) is first whatever the others hold."""
    from agents.play.seats import result_line, standings, standings_line

    table = standings(["Ann", "Bob", "heuristic", "Cleo"], [200, 180, 200, 150], [0, 1, 3])
    assert [(x.name, x.place, x.shared, x.person) for x in table] == [
        ("Ann", 1, True, True), ("heuristic", 1, True, False), ("Bob", 3, False, True),
        ("Cleo", 4, False, True)]
    assert result_line(table) == "Tie: Ann, heuristic share the top with 200: nobody wins"
    assert standings_line(table) == ("Standings: 1. Ann 200 | 1. heuristic 200 | 3. Bob 180 "
                                     "| 4. Cleo 150")
    table = standings(["Ann", "Bob", "Cleo"], [4900, 5000, 4900], [0, 1, 2], winner=1)
    assert [(x.name, x.place, x.shared) for x in table] == [
        ("Bob", 1, False), ("Ann", 2, True), ("Cleo", 2, True)]
    assert result_line(table) == "Winner: Bob"


def test_two_people_and_a_bot_play_a_whole_scorecard_game():
    """Whoever is to move gets the advisor on their own card, the auto-score box of their
    own card and their own log; the summary has every person's result and the standings."""
    from agents.play.web.scorecard_view import ScorecardWebGame

    rules = get_rules("penta")
    s = ScorecardSession(rules, ["heuristic"], seed=4, advise=True, people=["Ann", "Bob"])
    web = ScorecardWebGame(s, "Penta", 3.0)
    optimal = agents.make("optimal", "penta")
    assert s.names == ["Ann", "Bob", "heuristic"] and s.human_to_move()
    view = web.view()
    assert view["turn_of"] == "Ann" and view["your_turn"] and view["people"] == [0, 1]
    answer = web.move({"kind": "score", "box": 0})  # Ann scores Aces
    assert answer["messages"][0].startswith("Ann scores ") and answer["frames"] == []
    assert answer["verdict"]["line"].startswith("Ann's choice (score Aces")
    assert s.table.current == 1 and s.human_to_move()  # Bob, a person: no bot frame
    assert web.view()["turn_of"] == "Bob"
    assert s.advice().values == optimal.advise(s.table.card(1))
    assert s.score_action(0) == N_HOLDS  # Aces is filled on Ann's card, open on Bob's
    s.play(s.hold_action([]))
    s.play(s.hold_action([1]))
    assert s.auto_scores()
    from agents.scorecard.heuristic import computer_choice

    assert s.auto_box() == computer_choice(rules, s.table.card(1))
    answer = web.move({"kind": "auto"})
    assert "is scored for Bob." in answer["messages"][0]
    assert [f["seat"] for f in answer["frames"]] and {f["seat"] for f in answer["frames"]} == {2}
    assert len(s.logs[0].losses) == 1 and len(s.logs[1].losses) == 3 and s.log is s.logs[0]
    s.set_advise(False)  # the rest quickly: the advisor judged 1 and 3 decisions
    while not s.over():
        if s.human_to_move():
            s.play(s.score_action(int(np.flatnonzero(s.table.mask[N_HOLDS:])[0])))
        else:
            s.bot_step()
    summary = s.summary()
    assert [p.name for p in summary.people] == ["Ann", "Bob"]
    assert [p.decisions for p in summary.people] == [1, 3]
    assert summary.decisions == 4 and summary.loss == pytest.approx(
        sum(p.loss for p in summary.people))
    assert sorted(x.total for x in summary.standings) == sorted(summary.totals)
    assert [x.total for x in summary.standings] == sorted(summary.totals, reverse=True)
    lines = web.view()["summary"]["lines"]
    assert lines[0].startswith("Standings: 1. ") and re.match(r"(Winner|Tie): ", lines[1])
    assert any(line.startswith("Total expected loss of Bob's game") for line in lines)


def test_two_people_play_5000_with_the_advisor_of_whoever_moves():
    from agents.play.web.fivethousand_view import FiveThousandWebGame

    s = FiveThousandSession(["heuristic", "random"], seed=3, advise=True, people=["Ann", "Bob"])
    web = FiveThousandWebGame(s, "5000")
    optimal = agents.make("optimal", "fivethousand")  # four players: the two-player guide
    assert s.names == ["Ann", "Bob", "heuristic", "random"] and not s.solo
    seen = set()
    for _ in range(2000):
        if s.over():
            break
        if not s.human_to_move():
            s.bot_step()
            continue
        seen.add(s.game.current)
        state = s.state()
        assert state["current_player"] == s.game.current
        values = s.advice()
        assert values == optimal.advise(state)
        assert web.view()["turn_of"] == s.names[s.game.current]
        s.play(BANK if s.mask()[BANK] else ROLL)
    assert s.over() and seen == {0, 1}
    summary = s.summary()
    assert summary.standings[0].seat == summary.winner and summary.standings[0].place == 1
    assert [p.name for p in summary.people] == ["Ann", "Bob"]
    assert all(p.decisions > 0 for p in summary.people)
    lines = web.view()["summary"]["lines"]
    assert lines[1].startswith("Standings: 1. ") and lines[2].startswith("Winner: ")


@pytest.mark.parametrize("scores, text", [
    ([4800, 2000, 0], "Bank: allowed (overshoots 5000 by 900: all 1,100 points would be gifted "
                      "to Bob)."),
    ([4800, 3900, 0], "Bank: allowed (overshoots 5000 by 900: all 1,100 points would be gifted "
                      "to Bob, who would reach 5000 and win)."),
    ([4800, 4000, 0], "Bank: allowed (overshoots 5000 by 900: all 1,100 points would be lost: "
                      "Bob, who would receive them, would pass 5000 too)."),
    ([4800, 0, 0], "Bank: allowed (overshoots 5000 by 900: all 1,100 points would be lost: "
                   "nobody else has entered)."),
    ([3000, 0, 0], "Bank: allowed."),
])
def test_an_overshoot_says_all_the_turn_total_is_gifted_and_to_whom(scores, text):
    """docs/rules.md 2.4: a bank past 5000 gives all the banked points, not the excess."""
    from agents.play.web.fivethousand_view import FiveThousandWebGame
    from dice_env.fivethousand.state import state_from_dict

    s = FiveThousandSession(["random"], seed=0, people=["Ann", "Bob"])
    state, _ = state_from_dict(s.rules, {"scores": scores, "current_player": 0,
                                         "turn_total": 0, "dice": [1, 1, 1, 2, 3]}, 3)
    s.game.load(state)
    assert s.turn_total() == 1100 and s.human_to_move()  # three 1s
    assert FiveThousandWebGame(s, "5000").view()["bank_text"] == text


def test_a_bots_action_is_checked_once_for_every_game():
    """agents.people.bot_action, which the scorecard, 5000 and Pig sessions call: an integer
    (a numpy one too) the mask allows, else a RuntimeError naming the bot and the action."""
    import numpy as np

    from agents.people import bot_action

    mask = np.array([0, 1, 1], dtype=np.int8)
    assert bot_action("b", np.int64(2), mask) == 2 and bot_action("b", 1, [0, 1]) == 1
    for action, shown in ((0, "0"), (3, "3"), (-1, "-1"), ("x", "'x'"), (None, "None")):
        with pytest.raises(RuntimeError, match=f"^b chose the illegal action {shown}$"):
            bot_action("b", action, mask)
