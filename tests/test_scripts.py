"""The scripts are entry points that run: ``python scripts/X.py --help`` works for every one
(what each subcommand does is tested in tests/test_cli*.py and with its library module)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p.name for p in (ROOT / "scripts").glob("*.py") if not p.name.startswith("_"))


def run(*args, **kwargs):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          check=True, **kwargs)


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script):
    out = run(f"scripts/{script}", "--help").stdout
    assert "usage:" in out
