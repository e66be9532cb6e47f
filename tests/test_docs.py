"""The rule book (docs/rules.md) and the Markdown docs: complete, self-contained, links alive.

* every scorecard preset, every box label and every rule knob (scorecard ``Rules`` and
  ``FiveThousandRules``) is in the rule book, and its knob tables give the code's defaults and
  preset values;
* every test the worked examples name exists;
* no file of the repository points outside it to the old rule book;
* every relative link (and in-page anchor) of README.md, docs/*.md and docs/guides/*.md
  resolves;
* the layout (docs/guides/layout.md) names every module of both packages.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import subprocess
from pathlib import Path

import pytest
from conftest import need

from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.scorecard.rules import PRESETS, Rules

ROOT = Path(__file__).resolve().parents[1]
RULE_BOOK = ROOT / "docs" / "rules.md"
# Built from pieces so that this file does not match its own check.
OUTSIDE_REFERENCES = ("../" + "shared", "shared/" + "RULES.md")


def rule_book() -> str:
    return RULE_BOOK.read_text(encoding="utf-8")


def public_fields(cls) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if not f.name.startswith("_")]


def test_rule_book_exists():
    assert RULE_BOOK.is_file()
    assert rule_book().startswith("# ")


def test_every_preset_and_box_label_is_in_the_rule_book():
    text = rule_book()
    missing = [f"preset {name}" for name in PRESETS if f"`{name}`" not in text]
    for rules in PRESETS.values():
        missing += [f"label {label!r} ({rules.name})" for label in rules.labels
                    if label not in text]
    assert not missing, missing


@pytest.mark.parametrize("cls", [Rules, FiveThousandRules])
def test_every_rule_knob_is_in_the_rule_book(cls):
    text = rule_book()
    missing = [f.name for f in public_fields(cls) if f"`{f.name}`" not in text]
    assert not missing, f"{cls.__name__} knobs missing from docs/rules.md: {missing}"


def table_rows(text: str, names) -> dict[str, list[str]]:
    """The cells of the table rows that start with a backticked knob name."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\|\s*`(\w+)`\s*\|(.*)\|\s*$", line)
        if m and m.group(1) in names and m.group(1) not in rows:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def cell_value(cell: str) -> str:
    return cell.replace("*", "").replace("`", "").replace('"', "").strip()


def section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n### ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def test_scorecard_knob_table_gives_the_code_defaults_and_preset_values():
    text = section(rule_book(), "### 3.1")
    header = next(line for line in text.splitlines() if line.startswith("| field"))
    columns = [cell_value(c) for c in header.strip("|").split("|")]
    fields = public_fields(Rules)
    rows = table_rows(text, {f.name for f in fields})
    assert set(rows) == {f.name for f in fields}
    for f in fields:
        cells = rows[f.name]
        if f.default is dataclasses.MISSING:  # name, boxes, labels: descriptive cells
            assert cell_value(cells[0]) == "(required)", f.name
            continue
        assert cell_value(cells[0]) == str(f.default), f.name
        for name, rules in PRESETS.items():
            value = cell_value(cells[columns.index(name) - 1])
            assert value == str(getattr(rules, f.name)), (f.name, name, value)


def test_fivethousand_knob_table_gives_the_code_defaults():
    text = section(rule_book(), "### 3.2")
    fields = public_fields(FiveThousandRules)
    rows = table_rows(text, {f.name for f in fields})
    assert set(rows) == {f.name for f in fields}
    for f in fields:
        assert cell_value(rows[f.name][0]) == str(f.default), f.name


def test_the_tests_named_by_the_worked_examples_exist():
    named = set(re.findall(r"(tests/\w+\.py)::(\w+)", rule_book()))
    assert len(named) >= 20
    missing = [f"{path}::{name}" for path, name in sorted(named)
               if not (ROOT / path).is_file()
               or f"def {name}(" not in (ROOT / path).read_text(encoding="utf-8")]
    assert not missing, missing


def repository_files() -> list[Path]:
    """Tracked files plus new files git does not ignore (so an uncommitted file counts too)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_nothing_refers_to_files_outside_the_repository():
    offenders = []
    for path in repository_files():
        if not path.is_file():  # deleted in the work tree
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:  # binary
            continue
        text = data.decode("utf-8", errors="replace")
        offenders += [f"{path.relative_to(ROOT)}: {ref}" for ref in OUTSIDE_REFERENCES
                      if ref in text]
    assert not offenders, offenders


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "docs" / "guides").glob("*.md"))]


def test_the_guides_are_checked():
    assert len(list((ROOT / "docs" / "guides").glob("*.md"))) >= 10


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def links(text: str) -> list[str]:
    """The link targets of a Markdown text, code blocks and code spans left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)


@pytest.mark.parametrize("md", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(md):
    text = md.read_text(encoding="utf-8")
    broken = []
    for target in links(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        dest = (md.parent / path).resolve() if path else md
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md":
            headings = re.findall(r"^#+\s+(.*)$", dest.read_text(encoding="utf-8"), re.M)
            if anchor not in {github_anchor(h) for h in headings}:
                broken.append(target)
    assert not broken, f"{md.name}: broken links {broken}"


# -- the layout docs/guides/layout.md and docs/architecture.md describe ------------------------

LAYOUT = ROOT / "docs" / "guides" / "layout.md"


def _layout_block() -> str:
    """The tree of the layout guide: its first code block."""
    return LAYOUT.read_text(encoding="utf-8").split("```", 2)[1]


@pytest.mark.parametrize("package", ["agents", "dice_env"])
def test_the_readme_layout_names_every_module_of_the_package(package):
    """Every subpackage and every top-level module (but ``__init__``) of the package appears
    in the layout tree (docs/guides/layout.md, linked from the README), and nothing named
    there is missing (a data folder, such as the committed models, may be named too)."""
    block = _layout_block()
    after = block.split(f"\n{package}/", 1)[1].split("\n")[1:]
    lines = "\n".join(line for line in itertools.takewhile(lambda x: x.startswith(" "), after))
    entries = {p.name + "/" for p in (ROOT / package).iterdir()
               if p.is_dir() and (p / "__init__.py").exists()}
    entries |= {p.name for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"}
    listed = set(re.findall(r"^  ([\w.]+/?)", lines, flags=re.M))
    listed |= set(re.findall(r"^  [\w.]+ +([\w]+\.py)\b", lines, flags=re.M))  # "a.py b.py"
    assert entries - listed == set(), f"not in {LAYOUT.name}: {sorted(entries - listed)}"
    data_folders = {p.name + "/" for p in (ROOT / package).iterdir()
                    if p.is_dir() and not (p / "__init__.py").exists()}  # e.g. agents/models/
    assert listed - entries - data_folders - {"__init__.py"} == set(), sorted(listed - entries)


def test_architecture_doc_draws_every_layer_of_the_contract():
    tomllib = need("tomllib", "Python 3.11 or later")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer in layers["layers"]:
        for name in layer.split("|"):
            assert f"agents.{name.strip()}" in doc, name
