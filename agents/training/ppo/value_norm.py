"""Value normalisation for the lean PPO trainer (config ``ppo.normalize_value``).

The value head learns the returns in standardised units: its targets are the returns less
their running mean, divided by their running standard deviation (mean and variance of every
return seen so far, merged rollout by rollout as rl_games' ``normalize_value`` does).  When the
statistics move, the value head's last layer is rescaled so that its outputs in return units
stay what they were (PopArt's "preserving outputs precisely", van Hasselt et al. 2016): the
advantages of the next rollout do not jump.  A trained network is exported with the
statistics folded into that layer, so the exported model's value is in return units and
nothing that loads it needs to know.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["ValueNormalizer"]

#: the variance floor (a rollout of equal returns must not divide by zero)
_MIN_VAR = 1e-8


class ValueNormalizer:
    """Running mean and variance of the value targets, and the value head they rescale.

    Starts at mean 0 and standard deviation 1 (the identity), so a value head loaded from an
    exported model (in return units) is consistent before the first update.
    """

    def __init__(self) -> None:
        self.mean, self.var, self.count = 0.0, 1.0, 0

    @property
    def std(self) -> float:
        return math.sqrt(max(self.var, _MIN_VAR))

    def update(self, returns: torch.Tensor, head: nn.Linear) -> None:
        """Merge a rollout's ``returns`` into the statistics and rescale ``head`` (the value
        head's last layer, in standardised units) so that its outputs in return units are
        unchanged."""
        n = int(returns.numel())
        if n == 0:
            return
        batch_mean = float(returns.double().mean())
        batch_var = float(returns.double().var(unbiased=False))
        old_mean, old_std = self.mean, self.std
        total = self.count + n
        delta = batch_mean - self.mean
        self.mean += delta * n / total
        self.var = (self.var * self.count + batch_var * n
                    + delta * delta * self.count * n / total) / total
        self.count = total
        with torch.no_grad():  # new_std * (W' x + b') + new_mean == old_std * (W x + b) + old_mean
            head.weight.mul_(old_std / self.std)
            head.bias.mul_(old_std).add_(old_mean - self.mean).div_(self.std)

    def normalize(self, returns: torch.Tensor) -> torch.Tensor:
        """``returns`` in standardised units."""
        return (returns - self.mean) / self.std

    def denormalize(self, values: torch.Tensor) -> torch.Tensor:
        """The value head's standardised ``values`` in return units."""
        return values * self.std + self.mean

    def folded(self, state_dict: dict, prefix: str = "value_net.") -> dict:
        """A copy of a network's ``state_dict`` whose value head (``prefix`` ``weight`` and
        ``bias``) gives returns in return units: the statistics folded into its last layer."""
        out = dict(state_dict)
        out[prefix + "weight"] = state_dict[prefix + "weight"] * self.std
        out[prefix + "bias"] = state_dict[prefix + "bias"] * self.std + self.mean
        return out

    def state(self) -> dict:
        return {"mean": self.mean, "var": self.var, "count": self.count}

    @classmethod
    def from_state(cls, state: dict) -> ValueNormalizer:
        norm = cls()
        norm.mean, norm.var, norm.count = (float(state["mean"]), float(state["var"]),
                                           int(state["count"]))
        return norm
