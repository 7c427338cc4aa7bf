"""Names imported when first used, so that a command loads only what it needs (`rulecraft
roll` never loads the parser; `list` never the compiler)."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """A module, imported at its first attribute read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        self.__dict__.update(vars(module))  # every name read once, then as fast as the module
        return getattr(module, attribute)


def lazy(module: str, name: str | None = None) -> Any:
    """`module` (a LazyModule), or its function `name`, imported at the first call."""
    if name is None:
        return LazyModule(module)

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


__all__ = ["LazyModule", "lazy"]
