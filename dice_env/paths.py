"""Where dice-env keeps files of its own: the per-user cache and data folders.

* :func:`cache_dir` -- solved tables and numba's compiled kernels: ``$DICE_ENV_CACHE``, else
  the platform's user cache folder (``~/.cache/dice-env`` on Linux);
* :func:`user_data_dir` -- the user's own trained models (``models/``): ``$DICE_ENV_HOME``,
  else the platform's user data folder (``~/.local/share/dice-env`` on Linux).

The committed models, which ship inside the ``agents`` package, are found by
:mod:`agents.paths`, which re-exports these. Nothing is ever written into the installed
package: :func:`configure_numba_cache` (run when :mod:`dice_env` is imported) points numba's
on-disk kernel cache at the cache folder, unless ``NUMBA_CACHE_DIR`` says otherwise.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

__all__ = ["CACHE_ENV_VAR", "HOME_ENV_VAR", "cache_dir", "configure_numba_cache",
           "user_data_dir", "user_models_dir"]

#: the environment variable that moves the cache folder
CACHE_ENV_VAR = "DICE_ENV_CACHE"
#: the environment variable that moves the user data folder (the user's own models)
HOME_ENV_VAR = "DICE_ENV_HOME"
_APP = "dice-env"


def cache_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The cache folder: ``explicit`` if given, else ``$DICE_ENV_CACHE``, else the user cache."""
    if explicit is not None:
        return Path(explicit).expanduser()
    env = os.environ.get(CACHE_ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir(_APP, appauthor=False))


def user_data_dir() -> Path:
    """The user's data folder: ``$DICE_ENV_HOME``, else the platform's user data folder."""
    env = os.environ.get(HOME_ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(_APP, appauthor=False))


def user_models_dir() -> Path:
    """Where a trainer exports the user's own models when not told where:
    ``<user data folder>/models``."""
    return user_data_dir() / "models"


def configure_numba_cache() -> None:
    """Send numba's cache of compiled kernels (``cache=True``) to ``<cache folder>/numba``
    instead of ``__pycache__`` beside the installed sources; a ``NUMBA_CACHE_DIR`` the user set
    wins.  Must run before the kernels are defined (it does: ``import dice_env`` runs it)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    folder = str(cache_dir() / "numba")
    os.environ["NUMBA_CACHE_DIR"] = folder
    config = getattr(sys.modules.get("numba"), "config", None)
    if config is not None and not getattr(config, "CACHE_DIR", ""):
        config.CACHE_DIR = folder  # numba was imported first: its config was read already
