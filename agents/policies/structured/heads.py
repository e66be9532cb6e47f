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

__all__ = ["ACTIVATIONS", "ActionHead", "MixedLinear", "mlp", "network_options",
           "set_matmul_dtype"]

#: the activations an action head may use (the trunk and the value MLP use tanh, as SB3's)
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(sizes: Sequence[int], activation: type[nn.Module] = nn.Tanh) -> nn.Sequential:
    """Linear layers of ``sizes``, each followed by ``activation`` (tanh, as SB3's MLPs)."""
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [MixedLinear(a, b), activation()]
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
        self.state_in = MixedLinear(n_state, first + (n_features if linear_term else 0))
        self.feature_in = nn.Linear(n_features, first, bias=False)
        self.hidden = mlp([first, *rest], ACTIVATIONS[activation])
        self.logit = nn.Linear(hidden[-1], 1)

    def state_terms(self, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``A e + c`` ``(N, first hidden)`` and ``G e`` ``(N, F)``, once per state."""
        terms = self.state_in(state)
        return terms[:, :self.n_hidden], terms[:, self.n_hidden:]

    def spread(self, state: torch.Tensor, counts: torch.Tensor,
               features: torch.Tensor) -> torch.Tensor:
        """The logits of ``counts[i]`` actions of each state ``i`` (in order), ``features``
        ``(sum(counts), F)``: both state terms spread to the actions' rows in one gather."""
        terms = torch.repeat_interleave(self.state_in(state), counts, dim=0,
                                        output_size=len(features))
        return self(terms[:, :self.n_hidden], terms[:, self.n_hidden:], features)

    def forward(self, hidden_term: torch.Tensor, linear_term: torch.Tensor,
                features: torch.Tensor) -> torch.Tensor:
        """Logits of actions with ``features`` ``(..., F)``; the two :meth:`state_terms`
        gathered (or broadcast) to the actions' rows."""
        if not features.is_floating_point():  # one-hot features given as their indices
            return self._indexed(hidden_term, linear_term, features)
        compiling = torch.compiler.is_compiling()
        if (not compiling and features.dim() == 2
                and hidden_term.shape == (len(features), self.n_hidden)):
            z = torch.addmm(hidden_term, features, self.feature_in.weight.t())  # one pass
        else:  # (compiled, the sum fuses with the gather and the activation after it)
            z = hidden_term + self.feature_in(features)
        # the logit layer as a matrix-vector product: Linear(h, 1)'s backward is an outer
        # product through a matrix multiply, several times slower on a CPU
        logits = torch.matmul(self.hidden(self.activation(z)), self.logit.weight[0]) \
            + self.logit.bias
        if self.linear_term:  # (compiled: a product and a sum fuse, vecdot does not)
            logits = logits + ((linear_term * features).sum(-1) if compiling
                               else torch.linalg.vecdot(linear_term, features))
        return logits


    def _indexed(self, hidden_term: torch.Tensor, linear_term: torch.Tensor,
                 index: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` for one-hot features given by the index of their 1 (``(M,)``
        integers, hidden and linear terms ``(M, .)``): the same logits, each product with a
        one-hot vector read as a column lookup."""
        z = hidden_term + torch.index_select(self.feature_in.weight, 1, index).t()
        logits = torch.matmul(self.hidden(self.activation(z)), self.logit.weight[0]) \
            + self.logit.bias
        if self.linear_term:
            logits = logits + linear_term.gather(1, index[:, None]).squeeze(1)
        return logits


class MixedLinear(nn.Linear):
    """``nn.Linear`` (the same parameters and ``state_dict``) whose matrix product can run in
    bfloat16 (:attr:`matmul_dtype`, set by :func:`set_matmul_dtype`): the inputs and weights
    rounded to bfloat16, the product accumulated and returned in float32, the bias added in
    float32.  The CPU's bfloat16 matrix units multiply a 8192x256 by 256x256 product several
    times faster than float32; the elementwise work around it (tanh, the losses, Adam) stays
    float32, where it is faster on a CPU and where precision matters."""

    matmul_dtype: torch.dtype | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.matmul_dtype is None:
            return super().forward(x)
        dtype = self.matmul_dtype
        return torch.matmul(x.to(dtype), self.weight.to(dtype).t()).float() + self.bias


def set_matmul_dtype(module: nn.Module, dtype: torch.dtype | None,
                     min_features: int = 128) -> list[str]:
    """Run the matrix products of ``module``'s :class:`MixedLinear` layers with at least
    ``min_features`` inputs in ``dtype`` (None: float32 again); returns their names.  The
    narrow layers (the observation's, the per-action ones) stay float32: converting their
    inputs would cost more than the product saves."""
    names = []
    for name, layer in module.named_modules():
        if isinstance(layer, MixedLinear) and layer.in_features >= min_features:
            layer.matmul_dtype = dtype
            names.append(name)
    return names


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
