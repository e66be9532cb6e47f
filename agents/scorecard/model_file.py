"""The file format of the scorecard players' value networks (learned value, win value).

A model file is ``torch.save`` of a dict: a format tag, the feature version of the code that
trained it, the rules' knobs, the hidden widths, the weights and free ``meta`` (training
record).  :class:`ModelFile` gives a network class built as ``cls(rules, hidden)`` its
``to_bytes`` / ``save`` / ``from_bytes`` / ``load``; a damaged file, another kind of model or
an older feature version is refused with a message that says to retrain.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, ClassVar

import torch

from dice_env.io import atomic_write_bytes
from dice_env.scorecard.rules import Rules

__all__ = ["ModelFile"]


class ModelFile:
    """Mixin of an ``nn.Module`` with ``rules`` and ``hidden`` attributes, built by
    ``cls(rules, hidden)``: set :attr:`FILE_FORMAT` and :attr:`FEATURE_VERSION`."""

    FILE_FORMAT: ClassVar[str]
    FEATURE_VERSION: ClassVar[int]

    def to_bytes(self, meta: dict | None = None) -> bytes:
        """The model (rules, sizes, weights and ``meta``) as ``torch.save`` bytes."""
        buf = io.BytesIO()
        module: Any = self
        torch.save({"format": self.FILE_FORMAT, "feature_version": self.FEATURE_VERSION,
                    "rules": module.rules.knobs(), "hidden": list(module.hidden),
                    "state_dict": {k: v.detach().cpu().clone()
                                   for k, v in module.state_dict().items()},
                    "meta": meta or {}}, buf)
        return buf.getvalue()

    def save(self, path: str | Path, meta: dict | None = None) -> None:
        """Write the model to ``path`` atomically."""
        atomic_write_bytes(path, self.to_bytes(meta))

    @classmethod
    def from_bytes(cls, data: bytes, origin: str = "the model",
                   device: str = "cpu") -> tuple[Any, dict]:
        """``(model, meta)`` from :meth:`to_bytes` output, in eval mode on ``device``."""
        kind = f"a {cls.FILE_FORMAT} model"
        try:
            blob = torch.load(io.BytesIO(data), map_location=device, weights_only=True)
        except Exception as exc:  # torch raises several kinds on a damaged file
            raise ValueError(f"{origin} is not {kind} ({type(exc).__name__}); retrain it or "
                             "point model_path at a good file") from None
        if not isinstance(blob, dict) or blob.get("format") != cls.FILE_FORMAT:
            raise ValueError(f"{origin} is not {kind}")
        if blob.get("feature_version") != cls.FEATURE_VERSION:
            raise ValueError(f"{origin} was trained with feature version "
                             f"{blob.get('feature_version')}, this code has "
                             f"{cls.FEATURE_VERSION}; retrain it")
        knobs = dict(blob["rules"])
        knobs["boxes"], knobs["labels"] = tuple(knobs["boxes"]), tuple(knobs["labels"])
        model = cls(Rules(**knobs), tuple(blob["hidden"]))  # type: ignore[call-arg]
        model.load_state_dict(blob["state_dict"])  # type: ignore[attr-defined]
        return model.to(device).eval(), dict(blob.get("meta", {}))  # type: ignore[attr-defined]

    @classmethod
    def load(cls, path: str | Path, device: str = "cpu") -> tuple[Any, dict]:
        """``(model, meta)`` read from a file written by :meth:`save`."""
        return cls.from_bytes(Path(path).read_bytes(), str(path), device)
