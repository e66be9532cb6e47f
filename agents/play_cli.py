"""The interactive terminal player: Penta, Dice Poker or 5000, alone or against bots.

Started by ``python -m dice_env.play GAME`` or the ``dice-play`` console script (both call
:func:`main`).  It lives in ``agents`` rather than ``dice_env`` because it seats bots and asks
the optimal advisor: the layers run rules -> envs -> agents -> scripts, and
:mod:`dice_env.play` only imports this module lazily, inside its ``main``.

Scorecard games (Penta, Dice Poker, the Yahtzee presets): every player -- you and each bot --
has a scorecard of their own, on the multi-player match core (:mod:`dice_env.scorecard.match`,
what the ``scorecard_v0`` AEC env plays) and the players take whole turns in seat order, you
first; the highest TOTAL wins.  On your turn type
``h 1 3 4`` (or just ``1 3 4``) to hold the dice at those positions and reroll the others,
``r`` to reroll all five, ``s Fours`` / ``s 4`` to score a box, ``?`` for help, ``q`` to quit.
As in the apps, after the last roll the computer's choice
(:func:`agents.scorecard_bots.computer_choice`) is scored for you if you type nothing within
``--auto-seconds`` seconds.  Typing stops that timer: a half-typed line (even one left
without Enter) is never overruled, and if you erase it the timer starts again.  On a terminal,
keys typed before a prompt appears are discarded, so they never answer it; this needs
keystroke-at-a-time input, so on a terminal the timed prompt does its own echo and line
editing (Backspace, Ctrl-U, Ctrl-W, Ctrl-D) and restores the terminal's settings afterwards.
With input from a pipe or a file (a script of moves), a partial line also stops the timer, but
nothing is discarded: the lines read ahead are the script's next moves.

5000: you sit at seat 0 of a :class:`~dice_env.fivethousand.env.FiveThousandEnv` against the
bots (or alone in the solo env when there are none); ``r`` rolls on, ``b`` banks; what the
bots did between your decisions (banks, busts, bumps, gifts) is printed.

``--advise`` shows, before each of your decisions, the optimal player's value of each option
(expected final score; win probability in 5000 -- expected turns when alone), after it the
cost of your choice, and at the end the total expected loss of your game.
"""

from __future__ import annotations

import argparse
import codecs
import os
import select
import signal
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

try:
    import termios
except ImportError:  # not POSIX: no terminal modes; timed reads fall back to select()
    termios = None  # type: ignore[assignment]

from dice_env import dice as D
from dice_env.scorecard.render import MUST_SCRATCH_WARNING
from dice_env.scorecard.rules import PRESETS, Rules, get_rules

__all__ = ["Command", "InputError", "LineReader", "main", "parse_box",
           "parse_fivethousand_command", "parse_positions", "parse_scorecard_command"]

N_HOLDS = D.N_HOLDS
FIVE_THOUSAND_NAMES = ("5000", "fivethousand", "five-thousand")
GAME_ALIASES = {"poker": "dice-poker", "dicepoker": "dice-poker", "dice_poker": "dice-poker"}
PROMPT = "your move> "
TOP_ADVICE = 8

SCORECARD_HELP = """\
Commands (dice positions are 1 to 5, as printed under the dice):
  h 1 3 4   hold the dice at positions 1, 3 and 4 and reroll the others
  1 3 4     the same (also 134 or 1,3,4)
  r         reroll all five dice
  s Fours   score the roll in a box, by name (a unique prefix will do: s fo) ...
  s 4       ... or by its number on the scorecard
  ?         this help
  q         quit
To keep all five dice, score them: holding all five is not a reroll.
The full rules: docs/rules.md in the dice-env repository."""

FIVE_THOUSAND_HELP = """\
Commands:
  r   roll on with the dice that did not score (all five again after hot dice)
  b   bank the turn total
  ?   this help
  q   quit
The full rules: docs/rules.md in the dice-env repository."""


# ------------------------------------------------------------------------------------------
# Input parsing (pure functions, unit-tested)
# ------------------------------------------------------------------------------------------
class InputError(ValueError):
    """A mistyped command; its message is shown to the player, who is asked again."""


@dataclass(frozen=True)
class Command:
    """One parsed command.

    ``kind`` is ``"hold"`` (reroll the dice not at ``positions``, 0-based; ``()`` rerolls all),
    ``"score"`` (box index ``box``), ``"roll"`` / ``"bank"`` (5000), ``"help"`` or ``"quit"``.
    """

    kind: str
    positions: tuple[int, ...] = ()
    box: int | None = None


def _fold(text: str) -> str:
    """Lower case, accents stripped, runs of spaces collapsed (``"Carré "`` -> ``"carre"``)."""
    nfkd = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in nfkd if not unicodedata.combining(c))
    return " ".join(plain.lower().split())


def parse_positions(text: str) -> tuple[int, ...]:
    """Dice positions typed as ``"1 3 4"``, ``"134"`` or ``"1,3,4"`` -> sorted 0-based tuple.

    Raises :class:`InputError` for anything but distinct positions 1 to 5, and for all five
    (holding every die is not a reroll: the player must score).
    """
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise InputError("Say which dice to hold, e.g. h 1 3 4 (or r to reroll all five).")
    positions: list[int] = []
    for tok in tokens:
        if not tok.isdigit():
            raise InputError(f"{tok!r} is not a die position: positions are 1 to 5, "
                             "e.g. h 1 3 4.")
        for ch in tok:
            p = int(ch)
            if not 1 <= p <= D.N_DICE:
                raise InputError(f"There is no die {p}: positions are 1 to {D.N_DICE}.")
            if p - 1 in positions:
                raise InputError(f"Die {p} is listed twice.")
            positions.append(p - 1)
    if len(positions) == D.N_DICE:
        raise InputError("Holding all five dice keeps this roll: to keep it, score it "
                         "(s BOX, e.g. s Chance).")
    return tuple(sorted(positions))


def parse_box(text: str, labels: Sequence[str]) -> int:
    """A box typed by its number (1-based, as printed) or its name (case, accents and spaces
    ignored; a unique prefix will do) -> box index.  :class:`InputError` otherwise."""
    t = _fold(text)
    n = len(labels)
    if t.isdigit():
        k = int(t)
        if 1 <= k <= n:
            return k - 1
        raise InputError(f"There is no box {k}: boxes are numbered 1 to {n}.")
    folded = [_fold(label) for label in labels]
    for k, name in enumerate(folded):
        if name == t or name.replace(" ", "") == t.replace(" ", ""):
            return k
    matches = [k for k, name in enumerate(folded)
               if name.startswith(t) or name.replace(" ", "").startswith(t.replace(" ", ""))]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(labels[k] for k in matches)
        raise InputError(f"{text.strip()!r} could be {names}: type more of the name, or the "
                         "box number.")
    raise InputError(f"There is no box called {text.strip()!r}; the boxes are "
                     f"{', '.join(labels)} (or type the box number).")


def parse_scorecard_command(text: str, labels: Sequence[str]) -> Command:
    """Parse one line typed on a scorecard turn (see :data:`SCORECARD_HELP`).

    Only the syntax is checked here; whether a reroll is left or a box is open is checked
    against the game by the caller.
    """
    low = _fold(text)
    if not low:
        raise InputError("Type a command (? for help).")
    head, _, rest = low.partition(" ")
    if low in ("?", "help", "h?"):
        return Command("help")
    if low in ("q", "quit", "exit"):
        return Command("quit")
    if low in ("r", "roll", "reroll"):
        return Command("hold", ())
    if head in ("s", "score"):
        if not rest:
            raise InputError("Say which box to score, e.g. s Fours or s 4.")
        return Command("score", box=parse_box(rest, labels))
    if head in ("h", "hold", "k", "keep"):
        return Command("hold", parse_positions(rest))
    if low[0].isdigit():
        return Command("hold", parse_positions(low))
    try:
        k = parse_box(low, labels)
    except InputError:
        raise InputError(f"Unknown command {text.strip()!r}: type ? for help.") from None
    raise InputError(f"To score {labels[k]}, type: s {labels[k]} (or s {k + 1}).")


def parse_fivethousand_command(text: str) -> Command:
    """Parse one line typed on a 5000 decision: ``r`` roll on, ``b`` bank, ``?``, ``q``."""
    low = _fold(text)
    if not low:
        raise InputError("Type r to roll on or b to bank (? for help).")
    if low in ("?", "help"):
        return Command("help")
    if low in ("q", "quit", "exit"):
        return Command("quit")
    if low in ("r", "roll", "roll on", "0"):
        return Command("roll")
    if low in ("b", "bank", "1"):
        return Command("bank")
    raise InputError(f"Unknown command {text.strip()!r}: r rolls on, b banks, ? for help.")


# ------------------------------------------------------------------------------------------
# Terminal input with a timeout
# ------------------------------------------------------------------------------------------
# Signals that would stop or end the program while a timed read has the terminal in
# keystroke mode: the mode is undone first (Ctrl-C needs nothing: it raises
# KeyboardInterrupt, and the ``with`` block restores the settings).
_RESTORE_ON = tuple(getattr(signal, name) for name in ("SIGTSTP", "SIGTERM", "SIGHUP")
                    if hasattr(signal, name))


def _columns(char: str) -> int:
    """Terminal columns taken by ``char``: 0 for a combining mark, 2 for a wide character."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


class _KeystrokeMode:
    """Context manager: the terminal ``fd`` without canonical mode and echo, so that each key
    reaches the program as it is typed (ISIG stays on: Ctrl-C, Ctrl-Z still work).

    The saved settings come back on leaving the block (normally, by an exception or by
    Ctrl-C) and also just before the process is stopped (Ctrl-Z) or ended by SIGTERM or
    SIGHUP; when the shell resumes a stopped program the mode is set again, ``on_resume`` is
    called (to redraw the line) and :attr:`resumed` is set (to restart a timer).  Signals
    that already have a handler, or are ignored, are left alone; so are all of them outside
    the main thread.
    """

    def __init__(self, fd: int, on_resume: Callable[[], None] | None = None) -> None:
        self.fd = fd
        self.on_resume = on_resume
        self.saved = termios.tcgetattr(fd)
        self.mode = termios.tcgetattr(fd)
        self.mode[3] &= ~(termios.ICANON | termios.ECHO)
        self.mode[6][termios.VMIN] = 1
        self.mode[6][termios.VTIME] = 0
        self.resumed = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _KeystrokeMode:
        for sig in _RESTORE_ON:
            try:
                if signal.getsignal(sig) == signal.SIG_DFL:
                    self._previous[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not the main thread: no handlers
                break
        termios.tcsetattr(self.fd, termios.TCSANOW, self.mode)
        return self

    def _set(self, settings: list[Any]) -> None:
        try:
            termios.tcsetattr(self.fd, termios.TCSANOW, settings)
        except termios.error:  # the terminal is gone (hung up): nothing left to restore
            pass

    def __exit__(self, *exc_info: object) -> None:
        self._set(self.saved)
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: object) -> None:
        self._set(self.saved)
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)  # stop or end the process, as if we had not been here
        # Only reached after a stop (Ctrl-Z), when the shell continues the program.
        signal.signal(signum, self._on_signal)
        self._set(self.mode)
        self.resumed = True
        if self.on_resume is not None:
            self.on_resume()


class _LineEditor:
    """The line being typed at a terminal in keystroke mode: echo and the editing keys.

    Printable characters (UTF-8) are added and echoed; Backspace (and the terminal's erase
    character) deletes one, its kill character (Ctrl-U) the line, its word-erase character
    (Ctrl-W) a word; Enter ends the line; the EOF character (Ctrl-D) on an empty line is the
    end of input.  Other control keys and escape sequences (arrow keys) are ignored.
    """

    def __init__(self, control_chars: list[Any], echo: Callable[[str], None]) -> None:
        def key(index: int) -> int | None:
            value = control_chars[index]
            code = value[0] if isinstance(value, bytes) else int(value)
            return code or None  # 0 is _POSIX_VDISABLE: the key is switched off

        self.chars: list[str] = []
        self._echo = echo
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._escape = 0  # 0: none; 1: after ESC; 2: inside an ESC [ or ESC O sequence
        self._erase = {0x08, 0x7F, key(termios.VERASE)} - {None}
        self._kill = key(termios.VKILL)
        self._word_erase = key(termios.VWERASE)
        self._eof = key(termios.VEOF)

    @property
    def text(self) -> str:
        """The line typed so far."""
        return "".join(self.chars)

    def _rub_out(self, count: int) -> None:
        keep = len(self.chars) - count
        width = sum(_columns(c) for c in self.chars[keep:])
        del self.chars[keep:]
        self._echo("\b \b" * width)

    def feed(self, byte: int) -> bool:
        """Take one typed byte; ``True`` when it ends the line (Enter).

        Raises ``EOFError`` for the EOF character on an empty line.
        """
        if self._escape:
            if self._escape == 1 and byte in b"[O":
                self._escape = 2
            elif self._escape == 1 or 0x40 <= byte <= 0x7E:
                self._escape = 0
            return False
        if byte in (0x0A, 0x0D):
            self._echo("\n")
            return True
        if byte in self._erase:
            self._decoder.reset()
            self._rub_out(min(1, len(self.chars)))
        elif byte == self._kill:
            self._rub_out(len(self.chars))
        elif byte == self._word_erase:
            n = len(self.chars)
            while n and self.chars[n - 1].isspace():
                n -= 1
            while n and not self.chars[n - 1].isspace():
                n -= 1
            self._rub_out(len(self.chars) - n)
        elif byte == self._eof:
            if not self.chars:
                raise EOFError
        elif byte == 0x1B:
            self._escape = 1
        elif byte == 0x09 or byte >= 0x20:
            text = " " if byte == 0x09 else self._decoder.decode(bytes([byte]))
            self.chars.extend(text)
            self._echo(text)
        return False


class LineReader:
    """Reads lines from a stream, optionally with a timeout.

    Bytes are read from the file descriptor directly and buffered here, so a timeout never
    misses a line sitting in Python's own buffer.  The timeout only runs while no line is
    being typed: once part of a line has come in, the reader waits for its end however long
    that takes, so a timeout (the auto-score) never pre-empts a half-typed command.

    * On a terminal a timed read switches canonical mode off for its duration
      (:class:`_KeystrokeMode`) and edits the line itself (:class:`_LineEditor`): in
      canonical mode the kernel holds a half-typed line back until Enter, out of sight of the
      timer.  If the line is erased to nothing, the timer starts again from the full timeout.
      Untimed reads keep the terminal's own line editing.  :meth:`discard_typeahead` drops
      what was typed before a prompt.
    * On a pipe or a file (a script of moves) a partial line stops the timer the same way,
      and nothing is ever discarded: the lines read ahead are the script's next moves.
    * Without a usable descriptor (or where ``select`` does not take files) timeouts are
      ignored.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            self.fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.is_tty = False
        if self.fd is not None and termios is not None and os.isatty(self.fd):
            try:
                termios.tcgetattr(self.fd)
                self.is_tty = True
            except termios.error:
                pass
        self._buffer = b""
        self._eof = False

    def discard_typeahead(self) -> None:
        """On a terminal, drop whatever was typed and not yet read (call it before showing a
        prompt: keys pressed ahead of a prompt must not answer it).  A no-op on a pipe."""
        if not self.is_tty:
            return
        self._buffer = b""
        try:
            termios.tcflush(self.fd, termios.TCIFLUSH)
        except termios.error:
            pass

    def readline(self, timeout: float | None = None, prompt: str = "") -> str | None:
        """The next line without its newline; ``None`` when ``timeout`` seconds pass before
        any of it is typed.

        ``prompt`` (already shown by the caller) is only drawn again with the half-typed line
        when a stopped program (Ctrl-Z) is resumed during a timed read on a terminal.
        Raises ``EOFError`` at the end of the input.
        """
        if self.fd is None:
            line = self.stream.readline()
            if not line:
                raise EOFError
            return line.rstrip("\r\n")
        if timeout is not None and self.is_tty:
            return self._edit_line(timeout, prompt)
        return self._read_buffered(timeout)

    def _wait(self, seconds: float | None) -> bool:
        """Whether input is ready within ``seconds`` (``None``: wait as long as it takes)."""
        try:
            ready, _, _ = select.select([self.fd], [], [],
                                        None if seconds is None else max(seconds, 0.0))
        except (OSError, ValueError):  # no select on this kind of file: let the read block
            return True
        return bool(ready)

    def _read_buffered(self, timeout: float | None) -> str | None:
        """Read lines as the kernel delivers them (pipes, files, untimed terminal reads)."""
        deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        while b"\n" not in self._buffer:
            if self._eof:
                if self._buffer:
                    line, self._buffer = self._buffer, b""
                    return line.decode("utf-8", "replace").rstrip("\r")
                raise EOFError
            # The timer runs only while no partial line is waiting for its end.
            if deadline is not None and not self._buffer:
                if not self._wait(deadline - time.monotonic()):
                    return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                self._eof = True
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    def _echo(self, text: str) -> None:
        """Show typed text on the terminal (the kernel's echo is off in keystroke mode)."""
        try:
            os.write(self.fd, text.encode("utf-8"))
        except OSError:  # a read-only descriptor: typing goes unseen, but still works
            pass

    def _edit_line(self, timeout: float, prompt: str) -> str | None:
        """A timed read on a terminal: keystroke mode, our own echo and line editing.

        The timer stops as soon as a character is typed and starts again from ``timeout``
        if the line is erased to nothing.
        """
        editor = _LineEditor(termios.tcgetattr(self.fd)[6], self._echo)

        def redraw() -> None:  # back from Ctrl-Z: the shell has written below the line
            self._echo("\n" + prompt + editor.text)

        with _KeystrokeMode(self.fd, redraw) as mode:
            deadline: float | None = time.monotonic() + timeout
            pending, self._buffer = self._buffer, b""
            while True:
                if mode.resumed:  # back from Ctrl-Z: the full time again
                    mode.resumed = False
                    deadline = None
                if editor.chars:
                    deadline = None
                elif deadline is None:
                    deadline = time.monotonic() + timeout
                if not pending:
                    if self._eof:
                        if editor.chars:
                            return editor.text
                        raise EOFError
                    if not self._wait(None if editor.chars else deadline - time.monotonic()):
                        if mode.resumed:
                            continue
                        return None
                    pending = os.read(self.fd, 4096)
                    if not pending:
                        self._eof = True
                        continue
                for i, byte in enumerate(pending):
                    if editor.feed(byte):
                        self._buffer = pending[i + 1:]
                        return editor.text
                pending = b""


class Terminal:
    """Output and input of one session."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.reader = LineReader(stdin)
        self.out = stdout

    def say(self, text: str = "") -> None:
        """Print a line (or several) and flush."""
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str, timeout: float | None = None) -> str | None:
        """Show ``prompt`` and read a line (``None`` when ``timeout`` seconds pass before the
        player starts typing one).

        On a terminal, whatever was typed before the prompt appears is discarded first, so
        that it never answers this prompt (see :class:`LineReader`).
        """
        self.reader.discard_typeahead()
        self.out.write(prompt)
        self.out.flush()
        line = self.reader.readline(timeout, prompt)
        if line is None:
            self.out.write("\n")
            self.out.flush()
        return line


class QuitGame(Exception):
    """The player typed q."""


# ------------------------------------------------------------------------------------------
# Players
# ------------------------------------------------------------------------------------------
def _unique_names(names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        candidate, i = name, 2
        while candidate in out:
            candidate, i = f"{name} {i}", i + 1
        out.append(candidate)
    return out


def _load_fivethousand_optimal() -> Any | None:
    """The optimal 5000 player/advisor if this installation has one, else ``None``."""
    import agents

    try:
        return agents.make("optimal", "fivethousand")
    except (ValueError, ImportError):
        pass
    try:
        from agents.optimal_fivethousand import OptimalAgent
    except ImportError:
        return None
    try:
        agent = OptimalAgent("fivethousand")
    except Exception:  # a missing or broken solver must not stop a game  # noqa: BLE001
        return None
    return agent if callable(getattr(agent, "advise", None)) else None


def _make_bot(name: str, game: str) -> Any:
    """A bot for ``game`` (``ValueError`` with a readable message when it does not exist)."""
    import agents

    if game == "fivethousand" and name == "optimal":
        bot = _load_fivethousand_optimal()
        if bot is None:
            raise ValueError("the optimal 5000 player is not available in this installation; "
                             f"choose from {agents.available('fivethousand')}")
        return bot
    try:
        return agents.make(name, game)
    except ImportError as exc:
        raise ValueError(f"player {name!r} is not available: {exc}") from None


# ------------------------------------------------------------------------------------------
# Scorecard games
# ------------------------------------------------------------------------------------------
class ScorecardTable:
    """The cards of a scorecard game on the match core (:mod:`dice_env.scorecard.match`).

    One card per seat; whole turns in seat order, seat 0 first; every roll, mask and score goes
    through the rules core, as in the ``scorecard_v0`` AEC env and the match envs (and, with one
    seat, as in the solitaire env).  Holds are canonical (one per kept multiset): a human's
    positions are mapped to the canonical hold that keeps the same dice.
    """

    def __init__(self, rules: Rules, num_players: int, rng: np.random.Generator) -> None:
        from dice_env.scorecard.match import MatchState, start_matches

        self.rules = rules
        self.rng = rng
        self.state = MatchState.empty(rules, 1, num_players)
        start_matches(rules, self.state, np.ones(1, dtype=bool), rng)
        self._refresh()

    def _refresh(self) -> None:
        from dice_env.scorecard.game import must_scratch
        from dice_env.scorecard.match import match_action_mask, mover_options

        legal, points, _ = mover_options(self.rules, self.state)
        #: what the mover's roll would score in each box (0 where not legal)
        self.box_points = points[0]
        #: the mover's legal actions (bool; all False once the game is over)
        self.mask = match_action_mask(self.rules, self.state, True, box_legal=legal)[0]
        #: no legal box scores above zero (the "you must scratch one" warning)
        self.must_scratch = bool(must_scratch(legal, points)[0])

    @property
    def current(self) -> int:
        """The seat to move."""
        return int(self.state.current[0])

    def over(self) -> bool:
        """Every card is full."""
        return bool(self.state.finished()[0])

    def dice(self) -> list[int]:
        """The dice on the table (the mover's roll)."""
        return [int(d) for d in self.state.cards.dice[self.state.mover_rows()[0]]]

    def rolls_left(self) -> int:
        return int(self.state.cards.rolls_left[self.state.mover_rows()[0]])

    def card(self, seat: int) -> dict:
        """Seat ``seat``'s card as a single-player state dict (the dice on the table)."""
        from dice_env.scorecard.match_state import match_state_to_dict

        d = match_state_to_dict(self.rules, self.state)
        return {"dice": d["dice"], "rolls_left": d["rolls_left"], **d["cards"][seat]}

    def filled(self, seat: int) -> int:
        """Boxes filled on seat ``seat``'s card."""
        return int(self.state.filled()[0, seat])

    def breakdowns(self) -> list[dict[str, int]]:
        """Every seat's upper, upper bonus, lower, five-of-a-kind bonus and TOTAL."""
        return self.state.score_breakdowns(self.rules)

    def observation(self) -> np.ndarray:
        """The single-player observation of the mover's card (what bots read)."""
        from dice_env.scorecard.match_observation import card_observation

        seat = np.array([self.current])
        return card_observation(self.rules, self.state, seat, None, self.box_points[None])[0]

    def canonical(self, action: int) -> int:
        """The canonical hold keeping the same dice as ``action`` (a box action as is)."""
        if action >= N_HOLDS:
            return action
        roll = int(self.state.cards.roll[self.state.mover_rows()[0]])
        return D.canonical_hold(roll, action)

    def step(self, action: int) -> int:
        """Play the mover's (legal) action; returns the points it earned, bonuses included."""
        from dice_env.scorecard.match import apply_match_actions

        points, _ = apply_match_actions(self.rules, self.state, np.array([action]), self.rng)
        self._refresh()
        return int(points[0])


@dataclass
class Seat:
    """One player of a scorecard game: a name and, for a bot, the bot."""

    name: str
    bot: Any | None


@dataclass
class AdviceLog:
    """The advisor's verdicts on the human's decisions."""

    lower_is_better: bool = False
    unit: str = "points"
    losses: list[float] = field(default_factory=list)

    @property
    def total(self) -> float:
        """Sum of the costs so far."""
        return float(sum(self.losses))


def _dice_text(dice: Sequence[int]) -> str:
    return "[" + " ".join(str(int(d)) for d in dice) + "]"


def _hold_text(dice: Sequence[int], hold: int) -> str:
    kept = [int(dice[i]) for i in range(D.N_DICE) if hold >> i & 1]
    return f"hold {_dice_text(kept)}" if kept else "reroll all"


def _action_text(rules: Rules, dice: Sequence[int], action: int, points: np.ndarray) -> str:
    if action < N_HOLDS:
        return _hold_text(dice, action)
    k = action - N_HOLDS
    return f"score {rules.labels[k]} ({int(points[k])})"


def render_scorecards(table: ScorecardTable, names: Sequence[str],
                      now: int | None = None) -> str:
    """Every player's scorecard side by side; with ``now`` (the seat to move), a column of
    what that player's current roll would score in each open box (``*`` marks a legal box)."""
    rules = table.rules
    width = max(len(label) for label in rules.labels + ("upper bonus",))
    col = max(7, *(len(name) for name in names))
    states = [table.card(seat) for seat in range(len(names))]
    cards = table.breakdowns()
    head = f"  {'#':>2}  {'box':<{width}}" + "".join(f"  {name:>{col}}" for name in names)
    if now is not None:
        head += "     now"
    lines = [head]
    last_upper = int(np.flatnonzero(rules.tables.is_upper)[-1])
    legal = table.mask[N_HOLDS:] if now is not None else None
    for k, label in enumerate(rules.labels):
        row = f"  {k + 1:>2}  {label:<{width}}"
        for st in states:
            v = st["scores"][k]
            row += f"  {'.' if v is None else str(v):>{col}}"
        if now is not None and states[now]["scores"][k] is None:
            pts = int(table.box_points[k])
            row += f"  {pts:+5d} *" if legal[k] else "      -"
        lines.append(row)
        if k == last_upper:
            lines.append(f"      {'upper total':<{width}}"
                         + "".join(f"  {c['upper']:>{col}}" for c in cards))
            lines.append(f"      {'upper bonus':<{width}}"
                         + "".join(f"  {c['upper_bonus']:>{col}}" for c in cards)
                         + f"   (at {rules.upper_bonus_threshold})")
    if rules.five_kind_bonus:
        name = f"{rules.labels[rules.five_kind_box]} bonus"
        lines.append(f"      {name:<{width}}" + "".join(f"  {c['penta_bonus']:>{col}}"
                                                         for c in cards))
    lines.append(f"      {'TOTAL':<{width}}" + "".join(f"  {c['total']:>{col}}" for c in cards))
    return "\n".join(lines)


def _totals_line(table: ScorecardTable, names: Sequence[str]) -> str:
    return "Totals: " + " | ".join(f"{name} {c['total']}"
                                   for name, c in zip(names, table.breakdowns(), strict=True))


def _dice_lines(dice: Sequence[int]) -> str:
    faces = "".join(f"[{int(d)}] " for d in dice)
    pos = "".join(f" {i + 1}  " for i in range(len(dice)))
    return f"Dice:     {faces.rstrip()}\nPosition: {pos.rstrip()}"


class ScorecardGame:
    """A game of a scorecard preset: the human (seat 0) and the bots in rotation, on one
    :class:`ScorecardTable` (the multi-player match core)."""

    def __init__(self, rules: Rules, term: Terminal, opponents: Sequence[str], seed: int | None,
                 auto_seconds: float, advise: bool) -> None:
        from dice_env.scorecard.match import MAX_PLAYERS

        if len(opponents) > MAX_PLAYERS - 1:
            raise ValueError(f"a scorecard game seats at most {MAX_PLAYERS - 1} bots")
        self.rules = rules
        self.term = term
        self.auto_seconds = float(auto_seconds)
        seq = np.random.SeedSequence(seed)
        dice_seq, *bot_seqs = seq.spawn(len(opponents) + 1)
        self.names = _unique_names(["you", *opponents])
        self.seats = [Seat(self.names[0], None)]
        for name, bot_name, bot_seq in zip(self.names[1:], opponents, bot_seqs, strict=True):
            bot = _make_bot(bot_name, rules.name)
            bot.seed(int(bot_seq.generate_state(1)[0]))
            self.seats.append(Seat(name, bot))
        self.table = ScorecardTable(rules, len(self.seats), np.random.default_rng(dice_seq))
        self.advisor = None
        self.log = AdviceLog()
        if advise:
            from agents.optimal import OptimalAgent

            self.advisor = OptimalAgent(rules)

    def _bot_turn(self, seat: Seat) -> None:
        t = self.table
        me = t.current
        dice = t.dice()
        parts = [f"{seat.name} rolls {_dice_text(dice)}"]
        while True:
            action = int(seat.bot.act(t.observation(), t.mask.astype(np.int8)))
            if not (0 <= action < len(t.mask) and t.mask[action]):
                raise RuntimeError(f"{seat.name} chose the illegal action {action}")
            if action >= N_HOLDS:
                reward = t.step(action)
                parts.append(f"scores {reward} in {self.rules.labels[action - N_HOLDS]} "
                             f"(total {t.breakdowns()[me]['total']})")
                break
            kept = _hold_text(dice, action)
            t.step(action)
            dice = t.dice()
            parts.append(f"{kept} -> {_dice_text(dice)}")
        self.term.say("  . " + "; ".join(parts))

    # -- the human's turn ----------------------------------------------------------------
    def _show(self, round_no: int, roll_no: int) -> None:
        r, t = self.rules, self.table
        self.term.say("")
        self.term.say(f"=== {r.name} - round {round_no} of {r.n_boxes} - your turn, roll "
                      f"{roll_no} of {r.rolls_per_turn} ===")
        self.term.say(render_scorecards(t, self.names, now=0))
        self.term.say(_totals_line(t, self.names))
        self.term.say(_dice_lines(t.dice()))
        self.term.say(f"Rerolls left: {t.rolls_left()}")
        if t.must_scratch:
            self.term.say(MUST_SCRATCH_WARNING)

    def _advice(self) -> dict[int, float] | None:
        if self.advisor is None:
            return None
        st = self.table.card(0)
        values = self.advisor.advise(st, canonical_holds=True)
        self.term.say("Advisor (expected final score of each option, best first):")
        shown = list(values)[:TOP_ADVICE]
        best_box = next((a for a in values if a >= N_HOLDS), None)
        if best_box is not None and best_box not in shown:
            shown.append(best_box)  # always show the best box to score in
        for a in shown:
            text = _action_text(self.rules, st["dice"], a, self.table.box_points)
            self.term.say(f"  {values[a]:8.2f}  {text}")
        if len(values) > len(shown):
            self.term.say(f"  ... and {len(values) - len(shown)} more options")
        return values

    def _judge(self, values: dict[int, float] | None, action: int, dice: Sequence[int],
               points: np.ndarray) -> None:
        if values is None:
            return
        best_action, best = next(iter(values.items()))
        mine = values.get(action, best)
        cost = max(best - mine, 0.0)
        self.log.losses.append(cost)
        self.term.say(f"Advisor: your choice ({_action_text(self.rules, dice, action, points)}) "
                      f"is worth {mine:.2f}; best {best:.2f} "
                      f"({_action_text(self.rules, dice, best_action, points)}); "
                      f"cost of your choice: {cost:.2f}")

    def _read_action(self) -> int:
        """Ask until the player gives a legal action (or the auto-score timer runs out); a
        hold comes back as the canonical hold of the same dice."""
        r, t = self.rules, self.table
        st = t.card(0)
        timed = st["rolls_left"] == 0 and self.auto_seconds > 0
        while True:
            prompt = PROMPT
            if timed:
                prompt = f"your move (auto-score in {self.auto_seconds:g}s)> "
            line = self.term.ask(prompt, self.auto_seconds if timed else None)
            if line is None:
                from agents.scorecard_bots import computer_choice

                box = int(computer_choice(r, st))
                self.term.say(f"No choice within {self.auto_seconds:g}s: the computer's "
                              f"choice, {r.labels[box]}, is scored for you.")
                return N_HOLDS + box
            try:
                cmd = parse_scorecard_command(line, r.labels)
            except InputError as exc:
                self.term.say(str(exc))
                continue
            if cmd.kind == "help":
                self.term.say(SCORECARD_HELP)
                continue
            if cmd.kind == "quit":
                raise QuitGame
            if cmd.kind == "hold":
                if st["rolls_left"] == 0:
                    self.term.say("No rerolls left: score this roll (s BOX).")
                    continue
                action = t.canonical(D.hold_bits(cmd.positions))
            else:
                k = int(cmd.box)
                if st["scores"][k] is not None:
                    self.term.say(f"{r.labels[k]} is already filled ({st['scores'][k]}); "
                                  "choose an open box.")
                    continue
                action = N_HOLDS + k
            if not t.mask[action]:
                boxes = [r.labels[k] for k in np.flatnonzero(t.mask[N_HOLDS:])]
                self.term.say(f"Not allowed here (the Joker rule); legal boxes: "
                              f"{', '.join(boxes)}.")
                continue
            return action

    def _human_turn(self) -> None:
        r, t = self.rules, self.table
        round_no, roll_no = t.filled(0) + 1, 1
        while True:
            self._show(round_no, roll_no)
            values = self._advice()
            self.term.say("Hold dice and reroll (h 1 3 4), r reroll all, s BOX score, "
                          "? help, q quit.")
            dice = t.dice()
            points = t.box_points.copy()
            action = self._read_action()
            self._judge(values, action, dice, points)
            reward = t.step(action)
            if action >= N_HOLDS:
                self.term.say(f"You score {reward} in {r.labels[action - N_HOLDS]} "
                              f"(total {t.breakdowns()[0]['total']}).")
                return
            self.term.say(f"You {_hold_text(dice, action)} and roll {_dice_text(t.dice())}.")
            roll_no += 1

    def play(self) -> int:
        """Play the whole game; returns the exit status."""
        r, t = self.rules, self.table
        if self.advisor is not None:
            self.term.say(f"Advisor on: the optimal player's expected final score from a new "
                          f"game is {self.advisor.expected_score:.2f}.")
        try:
            while not t.over():
                seat = self.seats[t.current]
                if seat.bot is None:
                    self._human_turn()
                else:
                    self._bot_turn(seat)
        except QuitGame:
            self.term.say("You quit the game.")
            self.term.say(_totals_line(t, self.names))
            return 0
        self.term.say("")
        self.term.say(f"=== {r.name} - game over ===")
        self.term.say(render_scorecards(t, self.names))
        self.term.say(_totals_line(t, self.names))
        totals = [c["total"] for c in t.breakdowns()]
        self.term.say(f"Final total: {totals[0]}")
        if len(self.seats) > 1:
            best = max(totals)
            winners = [name for name, total in zip(self.names, totals) if total == best]
            self.term.say(("Winner: " if len(winners) == 1 else "Tie: ") + ", ".join(winners))
        if self.advisor is not None:
            self.term.say(f"Total expected loss of your game: {self.log.total:.2f} points "
                          f"over {len(self.log.losses)} decisions (optimal play expects "
                          f"{self.advisor.expected_score:.2f} from the start).")
        return 0


# ------------------------------------------------------------------------------------------
# 5000
# ------------------------------------------------------------------------------------------
class FiveThousandGame:
    """A game of 5000: the human at seat 0 against the bots (alone: the solo env)."""

    def __init__(self, term: Terminal, opponents: Sequence[str], seed: int | None,
                 advise: bool) -> None:
        from dice_env.fivethousand.env import FiveThousandEnv
        from dice_env.fivethousand.solo import FiveThousandSoloEnv

        self.term = term
        self.seed = seed
        if opponents:
            bots = [_make_bot(name, "fivethousand") for name in opponents]
            self.env = FiveThousandEnv(num_players=1 + len(bots), agent_seat=0, opponents=bots)
        else:
            self.env = FiveThousandSoloEnv()
        self.rules = self.env.rules
        self.names = _unique_names(["you", *opponents])
        self.solo = not opponents
        self.log = AdviceLog(lower_is_better=self.solo,
                             unit="turns" if self.solo else "percentage points of win chance")
        self.advisor = None
        self.advise = advise
        if advise:
            self.advisor = _load_fivethousand_optimal()

    def _show(self, state: dict, events: list[dict]) -> None:
        from dice_env.fivethousand.render import render_game
        from dice_env.fivethousand.state import state_from_dict

        st, _ = state_from_dict(self.rules, state, len(self.names))
        self.term.say("")
        self.term.say(render_game(self.rules, st, names=self.names, events=events).rstrip())

    def _advice(self, state: dict) -> dict[int, float] | None:
        if self.advisor is None:
            return None
        values = self.advisor.advise(state)
        if self.solo:
            self.term.say("Advisor (expected turns still to play, fewest first):")
            for a, v in values.items():
                self.term.say(f"  {v:8.2f}  {'bank' if a == 1 else 'roll on'}")
        else:
            guide = "" if len(self.names) == 2 else " (a two-player guide vs the leader)"
            self.term.say(f"Advisor (your win probability after each option{guide}):")
            for a, v in values.items():
                self.term.say(f"  {100 * v:7.2f}%  {'bank' if a == 1 else 'roll on'}")
        return values

    def _judge(self, values: dict[int, float] | None, action: int) -> None:
        if values is None:
            return
        best_action, best = next(iter(values.items()))
        mine = values.get(action, best)
        if self.solo:
            cost = max(mine - best, 0.0)
            self.term.say(f"Advisor: cost of your choice: {cost:.2f} turns")
        else:
            cost = max(best - mine, 0.0) * 100
            self.term.say(f"Advisor: cost of your choice: {cost:.2f} percentage points")
        self.log.losses.append(cost)

    def _read_action(self, mask: np.ndarray, state: dict) -> int:
        from dice_env.fivethousand import rules as R

        while True:
            line = self.term.ask("roll on or bank [r/b]> ")
            try:
                cmd = parse_fivethousand_command(line or "")
            except InputError as exc:
                self.term.say(str(exc))
                continue
            if cmd.kind == "help":
                self.term.say(FIVE_THOUSAND_HELP)
                continue
            if cmd.kind == "quit":
                raise QuitGame
            action = 1 if cmd.kind == "bank" else 0
            if not mask[action]:
                total = state["turn_total"] + int(
                    R.ROLL_POINTS[int(R.roll_index_of(R.pad_dice(state["dice"])))])
                why = R.bank_refusal(self.rules, state["scores"][0], total) or "not allowed"
                self.term.say(f"You cannot bank now: {why}. Type r to roll on.")
                continue
            return action

    def _final(self, info: dict) -> None:
        self.term.say("")
        self.term.say("=== 5000 - game over ===")
        for line in info.get("events", []):
            from dice_env.fivethousand.render import describe_event

            self.term.say("  . " + describe_event(line, self.names))
        scores = info.get("scores", [])
        self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
        winner = info.get("winner")
        if self.solo:
            done = scores and scores[0] == self.rules.target
            self.term.say(f"You reached {self.rules.target} in {info.get('turns')} turns." if done
                          else "Out of turns.")
        elif winner is not None and winner >= 0:
            self.term.say(f"Winner: {self.names[int(winner)]}")
        if self.advise:
            if self.advisor is None:
                return
            self.term.say(f"Total expected loss of your game: {self.log.total:.2f} "
                          f"{self.log.unit} over {len(self.log.losses)} decisions.")

    def play(self) -> int:
        """Play the whole game; returns the exit status."""
        if self.advise and self.advisor is None:
            self.term.say("No optimal 5000 advisor is available in this installation: no "
                          "advice will be shown.")
        obs, info = self.env.reset(seed=self.seed)
        done = False
        try:
            while not done:
                state = self.env.get_state()
                self._show(state, info.get("events", []))
                values = self._advice(state)
                mask = info["action_mask"].astype(bool)
                action = self._read_action(mask, state)
                self._judge(values, action)
                obs, _, terminated, truncated, info = self.env.step(action)
                done = terminated or truncated
        except QuitGame:
            self.term.say("You quit the game.")
            scores = self.env.get_state()["scores"]
            self.term.say("Scores: " + " | ".join(f"{n} {s}" for n, s in zip(self.names, scores)))
            return 0
        self._final(info)
        return 0


# ------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dice-play",
        description="Play Penta, Dice Poker or 5000 in the terminal, alone or against bots.",
        epilog="Scorecard bots: random, greedy, heuristic, optimal. 5000 bots: random, "
               "threshold, heuristic (and optimal when installed). Type ? in the game for "
               "the commands. The full rules: docs/rules.md in the dice-env repository.")
    p.add_argument("game", help="penta, dice-poker (or another scorecard preset: "
                   f"{', '.join(sorted(PRESETS))}) or 5000")
    p.add_argument("--opponents", default="", metavar="NAMES",
                   help="comma-separated bots to play against, e.g. heuristic,optimal "
                        "(default: play alone)")
    p.add_argument("--advise", action="store_true",
                   help="show the optimal player's value of each option and the cost of "
                        "your choices")
    p.add_argument("--auto-seconds", type=float, default=3.0, metavar="S",
                   help="after the last roll, score the computer's choice if you have not "
                        "started typing within S seconds (0 disables; default 3; scorecard "
                        "games)")
    p.add_argument("--seed", type=int, default=None, help="seed for a reproducible game")
    return p


def _resolve_game(name: str) -> str:
    low = name.lower()
    if low in FIVE_THOUSAND_NAMES:
        return "fivethousand"
    low = GAME_ALIASES.get(low, low)
    if low in PRESETS:
        return low
    raise ValueError(f"unknown game {name!r}; choose penta, dice-poker, 5000 or a preset "
                     f"({', '.join(sorted(PRESETS))})")


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None) -> int:
    """Run the interactive player; returns the exit status (0 also after ``q``, 2 for bad
    options, 130 after Ctrl-C)."""
    parser = _parser()
    args = parser.parse_args(argv)
    term = Terminal(stdin or sys.stdin, stdout or sys.stdout)
    opponents = [o.strip().lower() for o in args.opponents.split(",") if o.strip()]
    if args.auto_seconds < 0:
        parser.error("--auto-seconds must be 0 (off) or more")
    try:
        game = _resolve_game(args.game)
        if game == "fivethousand":
            if len(opponents) > 7:
                raise ValueError("5000 seats at most 7 bots")
            session: ScorecardGame | FiveThousandGame = FiveThousandGame(
                term, opponents, args.seed, args.advise)
        else:
            session = ScorecardGame(get_rules(game), term, opponents, args.seed,
                                    args.auto_seconds, args.advise)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        return session.play()
    except EOFError:
        term.say("\nEnd of input: game abandoned.")
        return 0
    except KeyboardInterrupt:
        term.say("\nInterrupted.")
        return 130
    except BrokenPipeError:  # the output was closed (e.g. piped into head): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
