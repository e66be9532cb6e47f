"""Stable-baselines3 / sb3-contrib models (MaskablePPO, PPO, A2C, DQN) as players.

:class:`SB3Agent` loads a model ``.zip`` (the algorithm detected from the file, or named), checks
its observation and action spaces against the game's env, and always plays legal actions.
:meth:`SB3Agent.from_model` wraps a live model (during training, or a run folder's checkpoint).
Nothing heavy (torch, stable-baselines3) is imported until a model is loaded.
"""

from __future__ import annotations

import importlib
import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.games import (
    Game,
    describe_spaces,
    games_with_spaces,
    resolve,
    space_key,
)
from agents.policies.structured import MODULE_PREFIX as STRUCTURED_PREFIX

__all__ = ["ALGORITHMS", "KNOWN_PREFIXES", "SB3Agent", "check_spaces", "detect_algorithm",
           "normalise_algorithm"]

#: algorithm prefix -> (package, class) of the algorithms :class:`SB3Agent` loads.
ALGORITHMS: dict[str, tuple[str, str]] = {
    "maskableppo": ("sb3_contrib", "MaskablePPO"),
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
}

KNOWN_PREFIXES = ", ".join(f"'{p}:'" for p in ALGORITHMS)


# -- algorithm detection ---------------------------------------------------------------------

def normalise_algorithm(name: str) -> str:
    """``"MaskablePPO"`` / ``"maskable-ppo"`` -> ``"maskableppo"``; ``ValueError`` if unknown."""
    key = name.strip().lower().replace("-", "").replace("_", "")
    if key not in ALGORITHMS:
        raise ValueError(f"unknown algorithm prefix {name!r}; known prefixes: {KNOWN_PREFIXES} "
                         "(e.g. 'maskableppo:path/to/model.zip')")
    return key


def _read_sb3_data(path: Path) -> dict:
    """The ``data`` JSON of a stable-baselines3 model zip (``ValueError`` if it is not one)."""
    hint = ("expected a model saved by stable-baselines3 or sb3-contrib "
            "(model.save('name.zip'))")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a zip file; {hint}")
    with zipfile.ZipFile(path) as archive:
        if "data" not in archive.namelist():
            raise ValueError(f"{path} is a zip file but not a stable-baselines3 model (it has no "
                             f"'data' entry); {hint}")
        raw = archive.read("data")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        data = None
    if not isinstance(data, dict) or "policy_class" not in data:
        raise ValueError(f"{path} is a zip file but not a stable-baselines3 model (its 'data' "
                         f"entry has no policy_class); {hint}")
    return data


def detect_algorithm(data: dict, path: Any = "the model") -> str:
    """The algorithm (a key of :data:`ALGORITHMS`) that saved a model, from its ``data`` JSON.

    The policy class's module tells sb3-contrib's maskable policies (MaskablePPO, and our
    structured scorecard policy, :mod:`agents.policies.structured`, a subclass) and DQN's
    Q-network policies apart; an actor-critic policy is PPO when the saved hyper-parameters
    include PPO's ``clip_range`` / ``n_epochs``, A2C otherwise.  Models of other algorithms
    (TRPO, QR-DQN, RecurrentPPO, SAC, ...) raise ``ValueError``.
    """
    policy = data.get("policy_class")
    module = policy.get("__module__", "") if isinstance(policy, dict) else ""
    keys = set(data)
    unsupported = None
    if module.startswith("sb3_contrib.common.maskable") or module.startswith(STRUCTURED_PREFIX):
        return "maskableppo"
    if module.startswith("sb3_contrib.qrdqn") or "n_quantiles" in keys:
        unsupported = "QR-DQN"
    elif module.startswith("sb3_contrib.common.recurrent"):
        unsupported = "RecurrentPPO"
    elif "cg_max_steps" in keys:
        unsupported = "TRPO"
    elif module.startswith("stable_baselines3.dqn") or {"exploration_rate",
                                                         "target_update_interval"} <= keys:
        return "dqn"
    elif {"clip_range", "n_epochs"} <= keys:
        return "ppo"
    elif {"vf_coef", "gae_lambda"} <= keys:
        return "a2c"
    elif "buffer_size" in keys:
        unsupported = "an off-policy algorithm (SAC, TD3, ...)"
    supported = "MaskablePPO, PPO, A2C and DQN"
    if unsupported is not None:
        raise ValueError(f"{path} was saved by {unsupported}; only {supported} models can be "
                         f"loaded")
    raise ValueError(f"cannot tell which algorithm saved {path} (policy class module "
                     f"{module!r}); prefix the path with it: {KNOWN_PREFIXES} "
                     "(e.g. 'ppo:path/to/model.zip')")


def _algorithm_of_model(model: Any) -> str:
    """The :data:`ALGORITHMS` key of a live model, from its class (or its bases)."""
    for cls in type(model).__mro__:
        key = cls.__name__.lower()
        if key in ALGORITHMS:
            return key
    raise ValueError(f"cannot wrap a {type(model).__name__}: expected a MaskablePPO, PPO, A2C "
                     "or DQN model")


# -- the game's spaces ----------------------------------------------------------------------

def _observation_adapter(game: Game, obs: tuple) -> Callable[[np.ndarray], np.ndarray] | None:
    """The function that extends the observations players are given to those a model was
    trained on (``obs`` its space key), by the family's ``observation_adapter`` hook; None
    when the family has none or the observations need no change."""
    if not game.family.has_hook("observation_adapter"):
        return None
    return game.family.hook("observation_adapter")(game, obs)


def bonus_observation_adapter(game: Game, obs: tuple
                              ) -> Callable[[np.ndarray], np.ndarray] | None:
    """For a scorecard model trained on the ``"bonus"`` observation (``obs`` its space key):
    the function that extends the basic observations players are given; else None (the
    scorecard family's ``observation_adapter`` hook)."""
    if obs[0] != "Box" or len(obs[1]) != 1:
        return None
    from dice_env.scorecard.observation import observation_size, with_bonus_features

    rules = game.rules
    if obs[1][0] != observation_size(rules, "bonus"):
        return None
    basic = observation_size(rules)

    def extend(observations: np.ndarray) -> np.ndarray:
        if observations.shape[-1] != basic:  # already the bonus kind
            return observations
        return with_bonus_features(rules, observations)

    return extend


def check_spaces(model: Any, game: Game, source: Any, env_kwargs: dict | None = None) -> None:
    """``ValueError`` naming both games unless ``model`` fits ``game``'s env (a scorecard model
    trained on the ``"bonus"`` observation fits the basic one too)."""
    env_obs, env_act = game.space_keys(env_kwargs)
    obs, act = space_key(model.observation_space), space_key(model.action_space)
    adapter = _observation_adapter(game, obs) if act == env_act else None
    if (obs, act) != (env_obs, env_act) and adapter is None:
        like = games_with_spaces(obs, act)
        guess = f" ({' / '.join(like)}?)" if like else ""
        label = game.name
        raise ValueError(f"cannot use the model {source} for {label}: this model was trained "
                         f"on {describe_spaces(obs, act)}{guess}, but {label}'s env "
                         f"({game.env_label()}) has {describe_spaces(env_obs, env_act)}")


# -- stable-baselines3 models ----------------------------------------------------------------

class SB3Agent:
    """A stable-baselines3 / sb3-contrib model (MaskablePPO, PPO, A2C, DQN) as a player.

    The model's observation and action spaces are checked against the game's env when it is
    loaded; a model for another game is refused with a message naming both.  A scorecard model
    trained on the env's ``observation="bonus"`` plays from the basic observations too (the
    bonus entries are computed from them).  Actions are always
    legal: MaskablePPO predicts with the action masks, PPO / A2C take the policy's logits with
    the illegal actions set to ``-inf`` (argmax when ``deterministic``, a sample otherwise), DQN
    takes the best Q-value among the legal actions (epsilon-greedy with the model's saved
    exploration rate when not ``deterministic``).

    Args:
        game: the game (preset name, Gymnasium id, ``Rules`` or ``"fivethousand"``).
        model_path: the model's ``.zip``, or a ``dice-env train`` run folder (the policy of
            its latest checkpoint, so a run can be measured while it trains or after a stop).
        algorithm: ``"maskableppo"``, ``"ppo"``, ``"a2c"`` or ``"dqn"``; detected from the zip
            when None (see :func:`detect_algorithm`).
        deterministic: take the best legal action (default) or sample.
        seed: seeds torch's sampling when ``deterministic`` is False.
        device: torch device for inference (``"cpu"``).
        env_kwargs: options of the env the spaces are checked against (e.g.
            ``{"num_players": 3}`` for 5000 with three players).
    """

    def __init__(self, game: Any, model_path: str | os.PathLike, algorithm: str | None = None,
                 deterministic: bool = True, seed: int | None = None, device: str = "cpu",
                 env_kwargs: dict | None = None) -> None:
        path = Path(model_path).expanduser()
        if path.is_dir():
            raise ValueError(f"{path} is a folder, not a model .zip; agents.load(folder, game) "
                             "plays the latest checkpoint of a dice-env train run folder")
        if not path.is_file():
            raise FileNotFoundError(f"no such model file: {path} does not exist; expected a "
                                    "stable-baselines3 model .zip or a training run folder")
        model, algo = _load_sb3_zip(path, algorithm, device)
        resolved = resolve(game)
        check_spaces(model, resolved, path, env_kwargs)
        self._setup(resolved, path, model, algo, deterministic)
        self.seed(seed)

    def _setup(self, game: Game, path: Path | None, model: Any, algorithm: str,
               deterministic: bool) -> None:
        #: extends basic observations for a model trained on the "bonus" observation
        self._adapt = _observation_adapter(game, space_key(model.observation_space))
        self.game = game.spec
        self.model_path = path
        self.model = model
        self.algorithm = algorithm
        self.deterministic = deterministic

    @classmethod
    def from_model(cls, model: Any, game: Any, deterministic: bool = True,
                   source: Path | None = None, env_kwargs: dict | None = None) -> SB3Agent:
        """Wrap a live model, e.g. to evaluate it during training.

        With ``source`` (where the model came from: a run folder's checkpoint) its spaces are
        checked against the game's env as for a model file; without, nothing is checked.
        """
        resolved = resolve(game)
        if source is not None:
            check_spaces(model, resolved, source, env_kwargs)
        agent = cls.__new__(cls)
        agent._setup(resolved, source, model, _algorithm_of_model(model), deterministic)
        return agent

    def seed(self, seed: int | None = None) -> None:
        """Seed torch's sampling (only matters when not deterministic)."""
        if seed is not None:
            import torch

            torch.manual_seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action for one observation, restricted to the legal ones."""
        return int(self.act_batch(np.asarray(observation)[None],
                                  np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One legal action (int64) per row of ``observations`` / ``masks``."""
        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks).astype(bool)
        if len(obs) == 0:
            return np.empty(0, dtype=np.int64)
        if self._adapt is not None:
            obs = self._adapt(obs)
        if not masks.any(axis=1).all():
            raise ValueError("an action mask has no legal action")
        if self.algorithm == "maskableppo":
            actions, _ = self.model.predict(obs, action_masks=masks,
                                            deterministic=self.deterministic)
            return np.asarray(actions, dtype=np.int64).reshape(len(obs))
        import torch

        policy = self.model.policy
        policy.set_training_mode(False)  # as SB3's predict does
        with torch.no_grad():
            obs_t = policy.obs_to_tensor(obs)[0]
            legal = torch.as_tensor(masks, device=obs_t.device)
            if self.algorithm == "dqn":
                q = self.model.q_net(obs_t).masked_fill(~legal, -torch.inf)
                actions = q.argmax(dim=1)
                eps = float(getattr(self.model, "exploration_rate", 0.0) or 0.0)
                if not self.deterministic and eps > 0:
                    explore = torch.rand(len(obs), device=obs_t.device) < eps
                    uniform = torch.multinomial(legal.float(), 1).squeeze(1)
                    actions = torch.where(explore, uniform, actions)
            else:
                logits = policy.get_distribution(obs_t).distribution.logits
                logits = logits.masked_fill(~legal, -torch.inf)
                if self.deterministic:
                    actions = logits.argmax(dim=1)
                else:
                    actions = torch.distributions.Categorical(logits=logits).sample()
        return actions.cpu().numpy().astype(np.int64)

    def __repr__(self) -> str:
        source = self.model_path if self.model_path is not None else "a live model"
        return f"{type(self).__name__}({self.algorithm}, {source}, game={self.game!r})"


def _load_sb3_zip(path: Path, algorithm: str | None, device: str) -> tuple[Any, str]:
    """``(model, algorithm)`` of a model zip, the algorithm detected unless given."""
    data = _read_sb3_data(path)
    algo = normalise_algorithm(algorithm) if algorithm else detect_algorithm(data, path)
    package, class_name = ALGORITHMS[algo]
    model_cls = getattr(importlib.import_module(package), class_name)
    try:
        return model_cls.load(path, device=device), algo
    except Exception as exc:
        try:
            hint = f"it looks like a {ALGORITHMS[detect_algorithm(data, path)][1]} model; "
        except ValueError:
            hint = ""
        raise ValueError(f"could not load {path} as a {class_name} model ({exc}); {hint}name "
                         f"the algorithm that saved it with a prefix: {KNOWN_PREFIXES}"
                         ) from exc


