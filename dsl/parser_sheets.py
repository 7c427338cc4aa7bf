"""The parser's builders for `cheat sheet:` and `screen:` (dsl/syntax_sheets.py), mixed into
its transformer: methods named after the grammar's rules."""

from __future__ import annotations

from typing import Any

from lark import Token, v_args
from lark.visitors import Transformer_NonRecursive

from . import syntax as s


@v_args(meta=True)
class SheetRules(Transformer_NonRecursive):
    """Needs the transformer's `_span` (of a rule), `_tspan` (of a token) and `_claim`."""

    _span: Any
    _tspan: Any
    _claim: Any

    def _sheet(self, kind: str, meta: Any, c: list[Any]) -> s.SheetDecl:
        span = self._span(meta)
        title = str(c[0])[1:-1] if c[0] is not None else None
        lines = tuple(x for x in c[1:] if isinstance(x, s.SheetLine))
        return s.SheetDecl(kind, title, lines, span, self._claim(span))

    def cheat_decl(self, meta: Any, c: list[Any]) -> s.SheetDecl:
        return self._sheet("cheat", meta, c)

    def screen_decl(self, meta: Any, c: list[Any]) -> s.SheetDecl:
        return self._sheet("screen", meta, c)

    def _line(self, op: str, meta: Any, items: tuple[s.SheetItem, ...], section: Any = None,
              place: Any = None) -> s.SheetLine:
        span = self._span(meta)
        title = str(section)[1:-1] if section is not None else None
        return s.SheetLine(op, items, title, place, span, self._claim(span))

    def sheet_items(self, meta: Any, c: list[Token]) -> tuple[s.SheetItem, ...]:
        return tuple(s.SheetItem(str(tok), self._tspan(tok)) for tok in c)

    def sheet_section(self, meta: Any, c: list[Any]) -> s.SheetLine:
        return self._line("section", meta, c[1], c[0])

    def sheet_panel(self, meta: Any, c: list[Any]) -> s.SheetLine:
        return self._line("panel", meta, c[1], c[0])

    def sheet_add(self, meta: Any, c: list[Any]) -> s.SheetLine:
        return self._line("add", meta, c[0], c[1], c[2])

    def sheet_move(self, meta: Any, c: list[Any]) -> s.SheetLine:
        return self._line("move", meta, c[0], c[1], c[2])

    def sheet_remove(self, meta: Any, c: list[Any]) -> s.SheetLine:
        return self._line("remove", meta, c[0])

    def sheet_before(self, meta: Any, c: list[Token]) -> tuple[str, s.SheetItem]:
        return "before", s.SheetItem(str(c[0]), self._tspan(c[0]))

    def sheet_after(self, meta: Any, c: list[Token]) -> tuple[str, s.SheetItem]:
        return "after", s.SheetItem(str(c[0]), self._tspan(c[0]))


__all__ = ["SheetRules"]
