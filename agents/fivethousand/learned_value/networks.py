"""The torch modules of the learned values of 5000: :class:`ValueNet` (two players, an MLP
over :func:`~agents.fivethousand.learned_value.features.state_features`) and
:class:`NValueNet` (``N`` players, over
:class:`~agents.fivethousand.learned_value.features.NFeatures`)."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.networks import mlp


class ValueNet(nn.Module):
    """An MLP from :func:`state_features` to the logit of ``W``."""

    def __init__(self, n_features: int, hidden: tuple[int, ...] = (64, 64)) -> None:
        super().__init__()
        self.body = mlp(n_features, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(N,)`` logits of the win probability."""
        return self.body(x).squeeze(-1)


class NValueNet(nn.Module):
    """Dense features through a linear layer plus the categorical rows of one embedding table,
    summed (the first hidden layer), then ``SiLU`` MLP layers and ``N`` logits (softmax: the
    win probability of each seat)."""

    def __init__(self, n_dense: int, n_rows: int, n_cat: int, num_players: int,
                 hidden: tuple[int, ...] = (128, 128)) -> None:
        super().__init__()
        width = hidden[0]
        self.dense = nn.Linear(n_dense, width)
        bound = 1.0 / np.sqrt(n_dense + n_cat)   # what a linear layer over the one-hots gets
        self.table = nn.Parameter(torch.empty(n_rows, width).uniform_(-bound, bound))
        layers: list[nn.Module] = [nn.SiLU()]
        for h in hidden[1:]:
            layers += [nn.Linear(width, h), nn.SiLU()]
            width = h
        layers.append(nn.Linear(width, num_players))
        self.body = nn.Sequential(*layers)

    def forward(self, dense: torch.Tensor, cat: torch.Tensor) -> torch.Tensor:
        """``(B, N)`` logits."""
        h = self.dense(dense) + nn.functional.embedding_bag(cat, self.table, mode="sum")
        return self.body(h)

