"""The grid of a Tune sweep: ``--grid KEY=V1,V2`` options, their product, and folder names for
its points."""

from __future__ import annotations

import hashlib
import itertools
import re

__all__ = ["grid_points", "parse_grid", "point_slug", "split_values"]


def split_values(text: str) -> list[str]:
    """``"a,[1,2],{"x": 3}"`` -> ``["a", "[1,2]", '{"x": 3}']``: commas inside brackets,
    braces or quotes do not split."""
    values, depth, quote, current = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            values.append("".join(current))
            current = []
            continue
        current.append(ch)
    values.append("".join(current))
    return values


def parse_grid(items: list[str]) -> list[tuple[str, list[str]]]:
    """``["ppo.ent_coef=0.003,0.01"]`` -> ``[("ppo.ent_coef", ["0.003", "0.01"])]``;
    ``ValueError`` for a malformed item or a key given twice."""
    grid: list[tuple[str, list[str]]] = []
    for item in items:
        key, sep, raw = item.partition("=")
        values = split_values(raw)
        if not sep or not key or any(not v for v in values):
            raise ValueError(f"--grid {item!r} should look like KEY=V1,V2,..., e.g. "
                             "ppo.ent_coef=0.003,0.01")
        if key in (k for k, _ in grid):
            raise ValueError(f"--grid gives {key!r} twice; list all its values in one --grid")
        if len(set(values)) != len(values):
            raise ValueError(f"--grid {item!r} repeats a value")
        grid.append((key, values))
    return grid


def grid_points(grid: list[tuple[str, list[str]]]) -> list[list[str]]:
    """Every combination of the grid as a list of ``KEY=VALUE`` overrides (one empty point
    without a grid)."""
    keys = [k for k, _ in grid]
    return [[f"{k}={v}" for k, v in zip(keys, combo)]
            for combo in itertools.product(*(values for _, values in grid))]


def point_slug(point: list[str]) -> str:
    """A folder name for a grid point: ``ppo.ent_coef=0.01`` (long ones shortened + hash)."""
    if not point:
        return "base"
    text = ",".join(point)
    slug = re.sub(r"[^A-Za-z0-9._=,+-]+", "_", text)
    if len(slug) > 80 or slug != text:
        slug = slug[:70] + "-" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return slug
