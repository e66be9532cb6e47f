"""List the committed models: where the package installed them, and which player plays each.

The trained players ship inside the package (read-only package data): the PPO models
(``.zip``, with the learning curve ``.eval.csv`` their training wrote) and the learned-value
and win-value players (``.pt``, with ``.curve.csv`` / ``.curve.json``).  This prints the folder
they are installed in and, for each model, its game, the ``agents.make`` call that plays it
(the same player name goes to ``--agent`` of ``evaluate``, ``replay`` and ``web``) and
its learning curves; ``--json`` adds each file's full path.  ``--path NAME`` prints one file's
path and nothing else, for the shell (NAME: a file name such as ``penta.zip``, its stem
``penta``, or a learning curve's name; no NAME: the folder).

Example:
  dice-env models
  dice-env train penta-structured --init-from "$(dice-env models --path penta)" --run-dir runs/more
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agents.cli.args import command_parser

__all__ = ["CommittedModel", "build_parser", "committed_models", "find_model", "main"]

#: the learning curves written beside a model, by the model's suffix
CURVE_SUFFIXES = {".zip": (".eval.csv",), ".pt": (".curve.csv", ".curve.json")}
#: ``learned-value-<game>[-<N>p].pt`` and ``win-value-<game>.pt``
_VALUE_MODEL = re.compile(r"^(?P<player>learned-value|win-value)-(?P<game>.+?)(?:-(?P<n>\d+)p)?$")


@dataclass(frozen=True)
class CommittedModel:
    """One committed model file and the player that plays it.

    Attributes:
        path: the model file (inside the installed package).
        game: the game it plays, as :func:`agents.games.resolve` names it.
        player: the registered player that loads it by default (``agents.make(player, game,
            **options)``).
        options: the options of that call that pick this file (``num_players`` for 5000's
            N-player learned-value models).
        curves: the learning curves beside it (``.eval.csv``, ``.curve.csv``, ``.curve.json``).
    """

    path: Path
    game: str
    player: str
    options: dict = field(default_factory=dict)
    curves: tuple[Path, ...] = ()

    @property
    def name(self) -> str:
        """The file's stem (``penta``, ``learned-value-penta``): what ``--path`` takes."""
        return self.path.name.removesuffix(self.path.suffix)

    def make_call(self) -> str:
        """The Python call that plays it: ``agents.make("ppo", "penta")``."""
        args = [json.dumps(self.player), json.dumps(self.game)]
        args += [f"{k}={v!r}" for k, v in self.options.items()]
        return f"agents.make({', '.join(args)})"

    def record(self) -> dict:
        """The model as ``--json`` prints it."""
        return {"name": self.name, "file": self.path.name, "path": str(self.path),
                "game": self.game, "player": self.player, "options": self.options,
                "make": self.make_call(), "curves": [str(p) for p in self.curves]}


def describe_model(path: Path) -> CommittedModel | None:
    """The player and game of a committed model file, from its name (``<game>.zip``: ``ppo``;
    ``<game>-pure.zip``: ``ppo-pure``; ``learned-value-<game>[-<N>p].pt``, ``win-value-<game>.pt``);
    None for a file that is not a model."""
    if path.suffix not in CURVE_SUFFIXES:
        return None
    stem = path.name.removesuffix(path.suffix)
    options: dict = {}
    if path.suffix == ".zip":
        player, game = ("ppo-pure", stem.removesuffix("-pure")) if stem.endswith("-pure") \
            else ("ppo", stem)
    else:
        match = _VALUE_MODEL.match(stem)
        if match is None:
            return None
        player, game = match["player"], match["game"]
        if match["n"] is not None:
            options["num_players"] = int(match["n"])
    curves = tuple(p for p in (path.with_name(stem + s) for s in CURVE_SUFFIXES[path.suffix])
                   if p.is_file())
    return CommittedModel(path=path, game=game, player=player, options=options, curves=curves)


def committed_models(folder: Path | None = None) -> list[CommittedModel]:
    """Every committed model of ``folder`` (default: the installed package's), by file name."""
    from agents.paths import committed_models_dir

    folder = committed_models_dir() if folder is None else Path(folder)
    found = (describe_model(p) for p in sorted(folder.iterdir()) if p.is_file())
    return [m for m in found if m is not None]


def find_model(name: str, models: Sequence[CommittedModel]) -> Path | None:
    """The file ``name`` names: a model's file name or stem, or one of its learning curves."""
    for model in models:
        if name in (model.name, model.path.name):
            return model.path
        for curve in model.curves:
            if name == curve.name:
                return curve
    return None


def build_parser(prog: str | None = None):
    """The command line of ``dice-env models``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("--path", nargs="?", const="", default=None, metavar="NAME",
                        help="print the path of one model (penta, penta.zip, "
                             "learned-value-penta.pt, penta.eval.csv ...) and nothing else; "
                             "without NAME, the models' folder")
    parser.add_argument("--json", action="store_true", help="one JSON line per model")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """List the committed models, or print one path; returns 0."""
    from agents.paths import committed_models_dir

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    folder = committed_models_dir()
    models = committed_models(folder)
    if args.path is not None:
        if args.path == "":
            print(folder)
            return 0
        path = find_model(args.path, models)
        if path is None:
            parser.error(f"argument --path: no committed model {args.path!r}; choose from "
                         f"{', '.join(m.name for m in models)}")
        print(path)
        return 0
    if args.json:
        for model in models:
            print(json.dumps(model.record()))
        return 0
    rows = [("file", "game", "plays with", "learning curve")]
    rows += [(m.path.name, m.game, m.make_call(),
              ", ".join(p.name.removeprefix(m.name) for p in m.curves) or "-") for m in models]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    print(f"{len(models)} committed models, installed in {folder}{os.sep}")
    for row in rows:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[3])
    print("\nThe same player name goes to --agent with --game (`dice-env evaluate --agent ppo "
          "--game penta --regret`); `dice-env models --path NAME` prints one file's path.")
    return 0
