"""Argument helpers shared by the ``dice-env`` subcommands: checked numbers and where results go.

Every subcommand refuses a bad argument with argparse's one-line message and exit status 2, and
only its documented full run writes the committed ``results/`` by default
(:func:`output_folder`): a smaller or otherwise changed run goes to ``runs/<command>/``.  Paths
are relative to the working directory.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def command_parser(doc: str, prog: str | None = None, **kwargs) -> OneLineParser:
    """The parser of a subcommand whose module docstring is ``doc``: its first paragraph is the
    description and the rest (which ends with an example) the epilog, shown as written."""
    head, _, rest = doc.strip().partition("\n\n")
    return OneLineParser(prog=prog, description=head,
                         epilog=rest or None,
                         formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


def non_negative_seed(text: str) -> int:
    """An argparse ``type``: a seed (an integer, 0 or more)."""
    return at_least(0)(text)


def hidden_widths(text: str) -> tuple[int, ...]:
    """An argparse ``type``: hidden layer widths such as ``64,64``."""
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected widths such as 64,64, got {text!r}") from None
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"widths must be positive, got {text!r}")
    return widths


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer no smaller than ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def positive_float(text: str) -> float:
    """An argparse ``type``: a number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def output_folder(parser: argparse.ArgumentParser, args: argparse.Namespace,
                  adhoc: Path, documented: Path = Path("results"), option: str = "out",
                  expected: dict | None = None, ignore: tuple[str, ...] = ()) -> Path:
    """Where a run writes: ``args.<option>`` if given; ``documented`` when the run is the
    documented full run (every argument at its default, or at its value in ``expected``;
    those in ``ignore`` -- progress bars, threads, caches -- do not change the results); else
    ``adhoc``, said on stderr."""
    given = getattr(args, option)
    if given is not None:
        return Path(given)
    expected = expected or {}
    changed = sorted(k for k, v in vars(args).items()
                     if k != option and k not in ignore
                     and expected.get(k, parser.get_default(k)) != v)
    if not changed:
        return documented
    print(f"not the documented full run (changed: {', '.join(changed)}): writing {adhoc}/ "
          f"instead of {documented}/ (pass --{option.replace('_', '-')} to choose)",
          file=sys.stderr)
    return adhoc
