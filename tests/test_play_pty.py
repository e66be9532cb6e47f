"""The terminal player's timed prompt on a real pseudo-terminal (issue 14, item 1).

At the last roll the computer's choice is scored if the player types nothing within
``--auto-seconds``.  The bug: on a terminal in canonical mode a half-typed line (``s 3`` without
Enter) is invisible to the timer, so the computer's choice was scored, and the Enter pressed
afterwards sent ``s 3`` to the next prompt -- two moves nobody made.  These tests drive the
program through ``os.openpty`` (standard library only) and check that typing stops the timer,
that the line is played at the prompt where it was typed, that keys typed before a prompt never
answer it, and that the terminal's settings come back.
"""

from __future__ import annotations

import codecs
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import need

termios = need("termios", "a POSIX system")

from agents.play.terminal.line_input import LineReader  # noqa: E402

PROMPT = "your move> "
TIMED_PROMPT = r"your move \(auto-score in 1s\)> "
ENTER = "\r"  # what a terminal sends; the tty's ICRNL turns it into a newline
BACKSPACE = "\x7f"


def _canonical(fd: int) -> bool:
    """Whether the terminal ``fd`` is in its normal line mode (canonical, with echo)."""
    lflag = termios.tcgetattr(fd)[3]
    return bool(lflag & termios.ICANON) and bool(lflag & termios.ECHO)


def _as_a_shell_starts_it() -> None:
    """In the child before it runs the program: no blocked signals, the job-control signals
    at their defaults, as a shell starts a program, whatever the test worker's earlier tests
    left behind (an ignored or blocked SIGINT is kept across exec, and Python then never
    raises KeyboardInterrupt)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGTSTP, signal.SIGCONT):
        signal.signal(sig, signal.SIG_DFL)


class PtyGame:
    """``python -m dice_env.play ARGS`` with a pseudo-terminal as its stdin, stdout and stderr."""

    def __init__(self, *args: str) -> None:
        self.master, self.slave = os.openpty()
        # its own process group, whose parent (this process) is in the same session: never an
        # orphaned group, where the kernel discards Ctrl-Z (pytest started in the background)
        self.proc = subprocess.Popen([sys.executable, "-m", "dice_env.play", *args],
                                     stdin=self.slave, stdout=self.slave, stderr=self.slave,
                                     close_fds=True, process_group=0,
                                     preexec_fn=_as_a_shell_starts_it)
        self.text = ""  # everything the program has written (and the terminal echoed)
        self.pos = 0  # where the next expect() starts looking
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def _read(self, seconds: float) -> bool:
        """Append what the program writes within ``seconds``; ``False`` once it has exited."""
        ready, _, _ = select.select([self.master], [], [], max(seconds, 0.0))
        if not ready:
            return True
        try:
            data = os.read(self.master, 4096)
        except OSError:  # EIO: the program has exited and closed its end
            return False
        self.text += self._decoder.decode(data)
        return bool(data)

    def expect(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """Wait for ``pattern`` in the output after the last match; returns the match."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.compile(pattern).search(self.text, self.pos)
            if match:
                self.pos = match.end()
                return match
            if time.monotonic() > deadline or not self._read(deadline - time.monotonic()):
                raise AssertionError(f"{pattern!r} not seen; the output after the last "
                                     f"match:\n{self.text[self.pos:]}")

    def output_for(self, seconds: float) -> str:
        """Everything the program writes in the next ``seconds`` (consumed)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self._read(deadline - time.monotonic()):
            pass
        new, self.pos = self.text[self.pos:], len(self.text)
        return new

    def type(self, keys: str) -> None:
        """Type ``keys`` at the terminal (nothing is added: send ENTER for Enter)."""
        os.write(self.master, keys.encode("utf-8"))

    def wait(self, timeout: float = 10.0) -> int:
        """The exit status, once the program has exited (reading its last output)."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(0.05)
        return self.proc.wait(max(deadline - time.monotonic(), 0.1))

    def close(self) -> None:
        """Kill the program if it still runs and close the terminal."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def game():
    """Start games with :func:`PtyGame`; each is closed at the end of the test."""
    started: list[PtyGame] = []

    def start(*args: str) -> PtyGame:
        started.append(PtyGame(*args))
        return started[-1]

    yield start
    for g in started:
        g.close()


def _to_last_roll(g: PtyGame) -> None:
    """From a turn's first prompt, reroll twice to the timed prompt of the last roll."""
    for _ in range(2):
        g.expect(PROMPT)
        g.type("r" + ENTER)
    g.expect(TIMED_PROMPT)


# -- the sequence, whole program ------------------------------------------------------
def test_half_typed_line_is_not_overruled_and_is_played_at_its_own_prompt(game) -> None:
    g = game("penta", "--seed", "3", "--auto-seconds", "1")
    _to_last_roll(g)
    g.type("s 3")  # no Enter
    waited = g.output_for(2.0)  # well past the 1 s timer
    assert "s 3" in waited  # echoed while typed
    assert "scored for you" not in waited and "You score" not in waited
    assert not _canonical(g.slave)  # keystroke mode while the line is typed

    g.type(ENTER)
    scored = g.expect(r"You score \d+ in (\w+)")
    assert scored.group(1) == "Threes"  # what was typed, at the last roll of round 1
    before = g.text[:scored.start()]
    assert "round 2" not in before and "scored for you" not in before
    g.expect(r"round 2 of 13 - your turn, roll 1 of 3")
    g.expect(PROMPT)
    assert _canonical(g.slave)  # restored after the timed prompt
    assert "You " not in g.output_for(0.5)  # and nothing is played on its own

    # Keys typed ahead of a prompt never answer it: "s 1" arrives before the roll-2 prompt.
    g.type("r" + ENTER + "s 1" + ENTER)
    g.expect(r"You reroll all and roll")
    g.expect(r"roll 2 of 3")
    g.expect(PROMPT)
    assert "You score" not in g.output_for(1.0)
    # Nor the timed one: "s 2" typed ahead of the last roll's prompt is dropped, and with
    # nothing typed at that prompt the computer's choice is scored (not Twos by typing).
    g.type("r" + ENTER + "s 2" + ENTER)
    g.expect(TIMED_PROMPT)
    auto = g.expect(r"No choice within 1s: the computer's choice, (.+), is scored for you\.")
    g.expect(r"round 3 of 13")
    g.expect(PROMPT)
    g.type("q" + ENTER)
    g.expect("You quit the game.")
    assert g.wait() == 0
    # Two moves in all: Threes as typed, then the computer's choice for a silent prompt.
    assert re.findall(r"You score \d+ in (.+?) \(total", g.text) == ["Threes", auto.group(1)]
    assert _canonical(g.slave)


def test_erasing_the_line_restarts_the_timer_and_signals_restore_the_terminal(game) -> None:
    g = game("penta", "--seed", "4", "--auto-seconds", "1")
    _to_last_roll(g)
    g.type("s 3")
    assert "scored for you" not in g.output_for(1.5)
    started = time.monotonic()
    g.type(BACKSPACE * 3)  # the line is empty again: the full second starts again
    auto = g.expect(r"No choice within 1s: the computer's choice, (.+), is scored for you\.")
    assert time.monotonic() - started > 0.8
    g.expect(rf"You score \d+ in {re.escape(auto.group(1))}")
    g.expect(r"round 2 of 13")

    _to_last_roll(g)
    g.type("s")
    g.output_for(0.3)
    assert not _canonical(g.slave)
    g.proc.send_signal(signal.SIGINT)  # Ctrl-C in the middle of a line
    g.expect("Interrupted.")
    assert g.wait() == 130
    assert _canonical(g.slave)


def _until(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def _state(pid: int) -> str:
    """The process's state letter from ``/proc`` (``T``: stopped), or ``?`` without one."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc (Linux)")
def test_ctrl_z_and_sigterm_during_a_timed_prompt_restore_the_terminal(game) -> None:
    g = game("penta", "--seed", "5", "--auto-seconds", "1")
    _to_last_roll(g)
    g.type("s 1")
    g.output_for(0.3)
    assert not _canonical(g.slave)
    g.proc.send_signal(signal.SIGTSTP)  # Ctrl-Z: the shell gets its terminal back as it was
    # as a shell does, continue it only once it has stopped (not when the terminal is
    # restored, a moment before it stops: a SIGCONT then would come before the stop)
    assert _until(lambda: _state(g.proc.pid) == "T", 30)
    assert _canonical(g.slave)
    g.proc.send_signal(signal.SIGCONT)  # fg: keystroke mode again, the line redrawn
    g.expect(TIMED_PROMPT + "s 1")
    assert _until(lambda: not _canonical(g.slave))
    g.proc.send_signal(signal.SIGTERM)
    status = g.wait(30)  # a loaded 2-core CI machine can take seconds
    assert status == -signal.SIGTERM, f"state {_state(g.proc.pid)}, status {status}"
    assert _canonical(g.slave)


# -- the reader itself, in this process ------------------------------------------------------
@pytest.fixture
def tty():
    """A pseudo-terminal: (a LineReader on its slave end, the master fd to type on)."""
    master, slave = os.openpty()
    stream = os.fdopen(slave, "r", closefd=True)
    try:
        yield LineReader(stream), master
    finally:
        stream.close()
        os.close(master)


def _type_later(master: int, *steps: tuple[float, str]) -> threading.Thread:
    def run() -> None:
        for delay, keys in steps:
            time.sleep(delay)
            os.write(master, keys.encode("utf-8"))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_reader_timer_stops_while_typing(tty) -> None:
    reader, master = tty
    assert reader.is_tty
    assert reader.readline(0.1) is None  # nothing typed: a timeout, terminal restored
    assert _canonical(reader.fd)
    thread = _type_later(master, (0.05, "s 3"), (0.5, ENTER))
    assert reader.readline(0.2) == "s 3"  # the Enter came long after the 0.2 s
    thread.join()
    assert _canonical(reader.fd)


@pytest.mark.parametrize("keys, line", [
    ("s 1" + BACKSPACE + "2", "s 2"),
    ("s 1\b\b\b" + "s 4", "s 4"),
    ("junk\x15s 5", "s 5"),  # Ctrl-U
    ("s thr four\x17fi", "s thr fi"),  # Ctrl-W
    ("\x1b[A\x1b[Ds\x1bOB 6", "s 6"),  # arrow keys are ignored
    ("s carré", "s carré"),
])
def test_reader_line_editing(tty, keys: str, line: str) -> None:
    reader, master = tty
    thread = _type_later(master, (0.05, keys + ENTER))
    assert reader.readline(2.0) == line
    thread.join()


def test_reader_discards_typeahead_and_ctrl_d_is_end_of_input(tty) -> None:
    reader, master = tty
    os.write(master, b"s 3\r")
    time.sleep(0.05)
    reader.discard_typeahead()
    assert reader.readline(0.2) is None
    thread = _type_later(master, (0.05, "\x04"))  # Ctrl-D, typed at the prompt
    with pytest.raises(EOFError):
        reader.readline(1.0)
    thread.join()
    assert _canonical(reader.fd)
