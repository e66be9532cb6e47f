"""Check what the built wheel and sdist hold: ``python check_wheel.py DIST_FOLDER``.

The wheel must carry both packages, the committed models (package data), the PPO configs and
stages, the web page's static files, every example (``examples/*.py`` of the checkout, as
``agents/examples/*.py``) and the rule book (``docs/rules.md``, as ``agents/rules.md``: setup.py
copies both in) and the ``dice-env`` command; and nothing of the checkout that is not the
library (tests, scripts, results, the virtual environment). The sdist must carry what builds
that wheel (setup.py, the examples, the rule book, the models). Prints the size.
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from pathlib import Path

REQUIRED = [
    "agents/__init__.py", "agents/cli/__init__.py", "agents/paths.py", "dice_env/__init__.py",
    "dice_env/paths.py", "agents/models/penta.zip", "agents/models/dice-poker.zip",
    "agents/models/fivethousand.zip", "agents/models/yahtzee-official.zip",
    "agents/models/yahtzee-official-pure.zip", "agents/models/penta-pure.zip",
    "agents/models/learned-value-penta.pt",
    "agents/models/learned-value-dice-poker.pt", "agents/models/learned-value-fivethousand.pt",
    "agents/models/learned-value-fivethousand-3p.pt",
    "agents/models/learned-value-fivethousand-4p.pt",
    "agents/models/learned-value-yahtzee-official.pt", "agents/models/win-value-penta.pt",
    "agents/models/learned-value-yatzy.pt", "agents/models/learned-value-yacht.pt",
    "agents/models/pig.zip", "agents/training/ppo/configs/pig.json",
    "agents/models/win-value-dice-poker.pt", "agents/training/ppo/stages.json",
    "agents/training/ppo/variants.json",
    "agents/training/ppo/configs/penta-structured.json", "agents/play/web/static/index.html",
]
ROOT = Path(__file__).resolve().parents[1]
#: the checkout's files the wheel ships inside ``agents`` (setup.py's SHIPPED), as they are named
#: there: every example, and the rule book
SHIPPED = {f"agents/examples/{p.name}": p for p in sorted((ROOT / "examples").glob("*.py"))}
SHIPPED["agents/rules.md"] = ROOT / "docs" / "rules.md"
FORBIDDEN_PREFIXES = ("tests/", "scripts/", "results/", ".venv/", "runs/", ".ci/",
                      "agents/models/seeds/", "agents/models/carry/")


def main(dist: Path) -> int:
    wheels = sorted(dist.glob("dice_env-*.whl"))
    sdists = sorted(dist.glob("dice_env-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, f"expected one wheel and one sdist: {dist}"
    wheel = zipfile.ZipFile(wheels[0])
    names = set(wheel.namelist())
    missing = [n for n in REQUIRED + list(SHIPPED) if n not in names]
    assert not missing, f"missing from the wheel: {missing}"
    assert len(SHIPPED) > 1, f"no examples in {ROOT / 'examples'}"
    stale = [n for n, source in SHIPPED.items() if wheel.read(n) != source.read_bytes()]
    assert not stale, f"not the checkout's copy, in the wheel: {stale}"
    extra = sorted(n for n in names if n.startswith(FORBIDDEN_PREFIXES) or "__pycache__" in n
                   or n.endswith((".nbi", ".nbc", ".pyc")))
    assert not extra, f"not library files, in the wheel: {extra[:10]}"
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    scripts = wheel.read(entry).decode()
    assert "dice-env = agents.cli:entry_point" in scripts, scripts
    with tarfile.open(sdists[0]) as tar:
        sdist_names = {m.name.split("/", 1)[-1] for m in tar.getmembers()}
    assert "agents/models/penta.zip" in sdist_names, "the sdist lacks the committed models"
    needed = {"setup.py", "docs/rules.md"} | {f"examples/{p.name}" for p in
                                               (ROOT / "examples").glob("*.py")}
    assert needed <= sdist_names, f"the sdist lacks {sorted(needed - sdist_names)}"
    size = wheels[0].stat().st_size / 2**20
    models = sum(i.file_size for i in wheel.infolist() if i.filename.startswith("agents/models/"))
    print(f"wheel ok: {wheels[0].name}, {size:.1f} MiB, {len(names)} files, models "
          f"{models / 2**20:.1f} MiB; sdist {sdists[0].stat().st_size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1])))
