"""The on-disk table cache: round trip, keys, atomic writes, and corruption handling."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from agents.solvers import cache as C
from agents.solvers import scorecard_dp as DP

KEY = {"solver": "test", "format_version": 1, "rules": {"name": "x", "boxes": ["a", "b"]}}


def _arrays():
    return {"values": np.arange(60, dtype=np.float64).reshape(3, 4, 5) / 7,
            "mask": np.array([True, False, True]),
            "small": np.array([[1, 2], [3, 4]], dtype=np.int16)}


def _save(tmp_path: Path) -> Path:
    path = C.cache_path(tmp_path, "test-game", KEY)
    C.save_table(path, KEY, _arrays(), {"seconds": 1.5})
    return path


def test_round_trip(tmp_path):
    path = _save(tmp_path)
    assert path.parent == tmp_path and path.name.startswith("test-game-")
    loaded = C.load_table(path, KEY)
    assert loaded is not None
    arrays, meta = loaded
    assert meta == {"seconds": 1.5}
    for name, arr in _arrays().items():
        np.testing.assert_array_equal(arrays[name], arr)
        assert arrays[name].dtype == arr.dtype
        assert arrays[name].flags.writeable
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left behind


def test_missing_file_is_silently_none(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert C.load_table(tmp_path / "nothing.table", KEY) is None


def test_path_depends_on_the_key(tmp_path):
    other = dict(KEY, format_version=2)
    assert C.cache_path(tmp_path, "g", KEY) != C.cache_path(tmp_path, "g", other)
    assert C.cache_path(tmp_path, "g", KEY) == C.cache_path(tmp_path, "g", dict(KEY))


def _corruptions():
    def truncate(data: bytes) -> bytes:
        return data[: len(data) // 2]

    def truncate_tail(data: bytes) -> bytes:
        return data[:-1]

    def flip_payload(data: bytes) -> bytes:
        b = bytearray(data)
        b[-100] ^= 0x01
        return bytes(b)

    def flip_header(data: bytes) -> bytes:
        b = bytearray(data)
        b[len(C.MAGIC) + 8 + 10] ^= 0x20
        return bytes(b)

    def bad_magic(data: bytes) -> bytes:
        return b"NOT-A-TABLE-FILE" + data[16:]

    def huge_header_length(data: bytes) -> bytes:
        b = bytearray(data)
        b[len(C.MAGIC): len(C.MAGIC) + 8] = (2**40).to_bytes(8, "little")
        return bytes(b)

    def empty(data: bytes) -> bytes:
        return b""

    def trailing_garbage(data: bytes) -> bytes:
        return data + b"\x00" * 8

    return [truncate, truncate_tail, flip_payload, flip_header, bad_magic, huge_header_length,
            empty, trailing_garbage]


@pytest.mark.parametrize("corrupt", _corruptions(), ids=lambda f: f.__name__)
def test_corrupted_file_warns_and_is_not_used(tmp_path, corrupt):
    path = _save(tmp_path)
    path.write_bytes(corrupt(path.read_bytes()))
    with pytest.warns(C.CacheCorruptionWarning, match="recomputed"):
        assert C.load_table(path, KEY) is None


def test_other_key_in_the_file_warns(tmp_path):
    path = _save(tmp_path)
    with pytest.warns(C.CacheCorruptionWarning, match="other rules"):
        assert C.load_table(path, dict(KEY, rules={"name": "y"})) is None


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = _save(tmp_path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        C.save_table(path, KEY, {"values": np.zeros(3)})
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_object_arrays_are_refused(tmp_path):
    with pytest.raises(TypeError):
        C.save_table(tmp_path / "x.table", KEY, {"bad": np.array([{}, 1], dtype=object)})


def test_cache_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv(C.ENV_VAR, str(tmp_path / "from-env"))
    assert C.resolve_cache_dir() == tmp_path / "from-env"
    assert C.resolve_cache_dir(tmp_path / "explicit") == tmp_path / "explicit"
    monkeypatch.delenv(C.ENV_VAR)
    default = C.resolve_cache_dir()
    assert default.is_absolute() and "dice-env" in str(default)


# -- the solver through the cache -------------------------------------------------------------

GAME = "yahtzee-no-bonus"  # the quickest preset to solve


def test_solver_writes_reads_and_recovers_from_corruption(tmp_path, monkeypatch):
    monkeypatch.setenv(C.ENV_VAR, str(tmp_path / "env-cache"))  # must not be used
    first = DP.load_or_solve_scorecard(GAME, cache_dir=tmp_path)
    assert first.source == "solved" and first.cache_path.parent == tmp_path
    files = list(tmp_path.glob("*.table"))
    assert files == [first.cache_path]

    second = DP.load_or_solve_scorecard(GAME, cache_dir=tmp_path)
    assert second.source == "cache"
    np.testing.assert_array_equal(second.values, first.values)
    assert second.expected_score == first.expected_score

    data = first.cache_path.read_bytes()
    first.cache_path.write_bytes(data[: len(data) - 1000])  # truncated
    with pytest.warns(C.CacheCorruptionWarning):
        third = DP.load_or_solve_scorecard(GAME, cache_dir=tmp_path)
    assert third.source == "solved"
    np.testing.assert_array_equal(third.values, first.values)
    # ... and the file was rewritten, intact
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert DP.load_or_solve_scorecard(GAME, cache_dir=tmp_path).source == "cache"
    assert not (tmp_path / "env-cache").exists()


def test_env_variable_force_and_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(C.ENV_VAR, str(tmp_path))
    sol = DP.load_or_solve_scorecard(GAME)
    assert sol.cache_path.parent == tmp_path
    assert DP.load_or_solve_scorecard(GAME, force=True).source == "solved"
    other = tmp_path / "other"
    sol = DP.load_or_solve_scorecard(GAME, cache_dir=other, use_cache=False)
    assert sol.source == "solved" and sol.cache_path is None and not other.exists()


def test_unwritable_cache_only_warns(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.warns(RuntimeWarning, match="could not write"):
        sol = DP.load_or_solve_scorecard(GAME, cache_dir=blocker / "cache")
    assert sol.source == "solved" and sol.cache_path is None


def test_table_of_other_rules_is_not_used(tmp_path):
    """A file copied over another game's name is caught by the key check."""
    sol = DP.load_or_solve_scorecard(GAME, cache_dir=tmp_path)
    target = C.cache_path(tmp_path, "scorecard-yahtzee-official",
                          DP.cache_key(DP.get_rules("yahtzee-official")))
    target.write_bytes(sol.cache_path.read_bytes())
    with pytest.warns(C.CacheCorruptionWarning, match="other rules"):
        other = DP.load_or_solve_scorecard("yahtzee-official", cache_dir=tmp_path)
    assert other.source == "solved"
    assert other.expected_score == pytest.approx(254.5877, abs=5e-4)
