"""The table pass: read printed rows by key and cell type, check them, build runtime tables."""

from __future__ import annotations

import itertools
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse_expression
from rulecraft.runtime.errors import RulecraftError, Span, TableError
from rulecraft.runtime.limits import Limits
from rulecraft.runtime.tables import Cell, CellExpression, IntRange, Key, Record, Row, Table

from . import cells
from .coverage import build_index
from .scope import Scope, TableInfo
from .types import ANY, CELL, DICE, INT, NUM, T, Domain


@attrs.define
class PendingCell:
    """An `= expression` cell, compiled by the code generator once every name is known."""

    cell: CellExpression
    expr: s.Expr
    given: tuple[str, ...]
    table: str


@attrs.define
class _KeyKind:
    kind: str  # "enum", "names", "integer", "number"
    domain: Domain | None = None
    low: Any = None
    high: Any = None
    members: frozenset[str] = frozenset()  # an enum's names, for one hash lookup per cell


class TableBuilder:
    """Builds one table; every problem found is added to the scope's errors."""

    def __init__(self, scope: Scope, decl: s.TableDecl) -> None:
        self.scope = scope
        self.decl = decl
        self.pending: list[PendingCell] = []
        self.expressions = 0  # `= …` cells read so far: a column holding one is typed `cell`

    def error(self, message: str, span: Span | None) -> None:
        self.scope.error(TableError, message, span)

    # -- splitting rows into cells ---------------------------------------------------------
    def split(self, row: s.RowLine) -> list[tuple[str, Span]]:
        """A row's cells, each with the span of its text (for carets under a bad cell)."""
        if not row.closed:
            self.error("a table row ends with |", _end_of(row))
        filename, line, column = row.span.filename, row.span.line, row.span.column
        return [(text, Span(filename, line, column + offset, line,
                            column + offset + (len(text) or 1)))
                for text, offset in row.cells()]

    # -- keys ------------------------------------------------------------------------------
    def key_kind(self, spec: s.KeySpec, free_names: bool) -> _KeyKind:
        t = spec.type
        if isinstance(t, s.RangeType):
            low, high = cells.number(t.low), cells.number(t.high)
            if isinstance(low, int) and isinstance(high, int):
                self._check_span(f"{t.low}..{t.high}", low, high, t.span)
                return _KeyKind("integer", low=low, high=high)
            return _KeyKind("number", low=low, high=high)
        name = t.name if isinstance(t, s.NamedType) else spec.name
        if name in ("integer", "number"):
            return _KeyKind(name)
        domain = self.scope.domain(name)
        if domain is not None:
            return _KeyKind("enum", domain=domain, members=frozenset(domain.members))
        if t is None and free_names:
            return _KeyKind("names")
        self.scope.unknown("key type", name, (t or spec).span,
                           [*self.scope.enums, *self.scope.domains, "integer", "number"])
        return _KeyKind("names")

    def key_cell(self, kk: _KeyKind, text: str, span: Span, label: str) -> Any:
        """A printed key cell as its matcher: a name, an int, an IntRange or a Band."""
        if kk.kind in ("enum", "names"):
            if kk.domain is not None and text not in kk.members:
                self.scope.unknown(kk.domain.name, text, span, list(kk.domain.members))
            return text
        if kk.kind == "integer":
            value = cells.parse_int_key(text, kk.high)
            if value is None and kk.high is None:
                band = cells.parse_band(text)
                if band is not None and all(isinstance(x, (int, type(None)))
                                            for x in (band.low, band.high)):
                    return band
            if value is None:
                self.error(f"{text!r} is not a whole number or range like 01-10 for {label}", span)
                return None
            if isinstance(value, IntRange):  # kept whole even past the limit: no gap follows
                self._check_span(text, value.low, value.high, span)
            return value
        band = cells.parse_band(text)
        if band is None:
            self.error(f"{text!r} is not a number or band like 0.1–1.9, 8 and up, >75 for {label}",
                       span)
        return band

    def _check_span(self, text: str, low: int, high: int, span: Span) -> None:
        """A range key holds at most key_span numbers (lookups never expand a range, but a
        sheet or a tool listing its values would)."""
        limit = self.scope.limits.key_span
        if high - low + 1 > limit:
            self.error(f"{text} holds {high - low + 1} numbers; a range key may hold at most "
                       f"{limit} {Limits.hint('key_span')}", span)

    # -- the table -------------------------------------------------------------------------
    def build(self) -> TableInfo | None:
        decl = self.decl
        lines = self._printed_rows()
        if lines is None:
            return None
        if len(lines) < 2:
            self.error(f"table {decl.name} needs a header row and at least one row", decl.span)
            return None
        width = _width(lines[0])
        if not self._within_cells(width, lines):
            return None
        header = self.split(lines[0])
        body = self._body(lines[1:], width)
        options = {o.name: o.value for o in decl.options}
        for o in decl.options:
            if o.name != "blank" or o.value not in ("above", "empty"):
                self.error(f"unknown table option {o.name}: {o.value} (known: blank: above)",
                           o.span)
        if decl.cell_type is None or len(decl.keys) == 1:
            return self._record(header, body, options)
        return self._grid(header, body, options)

    def _printed_rows(self) -> list[s.RowLine] | None:
        """The header and rows, dashed rules left out; None (and an error) past table_rows,
        found before any cell is read."""
        limit = self.scope.limits.table_rows
        printed = (r for r in self.decl.rows if not r.is_rule)
        lines = list(itertools.islice(printed, limit + 2))
        if len(lines) <= limit + 1:
            return lines
        self.error(f"table {self.decl.name} has more than {limit} rows "
                   f"{Limits.hint('table_rows')}", lines[-1].span)
        return None

    def _within_cells(self, width: int, lines: list[s.RowLine]) -> bool:
        """Rows times the header's cells stay within table_cells (an error on the first row
        past it otherwise)."""
        limit = self.scope.limits.table_cells
        rows = len(lines) - 1
        if width * rows <= limit:
            return True
        first_over = lines[limit // width + 1]
        self.error(f"table {self.decl.name} has {rows} rows of {width} cells, more than {limit} "
                   f"cells {Limits.hint('table_cells')}", first_over.span)
        return False

    def _body(self, rows: list[s.RowLine], width: int) -> list[tuple[s.RowLine, Any]]:
        """Each row with its cells; a row not as wide as the header is reported, not read."""
        body = []
        for row in rows:
            if _width(row) == width:
                body.append((row, self.split(row)))
                continue
            if not row.closed:
                self.error("a table row ends with |", _end_of(row))
            self.error(f"this row has {_width(row)} cells; the header has {width}", row.span)
        return body

    def _record(self, header: list[tuple[str, Span]], body: list[Any],
                options: dict[str, str]) -> TableInfo | None:
        decl = self.decl
        nkeys = len(decl.keys)
        kinds = [self.key_kind(k, free_names=True) for k in decl.keys]
        fields = [cells.snake(label) for label, _ in header[nkeys:]]
        if not fields:
            self.error(f"table {decl.name} has no columns after its key column(s)", decl.span)
            return None
        named: set[str] = set()
        for i, f in enumerate(fields):
            if f in named:
                self.error(f"column {f!r} appears twice", header[nkeys + i][1])
            named.add(f)
        rows: list[Row] = []
        parsed: list[tuple[tuple[Any, ...], list[Any]]] = []
        column_kinds: list[set[str]] = [set() for _ in fields]
        typed = self._cell_parser() if decl.cell_type is not None else None
        if typed is not None and len(fields) != 1:
            self.error(f"a one-key table with -> has one value column; this one has {len(fields)}",
                       decl.span)
            return None
        spans: list[tuple[Span, ...]] = []
        for row, cells_ in body:
            matchers = tuple(self.key_cell(kk, text, span, spec.name)
                             for kk, spec, (text, span) in zip(kinds, decl.keys, cells_))
            values = []
            for i, (text, span) in enumerate(cells_[nkeys:]):
                if typed is not None:
                    kind, value = "typed", typed[1](text, span)
                else:
                    kind, value = self._value_cell(text, span)
                column_kinds[i].add(kind)
                values.append(value)
            parsed.append((matchers, values))
            spans.append(tuple(sp for _, sp in cells_[:nkeys]))
            rows.append(Row(tuple(Cell(t, m, sp) for (t, sp), m in zip(cells_, matchers)),
                            tuple(Cell(t, v, sp) for (t, sp), v in zip(cells_[nkeys:], values)),
                            row.span, row.comments))
        for i, kk in enumerate(kinds):
            if kk.kind == "names":
                members = tuple(m[i] for m, _ in parsed)
                kk.domain = Domain(decl.keys[i].name, members, decl.name if nkeys == 1 else None)
                if nkeys == 1 and decl.keys[i].name not in self.scope.domains and \
                        decl.keys[i].name not in self.scope.enums:
                    self.scope.domains[decl.keys[i].name] = kk.domain
        if typed is not None:
            blank = any(v[0] is None for _, v in parsed)
            ftypes = [CELL if self.expressions else typed[0].or_none() if blank else typed[0]]
        else:
            ftypes = [self._column_type(k) for k in column_kinds]
        single = len(fields) == 1
        index_values = [(m, (v[0] if single else Record(dict(zip(fields, v)))))
                        for m, v in parsed]
        keys = tuple(self._runtime_key(spec, kk, label) for spec, kk, (label, _) in
                     zip(decl.keys, kinds, header))
        table = self._table("record", keys, header[:nkeys], header[nkeys:], tuple(fields),
                            tuple(rows), options)
        build_index(table, kinds, [m for m, _ in index_values], [v for _, v in index_values],
                    spans, self.error)
        value = ftypes[0] if single else T("record", fields=tuple(zip(fields, ftypes)))
        return TableInfo(decl, [self._key_type(kk) for kk in kinds], value, table)

    def _grid(self, header: list[tuple[str, Span]], body: list[Any],
              options: dict[str, str]) -> TableInfo | None:
        decl = self.decl
        if len(decl.keys) < 2:
            self.error("a table with -> needs two keys: one down the side, one across the top",
                       decl.span)
            return None
        inverted = [i for i, k in enumerate(decl.keys) if k.in_cells]
        if len(inverted) > 1 or (inverted and len(decl.keys) != 2):
            self.error("only one key of a two-key table can be `in cells`", decl.span)
            return None
        kinds = [self.key_kind(k, free_names=not inverted) for k in decl.keys]
        if inverted:
            cell_key = inverted[0]
            column_key = 1 - cell_key
            row_keys: list[int] = []
        else:
            cell_key = -1
            column_key = len(decl.keys) - 1
            row_keys = list(range(len(decl.keys) - 1))
        nrow = 1 if inverted else len(row_keys)
        column_cells = header[nrow:]
        columns = [self.key_cell(kinds[column_key], text, span, decl.keys[column_key].name)
                   for text, span in column_cells]
        value_type, parse_value = self._cell_parser()
        grid = _Grid(columns, [span for _, span in column_cells], column_key,
                     fill=options.get("blank") == "above")
        rows: list[Row] = []
        for row, cells_ in body:
            side, printed_cells = cells_[:nrow], cells_[nrow:]
            if inverted:
                result = parse_value(*side[0])
                printed = [grid.add_ranges(result, cell_key, self.key_cell(
                    kinds[cell_key], text, span, decl.keys[cell_key].name) if text else None,
                    j, span) for j, (text, span) in enumerate(printed_cells)]
                key_cells = (Cell(side[0][0], result, side[0][1]),)
            else:
                matchers = tuple(self.key_cell(kinds[k], t, sp, decl.keys[k].name)
                                 for k, (t, sp) in zip(row_keys, side))
                printed = [grid.add_value(matchers, [sp for _, sp in side], parse_value(t, sp), j)
                           for j, (t, sp) in enumerate(printed_cells)]
                key_cells = tuple(Cell(t, m, sp) for (t, sp), m in zip(side, matchers))
            rows.append(Row(key_cells, tuple(Cell(t, v, sp) for (t, sp), v in
                                             zip(printed_cells, printed)), row.span, row.comments))
        matchers, values, spans = grid.matchers, grid.values, grid.spans
        for i, kk in enumerate(kinds):
            if kk.kind == "names":
                kk.domain = Domain(decl.keys[i].name,
                                   tuple(dict.fromkeys(str(m[i]) for m in matchers)))
        keys = tuple(self._runtime_key(spec, kk, spec.name) for spec, kk in zip(decl.keys, kinds))
        table = self._table("inverted" if inverted else "cross", keys, header[:nrow],
                            column_cells, tuple(str(c) for c in columns), tuple(rows), options)
        build_index(table, kinds, matchers, values, spans, self.error)
        if self.expressions:
            value_type = CELL  # read from Python with its given figures, not by a rule
        elif any(v is None for v in values):
            value_type = value_type.or_none()  # a blank cell
        return TableInfo(decl, [self._key_type(kk) for kk in kinds], value_type, table)

    # -- cells -----------------------------------------------------------------------------
    def _value_cell(self, text: str, span: Span) -> tuple[str, Any]:
        if text.startswith("="):
            return "expr", self._expression(text, span)
        kind, value = cells.infer(text)
        if kind == "name":
            record = cells.parse_record(text)
            if record is not None:
                return "record", record
        return kind, value

    def _expression(self, text: str, span: Span) -> CellExpression | None:
        body = text[1:].strip()
        offset = len(text) - len(text[1:].lstrip()) 
        try:
            node = parse_expression(body, span.filename, span.line, span.column + offset,
                                    self.scope.source, self.scope.limits)
        except RulecraftError as err:
            self.scope.errors.append(err)
            return None
        self.expressions += 1
        cell = CellExpression(body, self.decl.given, _unset)
        self.pending.append(PendingCell(cell, node, self.decl.given, self.decl.name))
        return cell

    def _cell_parser(self) -> tuple[T, Any]:
        ct = self.decl.cell_type
        if isinstance(ct, tuple):
            fields = ct

            def parse_record(text: str, span: Span) -> Any:
                if not text:
                    return None
                if text.startswith("="):
                    return self._expression(text, span)
                parts = cells.parse_record(text)
                if parts is None or len(parts) != len(fields):
                    self.error(f"{text!r} should be {len(fields)} numbers separated by / "
                               f"({'/'.join(fields)})", span)
                    return None
                return Record(dict(zip(fields, parts)))

            return T("record", fields=tuple((f, NUM) for f in fields)), parse_record
        assert isinstance(ct, str)
        domain = self.scope.domain(ct)
        members = frozenset(domain.members) if domain is not None else frozenset()
        if ct not in ("integer", "number", "dice", "name") and domain is None:
            self.scope.unknown("cell type", ct, self.decl.span,
                               ["integer", "number", "dice", "name", *self.scope.enums])

        def parse_cell(text: str, span: Span) -> Any:
            if not text:
                return None
            if text.startswith("="):
                return self._expression(text, span)
            if ct in ("integer", "number"):
                if not cells.NUM_RE.match(text):
                    self.error(f"{text!r} is not a number", span)
                    return None
                return cells.number(text)
            if ct == "dice":
                dice = cells.parse_dice(text)
                if dice is None:
                    self.error(f"{text!r} is not dice like 2d4+12", span)
                return dice
            if domain is not None and text not in members:
                self.scope.unknown(domain.name, text, span, list(domain.members))
            return text

        vt = {"integer": INT, "number": NUM, "dice": DICE}.get(ct) or T("name", domain=domain)
        return vt, parse_cell

    def _column_type(self, kinds: set[str]) -> T:
        if "expr" in kinds:
            return CELL
        if kinds - {"blank"} and "blank" in kinds:
            return self._column_type(kinds - {"blank"}).or_none()
        if not kinds - {"blank"}:
            return ANY
        if kinds == {"int"}:
            return INT
        if kinds <= {"int", "num"}:
            return NUM
        if kinds == {"name"}:
            return T("name")
        if kinds == {"dice"}:
            return DICE
        return ANY

    # -- keys, checks and the index --------------------------------------------------------
    def _runtime_key(self, spec: s.KeySpec, kk: _KeyKind, label: str) -> Key:
        members = kk.domain.members if kk.domain is not None else None
        kind = "enum" if kk.kind in ("enum", "names") else kk.kind
        return Key(spec.name, label, kind, members, kk.low, kk.high, spec.in_cells)

    def _key_type(self, kk: _KeyKind) -> T:
        if kk.kind in ("enum", "names"):
            return T("name", domain=kk.domain)
        return INT if kk.kind == "integer" else NUM

    def _table(self, layout: str, keys: tuple[Key, ...], side: list[tuple[str, Span]],
               labels: list[tuple[str, Span]], fields: tuple[str, ...], rows: tuple[Row, ...],
               options: dict[str, str]) -> Table:
        decl = self.decl
        return Table(decl.name, decl.title or decl.name, layout, keys,
                     tuple(t for t, _ in labels), tuple(t for t, _ in side), fields, rows,
                     decl.span, decl.comments, options, self.scope.source)


@attrs.define
class _Grid:
    """The entries of a cross or inverted table as its rows are read, column by column."""

    columns: list[Any]
    column_spans: list[Span]
    column_key: int
    fill: bool  # `blank: above`
    matchers: list[tuple[Any, ...]] = attrs.field(factory=list)
    values: list[Any] = attrs.field(factory=list)
    spans: list[tuple[Span, ...]] = attrs.field(factory=list)
    above: dict[int, Any] = attrs.field(factory=dict)

    def add_value(self, side: tuple[Any, ...], side_spans: list[Span], value: Any, j: int) -> Any:
        """A cell of a cross table; returns the value as printed (None when blank)."""
        stored = self.above.get(j) if value is None and self.fill else value
        self.above[j] = stored
        self.matchers.append(side + (self.columns[j],))
        self.values.append(stored)
        self.spans.append(tuple(side_spans) + (self.column_spans[j],))
        return value

    def add_ranges(self, result: Any, cell_key: int, matcher: Any, j: int, span: Span) -> Any:
        """A cell of an inverted table: the key range `matcher` in column j gives `result`."""
        if matcher is not None:
            pair: list[Any] = [None, None]
            pair[cell_key], pair[self.column_key] = matcher, self.columns[j]
            where: list[Span] = [span, span]
            where[self.column_key] = self.column_spans[j]
            self.matchers.append(tuple(pair))
            self.values.append(result)
            self.spans.append(tuple(where))
        return matcher


def _width(row: s.RowLine) -> int:
    """How many cells a row has, counted without reading them."""
    return row.text.count("|") - (1 if row.closed else 0)


def _end_of(row: s.RowLine) -> Span:
    return Span(row.span.filename, row.span.line, row.span.column + len(row.text))


def _unset(**_: Any) -> Any:
    raise AssertionError("expression cell used before the code generator compiled it")
