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
* **The examples and the rule book** (``examples/*.py``, ``docs/rules.md`` of the checkout)
  ship inside the package too, copied in by the build (``setup.py``): :func:`shipped` finds
  the installed copy, or for an editable install the checkout's own.
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
    "SHIPPED",
    "cache_dir",
    "checkout_models_dir",
    "committed_model",
    "committed_models_dir",
    "editable_checkout",
    "package_data",
    "shipped",
    "user_data_dir",
    "user_models_dir",
]

#: the committed models' folder inside a checkout (the package data folder ``agents/models``)
COMMITTED_MODELS_FOLDER = Path("agents") / "models"


def package_data(*parts: str) -> Path:
    """A data file or folder shipped inside the ``agents`` package (read-only), such as
    ``package_data("training", "ppo", "configs")``, found with :mod:`importlib.resources`."""
    return Path(str(resources.files("agents").joinpath(*parts)))


#: what the wheel ships inside ``agents`` that lives elsewhere in a checkout: its path in the
#: package -> its path in the checkout (``setup.py`` copies each in at build time)
SHIPPED = {"examples": Path("examples"), "rules.md": Path("docs") / "rules.md"}


def shipped(name: str) -> Path:
    """The examples folder (``"examples"``) or the rule book (``"rules.md"``): the copy
    installed inside the package (a wheel), else the checkout's own when dice-env is an
    editable install (:func:`editable_checkout`); ``FileNotFoundError`` saying where it was
    looked for when neither is there."""
    if name not in SHIPPED:
        raise ValueError(f"unknown shipped file {name!r}; choose from {', '.join(SHIPPED)}")
    installed = package_data(name)
    if installed.exists():
        return installed
    checkout = editable_checkout()
    if checkout is not None and (checkout / SHIPPED[name]).exists():
        return checkout / SHIPPED[name]
    where = f" nor in the checkout {checkout}" if checkout is not None else ""
    raise FileNotFoundError(f"{name} is neither installed with the package ({installed}){where}: "
                            "reinstall dice-env")


def editable_checkout() -> Path | None:
    """The checkout an editable install of dice-env (``pip install -e``) runs from, as the
    install recorded it (the ``direct_url.json`` of PEP 610); None for any other install."""
    import json
    from importlib.metadata import distributions
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    # every record of the name: run from the checkout, its build's ``dice_env.egg-info``
    # (which has no direct_url.json) comes first on the path and hides the installed one
    texts = [d.read_text("direct_url.json") for d in distributions(name="dice-env")]
    try:
        record = json.loads(next((t for t in texts if t), "{}"))
    except ValueError:
        return None
    url = record.get("url", "") if isinstance(record, dict) else ""
    if not (record.get("dir_info") or {}).get("editable") or not url.startswith("file:"):
        return None
    return Path(url2pathname(urlparse(url).path))


def committed_models_dir() -> Path:
    """The folder of the models that ship with the package (read-only package data)."""
    return package_data("models")


def win_value_model(game_name: str) -> Path:
    """The committed win-value model of a scorecard game (``win-value-<game>.pt``; it may not
    exist).  Here, without torch, so that asking whether there is one costs no import."""
    return committed_model(f"win-value-{game_name}.pt")


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
