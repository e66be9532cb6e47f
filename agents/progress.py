"""Progress bars only where a person watches them.

Every progress bar of ``agents`` is made by :func:`progress_bar`: a ``tqdm`` bar that draws
only when its stream (stderr by default) is a terminal or a Jupyter notebook.  Output
redirected to a file or a pipe (``dice-env train ... > log.txt 2>&1``, CI logs) gets no bar, so
no carriage returns or escape codes end up in it.  The bar is still made (disabled) elsewhere,
so code that reads its count, or a stand-in put in place of ``tqdm.auto.tqdm`` (the web app's
workers report the solvers' progress that way), works the same.
"""

from __future__ import annotations

import sys
from typing import IO, Any

__all__ = ["on_terminal", "progress_bar", "progress_note"]


def on_terminal(stream: IO[str] | None = None) -> bool:
    """Whether ``stream`` (default: ``sys.stderr``) is shown to a person as it is written: a
    terminal, or a Jupyter notebook's output."""
    stream = sys.stderr if stream is None else stream
    try:
        if stream.isatty():
            return True
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
    return type(stream).__module__.startswith("ipykernel")


def progress_bar(iterable: Any = None, *, enabled: bool = True, file: IO[str] | None = None,
                 **kwargs: Any) -> Any:
    """``tqdm.auto.tqdm(iterable, **kwargs)``, disabled unless ``enabled`` and its stream
    (``file``, default stderr) is a terminal (:func:`on_terminal`)."""
    import tqdm.auto  # looked up at each call: a stand-in put in its place is used

    kwargs["disable"] = kwargs.get("disable", False) or not (enabled and on_terminal(file))
    if file is not None:
        kwargs["file"] = file
    return tqdm.auto.tqdm(iterable, **kwargs)


def progress_note(text: str) -> None:
    """Print ``text`` as a line of its own, above any progress bar being drawn
    (``tqdm.write``)."""
    import tqdm.auto

    tqdm.auto.tqdm.write(text)
