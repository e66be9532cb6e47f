"""A lean masked PPO trainer: the same algorithm and network as sb3-contrib's MaskablePPO,
several times faster on a 2-core machine.

Stable-Baselines3 spends most of a small-network run in per-step Python (distribution objects,
buffers of dicts, callbacks).  Here a rollout is a loop over the natively batched env with one
forward pass of a plain torch module per step, and the update works on flat tensors.  The
algorithm is SB3's PPO (clipped surrogate, GAE, per-minibatch advantage normalisation, value
loss without clipping, entropy bonus of the masked distribution, gradient-norm clipping, Adam
with ``eps=1e-5``, a linear or constant learning rate), and :class:`ActorCritic` has SB3's
``MlpPolicy`` layout (separate policy and value MLPs with tanh, orthogonal initialisation), so a
trained network is copied into a ``MaskablePPO`` model and saved as an ordinary SB3 ``.zip``:
everything that loads PPO models (``agents.make("ppo", game)``, ``dice-env evaluate``) loads
it unchanged.  A config with ``"policy": "structured"`` trains the structured network of
:mod:`agents.policies.structured` instead (:func:`build_network`), exported the same way with
its own MaskablePPO policy class.

:class:`LeanTrainer` holds a run: the env, the network, the optimizer and every random
generator.  :meth:`LeanTrainer.state` / :meth:`LeanTrainer.from_state` capture and restore all
of it, between an update and the next rollout, so a resumed run continues with the same numbers
as one that never stopped.  ``dice-env train`` uses it when the config says
``"trainer": "lean"``.

Three settings go beyond SB3's PPO, all off by default: ``ppo.normalize_value`` learns the
value in standardised units (:mod:`.value_norm`: running statistics of the returns, PopArt's
output-preserving rescale, folded back into the value head when exported), and
``ppo.aux_value_coef`` trains an auxiliary value head on the policy's own state embedding
beside the policy loss (the auxiliary value head of Phasic Policy Gradient, Cobbe et al. 2021,
trained jointly rather than in a separate phase).  The auxiliary head is the trainer's, not the
network's: it shapes the policy's embedding and is not exported.  ``ppo.ent_coef_schedule``
``"learning-rate"`` scales the entropy coefficient as the learning rate is scaled, so under the
linear schedule the entropy bonus decays to 0 with it and the policy may sharpen at the end.

A config's ``"teacher"`` (a player of the game with ``act_batch``, such as ``"optimal"``) turns
the run into imitation, a diagnostic rather than model-free learning: the rollouts are still
the policy's own (DAgger's states: where the learner goes), the teacher labels every state with
its action, and the policy loss is the cross-entropy of that action instead of PPO's clipped
surrogate (value loss and entropy bonus unchanged).  With the exact optimum as the teacher it
says how well the network can play when it is shown the best move in every state it meets,
which is what bounds PPO from above at the same network and steps.

Masked actions get the logit ``-1e8`` (probability 0, and ``0 * log p`` stays finite in the
entropy).  Episodes end by termination only (the scorecard games and 5000 always finish under a
mask; a truncation is treated as an end, without bootstrapping).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.training.ppo.config import LEAN_PPO_DEFAULTS, policy_name, structured_policy_kwargs
from agents.training.ppo.value_norm import ValueNormalizer

MASKED_LOGIT = -1e8

#: the PPO settings the lean trainer understands, with SB3's names and defaults (and its own,
#: :data:`LEAN_PPO_DEFAULTS`); others are refused
PPO_DEFAULTS = {"learning_rate": 3e-4, "learning_rate_schedule": "constant", "n_steps": 2048,
                "batch_size": 64, "n_epochs": 10, "gamma": 0.99, "gae_lambda": 0.95,
                "ent_coef": 0.0, "clip_range": 0.2, "vf_coef": 0.5, "max_grad_norm": 0.5,
                **LEAN_PPO_DEFAULTS}


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.Tanh()]
    return nn.Sequential(*layers)


class _Extractor(nn.Module):
    def __init__(self, n_obs: int, pi: list[int], vf: list[int]) -> None:
        super().__init__()
        self.policy_net = _mlp([n_obs, *pi])
        self.value_net = _mlp([n_obs, *vf])


class ActorCritic(nn.Module):
    """SB3's ``MlpPolicy`` network (same parameter names): policy and value MLPs with tanh,
    a linear action head and a linear value head; orthogonal init with SB3's gains."""

    def __init__(self, n_obs: int, n_actions: int, pi: list[int], vf: list[int]) -> None:
        super().__init__()
        self.mlp_extractor = _Extractor(n_obs, pi, vf)
        self.action_net = nn.Linear(pi[-1] if pi else n_obs, n_actions)
        self.value_net = nn.Linear(vf[-1] if vf else n_obs, 1)
        for module, gain in ((self.mlp_extractor, np.sqrt(2)), (self.action_net, 0.01),
                             (self.value_net, 1.0)):
            for layer in module.modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    layer.bias.data.fill_(0.0)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked log-probabilities ``(N, A)`` and values ``(N,)``."""
        logits = self.action_net(self.mlp_extractor.policy_net(obs))
        logits = torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))
        values = self.value_net(self.mlp_extractor.value_net(obs)).squeeze(-1)
        return torch.log_softmax(logits, dim=-1), values


#: the lean trainer's speed settings (config section ``lean``) and their defaults: reuse the
#: structured network's features across the update's minibatches (exact: the same numbers); the
#: dtype of the wide layers' matrix products ("bfloat16" changes the numbers a little); and
#: torch.compile of the update's minibatch loss (the numbers change in the last bits) and of
#: the rollout's feature computation (the same numbers); and
#: each minibatch's samples in ascending order, so that its rows are gathered front to back
#: (the same minibatch: its loss changes in the last bits)
SPEED_DEFAULTS = {"reuse_features": True, "matmul_dtype": "float32", "compile": False,
                  "sorted_minibatches": True}


def speed_settings(config: dict) -> dict:
    """The config's ``lean`` section over :data:`SPEED_DEFAULTS`."""
    return {**SPEED_DEFAULTS, **(config.get("lean") or {})}


def ppo_settings(config: dict) -> dict:
    """The config's ``ppo`` section over SB3's defaults; ``ValueError`` for an unknown key."""
    unknown = sorted(set(config["ppo"]) - set(PPO_DEFAULTS))
    if unknown:
        raise ValueError(f"the lean trainer does not know the PPO settings {unknown}; "
                         f"known: {sorted(PPO_DEFAULTS)}")
    return {**PPO_DEFAULTS, **config["ppo"]}


def net_arch_of(config: dict) -> tuple[list[int], list[int]]:
    """``(pi, vf)`` hidden sizes from a config's ``policy_kwargs.net_arch`` (SB3's format)."""
    arch = (config.get("policy_kwargs") or {}).get("net_arch", {"pi": [64, 64], "vf": [64, 64]})
    if isinstance(arch, list):
        return list(arch), list(arch)
    return list(arch["pi"]), list(arch["vf"])


def build_network(config: dict, n_obs: int, n_actions: int) -> nn.Module:
    """The config's network (``"policy"``): :class:`ActorCritic` (SB3's ``MlpPolicy``) or the
    structured network of :mod:`agents.policies.structured` -- either with the parameter names
    of the MaskablePPO policy it is exported as."""
    if policy_name(config) == "structured":
        from agents.policies.structured.network import StructuredActorCritic

        net = StructuredActorCritic(n_obs, **structured_policy_kwargs(config))
        if net.mlp_extractor.latent_dim_pi != n_actions:
            raise ValueError(f"the structured policy has {net.mlp_extractor.latent_dim_pi} "
                             f"actions, the env {n_actions}")
        return net
    pi, vf = net_arch_of(config)
    return ActorCritic(n_obs, n_actions, pi, vf)


def policy_embedding(net: nn.Module) -> tuple[nn.Module, int]:
    """The module that embeds an observation for the policy alone (the structured networks'
    state trunk, the MLP's policy layers) and its output width: where an auxiliary value head
    reads the state."""
    extractor = net.mlp_extractor
    body = extractor.trunk if hasattr(extractor, "trunk") else extractor.policy_net
    linears = [m for m in body.modules() if isinstance(m, nn.Linear)]
    if not linears:
        raise ValueError("ppo.aux_value_coef: the policy has no hidden layer to read the state "
                         "from (state_hidden or net_arch pi is empty)")
    return body, linears[-1].out_features


class LeanTrainer:
    """One masked PPO run on a batched env (see the module doc).

    Args:
        venv: a Gymnasium ``VectorEnv`` with ``action_masks()`` and SAME_STEP autoreset.
        config: the training config (``ppo`` settings in SB3's names, ``policy_kwargs``,
            ``reward_scale``, optional ``shaping``).
        seed: seeds the env and torch.
        total_timesteps: the run's length (the linear learning rate decays to 0 there).
        potential: optional ``obs -> (N,) potential`` for potential-based reward shaping
            (in points; scaled by ``reward_scale``).
    """

    def __init__(self, venv: Any, config: dict, seed: int, total_timesteps: int,
                 potential: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
        self.total_timesteps = int(total_timesteps)
        torch.manual_seed(seed)
        self._build(venv, config, potential)
        obs, _ = venv.reset(seed=seed)
        self.obs = np.asarray(obs, dtype=np.float32)
        self.mask = np.asarray(venv.action_masks(), dtype=bool)
        self.phi = self._potential(self.obs)
        self.num_timesteps = 0
        #: where this run's linear learning-rate decay starts (a run continuing another
        #: model's training decays over its own steps only)
        self.start_timesteps = 0
        self.updates = 0
        self.episode_returns: list[float] = []  # true (unshaped, unscaled) returns, last 1000
        self.episode_lengths: list[int] = []  # their lengths in steps (for the logs only)
        self._running = np.zeros(venv.num_envs)
        self._lengths = np.zeros(venv.num_envs, dtype=np.int64)
        self.last_stats: dict[str, float] = {}

    # -- pieces ------------------------------------------------------------------------
    def _build(self, venv: Any, config: dict,
               potential: Callable[[np.ndarray], np.ndarray] | None) -> None:
        """The settings, the network and its optimizer (shared by a new and a resumed run)."""
        self.config = config
        self.ppo = ppo_settings(config)
        self.venv = venv
        self.potential = potential
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.net = build_network(config, int(np.prod(venv.single_observation_space.shape)),
                                 int(venv.single_action_space.n))
        #: the value targets' running statistics (``ppo.normalize_value``), else None
        self.value_norm = ValueNormalizer() if self.ppo["normalize_value"] else None
        #: the auxiliary value head on the policy's embedding (``ppo.aux_value_coef`` > 0)
        self.aux_coef = float(self.ppo["aux_value_coef"])
        self.aux_head: nn.Linear | None = None
        self._embed: nn.Module | None = None
        if self.aux_coef > 0:
            self._embed, width = policy_embedding(self.net)
            self.aux_head = nn.Linear(width, 1)
            nn.init.orthogonal_(self.aux_head.weight, gain=1.0)
            self.aux_head.bias.data.fill_(0.0)
        #: the player whose actions the policy imitates (config ``"teacher"``), else None
        self.teacher = make_teacher(config)
        self._params = list(self.net.parameters()) + (
            list(self.aux_head.parameters()) if self.aux_head is not None else [])
        self.optimizer = torch.optim.Adam(self._params, lr=self.ppo["learning_rate"], eps=1e-5)
        speed = speed_settings(config)
        #: the network's per-action features computed once per rollout and reused by every
        #: minibatch of the update (the same numbers: a structured network's prepare())
        self.reuse_features = speed["reuse_features"] and hasattr(self.net, "prepare")
        self.sorted_minibatches = bool(speed["sorted_minibatches"])
        self._features: Any = None  # the last rollout's features (collect writes over them)
        if speed["matmul_dtype"] == "bfloat16":  # the wide layers' products in bfloat16
            from agents.policies.structured.heads import set_matmul_dtype

            set_matmul_dtype(self.net, torch.bfloat16)
        #: the minibatch loss, forward and backward, compiled by torch.compile (inductor's
        #: C++ kernels fuse the per-action heads' elementwise work); the first update compiles
        self._loss_fn = self._losses
        #: the rollout's features of each step (compiled: the same numbers, fused kernels)
        self._prepare = getattr(self.net, "prepare", None)
        if speed["compile"]:
            self._loss_fn = torch.compile(self._losses, dynamic=True)
            if self.reuse_features:
                self._prepare = torch.compile(self.net.prepare, dynamic=True)

    def _forward(self, obs: torch.Tensor, mask: torch.Tensor,
                 prepared: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
        if prepared is None:
            return self.net(obs, mask)
        return self.net(obs, mask, prepared)

    def _values(self, values: torch.Tensor) -> torch.Tensor:
        """The network's values in return units."""
        return values if self.value_norm is None else self.value_norm.denormalize(values)

    def policy_state_dict(self) -> dict:
        """The network's ``state_dict`` as exported: with ``ppo.normalize_value``, the value
        head in return units (the statistics folded in); the auxiliary head is not part of
        it."""
        state = self.net.state_dict()
        return state if self.value_norm is None else self.value_norm.folded(state)

    def _potential(self, obs: np.ndarray) -> np.ndarray:
        if self.potential is None:
            return np.zeros(len(obs))
        return np.asarray(self.potential(obs), dtype=np.float64)

    def learning_rate(self) -> float:
        lr = float(self.ppo["learning_rate"])
        if self.ppo.get("learning_rate_schedule", "constant") == "linear":
            span = max(self.total_timesteps - self.start_timesteps, 1)
            return lr * max(0.0, (self.total_timesteps - self.num_timesteps) / span)
        return lr

    def entropy_coefficient(self) -> float:
        """``ppo.ent_coef``, times the learning rate's schedule factor (its rate now over its
        initial rate) with ``ppo.ent_coef_schedule`` ``"learning-rate"``."""
        coef = float(self.ppo["ent_coef"])
        lr = float(self.ppo["learning_rate"])
        if self.ppo["ent_coef_schedule"] == "learning-rate" and lr > 0:
            return coef * self.learning_rate() / lr
        return coef

    @torch.no_grad()
    def collect(self) -> dict[str, Any]:
        """One rollout of ``n_steps`` steps of every env, with GAE advantages and returns (and,
        with :attr:`reuse_features`, the network's features of every observation: valid until
        the next rollout, which writes its own over them)."""
        n_steps, n_envs = int(self.ppo["n_steps"]), self.venv.num_envs
        gamma, lam = float(self.ppo["gamma"]), float(self.ppo["gae_lambda"])
        obs_buf = np.empty((n_steps, n_envs, self.obs.shape[1]), dtype=np.float32)
        mask_buf = np.empty((n_steps, n_envs, self.mask.shape[1]), dtype=bool)
        act_buf = np.empty((n_steps, n_envs), dtype=np.int64)
        logp_buf = np.empty((n_steps, n_envs), dtype=np.float32)
        val_buf = np.empty((n_steps + 1, n_envs), dtype=np.float32)
        rew_buf = np.empty((n_steps, n_envs), dtype=np.float32)
        done_buf = np.empty((n_steps, n_envs), dtype=bool)
        if self.teacher is not None:  # the teacher's action and its probability under the policy
            label_buf = np.empty((n_steps, n_envs), dtype=np.int64)
            label_logp_buf = np.empty((n_steps, n_envs), dtype=np.float32)
        self.net.eval()
        prepared = []
        for t in range(n_steps):
            obs_buf[t], mask_buf[t] = self.obs, self.mask
            obs_t = torch.from_numpy(self.obs)
            if self.reuse_features:
                prepared.append(self._prepare(obs_t))
            logp, value = self._forward(obs_t, torch.from_numpy(self.mask),
                                        prepared[-1] if prepared else None)
            action = torch.multinomial(logp.exp(), 1).squeeze(1)
            act_buf[t] = action.numpy()
            logp_buf[t] = logp.gather(1, action[:, None]).squeeze(1).numpy()
            if self.teacher is not None:
                label_buf[t] = self.teacher.act_batch(self.obs, self.mask)
                label_logp_buf[t] = logp.gather(
                    1, torch.from_numpy(label_buf[t])[:, None]).squeeze(1).numpy()
            val_buf[t] = self._values(value).numpy()
            obs, reward, terminated, truncated, _ = self.venv.step(act_buf[t])
            done = np.logical_or(terminated, truncated)
            self._running += reward
            self._lengths += 1
            if done.any():
                self.episode_returns.extend(self._running[done].tolist())
                self.episode_lengths.extend(self._lengths[done].tolist())
                self._running[done] = 0.0
                self._lengths[done] = 0
            phi = self._potential(obs)
            shaped = reward + (np.where(done, 0.0, phi) - self.phi)
            self.phi = phi
            rew_buf[t] = shaped * self.reward_scale
            done_buf[t] = done
            self.obs = np.asarray(obs, dtype=np.float32)
            self.mask = np.asarray(self.venv.action_masks(), dtype=bool)
        del self.episode_returns[:-1000]
        del self.episode_lengths[:-1000]
        _, last_value = self._forward(torch.from_numpy(self.obs), torch.from_numpy(self.mask))
        val_buf[n_steps] = self._values(last_value).numpy()
        adv = np.empty((n_steps, n_envs), dtype=np.float32)
        gae = np.zeros(n_envs, dtype=np.float32)
        for t in range(n_steps - 1, -1, -1):
            nonterminal = 1.0 - done_buf[t]
            delta = rew_buf[t] + gamma * val_buf[t + 1] * nonterminal - val_buf[t]
            gae = delta + gamma * lam * nonterminal * gae
            adv[t] = gae
        self.num_timesteps += n_steps * n_envs
        flat = {"obs": obs_buf, "mask": mask_buf, "action": act_buf, "logp": logp_buf,
                "adv": adv, "ret": adv + val_buf[:n_steps]}
        if self.teacher is not None:
            flat.update(label=label_buf, label_logp=label_logp_buf)
        batch: dict[str, Any] = {k: torch.from_numpy(v.reshape(n_steps * n_envs, *v.shape[2:]))
                                 for k, v in flat.items()}
        if prepared:  # (in the buffers' order: step by step, each step env by env)
            from agents.policies.structured.prepared import Prepared

            # (written over the previous rollout's features: see collect's doc)
            batch["prepared"] = self._features = Prepared.cat(prepared, self._features)
        return batch

    def update(self, batch: dict[str, Any]) -> dict[str, float]:
        """PPO epochs over the rollout (minibatches of ``batch_size``); returns SB3's update
        statistics: the losses, entropy, clip fraction and approximate KL averaged over the
        minibatches, the last minibatch's ``loss`` and the ``learning_rate`` used."""
        p = self.ppo
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate()
        clip, vf_coef = float(p["clip_range"]), float(p["vf_coef"])
        ent_coef: float | torch.Tensor = self.entropy_coefficient()
        if p["ent_coef_schedule"] != "constant":  # a tensor: a changing float would recompile
            ent_coef = torch.tensor(ent_coef, dtype=torch.float32)
        n, size = len(batch["action"]), int(p["batch_size"])
        if self.value_norm is not None:  # the targets in the value head's standardised units
            self.value_norm.update(batch["ret"], self.net.value_net)
            batch = {**batch, "ret": self.value_norm.normalize(batch["ret"])}
        self.net.train()
        stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clip_fraction": 0.0,
                 "approx_kl": 0.0, "aux_value_loss": 0.0}
        count, last_loss = 0, float("nan")
        for _ in range(int(p["n_epochs"])):
            order = torch.randperm(n)
            for start in range(0, n, size):
                idx = order[start:start + size]
                if self.sorted_minibatches:
                    idx = idx.sort().values
                prepared = batch["prepared"].select(idx) if "prepared" in batch else None
                mini = {k: batch[k].index_select(0, idx)
                        for k in ("obs", "mask", "action", "logp", "adv", "ret")}
                if self.teacher is not None:  # the loss and its statistics on the teacher's actions
                    mini["action"] = batch["label"].index_select(0, idx)
                    mini["logp"] = batch["label_logp"].index_select(0, idx)
                loss, policy_loss, value_loss, entropy, ratio, logp, aux_loss = self._loss_fn(
                    mini["obs"], mini["mask"], prepared, mini["action"], mini["logp"],
                    mini["adv"], mini["ret"], clip, ent_coef, vf_coef)
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self._params, float(p["max_grad_norm"]))
                self.optimizer.step()
                with torch.no_grad():  # SB3's statistics (approx_kl as in its PPO.train)
                    log_ratio = logp - mini["logp"]
                    values_now = torch.stack([
                        policy_loss, value_loss, entropy,
                        ((ratio - 1).abs() > clip).float().mean(),
                        ((torch.exp(log_ratio) - 1) - log_ratio).mean(), aux_loss,
                        loss]).tolist()
                for key, value in zip(stats, values_now[:-1], strict=True):
                    stats[key] += value
                last_loss = values_now[-1]
                count += 1
        self.updates += 1
        self.last_stats = {k: v / max(count, 1) for k, v in stats.items()}
        if self.aux_head is None:
            del self.last_stats["aux_value_loss"]
        self.last_stats["loss"] = last_loss  # SB3 logs the last minibatch's loss
        self.last_stats["learning_rate"] = float(self.optimizer.param_groups[0]["lr"])
        return self.last_stats

    def _losses(self, obs: torch.Tensor, mask: torch.Tensor, prepared: Any,
                action: torch.Tensor, old_logp: torch.Tensor, adv: torch.Tensor,
                ret: torch.Tensor, clip: float, ent_coef: float | torch.Tensor,
                vf_coef: float) -> tuple[torch.Tensor, ...]:
        """One minibatch's PPO loss and its parts: ``(loss, policy_loss, value_loss, entropy,
        ratio, logp, aux_value_loss)`` (compiled as one graph with ``lean.compile``); ``ret``
        in the value head's units, the auxiliary head's too."""
        logp_all, values = self._forward(obs, mask, prepared)
        logp = logp_all.gather(1, action[:, None]).squeeze(1)
        if len(adv) > 1:
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        ratio = torch.exp(logp - old_logp)
        if self.teacher is None:
            policy_loss = -torch.min(adv * ratio,
                                     adv * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
        else:  # imitation: the cross-entropy of the teacher's action (``action`` holds it)
            policy_loss = -logp.mean()
        value_loss = ((ret - values) ** 2).mean()
        entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
        loss = policy_loss - ent_coef * entropy + vf_coef * value_loss
        if self.aux_head is None:
            aux_loss = torch.zeros((), dtype=loss.dtype)
        else:
            aux = self.aux_head(self._embed(obs)).squeeze(-1)
            aux_loss = ((ret - aux) ** 2).mean()
            loss = loss + self.aux_coef * aux_loss
        return loss, policy_loss, value_loss, entropy, ratio, logp, aux_loss

    def train_iteration(self) -> dict[str, float]:
        """One rollout and one update; returns the update's statistics and throughput."""
        start = time.perf_counter()
        batch = self.collect()
        rollout_s = time.perf_counter() - start
        stats = self.update(batch)
        elapsed = time.perf_counter() - start
        steps = len(batch["action"])
        # SB3's explained variance of the rollout's values: returns - values = advantages
        ret_var = float(batch["ret"].var(unbiased=False))
        explained = 1.0 - float(batch["adv"].var(unbiased=False)) / ret_var if ret_var > 0 \
            else float("nan")
        if self.teacher is not None:  # how often the policy's sampled action was the teacher's
            stats["teacher_agreement"] = float((batch["action"] == batch["label"]).float().mean())
        return {**stats, "explained_variance": explained, "steps_per_s": steps / elapsed,
                "rollout_share": rollout_s / elapsed,
                "mean_return": float(np.mean(self.episode_returns[-500:]))
                if self.episode_returns else float("nan")}

    # -- checkpoints -------------------------------------------------------------------
    def state(self) -> dict:
        """Everything the run needs to continue exactly (picklable)."""
        return {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(),
                "venv": self.venv, "obs": self.obs, "mask": self.mask, "phi": self.phi,
                "num_timesteps": self.num_timesteps, "updates": self.updates,
                "start_timesteps": self.start_timesteps,
                "episode_returns": list(self.episode_returns), "running": self._running,
                "episode_lengths": list(self.episode_lengths), "lengths": self._lengths,
                "total_timesteps": self.total_timesteps, "rng": rng_states(),
                "value_norm": None if self.value_norm is None else self.value_norm.state(),
                "aux_head": None if self.aux_head is None else self.aux_head.state_dict()}

    @classmethod
    def from_state(cls, state: dict, config: dict,
                   potential: Callable[[np.ndarray], np.ndarray] | None = None) -> LeanTrainer:
        trainer = cls.__new__(cls)
        trainer.total_timesteps = state["total_timesteps"]
        trainer._build(state["venv"], config, potential)
        trainer.net.load_state_dict(state["net"])
        if trainer.value_norm is not None:
            trainer.value_norm = ValueNormalizer.from_state(state["value_norm"])
        if trainer.aux_head is not None:
            trainer.aux_head.load_state_dict(state["aux_head"])
        trainer.optimizer.load_state_dict(state["optimizer"])
        trainer.obs, trainer.mask, trainer.phi = state["obs"], state["mask"], state["phi"]
        trainer.num_timesteps, trainer.updates = state["num_timesteps"], state["updates"]
        trainer.start_timesteps = state.get("start_timesteps", 0)
        trainer.episode_returns = list(state["episode_returns"])
        trainer._running = state["running"]
        # (checkpoints written before the logs tracked episode lengths have none)
        trainer.episode_lengths = list(state.get("episode_lengths", []))
        trainer._lengths = state.get("lengths", np.zeros(len(trainer._running), dtype=np.int64))
        trainer.last_stats = {}
        set_rng_states(state["rng"])
        return trainer


def make_teacher(config: dict) -> Any | None:
    """The player of the config's ``"teacher"`` for its game (``agents.make``), or None; a
    ``ValueError`` for a player that cannot label a batch of states (no ``act_batch``).  A
    deterministic teacher (``optimal``) keeps a resumed run exact; a random one draws from a
    generator the checkpoint does not hold."""
    name = config.get("teacher")
    if name is None:
        return None
    from agents.games import resolve
    from agents.registry import make

    teacher = make(name, resolve(config["env_id"]))
    if not callable(getattr(teacher, "act_batch", None)):
        raise ValueError(f"teacher: player {name!r} cannot label a batch of states (it has no "
                         "act_batch); choose one that has, such as optimal")
    return teacher


def rng_states() -> dict:
    """torch, numpy and python generator states (for exact resumes)."""
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
            "python": random.getstate()}


def set_rng_states(states: dict) -> None:
    torch.set_rng_state(states["torch"])
    np.random.set_state(states["numpy"])
    random.setstate(states["python"])
