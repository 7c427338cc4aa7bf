"""Joined tables: a record table whose rows are those of other record tables (`rows: a, b`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import Span

# The option naming the tables joined.
OPTION = "rows"


def joined_option(decl: s.TableDecl) -> s.TableOption | None:
    """The `rows: a, b` line of a joined table, if it is one."""
    return next((o for o in decl.options if o.name == OPTION), None)


def joined_rows(decl: s.TableDecl, tables: Mapping[str, s.TableDecl],
                error: Callable[[str, Span | None], None]) -> list[s.RowLine] | None:
    """The header and the rows of the tables `decl` joins, in the order named; None (and an
    error) when one is unknown, is itself joined or not a one-key record table, when the
    joined table prints rows of its own, or when the headers differ."""
    option = joined_option(decl)
    assert option is not None
    names = [n.strip() for n in option.value.split(",")]
    own = [r for r in decl.rows if not r.is_rule]
    if own:
        error(f"table {decl.name} takes its rows from {', '.join(names)}: it prints none of "
              f"its own", own[0].span)
        return None
    printed: list[tuple[str, list[s.RowLine]]] = []
    for name in names:
        source = tables.get(name)
        if source is None or source is decl:
            what = "itself" if source is decl else f"no table {name}"
            error(f"rows: names {what}; name the record tables whose rows {decl.name} "
                  f"holds (known: {', '.join(t for t in tables if t != decl.name)})", option.span)
            return None
        if joined_option(source) is not None or source.cell_type is not None or \
                len(source.keys) != 1:
            error(f"rows: {name} is not a record table with one key and rows of its own; "
                  f"a joined table holds the rows of such tables", option.span)
            return None
        rows = [r for r in source.rows if not r.is_rule]
        if rows:
            printed.append((name, rows))
    if not printed:
        return []
    # The widest header heads the joined table; a table printing fewer columns (a house rule
    # added one to another) reads blank in those it lacks.
    first, widest = max(printed, key=lambda p: len(_labels(p[1][0])))
    header = _labels(widest[0])
    lines = [widest[0]]
    for name, rows in printed:
        own = _labels(rows[0])
        if own != header[:len(own)]:
            error(f"table {name} prints the columns {' | '.join(own)}, but {first} prints "
                  f"{' | '.join(header)}: tables joined in {decl.name} print the same columns "
                  f"in the same order (the last ones may be left out)", rows[0].span)
            return None
        lines.extend(_padded(r, len(header) - len(own)) for r in rows[1:])
    return lines


def _padded(row: s.RowLine, blanks: int) -> s.RowLine:
    """A row with `blanks` empty cells more at its end (its own cells where they were)."""
    if not blanks or not row.closed:
        return row
    return attrs.evolve(row, text=row.text + " |" * blanks)


def _labels(row: s.RowLine) -> list[str]:
    return [" ".join(text.split()) for text, _ in row.cells()]


def joined_first(decls: list[s.TableDecl]) -> list[s.TableDecl]:
    """Tables in the order they are built: joined ones first, so the type their key names
    (`by weapon`) is all their rows, and the tables joined are keyed by it (their rows being
    among them), whatever the order they are written in."""
    return sorted(decls, key=lambda d: joined_option(d) is None)
