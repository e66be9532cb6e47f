"""How a trained learned-value model is written beside its learning curve, and where an export
the user asks for by default (``--export default``) goes."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dice_env.io import atomic_write_text

__all__ = ["export_path", "write_model_and_curve"]


def export_path(given: str | Path | None, name: str) -> Path | None:
    """Where an export asked for as ``given`` is written: ``None`` for none, the path given, or
    for ``"default"`` ``<name>.pt`` in the user's models folder
    (:func:`agents.paths.user_models_dir`: never the installed package)."""
    from agents.paths import user_models_dir

    if given is None:
        return None
    return user_models_dir() / f"{name}.pt" if str(given) == "default" else Path(given)


def write_model_and_curve(result: Any, model_path: str | Path,
                          columns: tuple[str, ...] | list[str]) -> dict[str, Path]:
    """Write ``result.model`` (with ``result.meta()``) to ``model_path`` and, next to it, the
    learning curve as ``<stem>.curve.json`` (with the config and seconds) and
    ``<stem>.curve.csv`` (``columns``; empty cells for missing values), all atomically.

    Returns the paths written: ``model``, ``curve_json``, ``curve_csv``.
    """
    model_path = Path(model_path)
    result.model.save(model_path, result.meta())
    stem = model_path.with_suffix("")
    paths = {"model": model_path, "curve_json": Path(f"{stem}.curve.json"),
             "curve_csv": Path(f"{stem}.curve.csv")}
    atomic_write_text(paths["curve_json"], json.dumps(
        {"config": asdict(result.config), "seconds": round(result.seconds, 1),
         "curve": result.curve}, indent=1) + "\n")
    lines = [",".join(columns)]
    for row in result.curve:
        lines.append(",".join("" if row.get(c) is None else str(row.get(c)) for c in columns))
    atomic_write_text(paths["curve_csv"], "\n".join(lines) + "\n")
    return paths
