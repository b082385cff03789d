"""Inert stand-ins for ``torch`` and ``triton``, which vLLM's and SGLang's tool-parser import
chains import but which the parsers never run (see ``tests/engines/README.md``).

Importing vLLM's ``ToolParser`` imports ``vllm`` (whose ``__init__`` imports torch) and the
config, platform and distributed modules behind the request types: at import time they only
annotate with torch classes, build dtype tables, register custom ops through ``torch.library``
and define ``nn.Module`` subclasses. SGLang's ``FunctionCallParser`` imports ``sglang.srt.utils``,
which imports torch and triton the same way. Every attribute of a stand-in, at any depth, is
another inert stand-in (a class when the name is capitalised, so it can be subclassed), every
call returns one (or, used as a decorator, the function itself), and every call is counted in
:data:`CALLS` so a test can check that the parsers never call into torch or triton.
"""

from __future__ import annotations

import abc
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any

CALLS: list[str] = []
"""The name of every stand-in called, in order."""

ANSWERS = {"torch.distributed.is_initialized": False}
"""Calls with a true answer here, not counted: one process, no process group (vLLM's logger
asks it before logging a message once per rank)."""

# Probed with hasattr() to detect accelerator plugins: a stand-in must not claim them.
_ABSENT = frozenset({"npu", "hpu", "musa", "mlu"})


def _attribute(owner: str, name: str) -> Any:
    if name.startswith("__") or name in _ABSENT:
        raise AttributeError(name)
    path = f"{owner}.{name}"
    return _class(path, name) if name[:1].isupper() else Placeholder(path)


class Placeholder:
    """An inert value: any attribute, call, operator or iteration gives another or nothing."""

    def __init__(self, path: str = "?", *args: Any, **kwargs: Any) -> None:
        self._path = path if isinstance(path, str) else "?"

    def __getattr__(self, name: str) -> Any:
        return _attribute(self._path, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._path in ANSWERS:
            return ANSWERS[self._path]
        CALLS.append(self._path)
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # a decorator
        return Placeholder(f"{self._path}()")

    def __or__(self, other: Any) -> Any:
        return self

    __ror__ = __or__

    def __add__(self, other: Any) -> Any:
        return other

    __radd__ = __add__

    def __getitem__(self, key: Any) -> Any:
        return self

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False

    def __iter__(self) -> Any:
        return iter(())

    def __bool__(self) -> bool:
        return False

    def __int__(self) -> int:
        return 0

    __index__ = __int__

    def __str__(self) -> str:
        return ""


class _PlaceholderType(abc.ABCMeta):
    def __getattr__(cls, name: str) -> Any:
        return _attribute(cls.__qualname__, name)

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __or__

    def __getitem__(cls, key: Any) -> Any:
        return cls


_classes: dict[str, type] = {}


def _class(path: str, name: str) -> type:
    if path not in _classes:

        def init(self: Any, *args: Any, **kwargs: Any) -> None:
            CALLS.append(path)

        def getattr_(self: Any, attribute: str) -> Any:
            return _attribute(f"{path}()", attribute)

        namespace = {"__init__": init, "__getattr__": getattr_, "__qualname__": path}
        _classes[path] = _PlaceholderType(name, (), namespace)
    return _classes[path]


class _Submodules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes ``import ROOT.anything`` give a stand-in module."""

    def __init__(self, root: str) -> None:
        self._prefix = root + "."

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name.startswith(self._prefix):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        return placeholder_module(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def placeholder_module(name: str, version: str | None = None) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []
    module.__getattr__ = lambda attribute: _attribute(name, attribute)  # type: ignore[method-assign]
    if version is not None:
        module.__version__ = version
    return module


def install(name: str, version: str) -> None:
    """Make ``sys.modules[name]`` (the package being imported) and its submodules stand-ins."""
    module = placeholder_module(name, version)
    module.__spec__ = sys.modules[name].__spec__  # importlib.util.find_spec reads it
    sys.modules[name] = module
    sys.meta_path.insert(0, _Submodules(name))
