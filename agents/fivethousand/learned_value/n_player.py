"""The learned ``N``-player value of 5000: :class:`NValueModel`, the network
``W(s_0, ..., s_{N-1}) -> P(each seat wins)`` of a turn start (the scores in turn order from
the mover) with its checkpoint; where the committed ``N``-player models are
(:func:`n_player_model_path`) and the command that trains one (:func:`train_command`); and
:func:`load_model`, a checkpoint of either kind."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.fivethousand.learned_value.features import NFeatures
from agents.fivethousand.learned_value.networks import NValueNet
from agents.fivethousand.learned_value.turn import build_turn_model, rules_of
from agents.fivethousand.learned_value.two_player import ValueModel
from agents.paths import committed_model
from dice_env.fivethousand.rules import FiveThousandRules, check_num_players
from dice_env.io import atomic_write_bytes

#: the table sizes an N-player model may be trained for
MIN_N_PLAYERS, MAX_N_PLAYERS = 3, 6
#: the checkpoint kind and format of the N-player network (and of :class:`NFeatures`)
N_KIND = "learned-value-fivethousand-n"
N_FORMAT_VERSION = 1


def check_model_players(num_players: Any) -> int:
    """``num_players`` as an int for which an N-player model exists: a 5000 table's size
    (:func:`dice_env.fivethousand.rules.check_num_players`, the rule's range) that is also
    from :data:`MIN_N_PLAYERS` to :data:`MAX_N_PLAYERS` (two players have their own model)."""
    n = check_num_players(num_players)
    if not MIN_N_PLAYERS <= n <= MAX_N_PLAYERS:
        raise ValueError(f"an N-player learned value is for {MIN_N_PLAYERS} to {MAX_N_PLAYERS} "
                         f"players, got {num_players!r}")
    return n


def n_player_model_path(num_players: int) -> Path:
    """Where the ``N``-player model is looked for:
    the committed ``learned-value-fivethousand-<N>p.pt`` (package data)."""
    return committed_model(f"learned-value-fivethousand-{check_model_players(num_players)}p.pt")


def train_command(num_players: int, path: str | Path) -> str:
    """The command that trains the ``N``-player model and writes it at ``path``."""
    return (f"dice-env train learned-value fivethousand --players {num_players} "
            f"--export {path}")



class NValueModel:
    """The learned ``W(s_0, ..., s_{N-1})`` of ``N``-player 5000: the probability that each
    seat wins from the start of a turn, the scores in turn order from the mover (seat 0
    moves); the network (:class:`NValueNet` over :class:`NFeatures`) and its save / load.

    Args:
        rules: the game (literal rules).
        num_players: ``N`` (3 to 6).
        hidden: the hidden widths (the first one is the width of the embedding table).
        seed: seeds the initial weights.
        device: torch device.
    """

    def __init__(self, rules: FiveThousandRules, num_players: int,
                 hidden: tuple[int, ...] = (128, 128), seed: int | None = 0,
                 device: str | torch.device = "cpu") -> None:
        self.rules = rules_of(rules)
        self.num_players = check_model_players(num_players)
        self.turn_model = build_turn_model(self.rules)
        self.features = NFeatures(self.rules, self.num_players)
        self.hidden = tuple(int(h) for h in hidden)
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden widths must be positive, got {hidden!r}")
        self.device = torch.device(device)
        f = self.features
        with torch.random.fork_rng(devices=[]):  # seed the weights, not the global stream
            if seed is not None:
                torch.manual_seed(int(seed))
            self.net = NValueNet(f.n_dense, f.n_rows, f.n_cat, self.num_players,
                                 self.hidden).to(self.device)
        self.net.eval()
        self.meta: dict = {}

    def __repr__(self) -> str:
        return (f"NValueModel(num_players={self.num_players}, hidden={self.hidden}, "
                f"rules={self.rules.knobs()})")

    def tensors(self, idx) -> tuple[torch.Tensor, torch.Tensor]:
        """The network's inputs of states ``idx`` (grid indices, mover first) as tensors."""
        dense, cat = self.features.encode(idx)
        return (torch.as_tensor(dense, device=self.device),
                torch.as_tensor(cat, device=self.device))

    def probabilities(self, idx, chunk: int = 65536) -> np.ndarray:
        """``(B, N)`` float64: the network's win probabilities of states ``idx`` (grid indices,
        mover first), each row summing to 1."""
        idx = np.atleast_2d(np.asarray(idx, dtype=np.int64))
        out = np.empty(idx.shape, dtype=np.float64)
        with torch.no_grad():
            for lo in range(0, len(idx), chunk):
                logits = self.net(*self.tensors(idx[lo:lo + chunk]))
                out[lo:lo + chunk] = torch.softmax(logits.double(), dim=1).cpu().numpy()
        return out

    def win_probabilities(self, scores) -> np.ndarray:
        """The network's ``W`` at scores in points ``(..., N)`` (turn order from the mover)."""
        s = np.asarray(scores, dtype=np.int64)
        idx = self.turn_model.index(s.reshape(-1, s.shape[-1]))
        return self.probabilities(idx).reshape(s.shape)

    # -- save / load -------------------------------------------------------------------------
    def to_bytes(self, meta: dict | None = None) -> bytes:
        """The checkpoint (``torch.save`` of plain data and CPU tensors)."""
        buf = io.BytesIO()
        torch.save({"format": N_FORMAT_VERSION, "kind": N_KIND, "rules": self.rules.knobs(),
                    "num_players": self.num_players, "hidden": list(self.hidden),
                    "n_dense": self.features.n_dense, "n_rows": self.features.n_rows,
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
    def load(cls, path: str | Path, device: str | torch.device = "cpu",
             num_players: int | None = None) -> NValueModel:
        """Load a checkpoint written by :meth:`save` (``FileNotFoundError`` if missing, with
        the command that trains one)."""
        path = Path(path)
        if not path.is_file():
            n = num_players if num_players is not None else "N"
            raise FileNotFoundError(
                f"no {n}-player learned-value model at {path}; train one with `"
                f"{train_command(n, path)}` (about 10 to 15 minutes on two cores)")
        data = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(data, dict) or data.get("kind") != N_KIND:
            raise ValueError(f"{path} is not an N-player 5000 learned-value checkpoint")
        if data.get("format") != N_FORMAT_VERSION:
            raise ValueError(f"{path} has checkpoint format {data.get('format')}, this code "
                             f"reads {N_FORMAT_VERSION}; retrain it")
        if num_players is not None and data.get("num_players") != num_players:
            raise ValueError(f"{path} is a {data.get('num_players')}-player model, not a "
                             f"{num_players}-player one")
        rules = FiveThousandRules.from_knobs(data["rules"])
        model = cls(rules, int(data["num_players"]), tuple(data["hidden"]), seed=None,
                    device=device)
        f = model.features
        if (data.get("n_dense"), data.get("n_rows")) != (f.n_dense, f.n_rows):
            raise ValueError(f"{path} was trained on other features; retrain it")
        model.net.load_state_dict(data["state_dict"])
        model.net.eval()
        model.meta = dict(data.get("meta") or {})
        return model


def load_model(path: str | Path, device: str | torch.device = "cpu"
               ) -> ValueModel | NValueModel:
    """A 5000 learned-value checkpoint of either kind: the two-player :class:`ValueModel` or
    an :class:`NValueModel`."""
    path = Path(path)
    if path.is_file():
        data = torch.load(path, map_location="cpu", weights_only=True)
        if isinstance(data, dict) and data.get("kind") == N_KIND:
            return NValueModel.load(path, device=device)
    return ValueModel.load(path, device=device)

