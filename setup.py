"""The one build step pyproject.toml cannot say: ship the examples and the rule book.

``examples/*.py`` and ``docs/rules.md`` live at the top of the checkout, where the guides
include them and the tests run them.  The wheel carries them inside the ``agents`` package, as
``agents/examples/*.py`` and ``agents/rules.md``, where ``dice-env examples`` and ``dice-env
rules`` find them (``agents.paths.shipped``; an editable install reads the checkout's own).
Everything else about the build is in pyproject.toml; the sdist has both (MANIFEST.in).
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: a file or folder of the checkout -> where the built package holds it (the same pairs as
#: ``agents.paths.SHIPPED``, which cannot be imported here: the build has no dependencies)
SHIPPED = {"examples": "agents/examples", "docs/rules.md": "agents/rules.md"}


class BuildPyWithShipped(build_py):
    """``build_py`` that also copies :data:`SHIPPED` into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        for source, target in SHIPPED.items():
            path = ROOT / source
            files = sorted(path.glob("*.py")) if path.is_dir() else [path]
            if not files or not all(f.is_file() for f in files):
                raise FileNotFoundError(f"setup.py: nothing to ship at {path}")
            for file in files:
                out = Path(self.build_lib) / target
                out = out / file.name if path.is_dir() else out
                self.mkpath(str(out.parent))
                self.copy_file(str(file), str(out))


setup(cmdclass={"build_py": BuildPyWithShipped})
