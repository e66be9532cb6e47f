"""The structured network of 5000 (torch only): the counterpart of
:class:`~.network.StructuredHeads` for the bank-or-roll actions.

:class:`FiveThousandHeads` scores every action of 5000 with one network shared by all of them:

* a **state trunk** (MLP with tanh over the observation, ``state_hidden``) gives an embedding
  ``e`` of the state;
* an **action head** (:class:`~.heads.ActionHead`), one network for every action:
  ``logit(a) = w . relu(A e + F f + c)`` over the action's features ``f``
  (:class:`~.fivethousand_features.FiveThousandActionFeatures`: what the set-aside adds, what a
  bank does to the scores, what the next throw of a roll-on risks); with ``linear_term`` it adds
  ``(G e) . f``, linear in the features with weights the state sets (how much a point of turn
  total, or a bust chance, is worth now).  Under the literal rules its two actions (roll on,
  bank) share the head; with ``choose_scoring_dice`` the 64 do, the head running only on the
  legal set-asides' actions;
* a **value** MLP over the observation (``value_hidden``), as SB3's ``MlpPolicy`` has one.

The names are SB3's (``mlp_extractor``, ``action_net``, ``value_net`` around it, see
:class:`~.network.StructuredActorCritic`), so the lean trainer's network and
:class:`~.sb3_policy.StructuredMaskablePolicy` (``family="fivethousand"``) share one
``state_dict`` layout.  Model-free: the features read the rules' tables, never a value.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from agents.policies.structured.fivethousand_features import FiveThousandActionFeatures
from agents.policies.structured.heads import ActionHead, mlp, network_options
from agents.policies.structured.prepared import Listed, Prepared
from dice_env.fivethousand.family import FAMILY, NAMES
from dice_env.fivethousand.observation import num_players_of
from dice_env.fivethousand.rules import FiveThousandRules, coerce_rules

__all__ = ["FIVETHOUSAND_DEFAULTS", "FiveThousandHeads", "fivethousand_rules_of", "rules_spec"]

#: the options of the 5000 network and their defaults (a config's ``policy_kwargs`` override
#: them): hidden sizes of the state trunk, of the action head and of the value MLP; the action
#: head's activation; the state-set linear term ``(G e) . f``; whether the roll-on features
#: include what one throw does (:class:`~.fivethousand_features.FiveThousandActionFeatures`)
FIVETHOUSAND_DEFAULTS: dict = {"state_hidden": [128], "action_hidden": [32],
                               "value_hidden": [128, 128], "action_activation": "relu",
                               "linear_term": False, "throw_features": True}


def fivethousand_rules_of(spec: str | dict | FiveThousandRules | None) -> FiveThousandRules:
    """The rules a 5000 ``rules`` policy argument names: ``"fivethousand"`` (or ``None``: the
    standard game), a ``FiveThousandRules.knobs()`` dict, or the rules."""
    if isinstance(spec, str) and FAMILY.parse(spec) is None:
        raise ValueError(f"unknown 5000 rules {spec!r}: give 'fivethousand' or a dict of knobs "
                         f"such as {FiveThousandRules().knobs()}")
    return coerce_rules(spec)


class FiveThousandHeads(nn.Module):
    """The 5000 network's body (see the module doc), in SB3's ``mlp_extractor`` role.

    Args:
        n_obs: observation entries (``3P + 14``; the number of players is read from it).
        rules: the 5000 rules (``"fivethousand"``, a knobs dict or ``FiveThousandRules``).
        **options: see :data:`FIVETHOUSAND_DEFAULTS` (``ValueError`` for an unknown one).
    """

    def __init__(self, n_obs: int, rules: str | dict | FiveThousandRules = "fivethousand",
                 **options: Any) -> None:
        super().__init__()
        o = network_options(FIVETHOUSAND_DEFAULTS, options, "the structured policy of 5000")
        self.features = FiveThousandActionFeatures(fivethousand_rules_of(rules),
                                                   num_players_of(n_obs), o["throw_features"])
        self.trunk = mlp([n_obs, *o["state_hidden"]])
        self.action_head = ActionHead(o["state_hidden"][-1], self.features.n_features,
                                       o["action_hidden"], o["action_activation"],
                                       o["linear_term"])
        self.value_net = mlp([n_obs, *o["value_hidden"]])
        self.latent_dim_pi = self.features.n_actions
        self.latent_dim_vf = o["value_hidden"][-1] if o["value_hidden"] else n_obs

    @torch.no_grad()
    def prepare(self, obs: torch.Tensor) -> Prepared:
        """The features :meth:`forward_actor` reads off ``obs`` (no weights enter them)."""
        rows, options, counts, listed = self.features.listed_features(obs)  # (M, 2, F)
        return Prepared({"options": Listed(rows, options, counts, listed)}, {})

    def forward_actor(self, obs: torch.Tensor, prepared: Prepared | None = None) -> torch.Tensor:
        """``(N, A)`` the unmasked logits: the head on the roll-on and the bank of
        every legal set-aside; the actions of the other set-asides (never legal) get 0.
        ``prepared``: :meth:`prepare` of ``obs``, computed now if not given."""
        features = self.features
        listed = (prepared or self.prepare(obs)).listed["options"]
        logits = self.action_head.spread(self.trunk(obs), 2 * listed.counts,
                                         listed.features.flatten(0, 1))
        out = obs.new_zeros(len(obs), features.n_options, 2)
        out = out.index_put((listed.rows, listed.index), logits.reshape(len(listed.rows), 2))
        return out.reshape(len(obs), features.n_actions)

    def forward_critic(self, obs: torch.Tensor) -> torch.Tensor:
        """The value latent: the value MLP over the observation."""
        return self.value_net(obs)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(forward_actor(obs), forward_critic(obs))``."""
        return self.forward_actor(obs), self.forward_critic(obs)


def rules_spec(env_id: str, rule_kwargs: dict) -> str | dict:
    """What a structured policy of 5000 saves as its ``rules``: ``"fivethousand"`` or, with
    knobs (``target``, ``entry``, ``choose_scoring_dice``, ``rules``) in ``rule_kwargs``, their
    knobs."""
    from dice_env.fivethousand.base import make_rules

    knobs = {k: rule_kwargs.get(k) for k in ("target", "entry", "choose_scoring_dice")}
    rules = make_rules(rule_kwargs.get("rules"), **knobs)
    return NAMES[0] if rules == type(rules)() else rules.knobs()
