"""The parser's tables and read rule files, kept on disk between processes (runtime/cache.py).

Building the grammar's LALR tables takes longer than reading a rule file; reading a rulebook
takes longer than compiling it. Both are kept: the tables (as `Lark.save` writes them) under a
key made from the grammar, Lark's version and the parser's options, a rule file's syntax tree
under a key made from its text, its name, the limits and the parser's own code. Rule files are
read from the cache only while `reading_files()` is on (`rulecraft.load` turns it on): text
compiled from Python, a test's or a bot's, does not fill the user's cache.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import os
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import lark

from rulecraft.runtime import cache

_HERE = os.path.dirname(os.path.abspath(__file__))
# The code a syntax tree is made by: an edit to any of them is another key.
_PARSER_CODE = tuple(os.path.join(_HERE, name) for name in (
    "grammar.lark", "parser.py", "syntax.py", "syntax_file.py", "comments.py", "checks.py",
    "errors.py", "syntax_sheets.py", "parser_sheets.py", "syntax_space.py",
    "syntax_examples.py", "reduced.py"))

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
    except BaseException:
        # What a failed load read is not kept: its author is about to change it, and writing
        # the tree of a large file full of errors cost more than reading it.
        if session is not None:
            session.changed.clear()
        raise
    finally:
        if session is not None and token is not None:
            _FILES.reset(token)
            for key in session.changed:
                cache.write(key, session.entries[key])


def tree(source: str, filename: str, limits: Any, parse: Callable[[], Any],
         kind: type) -> Any:
    """`parse()`'s tree of a rule file, from the cache when it holds one."""
    cache.reading(filename)  # before the parser's tables are read: a cache beside it is not trusted
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
    key = _parser_key(grammar_file, options)
    found = None if key is None else _kept_parser(key)
    if found is None:
        with open(grammar_file, encoding="utf-8") as f:
            found = lark.Lark(f.read(), **options)
        if key is not None:
            cache.write(key, _saved(found))
    return found


def start_parser(grammar_file: str, rule: str, full: Callable[[], lark.Lark],
                 **options: Any) -> lark.Lark:
    """The parser `full()` (of `grammar_file`, made with `options`) cut to the states its start
    rule `rule` reaches: the same actions in each state, so it parses and fails exactly as the
    full parser does from `rule` (an LALR table merges states, so a grammar of that rule alone
    would expect other tokens), and loads in a fraction of the time. Kept on disk too."""
    key = _parser_key(grammar_file, options, rule)
    found = None if key is None else _kept_parser(key)
    if found is not None:
        return found
    made = full()
    try:
        cut = _cut(_saved(made), rule)
        found = lark.Lark.load(io.BytesIO(cut))
    except Exception:  # noqa: BLE001 - tables laid out as no Lark this was written for
        return made
    if key is not None:
        cache.write(key, cut)
    return found


def _parser_key(grammar_file: str, options: dict[str, Any], *more: str) -> str | None:
    if cache.folder() is None:
        return None
    with open(grammar_file, encoding="utf-8") as f:
        grammar = f.read()
    shown = sorted((k, repr(v)) for k, v in options.items() if k != "postlex")
    shown.append(("postlex", type(options.get("postlex")).__qualname__))
    return cache.cache_key("grammar", [grammar, lark.__version__, repr(shown), *more])


def _kept_parser(key: str) -> lark.Lark | None:
    saved = cache.read(key, lambda entry: type(entry) is bytes)
    if saved is None:
        return None
    try:
        return lark.Lark.load(io.BytesIO(saved))
    except Exception:  # noqa: BLE001 - saved by another Lark, or damaged: built again
        return None


def _saved(parser: lark.Lark) -> bytes:
    out = io.BytesIO()
    parser.save(out)
    return out.getvalue()


def _cut(saved: bytes, start: str) -> bytes:
    """A saved LALR parser (`Lark.save`) with only the states `start` reaches and the rules
    they reduce: fewer rules to wrap in tree builders, fewer states to give lexers."""
    whole = pickle.loads(saved)
    data, memo = whole["data"], whole["memo"]
    table = data["parser"]["parser"]
    states = table["states"]
    reached, todo = set(), [table["start_states"][start]]
    while todo:
        state = todo.pop()
        if state not in reached:
            reached.add(state)
            todo.extend(arg for action, arg in states[state].values() if action == 0)  # shift
    rules = {arg["@"] for state in reached for action, arg in states[state].values()
             if action == 1}  # reduce
    table["states"] = {state: states[state] for state in reached}
    table["start_states"] = {start: table["start_states"][start]}
    table["end_states"] = {start: table["end_states"][start]}
    data["rules"] = [rule for rule in data["rules"] if rule["@"] in rules]
    conf = data["parser"]["parser_conf"]
    conf["rules"] = [rule for rule in conf["rules"] if rule["@"] in rules]
    conf["start"] = data["options"]["start"] = [start]
    whole["memo"] = {key: value for key, value in memo.items()
                     if value.get("__type__") != "Rule" or key in rules}
    return pickle.dumps(whole, protocol=pickle.HIGHEST_PROTOCOL)


__all__ = ["expression", "parser", "reading_files", "start_parser", "tree"]
