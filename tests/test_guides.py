"""The guides (docs/guides/*.md): every Python block runs, every command line parses.

* the ```python blocks of each guide run in order, in one namespace per guide, in a fresh
  Python process whose working directory is a temporary folder holding a copy of
  ``examples/`` (the guides name ``examples/my_bot.py`` as a user in a checkout would); a
  block after a ``<!-- not run: REASON -->`` line is skipped, and REASON must be given;
* every ``dice-env X ...`` and ``python scripts/X.py ...`` command line of the guides parses
  (the check of tests/test_cli.py: the subcommand exists and takes those arguments);
* every guide starts with a ``# Title``, and every ``{literalinclude}`` names a file (and a
  ``:pyobject:`` / ``:start-at:`` in it) that exists.

``.ci/smoke_installed.py`` runs the same Python blocks in the installed wheel.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import command_lines, unparsed

ROOT = Path(__file__).resolve().parents[1]
GUIDES = sorted((ROOT / "docs" / "guides").glob("*.md"))
#: a ```python block, with the not-run marker that may stand on the line before it
BLOCK = re.compile(r"(?:<!-- not run:([^>]*)-->[ \t]*\n)?```python\n(.*?)^```", re.S | re.M)

#: runs the blocks of one guide (a JSON list of [name, code]) in one namespace
RUNNER = """
import json, sys
namespace = {"__name__": "__guide__"}
for name, code in json.load(open(sys.argv[1], encoding="utf-8")):
    print(f"--- {name}", flush=True)
    exec(compile(code, name, "exec"), namespace)
"""


def python_blocks(text: str) -> list[tuple[str | None, str]]:
    """``(not-run reason or None, code)`` of every ```python block, in order."""
    blocks = []
    for match in BLOCK.finditer(text):
        reason, code = match.groups()
        blocks.append((None if reason is None else reason.strip(), code))
    return blocks


def test_block_extraction_sees_the_not_run_marker():
    text = ("```python\nx = 1\n```\n\n<!-- not run: takes an hour -->\n```python\ny = 2\n```\n"
            "```bash\ndice-env web\n```\n```python\nz = [\n'```'\n]\n```\n")
    assert python_blocks(text) == [(None, "x = 1\n"), ("takes an hour", "y = 2\n"),
                                   (None, "z = [\n'```'\n]\n")]


def test_there_are_guides_with_code():
    assert len(GUIDES) >= 10, GUIDES
    assert sum(len(python_blocks(g.read_text(encoding="utf-8"))) for g in GUIDES) >= 10


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_guide_has_a_title_and_its_includes_exist(guide):
    text = guide.read_text(encoding="utf-8")
    assert re.match(r"# \S", text), f"{guide.name} must start with a '# Title' line"
    includes = re.findall(r"^```\{literalinclude\} (\S+)\n((?::[\w-]+:.*\n)*)", text, re.M)
    for target, options in includes:
        path = (guide.parent / target).resolve()
        assert path.is_file(), f"{guide.name}: no such file {target}"
        source = path.read_text(encoding="utf-8")
        for key, value in re.findall(r"^:([\w-]+): *(.*)$", options, re.M):
            if key == "pyobject":
                assert re.search(rf"^(def|class) {re.escape(value)}\b", source, re.M), \
                    f"{guide.name}: {target} has no {value}"
            elif key == "start-at":
                assert value in source, f"{guide.name}: {target} has no line {value!r}"


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_guide_command_lines_parse(guide):
    failures = unparsed(command_lines(guide.read_text(encoding="utf-8")))
    assert not failures, f"{guide.name}: {failures}"


@pytest.mark.parametrize("guide", [g for g in GUIDES
                                   if python_blocks(g.read_text(encoding="utf-8"))],
                         ids=lambda p: p.name)
def test_guide_python_blocks_run(guide, tmp_path):
    blocks = python_blocks(guide.read_text(encoding="utf-8"))
    for reason, _ in blocks:
        assert reason is None or reason, f"{guide.name}: a not-run marker without a reason"
    to_run = [(f"{guide.name} block {i}", code)
              for i, (reason, code) in enumerate(blocks, 1) if reason is None]
    if not to_run:
        return  # every block is marked not run, each with its reason (checked above)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    (tmp_path / "blocks.json").write_text(json.dumps(to_run), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", RUNNER, "blocks.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert proc.stdout.count("--- ") == len(to_run)

