"""Bring your own agent: build a player from a spec with :func:`load`.

:func:`load` turns what a user has into an :class:`agents.Agent` for a game:

* a registered player name (``"heuristic"``, ``"optimal"``, ``"ppo"``, ... -- see
  :func:`agents.available`): the same as :func:`agents.make`;
* the path of a stable-baselines3 / sb3-contrib model ``.zip`` (MaskablePPO, PPO, A2C, DQN),
  optionally prefixed with its algorithm (``"dqn:models/my_dqn.zip"``): an :class:`SB3Agent`,
  which checks the model's spaces against the game's env and never returns an illegal action;
* ``"module:attr"``, where the module is a dotted importable name or the path of a ``.py`` file
  (``"path/to/my_bot.py:MyBot"``), and the attribute is an agent class, an agent object, a
  factory returning either, or a plain policy function ``(observation, action_mask) -> action``
  (wrapped in a :class:`FunctionAgent`);
* any of those objects passed directly.

Every bad spec raises ``ValueError``, ``FileNotFoundError`` or ``ImportError`` with a message
saying what was expected.  Nothing heavy (torch, stable-baselines3) is imported until a model
is loaded.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import sys
import zipfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents import FIVE_THOUSAND, Agent

__all__ = ["ALGORITHMS", "FunctionAgent", "SB3Agent", "detect_algorithm", "load"]

#: algorithm prefix -> (package, class) of the algorithms :class:`SB3Agent` loads.
ALGORITHMS: dict[str, tuple[str, str]] = {
    "maskableppo": ("sb3_contrib", "MaskablePPO"),
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
}

_KNOWN_PREFIXES = ", ".join(f"'{p}:'" for p in ALGORITHMS)


# -- algorithm detection ---------------------------------------------------------------------

def _normalise_algorithm(name: str) -> str:
    """``"MaskablePPO"`` / ``"maskable-ppo"`` -> ``"maskableppo"``; ``ValueError`` if unknown."""
    key = name.strip().lower().replace("-", "").replace("_", "")
    if key not in ALGORITHMS:
        raise ValueError(f"unknown algorithm prefix {name!r}; known prefixes: {_KNOWN_PREFIXES} "
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

    The policy class's module tells sb3-contrib's maskable policies (MaskablePPO) and DQN's
    Q-network policies apart; an actor-critic policy is PPO when the saved hyper-parameters
    include PPO's ``clip_range`` / ``n_epochs``, A2C otherwise.  Models of other algorithms
    (TRPO, QR-DQN, RecurrentPPO, SAC, ...) raise ``ValueError``.
    """
    policy = data.get("policy_class")
    module = policy.get("__module__", "") if isinstance(policy, dict) else ""
    keys = set(data)
    unsupported = None
    if module.startswith("sb3_contrib.common.maskable"):
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
                     f"{module!r}); prefix the path with it: {_KNOWN_PREFIXES} "
                     "(e.g. 'ppo:path/to/model.zip')")


def _algorithm_of_model(model: Any) -> str:
    """The :data:`ALGORITHMS` key of a live model, from its class (or its bases)."""
    for cls in type(model).__mro__:
        key = cls.__name__.lower()
        if key in ALGORITHMS:
            return key
    raise ValueError(f"cannot wrap a {type(model).__name__}: expected a MaskablePPO, PPO, A2C "
                     "or DQN model")


# -- the game's env spaces -------------------------------------------------------------------

def _space_key(space: Any) -> tuple:
    """What must match between a model's space and the env's: the kind and shape / size."""
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        return ("Discrete", int(space.n), int(space.start))
    if isinstance(space, spaces.Box):
        return ("Box", tuple(space.shape))
    return (type(space).__name__, repr(space))


def _describe(obs_key: tuple, act_key: tuple) -> str:
    obs = (f"observations of shape {obs_key[1]}" if obs_key[0] == "Box"
           else f"{obs_key[0]} observations")
    act = f"{act_key[1]} actions" if act_key[0] == "Discrete" else f"{act_key[0]} actions"
    return f"{obs} and {act}"


@cache
def _registered_env_keys(env_id: str, kwargs: tuple = ()) -> tuple[tuple, tuple]:
    """``(observation key, action key)`` of a registered env, built once with ``gym.make``."""
    import gymnasium as gym

    import dice_env  # noqa: F401  (registers the ids)

    env = gym.make(env_id, **dict(kwargs))
    try:
        return _space_key(env.observation_space), _space_key(env.action_space)
    finally:
        env.close()


def _env_keys(env_id: str, kwargs: dict) -> tuple[tuple, tuple]:
    items = tuple(sorted(kwargs.items()))
    try:
        hash(items)
    except TypeError:  # unhashable option values: build it uncached
        return _registered_env_keys.__wrapped__(env_id, items)
    return _registered_env_keys(env_id, items)


def _game_env(game: Any, env_kwargs: dict | None) -> tuple[str, str, tuple, tuple]:
    """``(game label, env description, observation key, action key)`` for ``game``."""
    from dice_env import SCORECARD_IDS

    family, resolved = agents.resolve_game(game)
    kwargs = dict(env_kwargs or {})
    if family == FIVE_THOUSAND:
        env_id = "dice_env/FiveThousand-v0" if resolved == FIVE_THOUSAND else resolved
        obs, act = _env_keys(env_id, kwargs)
        return resolved, env_id, obs, act
    if isinstance(resolved, str):
        env_id = {name: i for i, name in SCORECARD_IDS.items()}[resolved]
        obs, act = _env_keys(env_id, kwargs)
        return resolved, env_id, obs, act
    from dice_env.scorecard.env import ScorecardEnv  # a Rules object: its own env

    env = ScorecardEnv(game=resolved, **kwargs)
    obs, act = _space_key(env.observation_space), _space_key(env.action_space)
    env.close()
    return resolved.name, f"ScorecardEnv({resolved.name} rules)", obs, act


def _observation_adapter(game: Any, obs: tuple) -> Callable[[np.ndarray], np.ndarray] | None:
    """For a scorecard model trained on the ``"bonus"`` observation (``obs`` its space key):
    the function that extends the basic observations players are given; else None."""
    if obs[0] != "Box" or len(obs[1]) != 1:
        return None
    try:
        family, resolved = agents.resolve_game(game)
    except ValueError:
        return None
    if family == FIVE_THOUSAND:
        return None
    from dice_env.scorecard.observation import observation_size, with_bonus_features
    from dice_env.scorecard.rules import get_rules

    rules = get_rules(resolved)
    if obs[1][0] != observation_size(rules, "bonus"):
        return None
    basic = observation_size(rules)

    def extend(observations: np.ndarray) -> np.ndarray:
        if observations.shape[-1] != basic:  # already the bonus kind
            return observations
        return with_bonus_features(rules, observations)

    return extend


def _games_like(obs: tuple, act: tuple) -> list[str]:
    """The known games whose env has these spaces (to say what a model was trained on)."""
    from dice_env import SCORECARD_IDS

    candidates = [(name, env_id, ()) for env_id, name in SCORECARD_IDS.items()]
    candidates.append(("fivethousand", "dice_env/FiveThousand-v0", ()))
    candidates += [(f"fivethousand ({k} players)", "dice_env/FiveThousand-v0",
                    (("num_players", k),)) for k in range(3, 9)]
    candidates.append(("fivethousand solo", "dice_env/FiveThousandSolo-v0", ()))
    return [name for name, env_id, kwargs in candidates
            if _registered_env_keys(env_id, kwargs) == (obs, act)]


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
        model_path: the model's ``.zip``, or a ``scripts/train.py`` run folder (the policy of
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
            model, algo = _run_folder_model(path, algorithm, device), "maskableppo"
        elif not path.is_file():
            raise FileNotFoundError(f"no such model file: {path} does not exist; expected a "
                                    "stable-baselines3 model .zip or a training run folder")
        else:
            model, algo = _load_sb3_zip(path, algorithm, device)
        label, env_desc, env_obs, env_act = _game_env(game, env_kwargs)
        obs, act = _space_key(model.observation_space), _space_key(model.action_space)
        adapter = _observation_adapter(game, obs) if act == env_act else None
        if (obs, act) != (env_obs, env_act) and adapter is None:
            like = _games_like(obs, act)
            guess = f" ({' / '.join(like)}?)" if like else ""
            raise ValueError(f"cannot use the model {path} for {label}: this model was trained "
                             f"on {_describe(obs, act)}{guess}, but {label}'s env ({env_desc}) "
                             f"has {_describe(env_obs, env_act)}")
        self._setup(game, path, model, algo, deterministic)
        self.seed(seed)

    def _setup(self, game: Any, path: Path | None, model: Any, algorithm: str,
               deterministic: bool) -> None:
        #: extends basic observations for a model trained on the "bonus" observation
        self._adapt = _observation_adapter(game, _space_key(model.observation_space))
        self.game = game
        self.model_path = path
        self.model = model
        self.algorithm = algorithm
        self.deterministic = deterministic

    @classmethod
    def from_model(cls, model: Any, game: Any, deterministic: bool = True) -> SB3Agent:
        """Wrap a live model (no file, no space check), e.g. to evaluate it during training."""
        agent = cls.__new__(cls)
        agent._setup(game, None, model, _algorithm_of_model(model), deterministic)
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
    algo = _normalise_algorithm(algorithm) if algorithm else detect_algorithm(data, path)
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
                         f"the algorithm that saved it with a prefix: {_KNOWN_PREFIXES}"
                         ) from exc


def _run_folder_model(path: Path, algorithm: str | None, device: str) -> Any:
    """The MaskablePPO policy of a ``scripts/train.py`` run folder's latest checkpoint."""
    from agents.training import CHECKPOINT_NAME, checkpoint_model

    if not (path / CHECKPOINT_NAME).is_file():
        raise ValueError(f"{path} is a directory without a training checkpoint "
                         f"({CHECKPOINT_NAME}); expected a stable-baselines3 model .zip or a "
                         "scripts/train.py run folder")
    if algorithm and _normalise_algorithm(algorithm) != "maskableppo":
        raise ValueError(f"{path} is a scripts/train.py run folder, which holds a MaskablePPO "
                         f"policy, not {algorithm!r}")
    return checkpoint_model(path, device=device)


# -- user code: classes, objects, factories, policy functions --------------------------------

class FunctionAgent:
    """A plain policy function ``policy(observation, action_mask) -> action`` as a player.

    ``act_batch`` calls it row by row; ``seed`` does nothing (the function owns its randomness).
    """

    def __init__(self, policy: Callable[[Any, Any], Any], name: str | None = None) -> None:
        self.policy = policy
        self.name = name or getattr(policy, "__qualname__", None) or repr(policy)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """``int(policy(observation, action_mask))``."""
        return int(self.policy(observation, action_mask))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action for each row, as int64."""
        return np.array([int(self.policy(o, m)) for o, m in zip(observations, masks, strict=True)],
                        dtype=np.int64)

    def seed(self, seed: int | None = None) -> None:
        """Nothing to seed."""

    def __repr__(self) -> str:
        return f"FunctionAgent({self.name})"


class _ActFromBatch:
    """Gives ``act`` (and a ``seed``) to an agent that only has ``act_batch``."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.asarray(self.agent.act_batch(np.asarray(observation)[None],
                                                   np.asarray(action_mask)[None]))[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self.agent.act_batch(observations, masks)

    def seed(self, seed: int | None = None) -> None:
        seed_fn = getattr(self.agent, "seed", None)
        if callable(seed_fn):
            seed_fn(seed)

    def __getattr__(self, name: str) -> Any:
        if name == "agent":  # not set yet (e.g. while unpickling)
            raise AttributeError(name)
        return getattr(self.agent, name)

    def __repr__(self) -> str:
        return f"{self.agent!r} (act from act_batch)"


def _is_agent_like(obj: Any) -> bool:
    return not isinstance(obj, type) and (callable(getattr(obj, "act", None))
                                          or callable(getattr(obj, "act_batch", None)))


def _complete(agent: Any) -> Agent:
    """The agent as is, or with an ``act`` added when it only has ``act_batch``."""
    return agent if callable(getattr(agent, "act", None)) else _ActFromBatch(agent)


_EXPECTED = ("expected an agent class, an object with act(observation, action_mask) or "
             "act_batch(observations, masks), a factory taking 0 or 1 argument (the game) that "
             "returns one, or a policy function (observation, action_mask) -> action")


def _signature(obj: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def _positionals(sig: inspect.Signature) -> tuple[list[inspect.Parameter], bool]:
    """``(positional parameters, has *args)``."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = [p for p in sig.parameters.values() if p.kind in kinds]
    var = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in sig.parameters.values())
    return params, var


def _required(params: list[inspect.Parameter]) -> list[str]:
    return [p.name for p in params if p.default is inspect.Parameter.empty]


def _takes_game(sig: inspect.Signature | None, origin: str) -> bool:
    """Whether a class / factory is called with the game: it needs a positional argument, or
    its first positional parameter is named ``game``."""
    if sig is None:
        return False
    params, _ = _positionals(sig)
    required = _required(params)
    if len(required) > 1:
        raise ValueError(f"{origin} needs {len(required)} positional arguments {required}; "
                         f"{_EXPECTED}")
    return bool(required) or (bool(params) and params[0].name == "game")


def _check_options(sig: inspect.Signature | None, options: dict, skip: int, origin: str) -> None:
    if sig is None or not options:
        return
    params = list(sig.parameters.values())
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    accepted = [p.name for p in params[skip:]
                if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              inspect.Parameter.KEYWORD_ONLY)]
    bad = sorted(set(options) - set(accepted))
    if bad:
        raise ValueError(f"unknown options {bad} for {origin}; it accepts: {accepted}")


def _seed_only(obj: Any, options: dict, origin: str) -> None:
    """An already built agent takes no options but ``seed`` (applied with its ``seed()``)."""
    extra = sorted(set(options) - {"seed"})
    if extra:
        raise ValueError(f"options {extra} cannot be given to {origin}, which is already built; "
                         "pass a class or a factory to build the agent with options")
    seed_fn = getattr(obj, "seed", None)
    if "seed" in options and callable(seed_fn):
        seed_fn(options["seed"])


def _build(obj: Any, game: Any, options: dict, origin: str) -> Agent:
    """The agent that ``obj`` (class, agent, factory or policy function) stands for."""
    if isinstance(obj, type):
        sig = _signature(obj)
        pass_game = _takes_game(sig, origin)
        _check_options(sig, options, int(pass_game), origin)
        agent = obj(game, **options) if pass_game else obj(**options)
        if not _is_agent_like(agent):
            raise ValueError(f"{origin} built a {type(agent).__name__} without act() or "
                             f"act_batch(); {_EXPECTED}")
        return _complete(agent)
    if _is_agent_like(obj):
        _seed_only(obj, options, origin)
        return _complete(obj)
    if callable(obj):
        sig = _signature(obj)
        if sig is None:
            raise ValueError(f"cannot inspect the signature of {origin}; wrap it in a function "
                             "policy(observation, action_mask) -> action")
        params, var = _positionals(sig)
        required = _required(params)
        if len(required) == 2 or (var and len(required) < 2 and not params):
            _seed_only(obj, options, origin)
            return FunctionAgent(obj)
        if len(required) > 2:
            raise ValueError(f"{origin} is a function with {len(required)} required arguments "
                             f"{required}; {_EXPECTED}")
        pass_game = _takes_game(sig, origin)
        _check_options(sig, options, int(pass_game), origin)
        made = obj(game, **options) if pass_game else obj(**options)
        if _is_agent_like(made):
            return _complete(made)
        if callable(made) and not isinstance(made, type):
            made_sig = _signature(made)
            if made_sig is not None and len(_required(_positionals(made_sig)[0])) == 2:
                return FunctionAgent(made)
        raise ValueError(f"the factory {origin} returned {_kind(made)}; expected an object with "
                         "act() / act_batch() or a policy function (observation, action_mask) "
                         "-> action")
    raise ValueError(f"{origin} is {_kind(obj)}, not an agent; {_EXPECTED}")


def _kind(obj: Any) -> str:
    name = type(obj).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name} ({obj!r:.60})"


# -- module:attr -----------------------------------------------------------------------------

def _is_dotted_name(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or os.sep in text


def _import_file(path_text: str, spec: str) -> Any:
    """Execute a ``.py`` file as a module under a private name (its folder on ``sys.path``
    while it runs, so it can import its neighbours)."""
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no such Python file: {path} (from {spec!r}); expected "
                                "'path/to/my_bot.py:MyBot'")
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    name = f"_agents_user_{stem}_{digest}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module (from {spec!r})")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses, pickle and typing look the module up by name
    folder = str(path.parent)
    sys.path.insert(0, folder)
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        try:
            sys.path.remove(folder)
        except ValueError:
            pass
    return module


def _import_dotted(module_name: str, attr: str, spec: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise ImportError(
                f"cannot import module {module_name!r} (from {spec!r}): no such module on "
                f"sys.path; install it, run from the folder that holds it, or give the file's "
                f"path instead: 'path/to/{module_name.replace('.', '/')}.py:{attr}'") from exc
        raise ImportError(f"importing {module_name!r} (from {spec!r}) failed: {exc}") from exc
    except ImportError as exc:
        raise ImportError(f"importing {module_name!r} (from {spec!r}) failed: {exc}") from exc


def _agent_like_names(module: Any) -> list[str]:
    """Public names of ``module`` that could be agents (classes, objects with act, functions
    defined there)."""
    names = []
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        defined_here = getattr(value, "__module__", None) == module.__name__
        if isinstance(value, type):
            if defined_here or hasattr(value, "act") or hasattr(value, "act_batch"):
                names.append(name)
        elif _is_agent_like(value) or (inspect.isfunction(value) and defined_here):
            names.append(name)
    return sorted(names)


def _from_module_attr(spec: str, game: Any, options: dict) -> Agent:
    module_text, _, attr = spec.rpartition(":")
    if not module_text:
        raise ValueError(f"{spec!r} has no module before ':'; expected 'module:attr' or "
                         "'path/to/file.py:attr'")
    if not _is_dotted_name(attr):
        raise ValueError(f"{attr!r} (in {spec!r}) is not an attribute name; expected "
                         "'module:attr' or 'path/to/file.py:attr', e.g. 'my_bots:MyBot'")
    if module_text.endswith(".py") or _looks_like_path(module_text):
        module = _import_file(module_text, spec)
    elif _is_dotted_name(module_text):
        module = _import_dotted(module_text, attr, spec)
    else:
        raise ValueError(f"{module_text!r} (in {spec!r}) is neither a module name nor a .py "
                         "file; expected 'package.module:attr' or 'path/to/file.py:attr'")
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            found = _agent_like_names(module)
            listing = (f"candidates: {found}" if found
                       else "it defines no class, function or agent object")
            raise ImportError(f"module {module_text!r} has no attribute {attr!r} (from "
                              f"{spec!r}); {listing}") from None
    return _build(obj, game, options, f"{spec!r}")


# -- load ------------------------------------------------------------------------------------

def _not_found(spec: str) -> FileNotFoundError:
    return FileNotFoundError(f"no such model file: {spec!r} does not exist (working directory "
                             f"{os.getcwd()}); expected the path of a stable-baselines3 model "
                             ".zip, optionally prefixed with its algorithm "
                             f"({_KNOWN_PREFIXES})")


def load(spec: str | os.PathLike | Agent | Callable[..., Any], game: Any = "penta",
         **options: Any) -> Agent:
    """Build a player for ``game`` from ``spec``.

    Args:
        spec: one of

            * a registered player name (``"heuristic"``, ``"ppo"``, ... see
              :func:`agents.available`) -- built with :func:`agents.make`;
            * the path of a stable-baselines3 / sb3-contrib model zip (MaskablePPO, PPO, A2C,
              DQN; the algorithm is detected, or given as a prefix: ``"dqn:my_dqn.zip"``) --
              an :class:`SB3Agent`, refused if its spaces do not fit the game's env;
            * the folder of a ``scripts/train.py`` run: the policy of its latest checkpoint;
            * ``"module:attr"`` or ``"path/to/file.py:attr"`` naming an agent class (called as
              ``cls(game, **options)`` if it takes a positional argument, else
              ``cls(**options)``), an agent object (anything with ``act`` or ``act_batch``), a
              factory (0 or 1 required positional parameter, called with the game if it takes
              one) returning an agent or a policy function, or a policy function
              ``(observation, action_mask) -> action`` (wrapped in a :class:`FunctionAgent`);
            * such an object itself.
        game: a scorecard preset name, a Gymnasium id, a ``Rules`` or ``"fivethousand"``.
        **options: passed to :func:`agents.make`, :class:`SB3Agent`, the class or the factory;
            an already built agent or a policy function only takes ``seed``.

    Returns:
        The player.  One with only ``act_batch`` gets an ``act`` too.

    Raises:
        ValueError: empty spec, unknown name, a file that is not a stable-baselines3 model, an
            unknown algorithm prefix, a model for another game, an attribute that is not an
            agent, unknown options, unknown game.
        FileNotFoundError: a model or ``.py`` file that does not exist.
        ImportError: a module that cannot be imported, or a missing attribute.
    """
    _, resolved = agents.resolve_game(game)  # ValueError for an unknown game, up front
    if isinstance(spec, os.PathLike):
        spec_path = Path(spec)
        if not spec_path.exists():
            raise _not_found(str(spec))
        return _load_file(spec_path, game, options)
    if not isinstance(spec, str):
        return _build(spec, resolved, options, f"{spec!r:.60}")
    text = spec.strip()
    if not text:
        raise ValueError("empty player spec; expected a registered player name "
                         f"{agents.available(game)}, the path of a model .zip, or "
                         "'module:attr'")
    if text in agents.available(game):
        return agents.make(text, game, **options)
    if os.path.isfile(text) or os.path.isdir(text):
        return _load_file(Path(text), game, options)
    head, sep, tail = text.partition(":")
    if sep and head.strip().lower().replace("-", "").replace("_", "") in ALGORITHMS:
        if "algorithm" in options:
            raise ValueError(f"{spec!r} names the algorithm; do not pass algorithm= too")
        if not os.path.exists(tail):
            raise _not_found(tail)
        return SB3Agent(game, tail, algorithm=head, **_sb3_options(options))
    looks_like_file = tail.lower().endswith(".zip") or _looks_like_path(tail)
    if sep and len(head) > 1 and head.isidentifier() and looks_like_file:
        _normalise_algorithm(head)  # raises: unknown algorithm prefix, listing the known ones
    if sep:
        return _from_module_attr(text, resolved, options)
    if text.lower().endswith(".py"):
        raise FileNotFoundError(f"no such Python file: {text!r}; a Python file also needs the "
                                "attribute to load: 'path/to/my_bot.py:MyBot'")
    if text.lower().endswith(".zip") or _looks_like_path(text):
        raise _not_found(text)
    family = agents.game_family(game)
    raise ValueError(f"unknown player {spec!r} for {family} game {game!r}: it is not a "
                     f"registered player {agents.available(game)}, not an existing file, and "
                     "not 'module:attr'; expected one of those (e.g. 'heuristic', "
                     "'models/my_model.zip', 'my_bots:MyBot', 'path/to/my_bot.py:MyBot')")


_SB3_OPTIONS = ("algorithm", "deterministic", "seed", "device", "env_kwargs")


def _sb3_options(options: dict) -> dict:
    bad = sorted(set(options) - set(_SB3_OPTIONS))
    if bad:
        raise ValueError(f"unknown options {bad} for a stable-baselines3 model; it accepts: "
                         f"{list(_SB3_OPTIONS)}")
    return options


def _load_file(path: Path, game: Any, options: dict) -> Agent:
    """An existing path: a model zip or a training run folder (a ``.py`` file needs
    ``:attr``)."""
    if path.suffix == ".py":
        raise ValueError(f"{path} is a Python file: name the agent in it too, "
                         f"'{path}:MyBot' (a class, agent object, factory or policy function)")
    return SB3Agent(game, path, **_sb3_options(options))
