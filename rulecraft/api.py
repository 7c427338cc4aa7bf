"""The public façade: load or compile a rulebook, evaluate an expression in its scope."""

from __future__ import annotations

import difflib
from importlib import resources
from pathlib import Path
from typing import Any

from rulecraft.compiler.build import compile_file
from rulecraft.compiler.evaluate import evaluate_in
from rulecraft.dsl.formatter import format_file
from rulecraft.dsl.parser import parse
from rulecraft.runtime.errors import UnknownRulebookError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.rulebook import Rulebook

_cache: dict[tuple[str, str, Limits], Rulebook] = {}  # (filename, text) -> compiled; the newest few
_CACHE_SIZE = 32


def builtin_rulebooks() -> list[str]:
    """Names of the rulebooks shipped with rulecraft."""
    folder = resources.files("rulecraft.rulebooks")
    return sorted(p.name[: -len(".rules")] for p in folder.iterdir() if p.name.endswith(".rules"))


def compile(text: str, filename: str = "<rules>",  # noqa: A001 - the façade's verb
            limits: Limits = DEFAULT_LIMITS) -> Rulebook:
    """Compile rule text into a playable Rulebook (raises RulecraftError with a caret)."""
    if not isinstance(text, str):
        raise UnknownRulebookError(f"rule text is a str, not {type(text).__name__}; read a file "
                                   "with rulecraft.load(path)")
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write is not rule text
    key = (filename, text, limits)
    if key in _cache:
        _cache[key] = _cache.pop(key)  # most recently used last
    else:
        if len(_cache) >= _CACHE_SIZE:
            del _cache[next(iter(_cache))]
        _cache[key] = compile_file(text, filename, limits)
    return _cache[key]


def load(name_or_path: str | Path, limits: Limits = DEFAULT_LIMITS) -> Rulebook:
    """A built-in rulebook by name (`"ringing_steel"`) or a `.rules` file by path."""
    text, filename = _read(name_or_path)
    return compile(text, filename, limits)


def format_rules(text: str, filename: str = "<rules>") -> str:
    """Rule text in the canonical layout, comments kept (RulecraftError if it does not parse)."""
    return format_file(parse(text, filename))


def evaluate(rulebook: Rulebook, expression: str) -> Any:
    """Evaluate an expression of the language (a formula call, a table lookup) in a rulebook."""
    return evaluate_in(rulebook, expression)


def _read(name_or_path: str | Path) -> tuple[str, str]:
    name = str(name_or_path)
    if name in builtin_rulebooks():
        resource = resources.files("rulecraft.rulebooks") / f"{name}.rules"
        return resource.read_text(encoding="utf-8"), f"{name}.rules"
    path = Path(name)
    if path.is_dir():
        raise UnknownRulebookError(f"{name} is a folder; give a .rules file inside it")
    if path.is_file():
        try:
            return path.read_text(encoding="utf-8-sig"), str(path)
        except (OSError, UnicodeDecodeError) as err:
            raise UnknownRulebookError(f"cannot read {name}: {err}") from None
    close = difflib.get_close_matches(name, builtin_rulebooks(), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UnknownRulebookError(
        f"no rulebook called {name!r}: not a built-in ({', '.join(builtin_rulebooks())}) "
        f"and no such file{hint}"
    )


__all__ = ["builtin_rulebooks", "compile", "evaluate", "format_rules", "load"]
