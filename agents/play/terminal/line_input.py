"""Reading a line from the terminal, with a timeout that typing stops.

:class:`LineReader` reads a player's line; with a timeout (the auto-score timer after the last
roll) a half-typed line is never overruled, and keys typed before the prompt appeared are
discarded so they never answer it.  On a terminal that needs keystroke-at-a-time input, so the
timed prompt does its own echo and line editing (Backspace, Ctrl-U, Ctrl-W, Ctrl-D) and restores
the terminal's settings afterwards (also on Ctrl-Z, SIGTERM and SIGHUP).  From a pipe or a file
(a script of moves) nothing is discarded: the lines read ahead are the script's next moves.
:class:`Terminal` is the program's screen: ``say`` a line, ``ask`` for one."""

from __future__ import annotations

import codecs
import os
import select
import signal
import time
import unicodedata
from collections.abc import Callable
from typing import Any, TextIO

try:
    import termios
except ImportError:  # not POSIX: no terminal modes; timed reads fall back to select()
    termios = None  # type: ignore[assignment]



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
        #: read end of the signals' wakeup pipe (None outside the main thread): a wait on the
        #: terminal also waits on it, so that a signal arriving just before the wait begins
        #: still ends the wait and its handler runs (a SIGTERM right after a Ctrl-Z and fg
        #: was otherwise lost in the blocked select until a key was typed)
        self.wakeup: int | None = None
        self._wakeup_write: int | None = None
        self._old_wakeup = -1

    def __enter__(self) -> _KeystrokeMode:
        for sig in _RESTORE_ON:
            try:
                if signal.getsignal(sig) == signal.SIG_DFL:
                    self._previous[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not the main thread: no handlers
                break
        if self._previous:
            read, write = os.pipe()
            os.set_blocking(read, False)
            os.set_blocking(write, False)
            try:
                self._old_wakeup = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
                self.wakeup, self._wakeup_write = read, write
            except ValueError:
                os.close(read)
                os.close(write)
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
        if self.wakeup is not None:
            signal.set_wakeup_fd(self._old_wakeup)
            os.close(self.wakeup)
            os.close(self._wakeup_write)
            self.wakeup = self._wakeup_write = None

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

    def _wait(self, seconds: float | None, wakeup: int | None = None) -> bool:
        """Whether input is ready within ``seconds`` (``None``: wait as long as it takes).
        A byte on ``wakeup`` (a signal's, see :class:`_KeystrokeMode`) is read and the wait
        goes on, its signal handled in between."""
        deadline = None if seconds is None else time.monotonic() + max(seconds, 0.0)
        fds = [self.fd] if wakeup is None else [self.fd, wakeup]
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                ready, _, _ = select.select(fds, [], [], left)
            except (OSError, ValueError):  # no select on this kind of file: let the read block
                return True
            if self.fd in ready:
                return True
            if not ready:
                return False
            try:
                os.read(wakeup, 512)
            except BlockingIOError:
                pass

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
                    if not self._wait(None if editor.chars else deadline - time.monotonic(),
                                      mode.wakeup):
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
