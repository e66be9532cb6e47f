"""List the runnable examples installed with the package, or copy them where you work.

The examples the guides include ship inside the package: ``my_bot.py`` (a policy you write,
measured by its exact gap), ``sb3_maskable_ppo.py``, ``pettingzoo_loop.py`` and
``rllib_run.py``.  Without ``--copy`` this lists them with a one-line summary and the folder
they are installed in.  ``--copy DIR`` copies them (or only the EXAMPLEs named) into DIR, made
if missing, so that the guides' commands work from the folder above it when DIR is
``examples``; a file already there is left alone unless ``--force``.

Example:
  dice-env examples
  dice-env examples --copy examples && python examples/my_bot.py --games 200
"""

from __future__ import annotations

import ast
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import command_parser, make_output_folders, output_path

__all__ = ["build_parser", "example_files", "main", "summary"]


def example_files() -> list[Path]:
    """The installed examples (``*.py`` of :func:`agents.paths.shipped` ``("examples")``)."""
    from agents.paths import shipped

    return sorted(shipped("examples").glob("*.py"))


def summary(path: Path) -> str:
    """The first line of an example's docstring, without the file name it may start with."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    return first.removeprefix(f"{path.name}:").strip()


def build_parser(prog: str | None = None):
    """The command line of ``dice-env examples``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("names", nargs="*", metavar="EXAMPLE",
                        help="the examples to copy (my_bot or my_bot.py ...; default: all)")
    parser.add_argument("--copy", type=output_path, default=None, metavar="DIR",
                        help="copy the examples into DIR (made if missing)")
    parser.add_argument("--force", action="store_true",
                        help="with --copy: overwrite files of the same name in DIR")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """List the examples, or copy them; returns 0 (2 for a bad command line)."""
    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    files = example_files()
    by_name = {p.name: p for p in files}
    if args.names and args.copy is None:
        parser.error("argument EXAMPLE: names the examples to copy; give --copy DIR too")
    if args.force and args.copy is None:
        parser.error("argument --force: only with --copy DIR")
    chosen = []
    for name in dict.fromkeys(args.names):
        path = by_name.get(name if name.endswith(".py") else f"{name}.py")
        if path is None:
            parser.error(f"argument EXAMPLE: no example {name!r}; choose from "
                         f"{', '.join(by_name)}")
        chosen.append(path)
    chosen = chosen or files
    if args.copy is None:
        width = max(len(p.name) for p in files)
        print(f"{len(files)} examples, installed in {files[0].parent}")
        for path in files:
            print(f"  {path.name:<{width}}  {summary(path)}")
        print("\nCopy them where you work: dice-env examples --copy examples  (then, e.g., "
              "python examples/my_bot.py --games 200)")
        return 0
    clashes = [args.copy / p.name for p in chosen if (args.copy / p.name).exists()]
    if clashes and not args.force:
        parser.error(f"argument --copy: {', '.join(map(str, clashes))} already "
                     f"exist{'s' if len(clashes) == 1 else ''}; pass --force to overwrite, or "
                     "copy into another folder")
    folders = [p for p in clashes if not p.is_file()]
    if folders:
        parser.error(f"argument --copy: {folders[0]} is not a file; it cannot be overwritten")
    make_output_folders(parser, args)
    for path in chosen:
        shutil.copyfile(path, args.copy / path.name)
    print(f"copied {len(chosen)} example{'s' if len(chosen) != 1 else ''} into {args.copy}: "
          f"{', '.join(p.name for p in chosen)}")
    return 0
