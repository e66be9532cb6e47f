"""The ``dice-env`` command and the shape of the package around it.

* ``dice-env --help`` lists every subcommand, ``--version`` works, an unknown command is a
  one-line error (exit 2), and every subcommand's ``--help`` ends with an example;
* ``scripts/`` holds only thin entry points (at most ~60 lines, no ``sys.path``, no script
  importing another), one per subcommand, and no test imports a script;
* no module of ``dice_env`` or ``agents`` is over 600 lines;
* every ``dice-env X ...`` and ``python scripts/X.py ...`` command line of the README parses
  (its subcommand exists and takes those arguments; tests/test_guides.py checks the guides'
  with the same functions);
* the README is short: at most 210 lines, a first game with the advisor in its first 40;
* nothing works out a path from the package's own location.
"""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import agents.cli as cli

ROOT = Path(__file__).resolve().parents[1]
DICE_ENV = str(Path(sys.executable).with_name("dice-env"))
SCRIPTS = sorted(p for p in (ROOT / "scripts").glob("*.py"))
#: the README's placeholders, read as an example value
PLACEHOLDERS = {"GAME": "penta", "S": "0", "N": "3", "SEED": "0"}


def dice_env(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([DICE_ENV, *args], capture_output=True, text=True, timeout=120)


def test_help_lists_every_subcommand_and_version_works():
    out = dice_env("--help")
    assert out.returncode == 0, out.stderr
    for command in (name for _, names in cli.SECTIONS for name in names):
        assert re.search(rf"^  {re.escape(command)}\s", out.stdout, flags=re.M), command
    version = dice_env("--version")
    assert version.returncode == 0 and version.stdout.startswith("dice-env "), version


def test_unknown_or_missing_command_is_a_one_line_error():
    out = dice_env("evaluat")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "unknown command 'evaluat'" in out.stderr and "evaluate" in out.stderr
    assert dice_env().returncode == 2


@pytest.mark.parametrize("command", [c.name for c in cli.COMMANDS])
def test_every_subcommand_help_ends_with_an_example(command, capsys):
    assert cli.main([*command.split(), "--help"]) == 0
    text = capsys.readouterr().out.rstrip()
    tail = text.splitlines()[-4:]
    assert any(line.lower().startswith("example") for line in tail), tail
    assert re.search(r"dice-env\s+\S", tail[-1]), tail


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_are_thin_entry_points(script):
    text = script.read_text()
    assert len(text.splitlines()) <= 60, f"{script.name}: {len(text.splitlines())} lines"
    assert "sys.path" not in text
    tree = ast.parse(text)
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    others = {p.stem for p in SCRIPTS}
    assert not imported & others, f"{script.name} imports another script: {imported & others}"
    called = re.findall(r"script_main\(\"([a-z_-]+)\"\)", text)
    assert len(called) == 1 and cli.find(called[0]) is not None, script.name


def test_every_script_has_its_subcommand():
    for script in SCRIPTS:
        assert cli.find(script.stem) is not None, script.name


def test_no_test_imports_a_script_or_edits_sys_path():
    offenders = []
    for test in (ROOT / "tests").rglob("*.py"):
        text = test.read_text()
        if re.search(r"sys\.path\.(insert|append)", text):
            offenders.append(test.name)
    assert not offenders, offenders


def test_no_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for pkg in ("agents", "dice_env")
            for p in (ROOT / pkg).rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 600}
    assert not long, long


def test_no_path_is_worked_out_from_the_package_location():
    offenders = []
    for pkg in ("agents", "dice_env"):
        for p in (ROOT / pkg).rglob("*.py"):
            if re.search(r"Path\(__file__\)[^\n]*\.parents?\b", p.read_text()):
                offenders.append(str(p.relative_to(ROOT)))
    assert not offenders, offenders


def command_lines(text: str) -> list[list[str]]:
    """Every ``dice-env X ...`` and ``python scripts/X.py ...`` command line of a Markdown text
    (code blocks and inline code), as argument lists starting with the subcommand."""
    text = re.sub(r"\\\n\s*", " ", text)  # continued lines
    lines = []
    pattern = r"(?:dice-env(?= [a-z])|python scripts/([a-z_]+)\.py)((?:[ \t]+[^\s`|#;&)]+)*)"
    for match in re.finditer(r"(?<![\w/.-])" + pattern, text):
        script, rest = match.group(1), match.group(2)
        try:
            words = shlex.split(rest)
        except ValueError as exc:  # a documented line a shell cannot read either
            raise AssertionError(f"{match.group(0)!r}: {exc}") from None
        words = [PLACEHOLDERS.get(w, w) for w in words]
        name = script if script else (words.pop(0) if words else None)
        if name is None or name.startswith("-"):
            continue
        lines.append([name, *words])
    return lines


def unparsed(lines: list[list[str]]) -> list[str]:
    """The command lines among ``lines`` that name no subcommand or that its parser refuses."""
    import importlib

    failures = []
    for name, *args in lines:
        command, args, _ = cli.resolve([name, *args])
        if command is None and name in cli.NOUNS and args[:1] in ([], ["--help"]):
            continue  # a noun named in the prose, or its --help
        if command is None:
            failures.append(f"{name}: no such subcommand")
            continue
        if not args:  # a subcommand named in the prose
            continue
        module = importlib.import_module(command.module)
        if command.name == "train learned-value" and args[:1] == ["fivethousand"]:
            module, args = importlib.import_module(f"{command.module}_fivethousand"), args[1:]
        parser = module.build_parser(prog=f"dice-env {command.name}")
        try:
            parser.parse_args(args)
        except SystemExit as exc:
            if exc.code:
                failures.append(f"dice-env {name} {shlex.join(args)}")
    return failures


def test_readme_command_lines_parse():
    lines = command_lines((ROOT / "README.md").read_text())
    assert len(lines) >= 10, lines
    failures = unparsed(lines)
    assert not failures, failures


def test_a_command_line_the_parser_refuses_is_reported():
    """The check above can fail: a wrong option, a missing value, an unknown subcommand."""
    text = "`dice-env evaluate --no-such-option` and `dice-env nonesuch 1` and `dice-env web`"
    lines = command_lines(text)
    assert lines == [["evaluate", "--no-such-option"], ["nonesuch", "1"], ["web"]]
    assert unparsed(lines) == ["dice-env evaluate --no-such-option", "nonesuch: no such subcommand"]
    with pytest.raises(AssertionError, match="No closing quotation"):  # never dropped
        command_lines("`dice-env evaluate --out 'my results`")


def test_the_readme_is_short_and_starts_with_a_game():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 210, f"README.md has {len(lines)} lines; move the detail to docs/guides/"
    first_game = [i for i, line in enumerate(lines) if "dice-env play penta --advise" in line]
    assert first_game and first_game[0] < 40, "a first game with the advisor in the first 40 lines"
