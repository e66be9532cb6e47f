"""Print the rules of a game in the terminal, from the rule book installed with the package.

The rule book (``docs/rules.md`` of the project, the docs site's "Rules" page) covers every
game, every rule knob and every decision on an ambiguous point.  ``dice-env rules GAME`` prints
the sections of one game: for the scorecard games the turn, the boxes, the bonuses, the end of
the game and several players (Yatzy and Yacht: their own boxes); for 5000 and Pig their whole
chapter.  Markdown links and emphasis are taken out; tables stay as they are.  ``--path``
prints where the rule book is installed (the knobs, the decisions and the worked examples are
there too).

Example:
  dice-env rules penta
  dice-env rules 5000 | less
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli.args import command_parser

__all__ = ["build_parser", "game_sections", "main", "rule_sections", "rules_text"]

#: a numbered heading of the rule book: ``## 1. The scorecard games ...``, ``### 1.7 Yatzy``
_HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)*)\.? (.*)$")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
#: the sections of the scorecard chapter that hold one preset's own boxes
_OWN_BOXES = {"yatzy": "1.7", "yacht": "1.8"}
#: what each family's rules are: the sections of its chapter (those of other presets aside)
_CHAPTERS = {"scorecard": "1", "fivethousand": "2", "pig": "7"}
#: the widest a table is lined up to (a wider one is printed as written)
TABLE_WIDTH = 120


def rule_sections(text: str) -> dict[str, str]:
    """The numbered sections of the rule book, by number (``"1"``, ``"1.1"`` ...): each one's
    heading and text up to the next numbered heading (its ``####`` parts included)."""
    sections: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            key = match[2]
            sections[key] = ""
        elif line.startswith("## "):
            key = None  # an unnumbered chapter
        if key is not None:
            sections[key] += line + "\n"
    return sections


def game_sections(family: str, name: str, numbers: Sequence[str]) -> list[str]:
    """The section numbers (of ``numbers``, in order) that give the rules of the game ``name``
    of ``family``: its chapter, without the sections of another preset's own boxes."""
    chapter = _CHAPTERS[family]
    others = {n for preset, n in _OWN_BOXES.items() if preset != name}
    if name in _OWN_BOXES:  # the chapter's boxes and bonuses are the other presets'
        others |= {"1.2", "1.3", "1.4"}
    return [n for n in numbers if (n == chapter or n.startswith(chapter + "."))
            and not any(n == o or n.startswith(o + ".") for o in others)]


def aligned_table(rows: Sequence[str], max_width: int | None = None) -> list[str]:
    """A Markdown pipe table with its columns lined up, when that fits in ``max_width``
    characters (default: :data:`TABLE_WIDTH` or the terminal's width if wider; else the table
    as it is)."""
    if max_width is None:
        max_width = max(TABLE_WIDTH, shutil.get_terminal_size((TABLE_WIDTH, 24)).columns)
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    if len({len(r) for r in cells}) != 1:
        return list(rows)
    widths = [max(len(c) for c in column) for column in zip(*cells)]
    if sum(widths) + 3 * len(widths) + 1 > max_width:
        return list(rows)
    out = []
    for row in cells:
        if all(set(c) <= set("-:") and c for c in row):  # the header's rule
            out.append("|-" + "-|-".join("-" * w for w in widths) + "-|")
        else:
            out.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
    return out


def plain(markdown: str) -> str:
    """Markdown made for a terminal: links become their text, ``**``, ``*`` and backticks go,
    tables are lined up where they fit, a ``---`` rule and blank runs are dropped."""
    text = _LINK.sub(r"\1", markdown).replace("**", "").replace("`", "")
    text = re.sub(r"(?<![\w*])\*(?=\S)([^*\n]+?)\*(?![\w*])", r"\1", text)
    text = re.sub(r"^---\n", "", text, flags=re.M)
    lines: list[str] = []
    table: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            lines += aligned_table(table)
            table = []
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def rules_text(game: str, book: Path | None = None) -> str:
    """The rules of ``game`` (any name :func:`agents.games.resolve` takes) as printed;
    ``ValueError`` for an unknown game, naming the games."""
    from agents.games import resolve
    from agents.paths import shipped

    resolved = resolve(game)
    book = shipped("rules.md") if book is None else book
    sections = rule_sections(book.read_text(encoding="utf-8"))
    family = resolved.family.name
    if family not in _CHAPTERS:
        raise ValueError(f"the rule book has no chapter for {resolved.name} ({family})")
    chosen = game_sections(family, str(resolved.name), list(sections))
    if not chosen:
        raise ValueError(f"no section of {book} gives the rules of {resolved.name}")
    # a family of one game goes by the family's title ("5000"), a preset by its own name
    one_game = len(resolved.family.env.games()) == 1
    title = resolved.family.title if one_game else resolved.name
    return (f"The rules of {title} (from the rule book, {book})\n\n"
            + plain("\n".join(sections[n] for n in chosen)))


def game_names() -> list[str]:
    """The game names to list: the known names that are not Gymnasium ids."""
    from agents.games import known_games

    return [g for g in known_games() if "/" not in g]


def build_parser(prog: str | None = None):
    """The command line of ``dice-env rules``."""
    parser = command_parser(__doc__, prog)
    parser.add_argument("game", nargs="?", metavar="GAME",
                        help=f"the game: {', '.join(game_names())} (or its Gymnasium id)")
    parser.add_argument("--path", action="store_true",
                        help="print the path of the installed rule book and nothing else")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Print a game's rules (or the rule book's path); returns 0 (2 for a bad command line)."""
    from agents.paths import shipped

    parser = build_parser(prog)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.path:
        if args.game is not None:
            parser.error("argument --path: prints the rule book's path; give no GAME with it")
        print(shipped("rules.md"))
        return 0
    if args.game is None:
        parser.error(f"argument GAME: name a game: {', '.join(game_names())}")
    from agents.games import known_games

    if args.game not in known_games():
        parser.error(f"argument GAME: unknown game {args.game!r}; choose from "
                     f"{', '.join(game_names())} (or a Gymnasium id of one)")
    try:
        text = rules_text(args.game)
    except ValueError as exc:
        first = str(exc).splitlines()[0]
        parser.error(f"argument GAME: {first}")
    sys.stdout.write(text)
    return 0
