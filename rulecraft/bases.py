"""Where `extends "PATH"` may read a base from: the house file's folder, and the folders the user
names (`--bases DIR`, `bases=`), never a folder a rule file names.

A rule file is untrusted input: its `extends` must not read the user's other files. A path is
resolved as the file system resolves it (every link followed, `..` undone) and must land inside
one of the allowed folders, themselves resolved; a file outside is refused with the same words
whether or not it exists. A file inside that does not open like a rule file is not parsed, so
no error ever quotes it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from rulecraft.runtime.errors import RuleTypeError, UnknownRulebookError

_BOM = b"\xef\xbb\xbf"
_HEADER = re.compile(r"rulebook[ \t]+[^\W\d]")  # grammar.lark: "rulebook" NAME [STRING]


def allowed_folders(house: str, bases: Sequence[str | os.PathLike[str]] = ()) -> tuple[str, ...]:
    """The real folders a house file's bases may be read from: its own folder (the working
    folder for text without a file), then the folders the user gave."""
    if isinstance(bases, (str, bytes, os.PathLike)) or not isinstance(bases, Sequence):
        raise RuleTypeError("bases is a list of folders bases may also be read from, such as "
                            f"bases=['shared'], not {type(bases).__name__}")
    named = []
    for folder in bases:
        if not isinstance(folder, (str, os.PathLike)):
            raise RuleTypeError(f"a folder in bases is a str or a pathlib.Path, not "
                                f"{type(folder).__name__}")
        named.append(os.fsdecode(folder))
    found = [_real(os.path.dirname(house) or os.curdir)] + [_real(f) for f in named]
    return tuple(dict.fromkeys(f for f in found if f is not None))


def locate(base: str, naming_file: str, folders: tuple[str, ...]) -> tuple[str, str]:
    """The base as a file name relative to the file that names it (for messages), and its real
    path; UnknownRulebookError if that lies outside `folders` (whether it exists or not)."""
    if "\0" in base:
        raise UnknownRulebookError(f"cannot read the base {base!r}: a file name cannot hold a "
                                   "NUL character")
    path = os.path.join(os.path.dirname(naming_file), base)
    real = _real(path)
    if real is None or not any(inside(real, folder) for folder in folders):
        raise UnknownRulebookError(f"cannot read the base {_quoted(base)}: it is "
                                   f"{_outside(folders)}")
    return path, real


def inside(real: str, folder: str) -> bool:
    """Whether a real path is the folder or lies under it."""
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def starts_like_rules(data: bytes) -> bool:
    """Whether a file opens like a rule file: after a byte-order mark, blank lines and `#`
    comments, its first line is the `rulebook NAME` header."""
    for line in data.removeprefix(_BOM).splitlines():
        text = line.strip()
        if text and not text.startswith(b"#"):
            return _HEADER.match(text.decode("utf-8", "replace")) is not None
    return False


def not_rules(base: str) -> UnknownRulebookError:
    """The refusal of a base that is not a rule file: its name, never a word of its text."""
    shown = base if base.isprintable() and len(base) <= 200 else _quoted(base)
    return UnknownRulebookError(
        f"the base is not a rule file: {shown} (a rule file opens with its "
        "`rulebook NAME` line, after any blank lines and # comments)")


def _outside(folders: tuple[str, ...]) -> str:
    more = ", and those given with --bases" if len(folders) > 1 else ""
    return (f"outside the folders bases are read from (the house file's own{more}). A base "
            "is a built-in rulebook or a rule file in one of them; to read bases from another "
            "folder, name it with --bases DIR on the command line (bases=[DIR] from Python)")


def _quoted(name: str) -> str:
    if len(name) > 200:
        return repr(name[:120] + "…")
    return repr(name)


def _real(path: str) -> str | None:
    """A path with every link followed and `..` undone; None for a name the system cannot
    take (a NUL in it), which is nowhere allowed."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


__all__ = ["allowed_folders", "inside", "locate", "not_rules", "starts_like_rules"]
