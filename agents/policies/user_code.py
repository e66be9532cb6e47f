"""User code as players: agent classes, agent objects, factories and plain policy functions.

:func:`build_agent` turns such an object into an :class:`agents.Agent`;
:func:`agent_from_module_attr` imports it first from ``"module:attr"`` or
``"path/to/file.py:attr"``.  Every bad object raises ``ValueError`` / ``ImportError`` /
``FileNotFoundError`` with a message that says what was expected.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import check_options, signature_of

__all__ = ["FunctionAgent", "agent_from_module_attr", "build_agent", "looks_like_path"]


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


def _complete(agent: Any) -> Any:
    """The agent as is, or with an ``act`` added when it only has ``act_batch``."""
    return agent if callable(getattr(agent, "act", None)) else _ActFromBatch(agent)


_EXPECTED = ("expected an agent class, an object with act(observation, action_mask) or "
             "act_batch(observations, masks), a factory taking 0 or 1 argument (the game) that "
             "returns one, or a policy function (observation, action_mask) -> action")


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


def _seed_only(obj: Any, options: dict, origin: str) -> None:
    """An already built agent takes no options but ``seed`` (applied with its ``seed()``)."""
    extra = sorted(set(options) - {"seed"})
    if extra:
        raise ValueError(f"options {extra} cannot be given to {origin}, which is already built; "
                         "pass a class or a factory to build the agent with options")
    seed_fn = getattr(obj, "seed", None)
    if "seed" in options and callable(seed_fn):
        seed_fn(options["seed"])


def build_agent(obj: Any, game: Any, options: dict, origin: str) -> Any:
    """The agent that ``obj`` (class, agent, factory or policy function) stands for."""
    if isinstance(obj, type):
        sig = signature_of(obj)
        pass_game = _takes_game(sig, origin)
        check_options(sig, options, int(pass_game), origin)
        agent = obj(game, **options) if pass_game else obj(**options)
        if not _is_agent_like(agent):
            raise ValueError(f"{origin} built a {type(agent).__name__} without act() or "
                             f"act_batch(); {_EXPECTED}")
        return _complete(agent)
    if _is_agent_like(obj):
        _seed_only(obj, options, origin)
        return _complete(obj)
    if callable(obj):
        sig = signature_of(obj)
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
        check_options(sig, options, int(pass_game), origin)
        made = obj(game, **options) if pass_game else obj(**options)
        if _is_agent_like(made):
            return _complete(made)
        if callable(made) and not isinstance(made, type):
            made_sig = signature_of(made)
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


def looks_like_path(text: str) -> bool:
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


def agent_from_module_attr(spec: str, game: Any, options: dict) -> Any:
    module_text, _, attr = spec.rpartition(":")
    if not module_text:
        raise ValueError(f"{spec!r} has no module before ':'; expected 'module:attr' or "
                         "'path/to/file.py:attr'")
    if not _is_dotted_name(attr):
        raise ValueError(f"{attr!r} (in {spec!r}) is not an attribute name; expected "
                         "'module:attr' or 'path/to/file.py:attr', e.g. 'my_bots:MyBot'")
    if module_text.endswith(".py") or looks_like_path(module_text):
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
    return build_agent(obj, game, options, f"{spec!r}")


