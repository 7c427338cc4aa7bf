"""The syntax tree of what a rulebook puts on its sheets at the table: `cheat sheet:` and
`screen:`, each a list of lines naming rules (read through syntax.py: `s.SheetDecl`)."""

from __future__ import annotations

import attrs

from rulecraft.runtime.errors import Span


@attrs.frozen
class SheetItem:  # a NAME of sheet_items: a table, quick reference, formula or procedure
    name: str
    span: Span


@attrs.frozen
class SheetLine:  # sheet_section / sheet_panel / sheet_add / sheet_move / sheet_remove
    op: str  # "section", "panel", "add", "move", "remove"
    items: tuple[SheetItem, ...]
    section: str | None  # the section or panel it names ("Attack"); None for `remove`
    place: tuple[str, SheetItem] | None  # ("before" or "after", the item it goes beside)
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class SheetDecl:  # cheat_decl / screen_decl
    kind: str  # "cheat" or "screen"
    title: str | None
    lines: tuple[SheetLine, ...]
    span: Span
    comments: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """What names it among the declarations (no rule's name holds a space)."""
        return "cheat sheet" if self.kind == "cheat" else "screen"


__all__ = ["SheetDecl", "SheetItem", "SheetLine"]
