"""Where a cross or inverted table prints each key, and its entries as its rows are read."""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.runtime.errors import Span


@attrs.frozen
class Layout:
    """Where a cross or inverted table prints each key: down the side, across the top, or in
    the cells (a key `in cells`, whose results run down the side or, `results: across`, along
    the top)."""

    side_keys: tuple[int, ...]
    column_key: int | None  # the key across the top; None when the results are there
    cell_key: int | None
    across: bool

    @classmethod
    def of(cls, nkeys: int, cell_key: int | None, across: bool) -> Layout:
        if cell_key is None:
            return cls(tuple(range(nkeys - 1)), nkeys - 1, None, False)
        other = 1 - cell_key
        if across:
            return cls((other,), None, cell_key, True)
        return cls((), other, cell_key, False)

    @property
    def nside(self) -> int:
        """How many cells of a row print keys (or, results down the side, the result)."""
        return 1 if self.cell_key is not None else len(self.side_keys)

    def grouped_by(self, dim: int) -> str:
        """What the other keys of entries checked together are, to name them in a message:
        the values heading a `row` or a `column`."""
        if self.cell_key is not None:
            return "row" if self.across else "column"
        return "row" if dim == self.column_key else "column"


@attrs.define
class Grid:
    """The entries of a cross or inverted table as its rows are read, column by column."""

    columns: list[Any]  # the header's keys, or (results across) its results
    column_spans: list[Span]
    layout: Layout
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

    def add_range(self, head: Any, head_span: Span, matcher: Any, j: int, span: Span) -> Any:
        """A cell of an inverted table: the key range `matcher` in column j, on the row headed
        `head`. Results down the side: the row's head is the result, the column's the other
        key; results across: the other way round."""
        if matcher is not None:
            cell_key = self.layout.cell_key
            if self.layout.across:
                other, other_span, result = head, head_span, self.columns[j]
            else:
                other, other_span, result = self.columns[j], self.column_spans[j], head
            pair: list[Any] = [other, other]
            pair[cell_key] = matcher  # type: ignore[index]
            where = [other_span, other_span]
            where[cell_key] = span  # type: ignore[index]
            self.matchers.append(tuple(pair))
            self.values.append(result)
            self.spans.append(tuple(where))
        return matcher
