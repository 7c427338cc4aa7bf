"""What an editor asks of a rule file as it is typed: its errors, its outline, where a name is
declared (in the file or a base it extends), what a name is, and the names it may write next.

The language server (`rulecraft lsp`, rulecraft/lsp.py) answers the editor with these; they are
plain functions of the text so that they are tested without an editor. Positions are 0-based
(line, character), as editors count them; rule files count from 1 (`file:3:7`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import attrs

from rulecraft.dsl import words
from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse
from rulecraft.compiler.overlay import KINDS
from rulecraft.runtime.errors import RulecraftError, Span

from .api import compile as compile_rules
from .api import read_rule_file
from .listing import builtin_rulebooks

WORD = re.compile(r"[^\W\d]\w*")


@attrs.frozen
class Place:
    """A stretch of a file, 0-based, end exclusive: what an editor underlines or jumps to."""

    path: str
    line: int
    character: int
    end_line: int
    end_character: int


@attrs.frozen
class Problem:
    """An error of the file being edited, at its place, in the compiler's own words."""

    place: Place
    message: str


@attrs.frozen
class Entry:
    """A declaration: its name, kind, title, where its name is written, the comment above it
    (the book's words, often) and its first line."""

    name: str
    kind: str
    title: str | None
    place: Place
    comments: tuple[str, ...]
    head: str
    fields: tuple[str, ...] = ()  # a combatant's figures


def problems(text: str, path: str) -> list[Problem]:
    """Every error `rulecraft check` reports for this text, placed in this file (an error in a
    base it extends is placed on its `extends` line)."""
    try:
        compile_rules(text, path)
    except RulecraftError as err:
        found = getattr(err, "errors", [err])
        return [_problem(e, text, path) for e in found]
    return []


def _problem(err: RulecraftError, text: str, path: str) -> Problem:
    span = err.span
    if span is None or os.path.abspath(span.filename) != os.path.abspath(path):
        line = _extends_line(text)
        return Problem(Place(path, line, 0, line, len(_line(text, line))),
                       str(err) if span is not None else err.message)
    return Problem(_place(span, path, text), err.message)


def _place(span: Span, path: str, text: str) -> Place:
    line = span.line - 1
    end_line = (span.end_line or span.line) - 1
    end = span.end_column - 1 if span.end_line else span.column - 1 + len(
        WORD.match(_line(text, line), span.column - 1).group()
        if WORD.match(_line(text, line), span.column - 1) else 1)
    if end_line == line and end <= span.column - 1:
        end = span.column
    return Place(path, line, span.column - 1, end_line, end)


def _line(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line] if 0 <= line < len(lines) else ""


def _extends_line(text: str) -> int:
    for number, line in enumerate(text.split("\n")):
        if line.startswith("extends"):
            return number
    return 0


def entries(text: str, path: str) -> list[Entry]:
    """The file's declarations, in order (the outline); none when it does not parse."""
    try:
        tree = parse(text, path)
    except RulecraftError:
        return []
    return list(_entries(tree, path))


def _entries(tree: s.File, path: str) -> Iterator[Entry]:
    lines = tree.source.split("\n")
    for written in tree.declarations:
        decl, kind = written, kind_of(written)
        if isinstance(written, s.ReplaceDecl):  # a base's rule written anew: it is declared here
            decl, kind = written.decl, f"{kind_of(written.decl)} (replaced)"
        elif isinstance(written, (s.AmendDecl, s.RemoveDecl)):  # the base's rule, changed
            kind = f"{written.kind} ({'amended' if isinstance(written, s.AmendDecl) else 'removed'})"
        if kind is None or not getattr(decl, "name", ""):
            continue
        comments = tuple(written.comments) or tuple(getattr(decl, "comments", ()))
        line = written.span.line - 1
        head = lines[line] if line < len(lines) else ""
        found = re.search(rf"\b{re.escape(decl.name)}\b", head)
        start = found.start() if found else 0
        fields = tuple(f.name for f in getattr(decl, "fields", ()) if getattr(f, "name", None))
        yield Entry(decl.name, kind, getattr(decl, "title", None),
                    Place(path, line, start, line, start + len(decl.name)),
                    comments, head.strip(), fields)


def kind_of(decl: object) -> str | None:
    """What a declaration is called in words (hover, outline, `show --uses`): the overlay's own
    names of rule kinds, an encounter told from a procedure; None for what declares no rule."""
    if isinstance(decl, s.RulebookDecl):
        return "rulebook"
    word = next((w for cls, w in KINDS.items() if isinstance(decl, cls)), None)
    if word == "procedure" and getattr(decl, "clock", None) is not None:
        return "encounter"
    if word is not None:
        return word
    name = type(decl).__name__
    return name.removesuffix("Decl").lower() if name.endswith("Decl") and name not in (
        "ExtendsDecl", "RemoveDecl", "ReplaceDecl") else None


def bases(text: str, path: str, depth: int = 8) -> list[tuple[str, str]]:
    """The files this one extends, nearest first, as (path, text): a built-in by name, a file
    by its path from this file's folder. A base that cannot be read ends the chain."""
    found: list[tuple[str, str]] = []
    while depth > 0:
        depth -= 1
        base = re.search(r'^extends[ \t]+"?([^"\n]+?)"?[ \t]*$', text, re.M)
        if base is None:
            break
        name = base.group(1)
        if name in builtin_rulebooks():
            from .api import _shipped
            where = os.fspath(_shipped(f"{name}.rules"))
        else:
            where = os.path.join(os.path.dirname(os.path.abspath(path)), name)
        try:
            text = read_rule_file(where)
        except RulecraftError:
            break
        path = where
        found.append((path, text))
    return found


def word_at(text: str, line: int, character: int) -> str | None:
    """The name under the cursor (a figure after a dot gives the figure's name)."""
    row = _line(text, line)
    for m in WORD.finditer(row):
        if m.start() <= character <= m.end():
            return m.group()
    return None


def declared(name: str, text: str, path: str) -> Entry | None:
    """Where `name` is declared: in this file, else in the nearest base that declares it."""
    for where, source in [(path, text), *bases(text, path)]:
        for entry in entries(source, where):
            if entry.name == name and not entry.kind.endswith(("(amended)", "(removed)")):
                return entry
    return None


def hover(text: str, path: str, line: int, character: int) -> str | None:
    """What the name under the cursor is: kind, name and title, its first line, and the
    comment above it (Markdown)."""
    name = word_at(text, line, character)
    if name is None:
        return None
    entry = declared(name, text, path)
    if entry is None:
        if name in words.BUILTINS:
            return f"**{name}** — a built-in function (docs/language.md, Expressions)"
        return None
    title = f" — *{entry.title}*" if entry.title else ""
    where = "" if entry.place.path == path else f" (from {os.path.basename(entry.place.path)})"
    said = f"**{entry.kind} {entry.name}**{title}{where}\n\n```rulecraft\n{entry.head}\n```"
    if entry.fields:
        said += "\n\nFigures: " + ", ".join(entry.fields)
    if entry.comments:
        said += "\n\n" + "\n".join(c.lstrip("#").strip() for c in entry.comments)
    return said


def completions(text: str, path: str) -> list[tuple[str, str]]:
    """The names an author may write: declarations of this file and its bases, combatant
    figures, built-in functions and the language's words, as (name, what it is)."""
    seen: dict[str, str] = {}
    for where, source in [(path, text), *bases(text, path)]:
        for entry in entries(source, where):
            seen.setdefault(entry.name, entry.kind)
            for field in entry.fields:
                seen.setdefault(field, f"figure of {entry.name}")
    for name in words.BUILTINS:
        seen.setdefault(name, "built-in function")
    for word in (*words.DECLARATIONS, *words.KEYWORDS, *words.CONSTANTS):
        seen.setdefault(word, "keyword")
    return sorted(seen.items())
