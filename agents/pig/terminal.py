"""A game of Pig in the terminal: the :class:`~agents.pig.session.PigSession` (one person or
several passing the keyboard, against the bots) on a text screen, with what the others did
between a person's decisions and the optimal advisor of whoever is to move.

The family's ``"terminal_game"`` hook is :func:`start_game`.  The screen is the ``term`` the
terminal program hands it (``say(text)`` prints, ``ask(prompt)`` reads a line and raises
``EOFError`` at the end of input, which the program reports): nothing here imports the
terminal program.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.families import IllegalMove
from agents.pig.session import HOLD, MAX_BOTS, ROLL, PigSession, action_name, event_text
from dice_env.pig.game import render_text

__all__ = ["HELP", "PigTerminalGame", "parse_command", "start_game"]

HELP = """\
Commands:
  r   roll the die: a 1 loses the turn total and ends the turn, another face adds to it
  h   hold: add the turn total to your score and pass the die (also: b, bank, stop)
  ?   this help
  q   quit
The full rules: dice-env rules pig in a shell."""

_WORDS = {"r": "roll", "roll": "roll", "0": "roll", "h": "hold", "hold": "hold", "b": "hold",
          "bank": "hold", "s": "hold", "stop": "hold", "1": "hold", "?": "help",
          "help": "help", "q": "quit", "quit": "quit", "exit": "quit"}


def parse_command(text: str) -> str:
    """One line typed on a Pig decision: ``"roll"``, ``"hold"``, ``"help"`` or ``"quit"``;
    ``ValueError`` with a message for the player otherwise."""
    low = " ".join((text or "").split()).lower()
    if not low:
        raise ValueError("Type r to roll or h to hold (? for help).")
    try:
        return _WORDS[low]
    except KeyError:
        raise ValueError(f"Unknown command {text.strip()!r}: r rolls, h holds, ? for "
                         "help.") from None


class PigTerminalGame:
    """A game of Pig in the terminal: the people (``people``: their names, in seat order;
    default one, ``you``) against the bots (none: one ``hold-20``)."""

    def __init__(self, game: Any, term: Any, opponents: Sequence[str], seed: int | None,
                 advise: bool, people: Sequence[str] | None = None) -> None:
        self.session = PigSession(game, opponents, seed, advise, people=people)
        self.term = term
        self.advise = advise
        self.names = self.session.names

    def _show(self, events: list[dict]) -> None:
        s = self.session
        self.term.say("")
        for e in events:
            self.term.say("  . " + event_text(e, self.names, s.you))
        self.term.say(render_text(s.rules, s.state, names=self.names).rstrip())
        if s.face is not None:
            self.term.say(f"  the die shows {s.face}")

    def _advice(self) -> None:
        values = self.session.advice()
        if values is None:
            return
        whose = "your" if self.session.you is not None else f"{self.session.mover_name()}'s"
        self.term.say(f"Advisor ({whose} win probability after each option):")
        for a, v in values.items():
            self.term.say(f"  {100 * v:7.2f}%  {action_name(a)}")

    def _read_action(self) -> int | None:
        """The action typed (None: quit)."""
        s = self.session
        who = "" if s.you is not None else f"{s.mover_name()}: "
        must = not s.mask()[ROLL]
        prompt = f"{who}you reach {s.rules.win_score}: hold [h]> " if must else \
            f"{who}roll or hold [r/h]> "
        while True:
            line = self.term.ask(prompt)
            try:
                cmd = parse_command(line or "")
                if cmd == "help":
                    self.term.say(HELP)
                    continue
                if cmd == "quit":
                    return None
                return s.check_action(ROLL if cmd == "roll" else HOLD)
            except IllegalMove as exc:
                self.term.say(f"{exc} Type h to hold.")
            except ValueError as exc:
                self.term.say(str(exc))

    def _final(self, events: list[dict]) -> None:
        s = self.session
        self.term.say("")
        self.term.say("=== Pig - game over ===")
        for e in events:
            self.term.say("  . " + event_text(e, self.names, s.you))
        for line in s.summary().lines(self.names, len(s.people)):
            self.term.say(line)

    def play(self) -> int:
        """Play the whole game; returns the exit status (0, also after ``q``)."""
        s = self.session
        if s.default_seated:
            self.term.say(f"Pig needs two players: you play {s.names[1]} (--opponents "
                          "chooses the bots).")
        note = s.advisor_note()
        if self.advise and note:
            self.term.say(note)
        events = [e for move in s.play_bots() for e in move.events]
        mover = None
        while not s.over():
            if s.you is None and len(s.people) > 1 and s.current != mover:
                mover = s.current
                self.term.say("")
                self.term.say(f">>> {s.mover_name()}'s turn: pass the keyboard to "
                              f"{s.mover_name()}. <<<")
            self._show(events)
            self._advice()
            action = self._read_action()
            if action is None:
                self.term.say("You quit the game." if s.you is not None else
                              f"{s.mover_name()} quit the game.")
                self.term.say("Scores: " + " | ".join(
                    f"{n} {v}" for n, v in zip(self.names, s.state.scores)))
                return 0
            move = s.play(action)
            if move.verdict is not None:
                whose = "your" if s.you is not None else f"{move.name}'s"
                self.term.say(f"Advisor: cost of {whose} choice: {move.verdict.cost:.2f} "
                              "percentage points")
            events = list(move.events) + [e for m in s.play_bots() for e in m.events]
        self._final(events)
        return 0


def start_game(game: Any, term: Any, opponents: Sequence[str], seed: int | None, *,
               advise: bool, people: Sequence[str] | None = None,
               auto_seconds: float = 3.0) -> PigTerminalGame:
    """A game of Pig in the terminal, ready to :meth:`~PigTerminalGame.play`: the family's
    ``"terminal_game"`` hook (``auto_seconds`` is not used: Pig has no auto-play timer).
    ``ValueError`` with a readable message for a bot or a table it cannot seat."""
    if len(opponents) > MAX_BOTS:
        raise ValueError(f"Pig seats at most {MAX_BOTS} bots")
    return PigTerminalGame(game, term, opponents, seed, advise, people)
