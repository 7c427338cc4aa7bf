"""The syntax tree of space's declarations: a pattern of hexes, a unit of distance.

Beside syntax_file.py (only the compiler reads them) and read through syntax.py like every
other node (`s.PatternDecl`); the expression putting a pattern down, `s.Placed`, is in syntax.py.
"""

from __future__ import annotations

import attrs

from rulecraft.runtime.errors import Span

from .syntax_file import KeySpec, RowLine, TableOption


@attrs.frozen
class PatternDecl:  # pattern_decl: hexes drawn for facing 0, by key columns
    name: str
    title: str | None
    keys: tuple[KeySpec, ...]
    rows: tuple[RowLine, ...]
    options: tuple[TableOption, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class UnitDecl:  # unit_decl: `unit feet "ft": 5 per hex`
    name: str
    title: str | None
    per_hex: str  # the number as written
    span: Span
    comments: tuple[str, ...] = ()


__all__ = ["PatternDecl", "UnitDecl"]
