"""`combat_ranges.feet[40]`: the row of a record table whose cell in a column of bands holds a
value — d20's combat ranges (Close 0–5 ft, Short 6–30, …), Ringing Steel's velocity bands.

A mixin of the Emitter (compiler/expressions.py). The column is read once per rule file into a
table of its own, keyed by the bands (checked for overlaps and gaps like any numeric key) and
giving the row's name."""

from __future__ import annotations

from typing import Any

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import Span, TableError
from rulecraft.runtime.tables import Key, Table

from . import cells
from .coverage import build_index
from .keys import KeyKind, _integer_band
from .types import T, is_number


class BandedLookups:
    """What the Emitter does with `TABLE.COLUMN[value]`; `self` is an Emitter."""

    scope: Any

    def banded(self: Any, node: s.Index, env: Any) -> tuple[str, T] | None:
        """The lookup, or None when `node` is not `TABLE.COLUMN[…]` of a table by its name."""
        attr = node.value
        if not (isinstance(attr, s.Attr) and isinstance(attr.value, s.Name) and
                attr.value.name not in env and attr.value.name in self.scope.tables):
            return None
        info = self.scope.tables[attr.value.name]
        table = info.runtime
        if table is None or table.layout != "record" or len(table.keys) != 1 or \
                attr.name not in table.fields:
            if table is not None and table.layout == "record" and len(table.keys) == 1:
                self.scope.unknown(f"column of table {table.name}:", attr.name, attr.span,
                                   list(table.fields))
                return "None", T("any")
            return self._bad(f"a column of bands is looked in on a record table of one key; "
                             f"{attr.value.name} is not one", attr)
        if len(node.keys) != 1 or node.given:
            return self._bad(f"{table.name}.{attr.name}[…] takes one number: the value a "
                             "row's band holds", node)
        code, kt = self.present(*self.expr(node.keys[0], env), node.keys[0])
        if not is_number(kt):
            return self._bad(f"a band holds numbers: look up a number in {table.name}."
                             f"{attr.name}, not {kt}", node.keys[0])
        bands = self._bands(table, attr.name)
        if bands is None:
            return "None", T("any")
        ref = self.scope.constant("BANDS_", bands)
        code = self.cast(code, kt, "num", node.keys[0])
        return f"_banded({ref}, {code}, {self.scope.span_ref(node.span)})", info.key_types[0]

    def _bands(self: Any, table: Table, field: str) -> Table | None:
        """The column as a table from its bands to the row names (None if a cell is no band:
        reported at the cell)."""
        made = getattr(self, "_band_tables", None)
        if made is None:
            made = self._band_tables = {}
        if (table.name, field) in made:
            return made[table.name, field]
        at = table.fields.index(field)
        label = table.columns[at]
        printed = [(row.cells[at], row.keys[0].value) for row in table.rows
                   if row.cells[at].text]
        integer = all(cells.parse_int_key(c.text, None) is not None or _integer_band(c.text)
                      for c, _ in printed)
        matchers, spans = [], []
        for cell, _ in printed:
            band = (cells.parse_int_key(cell.text, None) or cells.parse_band(cell.text)) \
                if integer else cells.parse_band(cell.text)
            if band is None:
                self.scope.error(TableError, f"{cell.text!r} is not a band of numbers (such as "
                                 f"3-7, 8 and up, >75) for the {label} column looked in here",
                                 cell.span)
            matchers.append((band,))
            spans.append((cell.span or table.span,))
        kind = "integer" if integer else "number"
        bands = Table(f"{table.name}.{field}", f"{table.title}, {label}", "record",
                      (Key(field, label, kind),), (table.side_labels[0],), (label,),  # -> row
                      ("row",), (), table.span, (), {}, table.source)
        build_index(bands, [KeyKind(kind)], matchers, [name for _, name in printed],
                    spans, lambda message, span: self.scope.error(TableError, message, span),
                    ["row"], table.options.get("gaps") == "allowed")
        made[table.name, field] = None if any(m[0] is None for m in matchers) else bands
        return made[table.name, field]


__all__ = ["BandedLookups", "Span"]
