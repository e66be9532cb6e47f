"""The interactive terminal player (``python -m dice_env.play``): parser, in-process games,
and whole games driven through a pseudo-terminal with pexpect."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest
from conftest import need

from agents.play.terminal.cli import main
from agents.play.terminal.commands import (
    Command,
    InputError,
    parse_box,
    parse_fivethousand_command,
    parse_positions,
    parse_scorecard_command,
)
from agents.solvers import fivethousand_vi as VI
from dice_env.scorecard.render import MUST_SCRATCH_WARNING
from dice_env.scorecard.rules import get_rules

try:
    import pexpect
except ModuleNotFoundError:  # the pty tests need it (conftest.need), the others run without
    pexpect = None

PENTA = get_rules("penta").labels
POKER = get_rules("dice-poker").labels
PROMPT = "your move> "


# -- the input parser ------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("h 1 3 4", Command("hold", (0, 2, 3))),
    ("1 3 4", Command("hold", (0, 2, 3))),
    ("134", Command("hold", (0, 2, 3))),
    ("hold 4,1", Command("hold", (0, 3))),
    ("  H  5 ", Command("hold", (4,))),
    ("r", Command("hold", ())),
    ("s Fours", Command("score", box=3)),
    ("s 4", Command("score", box=3)),
    ("score fo", Command("score", box=3)),
    ("s carre", Command("score", box=7)),
    ("s Carré", Command("score", box=7)),
    ("s petite", Command("score", box=9)),
    ("s grandesuite", Command("score", box=10)),
    ("s 13", Command("score", box=12)),
    ("?", Command("help")),
    ("Q", Command("quit")),
])
def test_parse_scorecard_command(text: str, expected: Command) -> None:
    assert parse_scorecard_command(text, PENTA) == expected


@pytest.mark.parametrize("text, message", [
    ("", "Type a command"),
    ("xyz", "Unknown command"),
    ("h", "Say which dice"),
    ("h 1 6", "no die 6"),
    ("h 0", "no die 0"),
    ("h 2 2", "listed twice"),
    ("12345", "Holding all five"),
    ("h a", "not a die position"),
    ("s", "Say which box"),
    ("s 14", "no box 14"),
    ("s zz", "no box called"),
    ("s t", "could be"),
    ("fours", "type: s Fours"),
])
def test_parse_scorecard_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_scorecard_command(text, PENTA)


def test_parse_box_dice_poker_and_positions() -> None:
    with pytest.raises(InputError, match="could be Twos, Two pairs"):
        parse_box("two", POKER)
    assert POKER[parse_box("twos", POKER)] == "Twos"
    assert POKER[parse_box("two pairs", POKER)] == "Two pairs"
    assert POKER[parse_box("Poker", POKER)] == "Poker"
    assert parse_positions("5 1") == (0, 4)


def test_parse_fivethousand_command() -> None:
    assert parse_fivethousand_command("r") == Command("roll")
    assert parse_fivethousand_command(" Bank ") == Command("bank")
    assert parse_fivethousand_command("?") == Command("help")
    assert parse_fivethousand_command("q") == Command("quit")
    for bad in ("", "x", "rb"):
        with pytest.raises(InputError):
            parse_fivethousand_command(bad)


# -- in-process games (stdin/stdout as strings) ----------------------------------------------
def _run(argv: list[str], lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO("".join(x + "\n" for x in lines)), stdout=out)
    return code, out.getvalue()


def test_in_process_game_is_reproducible() -> None:
    moves = [f"s {k}" for k in range(1, 16)]  # box k in round k is always legal
    code, first = _run(["dice-poker", "--seed", "5", "--auto-seconds", "0"], moves)
    assert code == 0
    assert "game over" in first and "Final total:" in first
    _, second = _run(["dice-poker", "--seed", "5", "--auto-seconds", "0"], moves)
    assert first == second


def test_bad_options_and_eof() -> None:
    with pytest.raises(SystemExit) as exc:
        _run(["chess"], [])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        _run(["penta", "--opponents", "nobody"], [])
    assert exc.value.code == 2
    code, text = _run(["penta", "--seed", "1"], ["?", "h 9"])  # then end of input
    assert code == 0
    assert "Commands" in text and "no die 9" in text and "End of input" in text


def test_rule_errors_are_messages() -> None:
    code, text = _run(["penta", "--seed", "1", "--auto-seconds", "0"],
                      ["s 1", "s 1", "r", "r", "h 1", "q"])
    assert code == 0
    assert "Aces is already filled" in text
    assert "No rerolls left" in text
    assert "You quit the game." in text


def test_fivethousand_in_process_quit() -> None:
    code, text = _run(["5000", "--seed", "2"], ["zz", "r", "q"])
    assert code == 0
    assert "Unknown command 'zz'" in text and "You quit the game." in text


# -- through a pseudo-terminal -----------------------------------------------------------------
def _spawn(*args: str, timeout: float = 30):
    if pexpect is None:
        need("pexpect", "pip install -e '.[dev]'")  # skips the test, or fails it under CI
    child = pexpect.spawn(sys.executable, ["-m", "dice_env.play", *args], encoding="utf-8",
                          timeout=timeout, dimensions=(60, 120))
    return child


def test_pty_whole_penta_game_with_bots_and_advice() -> None:
    child = _spawn("penta", "--seed", "1", "--opponents", "heuristic,optimal", "--advise",
                   "--auto-seconds", "0")
    try:
        child.expect("Advisor on")
        child.expect(PROMPT)
        screen = child.before
        assert "Aces" in screen and "TOTAL" in screen and "Totals: you 0 | heuristic 0" in screen
        assert "Advisor (expected final score" in screen
        child.sendline("what")  # a mistyped input: a message, and the game goes on
        child.expect("Unknown command 'what'")
        child.expect(PROMPT)
        child.sendline("h 1 2")
        child.expect("cost of your choice: ")
        child.expect("You hold")
        child.expect(PROMPT)
        for k in range(1, 14):
            child.sendline(f"s {k}")
            child.expect(r"You score \d+ in ")
            if k < 13:
                child.expect(PROMPT)
                screen = child.before
        # Round 13: only Penta is open, and this seed's roll is no Penta.
        assert MUST_SCRATCH_WARNING in screen and "round 13 of 13" in screen
        child.expect("game over")
        child.expect(r"Final total: (\d+)")
        total = int(child.match.group(1))
        tail = child.before
        child.expect(r"Total expected loss of your game: ([0-9.]+) points over 14 decisions")
        assert float(child.match.group(1)) > 0
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    final_totals = re.findall(r"Totals: you (\d+) \| heuristic (\d+) \| optimal (\d+)", tail)
    assert final_totals and int(final_totals[-1][0]) == total


def test_pty_auto_score_after_last_roll() -> None:
    child = _spawn("penta", "--seed", "3", "--auto-seconds", "1")
    try:
        child.expect(PROMPT)
        child.sendline("r")
        child.expect(PROMPT)
        child.sendline("r")
        child.expect(r"auto-score in 1s\)> ")  # the last roll: wait and let the computer score
        child.expect(r"No choice within 1s: the computer's choice, (.+), is scored for you\.")
        box = child.match.group(1).strip()
        child.expect(rf"You score \d+ in {re.escape(box)}")
        child.expect(PROMPT)  # round 2
        assert "round 2 of 13" in child.before
        child.sendline("q")
        child.expect("You quit the game.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_pty_fivethousand_against_a_bot() -> None:
    child = _spawn("5000", "--seed", "7", "--opponents", "heuristic", "--advise")
    ended = False
    decisions = 0
    try:
        while decisions < 400:
            i = child.expect([r"roll on or bank \[r/b\]> ", "game over"])
            if i == 1:
                ended = True
                break
            screen = child.before
            if decisions == 0:
                assert "you" in screen and "heuristic" in screen and "Turn total" in screen
                # the advisor's values: banking 500 at 0-0 leaves the heuristic to move at
                # 0 vs 500 (seed 7 deals 500 with 1 die left; the same deal as in-process)
                bank = 1 - VI.load_or_solve_two_player().win_probability(0, 500)
                assert "Turn total 500 (set aside before this roll: 0); 1 die to roll on" \
                    in screen
                assert f"Advisor (your win probability after each option):\r\n" \
                       f"    {100 * bank:.2f}%  bank\r\n    51.07%  roll on" in screen
            decisions += 1
            child.sendline("b" if "Bank: allowed" in screen else "r")
        if ended:
            child.expect(r"Winner: (you|heuristic)")
        else:
            child.sendline("q")
            child.expect("You quit the game.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert decisions >= 3
    assert child.exitstatus == 0


def test_pty_two_people_play_penta_to_the_end() -> None:
    """Pass and play: Ann and Bob take turns at one keyboard with a bot; each turn is
    announced by name, the auto-score timer scores for Bob on his turn, and the standings
    close the game."""
    child = _spawn("penta", "--seed", "2", "--people", "Ann,Bob", "--opponents", "heuristic",
                   "--auto-seconds", "1")
    bob_boxes = list(range(1, 14))
    try:
        for rnd in range(1, 14):
            child.expect(">>> Ann's turn: pass the keyboard to Ann. <<<")
            child.expect("Ann's move> ")
            assert f"round {rnd} of 13 - Ann's turn, roll 1 of 3" in child.before
            if rnd == 1:
                assert "Totals: Ann 0 | Bob 0 | heuristic 0" in child.before
            child.sendline(f"s {rnd}")
            child.expect(rf"Ann scores \d+ in {re.escape(PENTA[rnd - 1])} ")
            child.expect(">>> Bob's turn: pass the keyboard to Bob. <<<")
            child.expect("Bob's move> ")
            assert f"round {rnd} of 13 - Bob's turn, roll 1 of 3" in child.before
            if rnd == 1:  # Bob rolls twice, then lets the computer score for him
                for _ in range(2):
                    child.sendline("r")
                    child.expect(r"Bob rerolls all and rolls \[")
                    child.expect("Bob's move")
                child.expect(r"\(auto-score in 1s\)> ")
                child.expect(r"No choice within 1s: the computer's choice, ([^,]+), is scored "
                             r"for Bob\.")
                box = child.match.group(1).strip()
                child.expect(rf"Bob scores \d+ in {re.escape(box)} ")
                bob_boxes.remove(PENTA.index(box) + 1)
            else:
                k = bob_boxes.pop(0)
                child.sendline(f"s {k}")
                child.expect(rf"Bob scores \d+ in {re.escape(PENTA[k - 1])} ")
            child.expect(r"heuristic rolls ")
        child.expect("game over")
        child.expect(r"Standings: 1\. ([^\r\n]+)")
        standings = child.match.group(1)
        tail = child.before
        child.expect(r"(Winner|Tie): ")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    totals = re.findall(r"Totals: Ann (\d+) \| Bob (\d+) \| heuristic (\d+)", tail)[-1]
    ranked = re.findall(r"(?:^|\| )(\d)\. (Ann|Bob|heuristic) (\d+)", "1. " + standings)
    assert sorted(int(t) for _, _, t in ranked) == sorted(map(int, totals))
    assert [int(t) for _, _, t in ranked] == sorted(map(int, totals), reverse=True)


def test_pty_the_advisor_advises_whoever_is_to_move() -> None:
    child = _spawn("penta", "--seed", "5", "--people", "Ann,Bob", "--advise",
                   "--auto-seconds", "0")
    try:
        child.expect("Ann's move> ")
        assert "Advisor (expected final score and chance of winning" in child.before
        child.sendline("r")
        child.expect(r"Advisor: Ann's choice \(reroll all\) is worth [0-9.]+; best .+; cost of "
                     r"Ann's choice: [0-9.]+")
        child.expect("Ann's move> ")
        child.sendline("s 13")
        child.expect("Bob's move> ")
        assert "Advisor (expected final score and chance of winning" in child.before
        assert "Bob's turn, roll 1 of 3" in child.before
        child.sendline("q")
        child.expect("Bob quit the game.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_people_on_the_command_line(capsys) -> None:
    for argv, message in [(["penta", "--people", "Ann,ann"], "argument --people: two people"),
                          (["penta", "--people", "A,B,C,D,E", "--opponents", "random,random"],
                           "at most 6 players; 5 people and 2 bots make 7")]:
        with pytest.raises(SystemExit) as exc:
            _run(argv, [])
        assert exc.value.code == 2 and message in capsys.readouterr().err
    code, text = _run(["5000", "--seed", "2", "--people", "Ann,Bob"], ["r", "q"])
    assert code == 0 and ">>> Ann's turn: pass the keyboard to Ann. <<<" in text
    assert "Ann: roll on or bank [r/b]> " in text and re.search(r"(Ann|Bob) quit the game", text)
    code, text = _run(["dice-poker", "--seed", "5", "--auto-seconds", "0", "--people", "Cleo"],
                      [f"s {k}" for k in range(1, 16)])
    assert code == 0 and "Cleo's move> " in text and "Cleo scores " in text
    assert "pass the keyboard" not in text and "Final total:" in text


def test_line_reader_timeout_on_a_pipe() -> None:
    import os

    from agents.play.terminal.line_input import LineReader

    r, w = os.pipe()
    with os.fdopen(r, "r") as stream:
        reader = LineReader(stream)
        assert reader.readline(0.05) is None  # nothing typed: a timeout
        os.write(w, b"s fours\nq")
        assert reader.readline(0.05) == "s fours"
        os.close(w)
        assert reader.readline(1.0) == "q"  # a last line without newline
        with pytest.raises(EOFError):
            reader.readline(1.0)


def test_line_reader_partial_line_on_a_pipe_stops_the_timer() -> None:
    import os
    import threading

    from agents.play.terminal.line_input import LineReader

    r, w = os.pipe()
    with os.fdopen(r, "r") as stream:
        reader = LineReader(stream)
        assert not reader.is_tty
        os.write(w, b"s fo")  # half a line: the 0.1 s timer stops until its end
        finish = threading.Timer(0.4, os.write, (w, b"urs\n"))
        finish.start()
        assert reader.readline(0.1) == "s fours"  # the rest came 0.4 s later
        finish.join()
        reader.discard_typeahead()  # a no-op on a pipe: lines read ahead are a script's moves
        os.write(w, b"r\n")
        assert reader.readline(0.1) == "r"
        os.close(w)


def test_fivethousand_solo_with_advice() -> None:
    code, text = _run(["5000", "--seed", "3", "--advise"], ["r", "q"])
    assert code == 0 and "You quit the game." in text
    # the advisor's values: seed 3 deals 500 with 2 dice left; banking it leaves the expected
    # turns from 500, plus this one
    assert "Turn total 500 (set aside before this roll: 0); 2 dice to roll on" in text
    bank = 1 + VI.load_or_solve_solo().expected_turns_from(500)
    assert (f"Advisor (expected turns still to play, fewest first):\n     {bank:.2f}  bank\n"
            "     23.06  roll on\n") in text
    assert "Advisor: cost of your choice: 1.17 turns" in text  # 23.06 - 21.90, unrounded


def test_the_5000_advisor_loader_reports_a_broken_player(monkeypatch) -> None:
    """The advisor (and the optimal bot) is the registry's optimal 5000 player; an error
    building it is raised, never turned into a game without advice."""
    import agents.registry
    from agents.fivethousand.optimal import OptimalAgent
    from agents.play.fivethousand_session import load_fivethousand_optimal, make_bot

    assert isinstance(load_fivethousand_optimal(), OptimalAgent)

    def broken(*args, **kwargs):
        raise RuntimeError("the 5000 solver is broken")

    monkeypatch.setattr(agents.registry, "make", broken)
    for load in (load_fivethousand_optimal, lambda: make_bot("optimal")):
        with pytest.raises(RuntimeError, match="the 5000 solver is broken"):
            load()


def test_scorecard_table_seats_up_to_six_players_on_the_match_core() -> None:
    """The terminal game plays on the multi-player match core: five bots (the match's limit
    of six players) play whole turns in seat order to the end; a sixth bot is refused."""
    with pytest.raises(SystemExit) as exc:
        _run(["penta", "--opponents", ",".join(["random"] * 6)], [])
    assert exc.value.code == 2
    moves = [f"s {k}" for k in range(1, 14)]
    code, text = _run(["penta", "--seed", "4", "--auto-seconds", "0", "--opponents",
                       "random,greedy,heuristic,greedy,random"], moves)
    assert code == 0 and "game over" in text
    last = re.findall(r"Totals: (.+)", text)[-1]
    totals = {name: int(v) for name, v in re.findall(r"(\w+(?: \d)?) (\d+)", last)}
    assert list(totals) == ["you", "random", "greedy", "heuristic", "greedy 2", "random 2"]
    top = max(totals.values())
    leaders = [n for n, t in totals.items() if t == top]
    assert (("Winner: " if len(leaders) == 1 else "Tie: ") + ", ".join(leaders)) in text
    # every bot took 13 turns, after the human's in each round
    assert text.count("  . heuristic rolls") == 13


def test_human_holds_map_to_the_canonical_hold_of_the_same_dice() -> None:
    from agents.play.scorecard_table import ScorecardTable

    rules = get_rules("penta")
    table = ScorecardTable(rules, 2, np.random.default_rng(0))
    dice = table.dice()
    for hold in range(31):
        action = table.canonical(hold)
        kept = sorted(dice[i] for i in range(5) if hold >> i & 1)
        assert sorted(dice[i] for i in range(5) if action >> i & 1) == kept
        assert table.mask[action]


def test_help_lists_every_registered_bot(capsys):
    """``dice-play --help`` names every player the registry has for each game family that
    plays in the terminal (ppo and learned-value too)."""
    from agents.families import families

    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    terminal = [f for f in families() if f.has_hook("terminal_game")]
    assert {"scorecard", "fivethousand"} <= {f.name for f in terminal}
    for family in terminal:
        assert family.title in text
        for name in family.players:
            assert name in text, (family.name, name)
    assert "learned-value" in text and "ppo" in text
