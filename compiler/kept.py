"""A compiled rulebook's symbol table and generated code, kept on disk (runtime/cache.py), so
that `rulecraft eval` in a new process checks and runs its expression without compiling the rule
file again.

An entry holds the rule text (a house file's with its bases'), the generated module as a code
object and the symbol table as checking an expression reads it (`_as_read`): without what only
the passes over procedures read, a third of it, nor the bodies of tables, formulas and combatant
models, which live on as generated code. The table is pickled with each generated function it
reaches (a table cell's) named rather than stored: loading runs the module's definitions, then
puts each function back by its name. The key names the file's name and text, the limits, the
Python and every file of the compiler, runtime and parser (the code that made the entry); the
bases a house file extends are read again and compared, as `rulecraft.compile` does.
"""

from __future__ import annotations

import io
import marshal
import os
import pickle
import sys
import types
from collections.abc import Callable
from typing import Any

import attrs

from rulecraft import dsl
from rulecraft.runtime import cache
from rulecraft.runtime.helpers import make_helpers
from rulecraft.runtime.limits import Limits

from .scope import Scope

Bases = tuple[tuple[str, str], ...]  # what a house file extends: (file name, text), nearest first
# The parts of a symbol table only the passes over procedures read.
_PROCEDURES = ("procedures", "policies", "procedure_params", "procedure_choices", "choice_info",
               "procedure_checks", "schemas")


def key(filename: str, text: str, limits: Limits) -> str:
    """The entry's name: made from everything the entry depends on but the bases. Named before
    the entry is read: a cache folder beside the rule file is not trusted (runtime/cache.py)."""
    cache.reading(filename)
    return cache.cache_key("scope", [sys.version, filename, text], limits, _code())


def keep(key: str, scope: Scope, namespace: dict[str, Any], python: str, bases: Bases) -> None:
    """Keep what `eval` needs of a rulebook compiled in this process (`namespace`: the globals
    its generated `python` ran in); nothing at all when some of it cannot be kept."""
    try:
        code = marshal.dumps(compile(python, f"<rulecraft: {scope.filename}>", "exec"))
        table = io.BytesIO()
        _Pickler(table, namespace).dump(_as_read(scope))
    except Exception:  # noqa: BLE001 - a value pickle cannot take: `eval` compiles, as before
        return
    cache.write(key, (scope.source, code, table.getvalue(), bases))


def _as_read(scope: Scope) -> Scope:
    """`scope` as checking an expression reads it. An expression names tables, formulas and
    combatant models: it reads their names, a table's given figures and a formula's parameters,
    never a table's keys, rows and options, a formula's body or a model's fields (the generated
    module holds them as code). Nor does it call a procedure or name a policy."""
    models = {name: attrs.evolve(decl, fields=()) for name, decl in scope.models.items()}
    return attrs.evolve(
        scope, **{name: {} for name in _PROCEDURES},
        tables={name: attrs.evolve(info, decl=attrs.evolve(info.decl, keys=(), rows=(),
                                                           options=()))
                for name, info in scope.tables.items()},
        formulas={name: attrs.evolve(info, decl=attrs.evolve(info.decl, body=None, where=()))
                  for name, info in scope.formulas.items()},
        combatant=scope.combatant and models[scope.combatant.name], models=models)


def load(key: str, text: str,
         same: Callable[[Bases], bool]) -> tuple[Scope, dict[str, Any]] | None:
    """The symbol table and generated globals kept under `key` for the rule file `text`, or
    None: no entry, one that does not read back whole, or one whose bases (`same`) changed."""
    entry = cache.read(key, lambda found: type(found) is tuple and len(found) == 4 and
                       found[0] == text and type(found[1]) is bytes and
                       type(found[2]) is bytes and type(found[3]) is tuple)
    if entry is None:
        return None
    source, code, table, bases = entry
    if not same(bases):
        return None
    helpers = make_helpers(source)
    namespace = dict(helpers)
    try:
        exec(marshal.loads(code), namespace)  # definitions only, generated from the checked tree
        scope = _Unpickler(io.BytesIO(table), namespace).load()
    except Exception:  # noqa: BLE001 - truncated, corrupt or from other code: compiled again
        return None
    if type(scope) is not Scope:
        return None
    # As the compiler lays them out: helpers, then constants, then the generated functions.
    defined = {name: value for name, value in namespace.items() if name not in helpers}
    namespace.update(scope.constants)
    namespace.update(defined)
    return scope, namespace


class _Pickler(pickle.Pickler):
    """A symbol table, with the generated functions it reaches named by their names."""

    def __init__(self, file: io.BytesIO, namespace: dict[str, Any]) -> None:
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.namespace = namespace

    def persistent_id(self, obj: Any) -> str | None:
        if type(obj) is types.FunctionType and obj.__globals__ is self.namespace:
            if self.namespace.get(obj.__name__) is not obj:
                raise pickle.PicklingError(f"{obj.__name__} is not the generated module's own")
            return obj.__name__
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, namespace: dict[str, Any]) -> None:
        super().__init__(file)
        self.namespace = namespace

    def persistent_load(self, pid: Any) -> Any:
        return self.namespace[pid]


_CODE: list[str] = []


def _code() -> list[str]:
    """Every module of the compiler, runtime and parser (and the grammar), found once."""
    if not _CODE:
        for module in (__file__, cache.__file__, dsl.__file__):
            folder = os.path.dirname(os.path.abspath(module))
            _CODE.extend(sorted(os.path.join(folder, name) for name in os.listdir(folder)
                                if name.endswith((".py", ".lark"))))
    return _CODE


__all__ = ["Bases", "keep", "key", "load"]
