"""The table pass: read printed rows by key and cell type, check them, build runtime tables."""

from __future__ import annotations

import itertools
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse_expression
from rulecraft.runtime.errors import RulecraftError, Span, TableError
from rulecraft.runtime.limits import Limits
from rulecraft.runtime.tables import Cell, CellExpression, Key, Record, Row, Table

from . import cells
from .cells import Notation
from .columns import CellTypes, RawCell, Reader, record_reader
from .coverage import build_index
from .joined import OPTION as JOINED
from .joined import joined_option, joined_rows
from .keys import KeyKind, KeyReader
from .layout import Grid, Layout
from .scope import Scope, TableInfo
from .several import expanded
from .types import CELL, INT, NUM, T, Domain

# The options every table may set, with the values each takes; any other option line of a
# record table declares a column's type (`a: number`).
OPTIONS = {"blank": ("above", "empty"), "results": ("across", "down"), "gaps": ("allowed",)}


@attrs.define
class PendingCell:
    """An `= expression` cell or a band's bound, compiled by the code generator once every name
    is known."""

    cell: CellExpression
    expr: s.Expr
    given: tuple[str, ...]
    table: str


class TableBuilder:
    """Builds one table; every problem found is added to the scope's errors."""

    def __init__(self, scope: Scope, decl: s.TableDecl,
                 notations: dict[str, Notation] | None = None,
                 tables: dict[str, s.TableDecl] | None = None) -> None:
        self.scope = scope
        self.decl = decl
        self.tables = tables or {}  # every table declared, by name: for a joined table's rows
        self.pending: list[PendingCell] = []
        self.expressions = 0  # `= …` cells read so far: a column holding one is typed `cell`
        self.types = CellTypes(scope, notations or {})
        self.keys = KeyReader(scope, decl, self._bound)

    def error(self, message: str, span: Span | None) -> None:
        self.scope.error(TableError, message, span)

    # -- splitting rows into cells ---------------------------------------------------------
    def split(self, row: s.RowLine) -> list[tuple[str, Span]]:
        """A row's cells, each with the span of its text (for carets under a bad cell, and to
        slice the rule text an expression cell came from)."""
        if not row.closed:
            self.error("a table row ends with |", _end_of(row))
        filename, line, column, start = (row.span.filename, row.span.line, row.span.column,
                                         row.span.start)
        return [(text, Span(filename, line, column + offset, line,
                            column + offset + (len(text) or 1), start + offset,
                            start + offset + len(text)))
                for text, offset in row.cells()]

    # -- the table -------------------------------------------------------------------------
    def build(self) -> TableInfo | None:
        decl = self.decl
        lines = self._printed_rows() if joined_option(decl) is None else \
            joined_rows(decl, self.tables, self.error)
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
        options, declared = self._options()
        if decl.cell_type is None or len(decl.keys) == 1:
            return self._record(header, body, options, declared)
        for o in declared:
            self._unknown_option(o, None)
        return self._grid(header, body, options)

    def _options(self) -> tuple[dict[str, str], list[s.TableOption]]:
        """The table's options, and the option lines left over (a record table's column types)."""
        options: dict[str, str] = {}
        declared: list[s.TableOption] = []
        for o in self.decl.options:
            if o.name == JOINED:
                continue
            if o.name not in OPTIONS:
                declared.append(o)
            elif o.value in OPTIONS[o.name]:
                options[o.name] = o.value
            else:
                self._unknown_option(o, None)
        return options, declared

    def _unknown_option(self, o: s.TableOption, field: str | None) -> None:
        column = f", or a column's type such as `{field}: number`" if field else ""
        self.error(f"unknown table option {o.name}: {o.value} (known: blank: above, "
                   f"results: across, gaps: allowed{column})", o.span)

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

    # -- record tables: named columns ------------------------------------------------------
    def _record(self, header: list[tuple[str, Span]], body: list[Any], options: dict[str, str],
                declared: list[s.TableOption]) -> TableInfo | None:
        decl = self.decl
        nkeys = len(decl.keys)
        kinds = [self._own_rows(spec, self.keys.kind(spec, free_names=True), i, body)
                 for i, spec in enumerate(decl.keys)]
        labels = header[nkeys:]
        fields = [cells.snake(label) for label, _ in labels]
        if not fields:
            self.error(f"table {decl.name} has no columns after its key column(s)", decl.span)
            return None
        self._unique(fields, labels)
        self._results_need_cells(options)
        readers = self._column_readers(fields, declared)
        if readers is None:
            return None
        matchers: list[tuple[Any, ...]] = []
        raw: list[list[RawCell]] = [[] for _ in fields]
        for _, cells_ in body:
            matchers.append(tuple(self.keys.cell(kk, text, span, spec.name)
                                  for kk, spec, (text, span) in zip(kinds, decl.keys, cells_)))
            for column, reader, (text, span) in zip(raw, readers, cells_[nkeys:]):
                column.append(self._raw(text, span, reader))
        ftypes, columns = [], []
        for column, reader, (label, _), field in zip(raw, readers, labels, fields):
            t, values = self._column(column, reader, label, field)
            ftypes.append(t)
            columns.append(values)
        by_row = list(zip(*columns))
        rows = tuple(Row(tuple(Cell(t, m, sp) for (t, sp), m in zip(cells_, ms)),
                         tuple(Cell(t, v, sp) for (t, sp), v in zip(cells_[nkeys:], values)),
                         row.span, row.comments)
                     for (row, cells_), ms, values in zip(body, matchers, by_row))
        self._row_names(kinds, matchers, nkeys)
        single = len(fields) == 1
        values = [v[0] if single else Record(dict(zip(fields, v))) for v in by_row]
        keys = tuple(self._runtime_key(spec, kk, label) for spec, kk, (label, _) in
                     zip(decl.keys, kinds, header))
        table = self._table("record", keys, header[:nkeys], labels, tuple(fields), rows, options)
        build_index(table, kinds, *expanded(matchers, values,
                                             [tuple(sp for _, sp in cells_[:nkeys])
                                              for _, cells_ in body]), self.error,
                    ["row"] * nkeys, options.get("gaps") == "allowed")
        value = ftypes[0] if single else T("record", fields=tuple(zip(fields, ftypes)))
        return TableInfo(decl, [self._key_type(kk) for kk in kinds], value, table)

    def _own_rows(self, spec: s.KeySpec, kk: KeyKind, at: int, body: list[Any]) -> KeyKind:
        """A key written without a type (`by item`) whose name another record table's rows
        already took: the rows of that table when this one's rows are all among them (more
        figures for the same weapons), else this table's own rows, as a table with a key
        name of its own would have (two tables `by item`, one of swords, one of shields)."""
        if spec.type is not None or kk.kind != "enum" or kk.domain is None or \
                spec.name in self.scope.enums:
            return kk
        if all(cells_[at][0] in kk.members for _, cells_ in body):
            return kk
        return KeyKind("names")

    def _unique(self, fields: list[str], labels: list[tuple[str, Span]]) -> None:
        named: set[str] = set()
        for f, (_, span) in zip(fields, labels):
            if f in named:
                self.error(f"column {f!r} appears twice", span)
            named.add(f)

    def _column_readers(self, fields: list[str],
                        declared: list[s.TableOption]) -> list[Reader | None] | None:
        """Each column's declared type (`-> TYPE` for a one-key table's one column, or a
        `field: TYPE` line), None where the cells say what the column holds."""
        if self.decl.cell_type is not None:
            if len(fields) != 1:
                self.error(f"a one-key table with -> has one value column; this one has "
                           f"{len(fields)}", self.decl.span)
                return None
            for o in declared:
                self._unknown_option(o, None)
            return [self._cell_reader()]
        readers: dict[str, Reader | None] = {}
        for o in declared:
            if o.name not in fields:
                self._unknown_option(o, fields[0])
            else:
                readers[o.name] = self.types.reader(o.value, o.span, "column type")
        return [readers.get(f) for f in fields]

    def _raw(self, text: str, span: Span, reader: Reader | None) -> RawCell:
        """A cell as first read: by its column's declared type, or by what it looks like."""
        if not text:
            return "blank", None, text, span
        if text.startswith("="):
            return "expr", self._expression(text, span), text, span
        if reader is None:
            return (*self._value_cell(text), text, span)
        return "typed", None, text, span  # read with its column's label, in _column

    def _column(self, raw: list[RawCell], reader: Reader | None, label: str,
                field: str) -> tuple[T, list[Any]]:
        """One column's type and values: as declared, or as most of its cells print."""
        if reader is None:
            return self.types.infer(raw, label, field, self.decl.name)
        context = label if self.decl.cell_type is None else None
        values = [self.types.read(reader, text, span, context) if kind == "typed" else value
                  for kind, value, text, span in raw]
        kinds = {kind for kind, *_ in raw}
        if "expr" in kinds:
            return CELL, values
        return (reader.type.or_none() if "blank" in kinds else reader.type), values

    def _row_names(self, kinds: list[KeyKind], matchers: list[tuple[Any, ...]],
                   nkeys: int) -> None:
        """A key of names only (`by weapon`) is the type its rows name; a one-key table's is a
        type rules may declare (`weapon: weapon`)."""
        decl = self.decl
        for i, kk in enumerate(kinds):
            if kk.kind != "names":
                continue
            members = tuple(m[i] for m in matchers)
            name = decl.keys[i].name
            # rows of their own under a key name another table's rows took: named by the table
            label = f"{name} of {decl.name}" if name in self.scope.domains else name
            kk.domain = Domain(label, members, decl.name if nkeys == 1 else None)
            if nkeys == 1 and name not in self.scope.domains and name not in self.scope.enums:
                self.scope.domains[name] = kk.domain

    def _results_need_cells(self, options: dict[str, str]) -> None:
        if "results" in options:
            o = next(o for o in self.decl.options if o.name == "results")
            self.error("`results:` says where the results of a table with a key `in cells` "
                       "are printed; this table has no such key", o.span)

    # -- cross and inverted tables ---------------------------------------------------------
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
        if not inverted:
            self._results_need_cells(options)
        layout = Layout.of(len(decl.keys), inverted[0] if inverted else None,
                           options.get("results") == "across")
        # A key down the side may name its own rows; one in or over an inverted table's cells
        # is declared.
        kinds = [self.keys.kind(k, free_names=not inverted or i in layout.side_keys)
                 for i, k in enumerate(decl.keys)]
        column_cells = header[layout.nside:]
        self._infer_keys(kinds, layout, body, column_cells)
        reader = self._cell_reader() or Reader("name", T("name"), "a name", lambda t: t)
        if layout.across:
            columns = [self._read(reader, text, span) for text, span in column_cells]
        else:
            ck = layout.column_key
            columns = [self.keys.cell(kinds[ck], text, span, decl.keys[ck].name)
                       for text, span in column_cells]
        grid = Grid(columns, [span for _, span in column_cells], layout,
                    fill=options.get("blank") == "above")
        rows = tuple(self._grid_row(grid, kinds, reader, row, cells_) for row, cells_ in body)
        for i, kk in enumerate(kinds):
            if kk.kind == "names":
                kk.domain = Domain(decl.keys[i].name,
                                   tuple(dict.fromkeys(str(m[i]) for m in grid.matchers)))
        keys = tuple(self._runtime_key(spec, kk, spec.name) for spec, kk in zip(decl.keys, kinds))
        table = self._table("inverted" if inverted else "cross", keys, header[:layout.nside],
                            column_cells, tuple(str(c) for c in columns), rows, options)
        build_index(table, kinds, *expanded(grid.matchers, grid.values, grid.spans), self.error,
                    [layout.grouped_by(dim) for dim in range(len(kinds))],
                    options.get("gaps") == "allowed")
        value_type = reader.type
        if self.expressions:
            value_type = CELL  # read from Python with its given figures, not by a rule
        elif any(v is None for v in grid.values):
            value_type = value_type.or_none()  # a blank cell
        return TableInfo(decl, [self._key_type(kk) for kk in kinds], value_type, table)

    def _infer_keys(self, kinds: list[KeyKind], layout: Layout, body: list[Any],
                    column_cells: list[tuple[str, Span]]) -> None:
        """Undeclared keys printed as numbers, ranges or bands are keys of numbers."""
        for position, k in enumerate(layout.side_keys):
            if self.decl.keys[k].type is None:
                kinds[k] = self.keys.printed_as_numbers(
                    kinds[k], [cells_[position][0] for _, cells_ in body])
        k = layout.column_key
        if k is not None and not layout.across and self.decl.keys[k].type is None:
            kinds[k] = self.keys.printed_as_numbers(kinds[k], [t for t, _ in column_cells])

    def _grid_row(self, grid: Grid, kinds: list[KeyKind], reader: Reader, row: s.RowLine,
                  cells_: list[tuple[str, Span]]) -> Row:
        """One printed row of a cross or inverted table, its entries added to the grid."""
        keys, layout = self.decl.keys, grid.layout
        side, printed_cells = cells_[:layout.nside], cells_[layout.nside:]
        if layout.cell_key is None:
            matchers = tuple(self.keys.cell(kinds[k], t, sp, keys[k].name)
                             for k, (t, sp) in zip(layout.side_keys, side))
            printed = [grid.add_value(matchers, [sp for _, sp in side],
                                      self._read(reader, t, sp), j)
                       for j, (t, sp) in enumerate(printed_cells)]
            key_cells = tuple(Cell(t, m, sp) for (t, sp), m in zip(side, matchers))
        else:
            ck = layout.cell_key
            (side_text, side_span), = side
            if layout.across:
                other = layout.side_keys[0]
                head = self.keys.cell(kinds[other], side_text, side_span, keys[other].name)
            else:
                head = self._read(reader, side_text, side_span)
            printed = []
            for j, (text, span) in enumerate(printed_cells):
                matcher = self.keys.cell(kinds[ck], text, span, keys[ck].name) if text else None
                printed.append(grid.add_range(head, side_span, matcher, j, span))
            key_cells = (Cell(side_text, head, side_span),)
        return Row(key_cells, tuple(Cell(t, v, sp) for (t, sp), v in zip(printed_cells, printed)),
                   row.span, row.comments)

    # -- cells -----------------------------------------------------------------------------
    def _value_cell(self, text: str) -> tuple[str, Any]:
        kind, value = cells.infer(text)
        if kind == "name":
            record = cells.parse_record(text)
            if record is not None:
                return "record", record
        return kind, value

    def _read(self, reader: Reader, text: str, span: Span) -> Any:
        """A cell of a declared type (`-> TYPE`): blank, an expression, or read as the type."""
        if not text:
            return None
        if text.startswith("="):
            return self._expression(text, span)
        return self.types.read(reader, text, span)

    def _expression(self, text: str, span: Span) -> CellExpression | None:
        body = text[1:].strip()
        offset = len(text) - len(text[1:].lstrip())
        at = Span(span.filename, span.line, span.column + offset, span.line,
                  span.column + offset + len(body), span.start + offset,
                  span.start + offset + len(body))
        cell = self._bound(body, at)
        if cell is not None:
            self.expressions += 1
        return cell

    def _bound(self, text: str, span: Span) -> CellExpression | None:
        """An expression of the table's given names (an `= …` cell's, or a band's bound),
        compiled once every name is known."""
        try:
            node = parse_expression(text, span.filename, span.line, span.column,
                                    self.scope.source, self.scope.limits, position=span.start)
        except RulecraftError as err:
            self.scope.errors.append(err)
            return None
        cell = CellExpression(text, self.decl.given, _unset)
        self.pending.append(PendingCell(cell, node, self.decl.given, self.decl.name))
        return cell

    def _cell_reader(self) -> Reader | None:
        """The reader of the declared `-> TYPE` (a record's fields, or a named type)."""
        ct = self.decl.cell_type
        if isinstance(ct, tuple):
            return record_reader(ct)
        assert isinstance(ct, str)
        return self.types.reader(ct, self.decl.span)

    # -- keys, checks and the index --------------------------------------------------------
    def _runtime_key(self, spec: s.KeySpec, kk: KeyKind, label: str) -> Key:
        members = kk.domain.members if kk.domain is not None else None
        kind = "enum" if kk.kind in ("enum", "names") else kk.kind
        return Key(spec.name, label, kind, members, kk.low, kk.high, spec.in_cells)

    def _key_type(self, kk: KeyKind) -> T:
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


def _width(row: s.RowLine) -> int:
    """How many cells a row has, counted without reading them."""
    return row.text.count("|") - (1 if row.closed else 0)


def _end_of(row: s.RowLine) -> Span:
    return Span(row.span.filename, row.span.line, row.span.column + len(row.text))


def _unset(*_: Any) -> Any:
    raise AssertionError("expression cell used before the code generator compiled it")


__all__ = ["OPTIONS", "PendingCell", "TableBuilder"]
