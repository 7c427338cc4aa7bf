"""What `rulecraft list` shows of each built-in rulebook, read from its syntax tree (kept in
the disk cache) with its bases laid under it: never compiled, and without the compiler."""

from __future__ import annotations

from importlib import resources
from typing import Any

from rulecraft.compiler.overlay import overlay
from rulecraft.dsl import syntax as s
from rulecraft.dsl.cached import reading_files
from rulecraft.dsl.parser import parse
from rulecraft.runtime.limits import Limits

_COUNTED = {s.TableDecl: "tables", s.FormulaDecl: "formulas", s.ProcedureDecl: "procedures"}


def builtin_rulebooks() -> list[str]:
    """Names of the rulebooks shipped with rulecraft (as `rulecraft.builtin_rulebooks`)."""
    folder = resources.files("rulecraft.rulebooks")
    return sorted(p.name[: -len(".rules")] for p in folder.iterdir() if p.name.endswith(".rules"))


def _builtin(name: str) -> tuple[str, str]:
    text = (resources.files("rulecraft.rulebooks") / f"{name}.rules").read_text(encoding="utf-8")
    return text, f"{name}.rules"


def summary(name: str, limits: Limits) -> dict[str, Any]:
    """A built-in rulebook's name, title and how many tables, formulas and procedures it has
    (its bases' included, as compiling it would count them)."""
    def load_base(base: str, house: str) -> tuple[str, str, str]:
        if base in builtin_rulebooks():
            return (*_builtin(base), f"<built-in {base}>")
        from rulecraft import api  # a base outside the package: read as `load` reads it
        return api.base_loader(limits, house)(base, house)

    text, filename = _builtin(name)
    with reading_files():
        tree = overlay(parse(text, filename, limits), load_base, limits).tree
    row: dict[str, Any] = {"name": name, "title": name, "tables": 0, "formulas": 0,
                           "procedures": 0}
    for decl in tree.declarations:
        if isinstance(decl, s.RulebookDecl):
            row["title"] = decl.title or decl.name
        elif type(decl) in _COUNTED:
            row[_COUNTED[type(decl)]] += 1
    return row


__all__ = ["builtin_rulebooks", "summary"]
