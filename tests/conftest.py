"""Fixtures shared by several test files: a headless Chromium driven by Playwright.

Browsers cannot be downloaded here, so Playwright launches the system's Chromium (Debian's
``chromium`` package, installed by ``.ci/run``). Outside CI a machine without it skips the
browser tests; in CI (``CI`` set) a missing browser is a failure, never a silent skip.
"""

from __future__ import annotations

import os

import pytest

from agents.play.web.browser import chromium_path


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests need {reason} (.ci/run installs it)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium for the whole session (one per xdist worker)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package (pip install -e '.[web,dev]')")
    path = chromium_path()
    if path is None:
        _unavailable("a system Chromium (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True,
                              args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh page in its own context (no shared cookies or storage between tests)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    yield pg
    context.close()
