"""On-disk cache of solved tables: keyed, versioned, checksummed, written atomically.

A cached table is one file holding named numpy arrays plus a JSON header::

    MAGIC (16 bytes) | header length (8 bytes, little endian) | header (UTF-8 JSON)
    | payload (the arrays' raw bytes, one after the other) | SHA-256 of header + payload (32 bytes)

The header records the *key* (a JSON-serialisable dict: what was solved, e.g. the rules'
knobs, and the solver's format version), free-form metadata, and the dtype/shape/offset of
every array.  The file name is derived from a hash of the key, and the key is checked again
on load, so a table is never used for rules other than its own.

Files are written to a temporary file in the same folder and moved into place with
:func:`os.replace`, so a reader never sees a half-written table.  A file that is truncated,
has a bad header, a different key or a checksum mismatch is reported with
:class:`CacheCorruptionWarning` (via :func:`warnings.warn`) and treated as missing: the caller
recomputes and overwrites it.

Where the cache lives (:func:`resolve_cache_dir`): an explicit argument, else the environment
variable ``DICE_ENV_CACHE``, else the user cache folder of ``platformdirs``.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import warnings
from pathlib import Path

import numpy as np

from agents import paths
from dice_env.io import atomic_open

MAGIC = b"DICE-ENV-TABLE\x00\x01"
ENV_VAR = paths.CACHE_ENV_VAR
_LEN = struct.Struct("<Q")
_DIGEST_SIZE = 32
_MAX_HEADER = 1 << 20


class CacheCorruptionWarning(UserWarning):
    """A cached table could not be used (truncated, bad header, wrong key, bad checksum)."""


def resolve_cache_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """The cache folder: ``cache_dir`` if given, else ``$DICE_ENV_CACHE``, else the user cache
    (:func:`agents.paths.cache_dir`)."""
    return paths.cache_dir(cache_dir)


def key_digest(key: dict) -> str:
    """A stable hex digest of a JSON-serialisable key (sorted keys, compact separators)."""
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def cache_path(cache_dir: str | os.PathLike | None, stem: str, key: dict) -> Path:
    """The file of the table with this key: ``<cache dir>/<stem>-<key digest[:16]>.table``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in stem)
    return resolve_cache_dir(cache_dir) / f"{safe}-{key_digest(key)[:16]}.table"


def save_table(path: str | os.PathLike, key: dict, arrays: dict[str, np.ndarray],
               meta: dict | None = None) -> Path:
    """Write ``arrays`` under ``key`` to ``path`` atomically (temp file + ``os.replace``).

    Creates the folder if needed.  Returns the path.  Raises ``OSError`` if it cannot write.
    """
    path = Path(path)
    entries, blobs, offset = [], [], 0
    for name, arr in arrays.items():
        a = np.ascontiguousarray(arr)
        if a.dtype.hasobject:
            raise TypeError(f"array {name!r} has dtype object; only plain dtypes are cached")
        entries.append({"name": name, "dtype": a.dtype.str, "shape": list(a.shape),
                        "offset": offset, "nbytes": a.nbytes})
        blobs.append(a.tobytes())
        offset += a.nbytes
    header = json.dumps({"key": key, "meta": meta or {}, "arrays": entries,
                         "payload_nbytes": offset}, sort_keys=True).encode("utf-8")
    digest = hashlib.sha256(header)
    for blob in blobs:
        digest.update(blob)

    with atomic_open(path) as f:
        f.write(MAGIC)
        f.write(_LEN.pack(len(header)))
        f.write(header)
        for blob in blobs:
            f.write(blob)
        f.write(digest.digest())
    return path


def _corrupt(path: Path, why: str) -> None:
    warnings.warn(f"ignoring cached table {path}: {why}; it will be recomputed",
                  CacheCorruptionWarning, stacklevel=3)


def load_table(path: str | os.PathLike, key: dict) -> tuple[dict[str, np.ndarray], dict] | None:
    """Read the table at ``path`` if it exists and is intact and its key equals ``key``.

    Returns ``(arrays, meta)``, or ``None`` when the file is missing.  A file that exists
    but cannot be trusted (truncated, bad magic or header, another key, checksum mismatch)
    gives a :class:`CacheCorruptionWarning` and ``None`` -- it is never used silently.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        _corrupt(path, f"cannot be read ({exc})")
        return None

    head = len(MAGIC) + _LEN.size
    if len(data) < head + _DIGEST_SIZE:
        _corrupt(path, "file is truncated")
        return None
    if data[: len(MAGIC)] != MAGIC:
        _corrupt(path, "bad magic number (not a dice-env table, or another format)")
        return None
    (header_len,) = _LEN.unpack_from(data, len(MAGIC))
    if header_len > _MAX_HEADER or head + header_len + _DIGEST_SIZE > len(data):
        _corrupt(path, "bad header length (truncated or corrupted)")
        return None
    header_bytes = data[head: head + header_len]
    body_end = len(data) - _DIGEST_SIZE
    digest = hashlib.sha256(data[head:body_end]).digest()
    if digest != data[body_end:]:
        what = "checksum mismatch"
        try:
            expected_len = json.loads(header_bytes)["payload_nbytes"]
            if body_end - head - header_len != expected_len:
                what = "file is truncated or has trailing bytes (checksum mismatch)"
        except (ValueError, KeyError, TypeError):
            pass
        _corrupt(path, what)
        return None
    try:
        header = json.loads(header_bytes)
        stored_key, meta, entries = header["key"], header["meta"], header["arrays"]
    except (ValueError, KeyError, TypeError):
        _corrupt(path, "bad header")
        return None
    if stored_key != json.loads(json.dumps(key)):
        _corrupt(path, "it was made for other rules or another solver version")
        return None

    payload = memoryview(data)[head + header_len: body_end]
    arrays = {}
    try:
        for e in entries:
            start, nbytes = int(e["offset"]), int(e["nbytes"])
            if start < 0 or start + nbytes > len(payload):
                raise ValueError("array outside the payload")
            arr = np.frombuffer(payload[start: start + nbytes], dtype=np.dtype(e["dtype"]))
            arrays[e["name"]] = arr.reshape(e["shape"]).copy()
    except (ValueError, KeyError, TypeError) as exc:
        _corrupt(path, f"bad array table in header ({exc})")
        return None
    return arrays, meta


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MB.

    Linux: ``VmHWM`` of ``/proc/self/status`` (``ru_maxrss`` would include the parent's memory
    when a script is started by another Python process: it survives ``exec``).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    import sys

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 1024
