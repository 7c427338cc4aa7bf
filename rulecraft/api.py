"""The public façade: load or compile a rulebook, evaluate an expression in its scope.

The parser and the compiler are imported by the functions that use them: `rulecraft eval`
with a warm cache (`evaluate_file`) needs neither."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rulecraft.runtime.errors import RulecraftError, RuleTypeError, Span, UnknownRulebookError
from rulecraft.runtime.cache import read_at_most
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits

from .bases import allowed_folders, locate, not_rules, starts_like_rules

if TYPE_CHECKING:
    from rulecraft.runtime.rulebook import Rulebook

# (filename, text, limits, the folders its bases may come from) -> compiled; the newest few
_cache: dict[tuple[str, str, Limits, tuple[str, ...]], Rulebook] = {}
Folders = Sequence[str | os.PathLike[str]]
_CACHE_SIZE = 32


def builtin_rulebooks() -> list[str]:
    """Names of the rulebooks shipped with rulecraft."""
    folder = _shipped()
    names = os.listdir(folder) if isinstance(folder, str) else [p.name for p in folder.iterdir()]
    return sorted(name[: -len(".rules")] for name in names if name.endswith(".rules"))


def _shipped(name: str = "") -> Any:
    """The folder of the built-in rulebooks, or a file in it: a path when the package is files
    on disk (importing importlib.resources costs `eval` more than reading the file), else the
    package's resources (a zip)."""
    from rulecraft import rulebooks

    folder = os.path.dirname(rulebooks.__file__ or "")
    if os.path.isdir(folder):
        return os.path.join(folder, name) if name else folder
    from importlib import resources

    found = resources.files("rulecraft.rulebooks")
    return found / name if name else found


def compile(text: str, filename: str = "<rules>",  # noqa: A001 - the façade's verb
            limits: Limits = DEFAULT_LIMITS, bases: Folders = ()) -> Rulebook:
    """Compile rule text into a playable Rulebook (raises RulecraftError with a caret).

    A house file's base (`extends "PATH"`) is read from the file's folder (the working folder
    for text without a file) or from one of the folders in `bases`, never from elsewhere."""
    if not isinstance(text, str):
        raise UnknownRulebookError(f"rule text is a str, not {type(text).__name__}; read a file "
                                   "with rulecraft.load(path)")
    if isinstance(filename, os.PathLike):
        filename = os.fsdecode(filename)
    if not isinstance(filename, str):
        raise RuleTypeError(f"a file name is a str, not {type(filename).__name__}")
    _check_limits(limits)
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write is not rule text
    folders = allowed_folders(filename, bases)
    key = (filename, text, limits, folders)
    if key in _cache and _same_bases(_bases_of(_cache[key]), limits, folders):
        _cache[key] = _cache.pop(key)  # most recently used last
    else:
        from rulecraft.compiler.build import compile_file

        _cache.pop(key, None)
        if len(_cache) >= _CACHE_SIZE:
            del _cache[next(iter(_cache))]
        _cache[key] = compile_file(text, filename, limits, _loader(limits, folders))
    return _cache[key]


def base_loader(limits: Limits, house: str = "",
                bases: Folders = ()) -> Callable[[str, str], tuple[str, str, str]]:
    """How the bases under the house file `house` are read (rulecraft/bases.py): a built-in
    name, or a path relative to the file naming it that lands in the house file's folder (the
    working folder, for text compiled without a file) or in one of the folders `bases`."""
    return _loader(limits, allowed_folders(house, bases))


def _loader(limits: Limits,
            folders: tuple[str, ...]) -> Callable[[str, str], tuple[str, str, str]]:
    """`base_loader` for folders already resolved."""
    def load_base(base: str, naming: str) -> tuple[str, str, str]:
        if base in builtin_rulebooks():
            text, filename = _read(base, limits)
            return text, filename, f"<built-in {base}>"
        path, real = locate(base, naming, folders)
        return _read_base(base, path, real, limits), path, real

    return load_base


def _read_base(base: str, path: str, real: str, limits: Limits) -> str:
    """The text of a base named by path (found inside the allowed folders): refused unread
    unless it is a regular file within `source_bytes`, and unparsed unless it opens like a
    rule file, so that no message ever quotes a file that is not one."""
    if not os.path.lexists(real):
        import difflib  # only when a name is wrong

        close = difflib.get_close_matches(base, builtin_rulebooks(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownRulebookError(
            f"cannot read the base {base!r}: not a built-in rulebook "
            f"({', '.join(builtin_rulebooks())}) and no such file{hint}")
    try:
        data = read_bounded(real, limits.source_bytes, "source_bytes")
    except ValueError as err:
        raise UnknownRulebookError(f"cannot read the base {base!r}: {err}") from None
    if not starts_like_rules(data):
        raise not_rules(base)
    return _decoded(data, path)


def _bases_of(rulebook: Rulebook) -> tuple[tuple[str, str], ...]:
    """Each base under a house rulebook, nearest first: its file name and the text it had."""
    found = []
    base = rulebook.base
    while base is not None:
        found.append((base.filename, str(base.source)))
        base = base.base
    return tuple(found)


def _same_bases(bases: Sequence[tuple[str, str]], limits: Limits,
                folders: tuple[str, ...]) -> bool:
    """Whether every base under a cached house rulebook still reads as it did, from where it
    may be read now: a base changing under its house file is seen at the next compile, and a
    base allowed once (`bases=`) is not allowed again without it. The list may come from the
    disk cache: each file is read as `extends` reads it, or not at all."""
    for entry in bases:
        if type(entry) is not tuple or len(entry) != 2 or not all(type(x) is str for x in entry):
            return False
        filename, text = entry
        name = filename.removesuffix(".rules")
        try:
            if name in builtin_rulebooks():
                now, _ = _read(name, limits)
            else:
                path, real = locate(filename, "", folders)
                now = _read_base(filename, path, real, limits)
        except RulecraftError:
            return False
        if now != text:
            return False
    return True


def load(name_or_path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS,
         bases: Folders = ()) -> Rulebook:
    """A built-in rulebook by name (`"ringing_steel"`) or a `.rules` file by path; the bases
    a house file extends come from its folder or from the folders in `bases`."""
    _check_limits(limits)
    text, filename = _read(name_or_path, limits)
    return _load_text(text, filename, limits, bases)


def _load_text(text: str, filename: str, limits: Limits, bases: Folders = ()) -> Rulebook:
    from rulecraft.dsl.cached import reading_files

    with reading_files():  # a rule file's tree is kept on disk (dsl/cached.py)
        return compile(text, filename, limits, bases)


def format_rules(text: str, filename: str = "<rules>", limits: Limits = DEFAULT_LIMITS) -> str:
    """Rule text in the canonical layout, comments kept (RulecraftError if it does not parse).

    The result is read back and must say what the text said: should the formatter ever change
    a rule, this raises rather than hand back the changed text."""
    from rulecraft.dsl.formatter import format_file
    from rulecraft.dsl.parser import parse

    if not isinstance(text, str):
        raise RuleTypeError(f"rule text is a str, not {type(text).__name__}")
    tree = parse(text, filename, limits)
    formatted = format_file(tree)
    again = parse(formatted, filename, limits)
    if _shape((again.declarations, again.trailing_comments)) != \
            _shape((tree.declarations, tree.trailing_comments)):
        raise RulecraftError(f"{filename}: formatting would change what the file says, so it is "
                             "left as it is (a bug in rulecraft's formatter; please report it)")
    return formatted


def evaluate(rulebook: Rulebook, expression: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Evaluate an expression of the language (a formula call, a table lookup) in a rulebook."""
    from rulecraft.compiler.evaluate import evaluate_in
    from rulecraft.runtime.rulebook import Rulebook

    if not isinstance(rulebook, Rulebook):
        raise RuleTypeError("evaluate needs a Rulebook from rulecraft.load or rulecraft.compile, "
                            f"not {type(rulebook).__name__}")
    _check_expression(expression)
    return evaluate_in(rulebook, expression, limits)


def evaluate_file(name_or_path: str | os.PathLike[str], expression: str,
                  limits: Limits = DEFAULT_LIMITS, bases: Folders = ()) -> Any:
    """`evaluate(load(name_or_path), expression)`, as `rulecraft eval` does it: a rule file an
    earlier process compiled is not compiled again (its symbol table and generated code are
    kept on disk, compiler/kept.py), so a command starts in the time it takes to read them."""
    from rulecraft.compiler import kept
    from rulecraft.runtime.cache import folder

    _check_limits(limits)
    text, filename = _read(name_or_path, limits)
    text = text.removeprefix("\ufeff")  # as `compile` reads it
    if folder() is None:  # no disk cache
        return evaluate(_load_text(text, filename, limits, bases), expression, limits)
    key = kept.key(filename, text, limits)
    folders = allowed_folders(filename, bases)
    found = kept.load(key, text, lambda kept_bases: _same_bases(kept_bases, limits, folders))
    if found is None:
        from rulecraft.compiler.build import COMPILED

        rulebook = _load_text(text, filename, limits, bases)
        kept.keep(key, *COMPILED[rulebook], rulebook.python_source, _bases_of(rulebook))
        return evaluate(rulebook, expression, limits)
    from rulecraft.compiler.evaluate import evaluate_scope

    _check_expression(expression)
    return evaluate_scope(*found, expression, limits)


def _check_expression(expression: object) -> None:
    if not isinstance(expression, str):
        raise RuleTypeError("an expression is text (a str) such as 'wounds[5, \"Head\"]', "
                            f"not {type(expression).__name__}")


def sheet(rulebook: Rulebook | str | os.PathLike[str], format: str = "html",  # noqa: A002
          paper: str = "a4", sources: bool = True,
          templates: str | os.PathLike[str] | None = None,
          limits: Limits = DEFAULT_LIMITS, bases: Folders = (),
          layout: str = "reference", source: bool = False) -> str:
    """A reference sheet of a rulebook (or of the rulebook a name or path loads, its bases
    read as `load` reads them): `format` "html" (self-contained, for print) or "md"; `paper`
    "a4" or "letter"; `sources` puts the book's words beside each rule; `templates` a folder
    of the user's own templates; `layout` "cheat" for the cheat sheet kept at the table,
    "screen" for the game master's screen; `source` appends the rule files to a reference
    sheet, coloured by the rules' Pygments lexer (needs Pygments: `pip install
    'rulecraft[editors]'`)."""
    from rulecraft.compiler.sheets import render  # only sheets need Jinja
    from rulecraft.runtime.rulebook import Rulebook
    from rulecraft.runtime.work import budget

    if not isinstance(rulebook, Rulebook):
        rulebook = load(rulebook, limits, bases)
    with budget(limits):  # every reference of the sheet draws from one budget of work
        return render(rulebook, format, paper, sources, templates, limits, layout, source)


def rule_files(rulebook: Rulebook) -> list[str]:
    """The files a rulebook was read from (its bases' too), as real paths where they exist:
    what an output file must never replace."""
    found = []
    while rulebook is not None:
        name = rulebook.filename
        if name.endswith(".rules") and name.removesuffix(".rules") in builtin_rulebooks():
            # a built-in's, or a local file of the same name a house file extends by path
            found.append(os.path.realpath(os.fspath(_shipped(name))))
        found.append(os.path.realpath(name))
        rulebook = getattr(rulebook, "base", None)
    return found


def read_rule_file(path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> str:
    """The text of a rule file, UTF-8 with any byte-order mark dropped and line ends as `\\n`
    (UnknownRulebookError if it cannot be read, is not text or is over `limits.source_bytes`)."""
    name = os.fsdecode(path)
    try:
        data = read_bounded(name, limits.source_bytes, "source_bytes")
    except ValueError as err:
        raise UnknownRulebookError(f"cannot read {shown(name)}: {err}") from None
    return _decoded(data, name)


def _decoded(data: bytes, name: str) -> str:
    """A rule file's bytes as text, or UnknownRulebookError pointing at the first byte that is
    not UTF-8."""
    data = data.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark some editors write
    try:
        return _lines(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        # Point at the first byte that is not UTF-8, in the text as an editor would show it.
        before = _lines(data[:err.start].decode("utf-8", "replace"))
        line = before.count("\n") + 1
        column = len(before) - before.rfind("\n")
        raise UnknownRulebookError(
            f"cannot read {shown(name)}: it is not UTF-8 text (byte {data[err.start]:#04x} "
            "here); save it as UTF-8", Span(name, line, column),
            _lines(data.decode("utf-8", "replace"))) from None


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as Python's text files read it


def read_bounded(name: str, limit: int, limit_name: str) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, or ValueError saying why not.

    Rule and combatant files are untrusted: a FIFO, a device (`/dev/zero`) or a folder is refused
    before a byte is read (opened without blocking, so a FIFO with no writer cannot hang us), and
    reading stops one byte past the limit: an oversized file is never read whole."""
    if "\0" in name:
        raise ValueError("a file name cannot hold a NUL character")
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise ValueError((err.strerror or str(err)).lower()) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ValueError("it is a folder; give a file inside it")
        if not stat.S_ISREG(mode):
            raise ValueError("it is not a regular file")
        data = read_at_most(fd, limit)
    except OSError as err:
        raise ValueError((err.strerror or str(err)).lower()) from None
    finally:
        os.close(fd)
    if data is None:
        raise ValueError(f"it is larger than {limit} bytes {Limits.hint(limit_name)}")
    return data


def shown(name: str) -> str:
    """A file name for a message: as typed, unless it is too long or holds control characters."""
    if len(name) > 200:
        return repr(name[:120]) + f"… ({len(name)} characters)"
    if not name.isprintable():
        return repr(name)
    return name


def _read(name_or_path: object, limits: Limits) -> tuple[str, str]:
    if isinstance(name_or_path, os.PathLike):
        name_or_path = os.fspath(name_or_path)
    if not isinstance(name_or_path, str):
        raise UnknownRulebookError(
            "a rulebook is named by text: a built-in name such as 'ringing_steel' or the path of "
            f"a .rules file (a str or a pathlib.Path), not {type(name_or_path).__name__}")
    name = name_or_path
    if name in builtin_rulebooks():
        shipped = _shipped(f"{name}.rules")
        if isinstance(shipped, str):
            with open(shipped, encoding="utf-8") as f:
                return f.read(), f"{name}.rules"
        return shipped.read_text(encoding="utf-8"), f"{name}.rules"
    try:
        os.stat(name)
    except FileNotFoundError:
        import difflib  # only when a name is wrong

        close = difflib.get_close_matches(name, builtin_rulebooks(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        called = repr(name) if len(name) <= 200 else shown(name)
        raise UnknownRulebookError(
            f"no rulebook called {called}: not a built-in "
            f"({', '.join(builtin_rulebooks())}) and no such file{hint}") from None
    except (OSError, ValueError):
        pass  # read_rule_file says what is wrong: a NUL in the name, a name too long, a loop
    return read_rule_file(name, limits), name


def _check_limits(limits: object) -> None:
    if not isinstance(limits, Limits):
        raise RuleTypeError(f"limits are a rulecraft.Limits, such as Limits(enumeration_paths="
                            f"2000000), not {type(limits).__name__}")


def _shape(node: object) -> object:
    """A syntax tree without its spans (a table row as its cells): what a rule file says."""
    import attrs

    from rulecraft.dsl.syntax import RowLine

    if isinstance(node, RowLine):
        if node.is_rule:  # the formatter draws dashed rules to the columns' widths
            return ("rule", node.comments)
        return ("row", tuple(text for text, _ in node.cells()), node.comments)
    if attrs.has(type(node)):
        return (type(node).__name__,) + tuple(
            _shape(getattr(node, f.name)) for f in attrs.fields(type(node))
            if not f.name.endswith(("span", "spans")))  # `side_spans`: each name's
    if isinstance(node, tuple):
        return tuple(_shape(item) for item in node)
    return node


__all__ = ["builtin_rulebooks", "compile", "evaluate", "format_rules", "load", "sheet"]
