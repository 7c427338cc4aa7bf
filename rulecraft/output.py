"""What a command writes: a file (a sheet) whole or not at all — never through another user's
link, never over what is not a regular file, never over a rule file it was made from, never more
than `output_bytes` — and text on a terminal, where rule text is shown and never obeyed."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from typing import Any, TextIO

from rulecraft.runtime.errors import RangeError, RulecraftError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits


# Names that mean standard output, written to as a stream and never replaced.
STREAMS = ("-", "/dev/stdout")


class OutputError(RulecraftError):
    """A file a command was asked to write that it must not replace."""


def is_stream(path: str) -> bool:
    """Whether `-o PATH` asks for standard output."""
    return path in STREAMS


def bounded(text: str, limits: Limits = DEFAULT_LIMITS, what: str = "the sheet") -> str:
    """`text`, or a RangeError naming `output_bytes` when it is longer than a command may write."""
    limit = limits.output_bytes
    if len(text) > limit or len(text.encode("utf-8")) > limit:
        raise RangeError(f"{what} would be more than {limit} bytes, so nothing was written "
                         f"{Limits.hint('output_bytes')}")
    return text


def write_new(path: str, text: str, keep: list[str], limits: Limits = DEFAULT_LIMITS) -> None:
    """Write `text` to `path` by a fresh temporary file beside it renamed over it, so a reader
    never sees half a file and an interrupted run leaves any old file whole. `keep` are files
    that must not be replaced (the rule files a sheet was made from): an OutputError then, and
    nothing written. A link is written through only when the user owns it and its file."""
    data = bounded(text, limits).encode("utf-8")
    target = _target(path)
    if any(_same(target, other) for other in keep):
        raise OutputError(f"{_shown(path)} is the rule file the sheet is made from; write the "
                          "sheet to another file (-o sheet.html)")
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    _replace(target, data, mode)


def _target(path: str) -> str:
    """The file `-o PATH` will replace: PATH itself, or the file the user's own link names; an
    OutputError for another user's link, a link to nothing, and what is not a regular file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path  # a new file; the rename below never follows a link made meanwhile
    if stat.S_ISLNK(info.st_mode):
        me = os.geteuid() if hasattr(os, "geteuid") else info.st_uid  # Windows: no owners
        if info.st_uid != me:
            raise OutputError(f"{_shown(path)} is a link another user made; rulecraft writes "
                              "through a link only when it and its file are yours (give the "
                              "file's own name, or another name)")
        try:
            info = os.stat(path)
        except OSError:
            raise OutputError(f"{_shown(path)} is a link to a file that does not exist; give "
                              "the file's own name") from None
        if info.st_uid != me:
            raise OutputError(f"{_shown(path)} is a link to another user's file; rulecraft "
                              "writes through a link only when it and its file are yours")
        path = os.path.realpath(path)
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{_shown(path)} is a folder; give the sheet's file name "
                          "(-o sheet.html)")
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{_shown(path)} {_kind(info.st_mode)}, not a regular file: a sheet is "
                          "written to a new file or over a regular one (or to standard output: "
                          "-o -)")
    return path


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "is something else"


def _replace(target: str, data: bytes, mode: int) -> None:
    """`data` in a fresh temporary file beside `target` (unpredictable name, created
    exclusively), synced, then renamed over it; the temporary file never outlives a failure."""
    import tempfile  # only a command that writes a file needs it

    folder = os.path.dirname(target) or "."
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.",
                                     suffix=".rulecraft-tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.chmod(out.fileno() if os.chmod in os.supports_fd else temporary, mode)
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:  # Ctrl-C too: never leave the temporary file behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where folders sync
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _shown(name: str) -> str:
    from .api import shown  # loaded by then: a sheet was made

    return shown(name)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- text on a terminal ---------------------------------------------------------------------------

# What a terminal obeys rather than shows: the C0 controls but newline and tab (layout), DEL, the
# C1 controls (U+009B alone is a CSI to many terminals) and the bidirectional overrides and
# isolates, which reorder the text shown around them.
_OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# In JSON the C0 controls are escaped by json.dumps already; these are not.
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """`text` with each character a terminal would obey written out as an escape (ESC as
    `\\x1b`), and newlines and tabs kept where they are layout."""
    return _OBEYED.sub(_escape, text) if _OBEYED.search(text) else text


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def json_text(data: Any) -> str:
    """`data` as JSON for --json: readable Unicode, and nothing a terminal obeys left raw."""
    import json  # for --json alone: a command's start is mostly its imports

    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)  # only inside strings


class TerminalText:
    """A terminal's standard output or error, through which every character a terminal would
    obey (an escape sequence in a rule's string) is shown instead: the one place all text output
    goes through, whichever command and whichever error wrote it."""

    def __init__(self, stream: TextIO) -> None:
        self.unescaped = stream  # for rulecraft's own control codes (a progress bar)

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click looks for a binary stream this way
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.unescaped.write(visible(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # encoding, flush, isatty, fileno, ...
        return getattr(self.unescaped, name)


def guard_terminal() -> None:
    """Show rule text on a terminal, never obey it: standard output and error wrapped in
    TerminalText when they are terminals (a pipe or file gets the text as the rule holds it)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, TerminalText):
            continue
        try:
            terminal = stream.isatty()
        except (AttributeError, ValueError):  # a stand-in stream, or a closed one
            terminal = False
        if terminal:
            setattr(sys, name, TerminalText(stream))


def unescaped(stream: Any) -> Any:
    """The stream under a TerminalText, for rulecraft's own control codes (a progress bar)."""
    return stream.unescaped if isinstance(stream, TerminalText) else stream


__all__ = ["STREAMS", "OutputError", "TerminalText", "bounded", "guard_terminal", "is_stream",
           "json_text", "unescaped", "visible", "write_new"]
