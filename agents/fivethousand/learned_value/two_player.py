"""The learned two-player ``W(my score, opponent's score)`` of 5000: :class:`ValueModel`, the
network with its features and its checkpoint (save / load); the default model is the
committed ``learned-value-fivethousand.pt``."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import torch

from agents.fivethousand.learned_value.features import feature_size, state_features
from agents.fivethousand.learned_value.networks import ValueNet
from agents.fivethousand.learned_value.turn import build_turn_model, rules_of
from agents.paths import committed_model
from dice_env.fivethousand.rules import FiveThousandRules
from dice_env.io import atomic_write_bytes

#: where ``LearnedValueAgent`` looks for its model by default
DEFAULT_MODEL_PATH = committed_model("learned-value-fivethousand.pt")
#: version of the checkpoint format (and of :func:`state_features`)
FORMAT_VERSION = 1


class ValueModel:
    """The learned ``W(my score, opponent's score)`` of one rule set: the network, its
    features and its save / load.

    Args:
        rules: the game (literal rules).
        hidden: the MLP's hidden widths.
        seed: seeds the initial weights.
        device: torch device.
    """

    def __init__(self, rules: FiveThousandRules, hidden: tuple[int, ...] = (64, 64),
                 seed: int | None = 0, device: str | torch.device = "cpu") -> None:
        self.rules = rules_of(rules)
        self.turn_model = build_turn_model(self.rules)
        self.hidden = tuple(int(h) for h in hidden)
        self.device = torch.device(device)
        with torch.random.fork_rng(devices=[]):  # seed the weights, not the global stream
            if seed is not None:
                torch.manual_seed(int(seed))
            self.net = ValueNet(feature_size(self.rules), self.hidden).to(self.device)
        m = self.turn_model
        a, b = np.meshgrid(m.scores, m.scores, indexing="ij")
        self.meta: dict = {}
        self._grid_features = torch.as_tensor(state_features(self.rules, a.ravel(), b.ravel()),
                                              device=self.device)

    @property
    def grid_features(self) -> torch.Tensor:
        """``(K * K, F)`` the features of every turn-start pair (row ``ia * K + ib``)."""
        return self._grid_features

    def w_table(self) -> np.ndarray:
        """``(K, K)`` float64: the network's ``W`` at every pair of grid scores."""
        with torch.no_grad():
            w = torch.sigmoid(self.net(self._grid_features)).double().cpu().numpy()
        k = self.turn_model.n_scores
        return w.reshape(k, k)

    def win_probability(self, my_score, opp_score) -> np.ndarray:
        """The network's ``W`` at any scores (points), batched."""
        x = torch.as_tensor(state_features(self.rules, my_score, opp_score), device=self.device)
        with torch.no_grad():
            return torch.sigmoid(self.net(x)).double().cpu().numpy()

    # -- save / load -------------------------------------------------------------------------
    def to_bytes(self, meta: dict | None = None) -> bytes:
        """The checkpoint (``torch.save`` of plain data and CPU tensors)."""
        buf = io.BytesIO()
        torch.save({"format": FORMAT_VERSION, "kind": "learned-value-fivethousand",
                    "rules": self.rules.knobs(), "hidden": list(self.hidden),
                    "n_features": feature_size(self.rules),
                    "state_dict": {k: v.detach().cpu() for k, v in
                                   self.net.state_dict().items()},
                    "meta": dict(meta or {})}, buf)
        return buf.getvalue()

    def save(self, path: str | Path, meta: dict | None = None) -> Path:
        """Write the checkpoint atomically (parents created); returns the path."""
        path = Path(path)
        atomic_write_bytes(path, self.to_bytes(meta))
        return path

    @classmethod
    def load(cls, path: str | Path, device: str | torch.device = "cpu") -> ValueModel:
        """Load a checkpoint written by :meth:`save` (``FileNotFoundError`` if missing)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"no learned-value model at {path}; train one with `dice-env "
                f"train learned-value fivethousand --export {path}`")
        data = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(data, dict) or data.get("kind") != "learned-value-fivethousand":
            raise ValueError(f"{path} is not a 5000 learned-value checkpoint")
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"{path} has checkpoint format {data.get('format')}, this code "
                             f"reads {FORMAT_VERSION}; retrain it")
        rules = FiveThousandRules.from_knobs(data["rules"])
        if data.get("n_features") != feature_size(rules):
            raise ValueError(f"{path} was trained on {data.get('n_features')} features, this "
                             f"code makes {feature_size(rules)}; retrain it")
        model = cls(rules, tuple(data["hidden"]), seed=None, device=device)
        model.net.load_state_dict(data["state_dict"])
        model.meta = dict(data.get("meta") or {})
        return model

