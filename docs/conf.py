"""Sphinx configuration of the dice-env documentation (Sphinx + furo + myst-parser).

Build (CI does, warnings as errors), into a folder outside the checkout::

    .venv/bin/sphinx-build -W --keep-going -b html docs /tmp/docs-html

The sources are Markdown (MyST).  The environment pages use the directives of
``docs/_ext/dice_env_docs.py`` (spaces, observation tables, arguments and example games made
from the code at build time); the results pages include ``results/*.md`` as they are.
"""

from __future__ import annotations

import sys
from importlib.metadata import version as _version
from pathlib import Path

# The build writes nothing into the checkout: no __pycache__ beside docs/_ext (build into a
# folder outside it, as above).
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "dice-env"
author = "the dice-env authors"
copyright = "the dice-env authors"
release = _version("dice-env")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "dice_env_docs",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]

# GitHub-style anchors (#12-the-boxes) for the headings, so that the links written for GitHub
# (README.md, docs/rules.md) work on the site too.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]

autodoc_default_options = {"member-order": "bysource"}  # :members: on each page
autodoc_typehints = "description"
autodoc_class_signature = "separated"
autodoc_inherit_docstrings = False  # gymnasium.Env.step etc. are not our docstrings
toc_object_entries = False  # API objects stay out of the navigation (a faster build too)
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = f"dice-env {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
