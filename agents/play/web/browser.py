"""Where the system's Chromium is: the browser the web app's tests and screenshots drive.

Playwright cannot download browsers here, so it launches Debian's ``chromium`` (``apt-get
install chromium``); ``DICE_ENV_CHROMIUM`` names another executable.
"""

from __future__ import annotations

import os
import shutil

__all__ = ["CHROMIUM_NAMES", "chromium_path"]

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str | None:
    """The Chromium executable (``DICE_ENV_CHROMIUM`` overrides), or None if there is none."""
    return os.environ.get("DICE_ENV_CHROMIUM") or next(
        (p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)
