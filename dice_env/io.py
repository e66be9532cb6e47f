"""Atomic file writes: tables, checkpoints and results are never seen half-written."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """Open a temporary file beside ``path`` for binary writing; on success it replaces ``path``.

    The temporary file is flushed and fsynced before :func:`os.replace`, so a crash leaves
    either the old file or the new one, never a truncated mix.  On error it is removed.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path) as f:
        f.write(data)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_figure(path: str | os.PathLike, figure, dpi: int = 110) -> None:
    """Save a matplotlib ``figure`` as a PNG at ``path`` atomically, then close it."""
    import io

    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=dpi)
    import matplotlib.pyplot as plt

    plt.close(figure)
    atomic_write_bytes(path, buf.getvalue())
