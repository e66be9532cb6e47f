"""The front-end-free game models of a human's game (:mod:`agents.play.scorecard_session`,
:mod:`agents.play.fivethousand_session`), which the terminal and the web app both drive."""

from __future__ import annotations

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
