"""Argument helpers shared by the ``dice-env`` subcommands: checked numbers and where results go.

Every subcommand refuses a bad argument with argparse's one-line message and exit status 2:
each number has a checked ``type`` with both its bounds (:func:`seed`, :func:`games`,
:func:`threads`, :func:`at_least`, :func:`between`, :func:`positive_float`, ...: the one set of
types of :mod:`agents.arguments`, which ``dice-play`` and ``dice-web`` use too) whose error
argparse prefixes with ``argument --NAME:``, and each path a command writes
has :func:`output_path` or :func:`output_file`, which check at parse time that it can be
written.  Nothing is created for a run its arguments reject: the folders an output needs are
made once the command has checked everything, by :func:`make_output_folders`, which says so on
stderr (``created folder X for --out``).  Only a command's documented full run writes the
committed ``results/`` by default (:func:`output_folder`): a smaller or otherwise changed run
goes to ``runs/<command>/``.  Paths are relative to the working directory.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agents.arguments import (  # noqa: F401 -- the argument types every subcommand uses
    COUNT_MAX,
    GAMES_MAX,
    SEED_MAX,
    OneLineParser,
    at_least,
    between,
    games,
    max_threads,
    positive_float,
    seconds,
    seed,
    threads,
    workers,
)


def command_parser(doc: str, prog: str | None = None, **kwargs) -> OneLineParser:
    """The parser of a subcommand whose module docstring is ``doc``: its first paragraph is the
    description and the rest (which ends with an example) the epilog, shown as written."""
    head, _, rest = doc.strip().partition("\n\n")
    return OneLineParser(prog=prog, description=head,
                         epilog=rest or None,
                         formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


#: an argparse ``type``: a seed, 0 to 2**32 - 1 (:func:`agents.arguments.seed`)
non_negative_seed = seed


def hidden_widths(text: str) -> tuple[int, ...]:
    """An argparse ``type``: hidden layer widths such as ``64,64`` (each 1 to 65536)."""
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected widths such as 64,64, got {text!r}") from None
    if not widths or min(widths) < 1 or max(widths) > 65536:
        raise argparse.ArgumentTypeError(f"widths must be from 1 to 65536, got {text!r}")
    return widths


def output_path(text: str) -> Path:
    """An argparse ``type``: a folder the command will write into, made (with any missing
    parents) by :func:`make_output_folders`.  Refused at once when it cannot be: a file stands
    where a folder must go, or the nearest existing folder is not writable."""
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("expected a path, got ''")
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file, not a folder")
    _check_writable(path, path)
    return path


def output_file(text: str) -> Path:
    """An argparse ``type``: a file the command will write (its folder made, with any missing
    parents, by :func:`make_output_folders`); refused at once when it is a folder or cannot be
    written (see :func:`output_path`)."""
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got ''")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder; name the file to write")
    _check_writable(path.parent, path)
    return path


def model_export(text: str) -> Path | str:
    """An argparse ``type``: where a trained model is exported -- ``default`` (the user's models
    folder, see the command) or a file (:func:`output_file`)."""
    return text if text == "default" else output_file(text)


def _check_writable(folder: Path, path: Path) -> None:
    """``ArgumentTypeError`` unless ``folder`` is, or can be made as, a writable folder."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {path}: {existing} is a file, not a "
                                         "folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write {path}: no permission to write in "
                                         f"{existing}")


#: the argparse types of the paths a command writes
OUTPUT_TYPES = (output_path, output_file, model_export)


def recipe_run_options(parser: argparse.ArgumentParser, noun: str, eval_games: int,
                       run_root: Path) -> None:
    """The options of a command that trains runs of a PPO recipe and measures each finished
    one by its exact gap (``ppo-recipe-seeds``: the seeds, ``recipe-variants``: the
    variants, ``noun``): ``--eval-games``, ``--no-train``, ``--max-minutes``, ``--threads``
    and ``--run-root`` (default ``run_root``)."""
    parser.add_argument("--eval-games", type=games(2), default=eval_games,
                        help="games of the regret evaluation (default %(default)s; 5000: twice)")
    parser.add_argument("--no-train", action="store_true",
                        help=f"only measure the {noun} whose recipe has finished")
    parser.add_argument("--max-minutes", type=positive_float, default=None,
                        help="stop training after this long, with a checkpoint (the same "
                             "command resumes)")
    parser.add_argument("--threads", type=threads, default=1,
                        help="torch threads of the training and the measurements (default 1)")
    parser.add_argument("--run-root", type=output_path, default=run_root,
                        help=f"the {noun}' run folders (default %(default)s)")


def make_output_folders(parser: argparse.ArgumentParser, args: argparse.Namespace,
                        missing: list[tuple[str, Path]] | None = None) -> None:
    """Make the folders the command's output paths need (the folder of an
    :func:`output_path`, the parent of an :func:`output_file`) and say so on stderr, once the
    command has checked its arguments: a rejected run creates nothing.  ``missing``: what
    :func:`missing_folders` said earlier (for a folder something else has made since)."""
    for option, folder in missing_folders(parser, args) if missing is None else missing:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            parser.error(f"argument {option}: cannot create folder {folder}: "
                         f"{err.strerror or err}")
        print(f"{parser.prog}: created folder {folder} for {option}", file=sys.stderr)


def missing_folders(parser: argparse.ArgumentParser,
                    args: argparse.Namespace) -> list[tuple[str, Path]]:
    """``(option, folder)`` for each folder an output path given on the command line needs
    that does not exist yet (see :func:`make_output_folders`)."""
    missing: list[tuple[str, Path]] = []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        if action.type not in OUTPUT_TYPES or not isinstance(value, Path):
            continue
        folder = value if action.type is output_path else value.parent
        if not folder.exists() and folder not in (f for _, f in missing):
            missing.append(("/".join(action.option_strings) or action.dest, folder))
    return missing


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
