"""The building blocks shared by the structured networks (torch only): :class:`ActionHead`,
one small network scoring every action of a kind from the action's features and the state's
embedding, and :func:`mlp`.  :mod:`.network` (the scorecard games) and
:mod:`.fivethousand_network` (5000) both build on them, and neither on the other's module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch import nn

__all__ = ["ACTIVATIONS", "ActionHead", "mlp", "network_options"]

#: the activations an action head may use (the trunk and the value MLP use tanh, as SB3's)
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(sizes: Sequence[int], activation: type[nn.Module] = nn.Tanh) -> nn.Sequential:
    """Linear layers of ``sizes``, each followed by ``activation`` (tanh, as SB3's MLPs)."""
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), activation()]
    return nn.Sequential(*layers)


class ActionHead(nn.Module):
    """One network over every action of a kind: the logit of an action with features ``f`` in
    a state with embedding ``e`` is

        ``w . act(... act(A e + F f + c)) [+ (G e) . f]``

    a small MLP of the pair and, with ``linear_term``, a term linear in the features with
    weights the state sets (``G e``: how much each box's expected points are worth now, say).
    :meth:`state_terms` projects ``e`` once per state (``A e + c`` and ``G e``); :meth:`forward`
    takes them gathered (or broadcast) to each action's row.
    """

    def __init__(self, n_state: int, n_features: int, hidden: Sequence[int],
                 activation: str, linear_term: bool) -> None:
        super().__init__()
        first, *rest = hidden
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; known: {sorted(ACTIVATIONS)}")
        self.activation = ACTIVATIONS[activation]()
        self.n_hidden = first
        self.linear_term = bool(linear_term)
        #: ``A`` and ``G`` stacked: one matmul per state
        self.state_in = nn.Linear(n_state, first + (n_features if linear_term else 0))
        self.feature_in = nn.Linear(n_features, first, bias=False)
        self.hidden = mlp([first, *rest], ACTIVATIONS[activation])
        self.logit = nn.Linear(hidden[-1], 1)

    def state_terms(self, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``A e + c`` ``(N, first hidden)`` and ``G e`` ``(N, F)``, once per state."""
        terms = self.state_in(state)
        return terms[:, :self.n_hidden], terms[:, self.n_hidden:]

    def forward(self, hidden_term: torch.Tensor, linear_term: torch.Tensor,
                features: torch.Tensor) -> torch.Tensor:
        """Logits of actions with ``features`` ``(..., F)``; the two :meth:`state_terms`
        gathered (or broadcast) to the actions' rows."""
        if features.dim() == 2 and hidden_term.shape == (len(features), self.n_hidden):
            z = torch.addmm(hidden_term, features, self.feature_in.weight.t())  # one pass
        else:
            z = hidden_term + self.feature_in(features)
        # the logit layer as a matrix-vector product: Linear(h, 1)'s backward is an outer
        # product through a matrix multiply, several times slower on a CPU
        logits = torch.matmul(self.hidden(self.activation(z)), self.logit.weight[0]) \
            + self.logit.bias
        if self.linear_term:
            logits = logits + torch.linalg.vecdot(linear_term, features)
        return logits


def network_options(defaults: Mapping[str, Any], options: Mapping[str, Any],
                    policy: str = "the structured policy") -> dict[str, Any]:
    """``options`` over ``defaults``, checked: ``ValueError`` naming ``policy`` for an unknown
    option, or for a state trunk or action head without a layer."""
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise ValueError(f"unknown options {unknown} of {policy}; known: {sorted(defaults)}")
    merged = {**defaults, **options}
    if not merged["state_hidden"] or not merged["action_hidden"]:
        raise ValueError("state_hidden and action_hidden need at least one layer each")
    return merged
