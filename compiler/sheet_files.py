"""A sheet's template files: read only from inside their folder, and a template's failure placed
at its file and line."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Any

from jinja2 import BaseLoader, TemplateNotFound, TemplateSyntaxError

from rulecraft.runtime.errors import RangeError, RulecraftError, Span
from rulecraft.runtime.limits import Limits

from .sheet_sandbox import SheetError


class FolderLoader(BaseLoader):
    """Templates read from one folder and nothing outside it: no `..`, no absolute name, no
    link that leads out, nothing but regular files, none over `limit` bytes. A template's file
    name, as errors show it, is `shown` joined with its name."""

    def __init__(self, folder: str | os.PathLike[str], shown: str, limit: int,
                 texts: dict[str, str]) -> None:
        self.folder = os.path.realpath(folder)
        self.shown = shown
        self.limit = limit
        self.texts = texts  # each template read, by its file name: for errors and the work

    def get_source(self, environment: Any, template: str) -> tuple[str, str, Callable[[], bool]]:
        pieces = [piece for piece in template.split("/") if piece not in ("", ".")]
        if template.startswith(("/", "\\")) or os.path.isabs(template) or ".." in pieces \
                or any("\\" in piece or "\0" in piece for piece in pieces):
            raise SheetError(f"{template!r}: a template may include, import or extend only "
                             "files inside the templates folder, by a name relative to it")
        path = os.path.join(self.folder, *pieces)
        if not os.path.lexists(path):
            raise TemplateNotFound(template)
        real = os.path.realpath(path)
        if not real.startswith(self.folder + os.sep):
            raise SheetError(f"{template!r} is a link to a file outside the templates folder; a "
                             "template may use only files inside the templates folder")
        filename = "/".join([self.shown, *pieces])
        text = _read_template(real, template, self.limit)
        self.texts[filename] = text
        mtime = os.stat(real).st_mtime
        return text, filename, lambda: os.path.exists(real) and os.stat(real).st_mtime == mtime


def _read_template(path: str, name: str, limit: int) -> str:
    """A template's text: a regular file (never a FIFO, which would wait for ever) of at most
    `limit` bytes, in UTF-8."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise SheetError(f"cannot read the template {name!r}: "
                         f"{(err.strerror or 'unreadable').lower()}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise SheetError(f"the template {name!r} is not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise SheetError(f"the template {name!r} is larger than {limit} bytes "
                         f"{Limits.hint('source_bytes')}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SheetError(f"the template {name!r} is not UTF-8 text") from None


def placed(err: BaseException, texts: dict[str, str]) -> RulecraftError:
    """`err` as a rulecraft error at the template line it happened at (a limit's stays a
    RangeError), shown with that line as a rule's error is; without a line when none is known."""
    found = _where(err, texts)
    text = failure(err)
    kind = type(err) if isinstance(err, RangeError) else SheetError
    if found is None:
        return err if isinstance(err, RulecraftError) else SheetError(text)
    filename, line = found
    lines = texts[filename].splitlines() or [""]
    written = lines[min(line, len(lines)) - 1]
    column = len(written) - len(written.lstrip()) + 1
    span = Span(filename, line, column, line, max(column + 1, len(written.rstrip()) + 1))
    return kind(text, span, texts[filename])


def _where(err: BaseException, texts: dict[str, str]) -> tuple[str, int] | None:
    """The template file and line an error was raised at: a syntax error's own, or the
    innermost template frame of its traceback (Jinja rewrites frames to template lines)."""
    if isinstance(err, TemplateSyntaxError) and err.filename in texts and err.lineno:
        return err.filename, err.lineno
    found = None
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in texts:
            found = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    return found


def failure(err: BaseException) -> str:
    """What went wrong in a template, in a sentence."""
    if isinstance(err, RecursionError):
        return ("the template failed: its macros or includes call themselves more deeply "
                "than Python allows")
    if isinstance(err, MemoryError):
        return "the template failed: it ran out of memory"
    if isinstance(err, RulecraftError):
        return err.message
    if isinstance(err, TemplateSyntaxError):
        return f"the template failed: a syntax error: {err.message}"
    if isinstance(err, TemplateNotFound):
        return (f"the template failed: there is no template {err.name!r} in the templates "
                "folder or rulecraft's own")
    text = getattr(err, "message", None) or str(err) or type(err).__name__
    return f"the template failed: {text}"


__all__ = ["FolderLoader", "failure", "placed"]
