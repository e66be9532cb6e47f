"""The structured actor-critic network of the scorecard games (torch only); 5000's counterpart
is :mod:`.fivethousand_network`, built by the same :class:`StructuredActorCritic` with
``family="fivethousand"``.

:class:`StructuredHeads` scores every action of a scorecard game with networks shared across
actions of a kind:

* a **state trunk** (MLP with tanh over the whole observation, ``state_hidden``) gives an
  embedding ``e`` of the state;
* a **hold head**, one network for all 32 holds: ``logit(hold) = w . relu(A e + F f + c)``
  over the hold's features ``f`` (:class:`~.features.ScorecardActionFeatures`; more hidden
  layers with ``action_hidden``, tanh with ``action_activation``): what is learned about a keep
  holds wherever its dice sit.  With ``linear_term`` it adds ``(G e) . f``, linear in the
  features with weights the state sets (how much each box's expected points are worth now);
* a **box head**, one network for all boxes, the same form over the box's features (which box
  it is among them);
* optionally an **afterstate scorer** (``afterstate_hidden``, :class:`AfterstateScorer`), one
  MLP for all boxes adding to a box's logit a score of the scorecard that box leaves;
* a **value** MLP over the observation (``value_hidden``), as SB3's ``MlpPolicy`` has one.

The names follow SB3's actor-critic policies -- ``mlp_extractor`` (whose ``forward_actor`` gives
the logits and ``forward_critic`` the value latent), ``action_net`` (the identity here) and
``value_net`` -- so :class:`StructuredActorCritic` (the lean trainer's network) and
:class:`~.sb3_policy.StructuredMaskablePolicy` (the MaskablePPO policy) share one
``state_dict`` layout and copy into each other.  Orthogonal initialisation with SB3's gains
(``sqrt 2`` inside, 0.01 on the logit layers, 1 on the value layer).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from agents.families import families as all_families
from agents.families import family as family_named
from agents.families import names as family_names
from agents.policies.structured.features import (
    PureActionFeatures,
    ScorecardActionFeatures,
    afterstate_names,
)
from agents.policies.structured.heads import ActionHead, mlp, network_options
from agents.policies.structured.prepared import Listed, Prepared
from dice_env.dice import N_HOLDS
from dice_env.scorecard.rules import Rules, coerce_rules

__all__ = ["DEFAULTS", "MASKED_LOGIT", "AfterstateScorer", "StructuredActorCritic",
           "StructuredHeads", "build_heads", "defaults_of", "init_weights"]

#: the logit of a masked action (sb3-contrib's MaskableCategorical uses the same)
MASKED_LOGIT = -1e8
#: the network's options and their defaults (a config's ``policy_kwargs`` override them):
#: hidden sizes of the state trunk, of the action heads and of the value MLP; the action
#: heads' activation (the trunk and the value MLP use tanh, as SB3's ``MlpPolicy``); whether
#: the heads have the state-set linear term ``(G e) . f``; whether the hold features include what
#: a reroll scores (:class:`~.features.ScorecardActionFeatures`; False leaves the kept dice);
#: ``pure``: only what a player sees at the table describes an action
#: (:class:`~.features.PureActionFeatures`, its holds written as ``hold_encoding`` says;
#: ``reroll_features`` then does not apply); ``bonus_feature``: the box features end with the
#: five-of-a-kind bonus that scoring earns now (with ``pure``: a box's points include it);
#: ``afterstate_hidden``: hidden sizes of the afterstate scorer (:class:`AfterstateScorer`,
#: none by default), which adds to each box's logit a score of the scorecard that box leaves
DEFAULTS: dict = {"state_hidden": [256], "action_hidden": [32], "value_hidden": [256, 256],
                  "action_activation": "relu", "linear_term": False, "reroll_features": True,
                  "pure": False, "hold_encoding": "counts", "bonus_feature": False,
                  "afterstate_hidden": []}


def _structured_family(family: str) -> Any:
    """The :class:`~agents.families.AgentFamily` ``family``, if it has a structured network."""
    fam = family_named(family) if family in family_names() else None
    if fam is None or not fam.has_hook("structured_heads"):
        raise ValueError(f"unknown game family {family!r} of the structured policy; known: "
                         f"{list(structured_families())}")
    return fam


def structured_families() -> list[str]:
    """The game families with a structured network (a ``structured_heads`` hook)."""
    return [f.name for f in all_families() if f.has_hook("structured_heads")]


def defaults_of(family: str) -> dict:
    """The options of a family's structured network and their defaults (its
    ``structured_defaults`` hook: :data:`DEFAULTS` for the scorecard games,
    :data:`~.fivethousand_network.FIVETHOUSAND_DEFAULTS` for 5000)."""
    return _structured_family(family).hook("structured_defaults")


def build_heads(family: str, n_obs: int, rules: Any, **options: Any) -> nn.Module:
    """The structured network's body (SB3's ``mlp_extractor``) of a game family, by its
    ``structured_heads`` hook: :class:`StructuredHeads` for ``"scorecard"`` (``rules`` a preset
    name, knobs dict or ``Rules``), :class:`~.fivethousand_network.FiveThousandHeads` for
    ``"fivethousand"`` (``rules`` ``"fivethousand"``, a knobs dict or ``FiveThousandRules``)."""
    return _structured_family(family).hook("structured_heads")(n_obs, rules, **options)


def rules_spec(env_id: str, rule_kwargs: dict) -> Any:
    """What a structured policy of a scorecard game saves as its ``rules``: the preset name of
    ``env_id`` or, with rule overrides (``rule_kwargs``: the env kwargs that are no env
    option), the rules' knobs."""
    from dice_env import SCORECARD_IDS
    from dice_env.scorecard.rules import get_rules

    preset = SCORECARD_IDS[env_id]
    return get_rules(preset, **rule_kwargs).knobs() if rule_kwargs else preset


class StructuredHeads(nn.Module):
    """The structured network's body (see the module doc), in SB3's ``mlp_extractor`` role.

    Args:
        n_obs: observation entries (basic or ``"bonus"``).
        rules: the game (preset name, ``Rules.knobs()`` dict or ``Rules``).
        **options: see :data:`DEFAULTS` (``ValueError`` for an unknown one).
    """

    def __init__(self, n_obs: int, rules: str | dict | Rules, **options: Any) -> None:
        super().__init__()
        o = network_options(DEFAULTS, options)
        rules = coerce_rules(rules)
        self.features = (PureActionFeatures(rules, o["hold_encoding"], o["bonus_feature"])
                         if o["pure"]
                         else ScorecardActionFeatures(rules, o["reroll_features"],
                                                      o["bonus_feature"]))
        self.trunk = mlp([n_obs, *o["state_hidden"]])
        width = o["state_hidden"][-1]
        head = {"hidden": o["action_hidden"], "activation": o["action_activation"],
                "linear_term": o["linear_term"]}
        self.hold_head = ActionHead(width, self.features.n_hold_features, **head)
        self.box_head = ActionHead(width, self.features.n_box_features, **head)
        self.value_net = mlp([n_obs, *o["value_hidden"]])
        #: the afterstate scorer, or None (the box logits are then the box head's alone)
        self.afterstate = (AfterstateScorer(len(afterstate_names(rules)), o["afterstate_hidden"])
                           if o["afterstate_hidden"] else None)
        self.latent_dim_pi = N_HOLDS + self.features.n_boxes
        self.latent_dim_vf = o["value_hidden"][-1] if o["value_hidden"] else n_obs

    @torch.no_grad()
    def prepare(self, obs: torch.Tensor) -> Prepared:
        """The features :meth:`forward_actor` reads off ``obs`` (no weights enter them): a
        trainer computes them once per rollout and passes them back for every minibatch."""
        features = self.features
        rows, holds, counts, hold_features = features.hold_features(obs)
        box_rows, boxes, box_counts, box_features = features.open_box_features(obs)
        if self.afterstate is not None:  # one more group of columns: the scorecard left
            box_features = torch.cat(
                [box_features, features.afterstates(obs, box_rows, boxes)], dim=1)
        return Prepared({"holds": Listed(rows, holds, counts, hold_features),
                         "boxes": Listed(box_rows, boxes, box_counts, box_features)},
                        {"canonical": features.canonical_of[features.rolls(obs)]})

    def forward_actor(self, obs: torch.Tensor, prepared: Prepared | None = None) -> torch.Tensor:
        """``(N, 32 + B)`` the unmasked logits; ``prepared``:
        :meth:`prepare` of ``obs``, computed now if not given.

        The hold head runs only on the holds :meth:`~.features.ScorecardActionFeatures.
        hold_features` lists (about 14 a state instead of 32); a hold making the same keep as
        a listed one gets its logit, and the holds no mask allows (no reroll left, all five
        dice held) get 0.  The box head runs on the open boxes; a filled box (never legal)
        gets 0.
        """
        if prepared is None:
            prepared = self.prepare(obs)
        state = self.trunk(obs)
        holds, boxes = prepared.listed["holds"], prepared.listed["boxes"]
        hold_logits = obs.new_zeros(len(obs), N_HOLDS).index_put(
            (holds.rows, holds.index), self._listed_logits(self.hold_head, state, holds))
        hold_logits = hold_logits.gather(1, prepared.per_row["canonical"])
        box_logits = obs.new_zeros(len(obs), self.features.n_boxes).index_put(
            (boxes.rows, boxes.index), self._box_logits(state, boxes))
        return torch.cat([hold_logits, box_logits], dim=1)

    @staticmethod
    def _listed_logits(head: ActionHead, state: torch.Tensor, listed: Listed) -> torch.Tensor:
        """``head``'s logits of the ``listed`` actions."""
        return head.spread(state, listed.counts, listed.features)

    def _box_logits(self, state: torch.Tensor, boxes: Listed) -> torch.Tensor:
        """The open boxes' logits: the box head's, plus the afterstate scorer's where there is
        one (its columns follow the box features)."""
        if self.afterstate is None:
            return self._listed_logits(self.box_head, state, boxes)
        n = self.features.n_box_features
        features = boxes.features
        head = self.box_head.spread(state, boxes.counts, features[:, :n])
        return head + self.afterstate(features[:, n:])

    def forward_critic(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_net(obs)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(obs), self.forward_critic(obs)


class AfterstateScorer(nn.Module):
    """One network for every box: a score of the scorecard that scoring there leaves
    (:meth:`~.features.ScorecardActionFeatures.afterstates`), an MLP (tanh) of it, added to the
    box's logit.  The box head weighs a box by the state, the box and the dice; this weighs
    every box by where it leaves the card, with weights shared across the boxes -- what is
    learned about a card with Fours filled and the bonus in reach holds whichever box fills it.
    Its last layer starts near 0 (like the logit layers), so the policy starts near uniform."""

    def __init__(self, n_in: int, hidden: list[int]) -> None:
        super().__init__()
        self.body = mlp([n_in, *hidden])
        self.logit = nn.Linear(hidden[-1], 1)

    def forward(self, afterstates: torch.Tensor) -> torch.Tensor:
        """``(M,)`` the scores of ``afterstates`` ``(M, B + 5)``."""
        return torch.matmul(self.body(afterstates), self.logit.weight[0]) + self.logit.bias


def init_weights(extractor: nn.Module, value_net: nn.Linear) -> None:
    """SB3's orthogonal initialisation: ``sqrt 2`` inside, 0.01 on what makes a logit (the
    logit layers and the state-set linear weights ``G`` of every action head, in module
    order), 1 on the value layer; biases 0.  The policy starts near uniform, as SB3's does."""
    heads = [m for m in extractor.modules() if isinstance(m, ActionHead)]  # in order
    scorers = [m for m in extractor.modules() if isinstance(m, AfterstateScorer)]
    for module, gain in ((extractor, np.sqrt(2)),
                         *((head.logit, 0.01) for head in [*heads, *scorers]),
                         (value_net, 1.0)):
        for layer in module.modules():
            if isinstance(layer, nn.Linear):
                nn.init.orthogonal_(layer.weight, gain=gain)
                if layer.bias is not None:
                    layer.bias.data.fill_(0.0)
    for head in heads:
        if head.linear_term:
            nn.init.orthogonal_(head.state_in.weight.data[head.n_hidden:], gain=0.01)


class StructuredActorCritic(nn.Module):
    """The lean trainer's structured network: ``forward(obs, mask)`` gives masked
    log-probabilities ``(N, A)`` and values ``(N,)``, like :class:`ActorCritic` of
    :mod:`agents.training.ppo.lean`, with the parameter names of
    :class:`~.sb3_policy.StructuredMaskablePolicy`.

    Args:
        n_obs: observation entries.
        rules: the game's rules (see :func:`build_heads`).
        family: ``"scorecard"`` (:class:`StructuredHeads`) or ``"fivethousand"``
            (:class:`~.fivethousand_network.FiveThousandHeads`).
        **options: the network's options (:func:`defaults_of` the family).
    """

    def __init__(self, n_obs: int, rules: Any, family: str = "scorecard",
                 **options: Any) -> None:
        super().__init__()
        self.mlp_extractor = build_heads(family, n_obs, rules, **options)
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        init_weights(self.mlp_extractor, self.value_net)

    def prepare(self, obs: torch.Tensor) -> Prepared:
        """The per-action features of ``obs`` (see :mod:`.prepared`), to pass to
        :meth:`forward` for the same observations (any selection of them by
        :meth:`~.prepared.Prepared.select`)."""
        return self.mlp_extractor.prepare(obs)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                prepared: Prepared | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked log-probabilities ``(N, A)`` and values ``(N,)``."""
        logits = self.mlp_extractor.forward_actor(obs, prepared)
        logits = torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))
        values = self.value_net(self.mlp_extractor.forward_critic(obs)).squeeze(-1)
        return torch.log_softmax(logits, dim=-1), values
