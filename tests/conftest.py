"""What every test file shares: the suite's own cache, the optional packages, and a headless
Chromium driven by Playwright.

**The suite's own cache.**  Solved tables (``DICE_ENV_CACHE``), numba's compiled kernels
(``NUMBA_CACHE_DIR``) and the user's models (``DICE_ENV_HOME``) go to one temporary folder per
run, never the user's cache: the variables are set here, when pytest loads this file, before
any test module imports :mod:`dice_env` (whose import points numba at the cache folder) or the
cache module (which reads ``DICE_ENV_CACHE`` at each call).  With pytest-xdist the controller
loads this file first and starts the workers afterwards, so they inherit the variables and
share the folder (and the tables one of them built); the process that made the folder removes
it at the end.  Every run therefore builds the tables it needs, as a fresh CI machine does,
and compiles numba's kernels afresh (a minute or so of CPU in all): numba's cache does not
notice a change in another module a kernel calls, so a kept one could test stale code.

**Optional packages.**  :func:`need` imports one for a test or skips the test -- and under
``CI`` (set, and not ``0`` / ``false``) fails it instead: CI installs every extra, so a
missing package there is a broken install, never a reason to skip.  Under CI every other skip
(a ``pytest.importorskip`` a test file still calls, a ``skipif``) fails as well, apart from a
test that needs a GPU and says so in its reason (:func:`_no_skips_in_ci`); ``.ci/run`` lists
the skips (``-rs``).

**Browsers.**  Browsers cannot be downloaded here, so Playwright launches the system's Chromium
(Debian's ``chromium`` package, installed by ``.ci/run``); a missing browser is, like a
missing package, a skip outside CI and a failure in it.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

#: the suite's folder of this run, passed on to xdist workers and subprocesses
RUN_FOLDER_VAR = "DICE_ENV_TEST_RUN_FOLDER"


def _run_folder() -> tuple[Path, bool]:
    """This run's folder (inherited from the process that started this one, such as the xdist
    controller), else a new one; and whether this process made it."""
    inherited = os.environ.get(RUN_FOLDER_VAR)
    if inherited and Path(inherited).is_dir():
        return Path(inherited), False
    folder = Path(tempfile.mkdtemp(prefix="dice-env-tests-"))
    os.environ[RUN_FOLDER_VAR] = str(folder)
    return folder, True


RUN_FOLDER, _MADE_RUN_FOLDER = _run_folder()
#: the suite's cache folder (solved tables, and numba's kernels in ``numba/``)
CACHE_DIR = RUN_FOLDER / "cache"
os.environ["DICE_ENV_CACHE"] = str(CACHE_DIR)
os.environ["NUMBA_CACHE_DIR"] = str(CACHE_DIR / "numba")
os.environ["DICE_ENV_HOME"] = str(RUN_FOLDER / "home")
if "numba" in sys.modules:  # imported before this file (by a plugin): its config is read
    sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

from agents.play.web.browser import chromium_path  # noqa: E402  (after the cache is set)
from dice_env import paths  # noqa: E402

assert paths.cache_dir() == CACHE_DIR and paths.user_data_dir() == RUN_FOLDER / "home"


def pytest_report_header(config) -> str:
    return f"dice-env test cache: {CACHE_DIR} (DICE_ENV_CACHE, removed at the end)"


def pytest_unconfigure(config) -> None:
    if _MADE_RUN_FOLDER:
        shutil.rmtree(RUN_FOLDER, ignore_errors=True)


# -- optional packages -------------------------------------------------------------------------

def in_ci() -> bool:
    """Whether this is a CI run (``CI`` set, and not ``0`` or ``false``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(what: str) -> None:
    """A test cannot run for want of ``what``: skip it, or fail it under CI."""
    if in_ci():
        pytest.fail(f"CI: the tests need {what}; .ci/run installs it", pytrace=False)
    pytest.skip(f"needs {what}", allow_module_level=True)


def train_penta(*args: object) -> dict:
    """Run ``scripts/train.py penta`` (no progress bar, one thread) with ``args`` from the
    checkout and return its JSON summary (the last line of its output)."""
    import json
    import subprocess

    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "scripts/train.py", "penta", "--no-progress",
                          "--threads", "1", *map(str, args)], cwd=root, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def need(module: str, install: str) -> ModuleType:
    """Import the optional ``module`` (for a test, or a whole test file at module level); if
    a package is missing, skip -- or fail under CI.  ``install`` says how to get it, such as
    ``"pip install -e '.[web]'"``.  A module that is there but fails to import is an error,
    not a skip."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = str(exc)
    unavailable(f"{module} ({install}; {missing})")  # out of the except: no chained traceback
    raise AssertionError("not reached: unavailable() raises")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """Under CI, a test file skipped at module level fails (see :func:`_no_skips_in_ci`)."""
    outcome = yield
    _no_skips_in_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI, a skipped test fails (see :func:`_no_skips_in_ci`)."""
    outcome = yield
    _no_skips_in_ci(outcome.get_result())


def _no_skips_in_ci(report) -> None:
    """CI installs every extra and Chromium, so there a skip -- a missing package, from
    :func:`need` or ``pytest.importorskip``, or any other -- is a failure; only a test that
    needs a GPU (its skip reason names one) may skip."""
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if "GPU" not in reason:
        report.outcome = "failed"
        report.longrepr = f"CI: no test may skip here (only for want of a GPU): {reason}"


# -- browsers ----------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def browser():
    """A headless Chromium for the whole session (one per xdist worker)."""
    sync_api = need("playwright.sync_api", "pip install -e '.[web,dev]'")
    path = chromium_path()
    if path is None:
        unavailable("a system Chromium (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
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
