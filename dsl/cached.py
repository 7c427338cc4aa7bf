"""The parser's tables and read rule files, kept on disk between processes (runtime/cache.py).

Building the grammar's LALR tables takes longer than reading a rule file; reading a rulebook
takes longer than compiling it. Both are kept: the tables under a key made from the grammar and
Lark's version (Lark checks them again when it loads them), a rule file's syntax tree under a key
made from its text, its name, the limits and the parser's own code. Rule files are read from the
cache only while `reading_files()` is on (`rulecraft.load` turns it on): text compiled from
Python, a test's or a bot's, does not fill the user's cache.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Callable, Iterator
from typing import Any

import lark

from rulecraft.runtime import cache

_HERE = os.path.dirname(os.path.abspath(__file__))
# The code a syntax tree is made by: an edit to any of them is another key.
_PARSER_CODE = tuple(os.path.join(_HERE, name) for name in (
    "grammar.lark", "parser.py", "syntax.py", "comments.py", "checks.py", "errors.py"))

class _Session:
    """The rule files one `load` reads: each file's tree and the expressions parsed from its
    text while it compiles (a table's `= …` cells), kept together under the file's key."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[Any, dict[Any, Any]]] = {}
        self.by_file: dict[tuple[str, str], str] = {}  # (file name, its text) -> entry key
        self.changed: set[str] = set()


_FILES: contextvars.ContextVar[_Session | None] = contextvars.ContextVar(
    "rulecraft_cache_files", default=None)


@contextlib.contextmanager
def reading_files() -> Iterator[None]:
    """While on, `parse` keeps what it reads in the disk cache (rule files, not snippets), and
    the expressions parsed from their text with them."""
    session = _Session() if _FILES.get() is None else None
    token = _FILES.set(session) if session is not None else None
    try:
        yield
    finally:
        if session is not None and token is not None:
            _FILES.reset(token)
            for key in session.changed:
                cache.write(key, session.entries[key])


def tree(source: str, filename: str, limits: Any, parse: Callable[[], Any],
         kind: type) -> Any:
    """`parse()`'s tree of a rule file, from the cache when it holds one."""
    session = _FILES.get()
    if session is None or cache.folder() is None:
        return parse()
    key = cache.cache_key("tree", [filename, source], limits, _PARSER_CODE)
    found = session.entries.get(key) or cache.read(
        key, lambda entry: type(entry) is tuple and len(entry) == 2 and
        type(entry[0]) is kind and entry[0].source == source and
        entry[0].filename == filename and type(entry[1]) is dict)
    if found is None:
        found = (parse(), {})
        session.changed.add(key)
    session.entries[key] = found
    session.by_file[(filename, source)] = key
    return found[0]


def expression(filename: str, source: str | None, where: Any, parse: Callable[[], Any]) -> Any:
    """An expression parsed from a rule file's text (`where`: its text, place and limits),
    kept with the file's tree."""
    session = _FILES.get()
    key = None if session is None or source is None else session.by_file.get((filename, source))
    if key is None:
        return parse()
    known = session.entries[key][1]  # type: ignore[union-attr]
    found = known.get(where)
    if found is None:
        found = known[where] = parse()
        session.changed.add(key)  # type: ignore[union-attr]
    return found


def parser(grammar_file: str, **options: Any) -> lark.Lark:
    """A Lark parser for a grammar file, its tables from the cache when there (LALR only)."""
    with open(grammar_file, encoding="utf-8") as f:
        grammar = f.read()
    where = cache.folder()
    if where is None:
        return lark.Lark(grammar, **options)
    shown = sorted((k, repr(v)) for k, v in options.items() if k != "postlex")
    key = cache.cache_key("grammar", [grammar, lark.__version__, repr(shown)])
    final = os.path.join(where, key)
    if os.path.exists(final):
        return lark.Lark(grammar, cache=final, **options)  # Lark checks it, or builds anew
    # Built under a name of this process's own, then renamed into place whole.
    temporary = os.path.join(where, f".tmp-{key}-{os.getpid()}")
    made = lark.Lark(grammar, cache=temporary, **options)
    with contextlib.suppress(OSError):
        os.replace(temporary, final)
    return made


__all__ = ["expression", "parser", "reading_files", "tree"]
