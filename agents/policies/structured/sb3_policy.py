"""The structured network as an sb3-contrib ``MaskableActorCriticPolicy``.

:class:`StructuredMaskablePolicy` keeps every method of sb3-contrib's maskable actor-critic
policy (forward, evaluate_actions, get_distribution, predict_values, predict with masks) and
only builds other parts: its ``mlp_extractor`` is :class:`~.network.StructuredHeads` (whose actor
output is already the logits, so ``action_net`` is the identity).  MaskablePPO trains it as any
policy (``MaskablePPO(StructuredMaskablePolicy, env, policy_kwargs={"rules": "penta"})``), and a
saved model names this class by its import path, so ``MaskablePPO.load`` -- and with it
``agents.load(path, game)`` and the exact regret -- plays the ``.zip`` without extra arguments.
With ``family="fivethousand"`` the same class holds the network of 5000
(:class:`~.fivethousand_network.FiveThousandHeads`); a scorecard model saves no ``family``
(its default), so the zips saved before 5000 had one load as they did.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from agents.policies.structured.network import build_heads, defaults_of, init_weights
from dice_env.scorecard.rules import Rules

__all__ = ["StructuredMaskablePolicy"]


class StructuredMaskablePolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with the structured network of the scorecard games or of 5000.

    Args:
        observation_space, action_space, lr_schedule: as for any SB3 policy.
        rules: the game (a preset name or a ``Rules.knobs()`` dict; for 5000
            ``"fivethousand"`` or a ``FiveThousandRules.knobs()`` dict).
        family: ``"scorecard"`` (the default: the hold and box heads of
            :class:`~.network.StructuredHeads`) or ``"fivethousand"`` (the action head of
            :class:`~.fivethousand_network.FiveThousandHeads`).
        **kwargs: the network's options (:func:`~.network.defaults_of` the family: hidden
            sizes, the action heads' activation, the linear term, ...) and the other arguments
            of ``MaskableActorCriticPolicy`` (optimizer, ...); ``net_arch`` is not used.
    """

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space,
                 lr_schedule: Schedule, rules: str | dict | Rules = "penta",
                 family: str = "scorecard", **kwargs: Any) -> None:
        # read by _build, which the base class's __init__ calls
        self.rules = rules
        self.family = family
        self.options = {k: kwargs.pop(k) for k in defaults_of(family) if k in kwargs}
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule: Schedule) -> None:
        self.mlp_extractor = build_heads(self.family, self.features_dim, self.rules,
                                         **self.options)
        if self.mlp_extractor.latent_dim_pi != self.action_space.n:
            game = getattr(self.mlp_extractor.features.rules, "name", "5000")
            raise ValueError(f"the structured policy of {game} has "
                             f"{self.mlp_extractor.latent_dim_pi} actions, the env "
                             f"{self.action_space.n}")
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            init_weights(self.mlp_extractor, self.value_net)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.pop("net_arch", None)
        return {**data, "rules": self.rules, "family": self.family, **self.options}
