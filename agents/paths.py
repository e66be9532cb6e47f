"""Where things live, decided here (and in :mod:`dice_env.paths`, which this re-exports).

* **Committed models** (the trained players ``agents.make("ppo" | "learned-value" |
  "win-value", game)`` plays) ship inside the package as data files, found with
  :mod:`importlib.resources` (:func:`committed_model`), so an installed wheel has them. They
  are read, never written: nothing here ever writes into the installed package.
* **Caches** (solved DP tables, numba's compiled kernels) go to :func:`cache_dir`:
  ``$DICE_ENV_CACHE``, else the user cache folder of ``platformdirs`` (``~/.cache/dice-env``
  on Linux).
* **The user's own trained models** (what a trainer exports when not told where) go to
  :func:`user_models_dir`: ``$DICE_ENV_HOME/models``, else the user data folder of
  ``platformdirs`` (``~/.local/share/dice-env/models`` on Linux).
* **Outputs** (reports, run folders, replays) are relative to the working directory, or where
  ``--out`` says: the commands decide, not this module.

A documented reproduction run that re-exports a committed model writes it into
:data:`COMMITTED_MODELS_FOLDER` *relative to the working directory*, i.e. into a checkout of
the project (:func:`checkout_models_dir`), never into site-packages.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from dice_env.paths import (
    CACHE_ENV_VAR,
    HOME_ENV_VAR,
    cache_dir,
    user_data_dir,
    user_models_dir,
)

__all__ = [
    "CACHE_ENV_VAR",
    "COMMITTED_MODELS_FOLDER",
    "HOME_ENV_VAR",
    "cache_dir",
    "checkout_models_dir",
    "committed_model",
    "committed_models_dir",
    "package_data",
    "user_data_dir",
    "user_models_dir",
]

#: the committed models' folder inside a checkout (the package data folder ``agents/models``)
COMMITTED_MODELS_FOLDER = Path("agents") / "models"


def package_data(*parts: str) -> Path:
    """A data file or folder shipped inside the ``agents`` package (read-only), such as
    ``package_data("training", "ppo", "configs")``, found with :mod:`importlib.resources`."""
    return Path(str(resources.files("agents").joinpath(*parts)))


def committed_models_dir() -> Path:
    """The folder of the models that ship with the package (read-only package data)."""
    return package_data("models")


def committed_model(filename: str) -> Path:
    """The path of a committed model file, such as ``"penta.zip"`` or
    ``"learned-value-penta.pt"`` (it may not exist: the caller says what to do then)."""
    if Path(filename).name != filename:
        raise ValueError(f"a committed model is named by its file name alone, got {filename!r}")
    return committed_models_dir() / filename


def checkout_models_dir(cwd: str | os.PathLike | None = None) -> Path:
    """The committed models' folder of the checkout in the working directory (``cwd``), for the
    documented runs that re-export a committed model; a clear error anywhere else."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    folder = base / COMMITTED_MODELS_FOLDER
    if not folder.is_dir() or not (base / "pyproject.toml").is_file():
        raise FileNotFoundError(
            f"{folder} is not a dice-env checkout's models folder: run from the root of a "
            "checkout of the project to re-export a committed model, or name the file to write")
    return folder
