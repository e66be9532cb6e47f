"""The one argument parser of every command line: ``dice-env``, ``dice-play`` and ``dice-web``.

:class:`OneLineParser` is argparse with one-line errors (exit status 2) and an optional example
after the help.  Every number a command line takes has a checked ``type`` from here, with both
of its bounds: argparse prefixes the type's message with ``argument --NAME:``, so a bad value is
one line naming the argument and the range it must lie in, never a traceback from deep inside a
solver (``--threads 99999``), numpy (``--games 100000000000000000000``) or a C conversion
(``--seed 99999999999999999999999``).

* :func:`seed` -- 0 to :data:`SEED_MAX` (``2**32 - 1``, the range every random generator the
  games, numpy, torch and Ray use accepts, with room for the per-game offsets added to it);
* :func:`games` -- 1 (or a given minimum) to :data:`GAMES_MAX`;
* :func:`threads` -- 1 to this machine's cores (:func:`max_threads`: numba refuses more);
* :func:`at_least` / :func:`between` -- any other count, at most :data:`COUNT_MAX` unless said;
* :func:`seconds` -- up to :data:`SECONDS_MAX`; :func:`positive_float`, :func:`port`.

This module sits in the bottom layer of ``agents`` so that the front ends of ``agents.play``
use it as ``agents.cli`` does (``agents.cli.args`` re-exports it).
"""

from __future__ import annotations

import argparse
import math
import os
import textwrap
from collections.abc import Callable

__all__ = ["COUNT_MAX", "GAMES_MAX", "SECONDS_MAX", "SEED_MAX", "WORKERS_MAX", "OneLineParser",
           "ProseFormatter", "at_least", "between", "games", "max_threads", "port",
           "positive_float", "seconds", "seed", "threads", "workers"]

#: the largest seed: ``2**32 - 1``
SEED_MAX = 2**32 - 1
#: the most games (or matches, or sets of games) one run may ask for: 10 million, a hundred times
#: the largest documented run, and arrays of that length still fit in memory
GAMES_MAX = 10_000_000
#: the most worker processes (or jobs, or CPUs handed to Ray) a command may ask for
WORKERS_MAX = 1024
#: the bound of every other count (steps, states, iterations, ...): 10**12
COUNT_MAX = 10**12
#: the longest time a command waits or keeps something: 10**7 seconds (about 116 days)
SECONDS_MAX = 10**7


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (``PROG: error: MESSAGE``, exit status 2); ``example``,
    when given, is printed after the help, each line as written."""

    def __init__(self, *args, example: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.example = example

    def error(self, message: str):  # type: ignore[override]
        """Exit with status 2 and ``PROG: error: MESSAGE`` on one line."""
        self.exit(2, f"{self.prog}: error: {message}\n")

    def format_help(self) -> str:
        """argparse's help, then the example."""
        text = super().format_help()
        return text + self.example if self.example else text


class ProseFormatter(argparse.HelpFormatter):
    """Wraps the description and epilog as prose, without breaking a hyphenated name
    (``win-value``) at its hyphen."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)


def _shown(text: str) -> str:
    """``text`` as quoted in a message, cut to 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def between(low: int, high: int, what: str = "an integer",
            note: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer from ``low`` to ``high``; its messages name both bounds
    (``note``, when given, follows them: ``from 1 to 2, the cores of this machine``)."""
    bounds = f"from {low} to {high}{note}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} {bounds}, got "
                                             f"{_shown(text)}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value} ({bounds})")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high}, got {_shown(text)[1:-1]} "
                                             f"({bounds})")
        return value

    parse.__name__ = f"integer from {low} to {high}"
    return parse


def at_least(minimum: int, maximum: int = COUNT_MAX) -> Callable[[str], int]:
    """An argparse ``type``: an integer no smaller than ``minimum`` (and at most ``maximum``,
    by default :data:`COUNT_MAX`)."""
    return between(minimum, maximum)


def seed(text: str) -> int:
    """An argparse ``type``: a seed, 0 to :data:`SEED_MAX`."""
    return between(0, SEED_MAX, "a seed")(text)


def games(minimum: int = 1) -> Callable[[str], int]:
    """An argparse ``type``: a number of games, ``minimum`` to :data:`GAMES_MAX`."""
    return between(minimum, GAMES_MAX, "a number of games")


def max_threads() -> int:
    """The most threads a command may use: this machine's cores (or ``NUMBA_NUM_THREADS``,
    numba's own bound, when set)."""
    configured = os.environ.get("NUMBA_NUM_THREADS", "")
    return int(configured) if configured.isdigit() and int(configured) > 0 \
        else os.cpu_count() or 1


def threads(text: str) -> int:
    """An argparse ``type``: a number of threads, 1 to :func:`max_threads`."""
    return between(1, max_threads(), "a number of threads",
                   ", the cores of this machine")(text)


def workers(minimum: int = 1) -> Callable[[str], int]:
    """An argparse ``type``: a number of worker processes (jobs, CPUs), ``minimum`` to
    :data:`WORKERS_MAX`."""
    return between(minimum, WORKERS_MAX)


def port(text: str) -> int:
    """An argparse ``type``: a TCP port, 0 (any free port) to 65535."""
    return between(0, 65535, "a port number")(text)


def positive_float(text: str) -> float:
    """An argparse ``type``: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {_shown(text)}") from None
    if not 0 < value < math.inf:
        finite = " and finite" if value > 0 else ""
        raise argparse.ArgumentTypeError(f"must be positive{finite}, got {text}")
    return value


def seconds(minimum: float = 0.0, off: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a number of seconds from ``minimum`` to :data:`SECONDS_MAX`
    (``off``: 0 turns the feature off, which the message says)."""
    floor = "0 (off) or more" if off else f"at least {minimum:g}"
    bounds = f"from {minimum:g}{' (off)' if off else ''} to {SECONDS_MAX}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got "
                                             f"{_shown(text)}") from None
        if not minimum <= value:  # (nan too)
            raise argparse.ArgumentTypeError(f"must be {floor}, got {text} ({bounds})")
        if value > SECONDS_MAX:
            raise argparse.ArgumentTypeError(f"must be at most {SECONDS_MAX}, got {text} "
                                             f"({bounds})")
        return value

    parse.__name__ = "a number of seconds"
    return parse
