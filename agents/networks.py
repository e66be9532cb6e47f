"""The small torch network the learned-value players of both game families are built on."""

from __future__ import annotations

__all__ = ["mlp"]


def mlp(n_in: int, hidden: tuple[int, ...]):
    """``Sequential`` of ``Linear`` + ``SiLU`` per hidden width, then one linear output."""
    from torch import nn

    layers: list[nn.Module] = []
    width = n_in
    for h in hidden:
        layers += [nn.Linear(width, h), nn.SiLU()]
        width = h
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)
