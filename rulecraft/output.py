"""Writing a file the CLI makes (a sheet): whole or not at all, and never over a rule file."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from rulecraft.runtime.errors import RulecraftError


def write_new(path: str, text: str, keep: list[str]) -> None:
    """Write `text` to `path` by a fresh temporary file beside it renamed over it, so a reader
    never sees half a file and an interrupted run leaves any old file whole. `keep` are files
    that must not be replaced (the rule files a sheet was made from): a RulecraftError then,
    and nothing written."""
    target = os.path.realpath(path)
    if target in keep or any(_same(target, other) for other in keep):
        raise RulecraftError(f"{path} is the rule file the sheet is made from; write the "
                             "sheet to another file (-o sheet.html)")
    if os.path.isdir(target):
        raise RulecraftError(f"{path} is a folder; give the sheet's file name (-o sheet.html)")
    folder = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.",
                                     suffix=".rulecraft-tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.chmod(out.fileno() if os.chmod in os.supports_fd else temporary, mode)
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:  # Ctrl-C too: never leave the temporary file behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = ["write_new"]
