"""The on-disk cache: the parser's tables and read rule files, kept between processes.

Where: `$RULECRAFT_CACHE` if set (`off` turns the cache off), else `$XDG_CACHE_HOME/rulecraft`,
else `~/.cache/rulecraft`. The folder is made for the user alone (mode 0700) and used only if it
is the user's own and nobody else can write in it, since what it holds is read back with
`pickle`: the same trust Python gives its own `__pycache__`.

What: each entry is named by a key (`cache_key`) made from everything it depends on — the texts
it was made from, rulecraft's version and the limits — so an edited file, or a house file's
edited base, is simply another key. Entries are written whole under a temporary name and renamed
into place (two processes racing write the same bytes, and a reader never sees half a file);
one that cannot be read back (corrupt, truncated, from another version) is ignored and made
again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import tempfile
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

FORMAT = 1  # bumped when what an entry holds changes shape


def fingerprint(modules: Sequence[str]) -> str:
    """rulecraft's version as the cache sees it: a digest of the code an entry is made by (the
    grammar and the parser for a rule file's tree), so that an upgrade or an edited checkout
    never reads an entry made by other code."""
    found = _FINGERPRINTS.get(tuple(modules))
    if found is None:
        digest = hashlib.sha256()
        for name in modules:
            with open(name, "rb") as f:
                data = f.read()
            digest.update(len(data).to_bytes(8, "big") + data)
        found = _FINGERPRINTS[tuple(modules)] = digest.hexdigest()
    return found


_FINGERPRINTS: dict[tuple[str, ...], str] = {}


def cache_key(kind: str, texts: Sequence[str], limits: Any = None,
              code: Sequence[str] = ()) -> str:
    """The name of an entry made from `texts` (a rule file, then every file it depends on, such
    as the bases it extends) under `limits`, by the code in the files `code`: a SHA-256 of all
    of them."""
    digest = hashlib.sha256(f"{kind}\0{FORMAT}\0{fingerprint(code)}\0{limits!r}\0".encode())
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big") + data)
    return f"{kind}-{digest.hexdigest()[:40]}"


def folder() -> str | None:
    """The cache folder, made if need be; None when the cache is off or the folder is unsafe."""
    chosen = os.environ.get("RULECRAFT_CACHE")
    if chosen is not None and chosen.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if not chosen:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        chosen = os.path.join(base, "rulecraft")
    try:
        os.makedirs(chosen, mode=0o700, exist_ok=True)
        info = os.stat(chosen)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return None
    return chosen


def path(key: str) -> str | None:
    where = folder()
    return None if where is None else os.path.join(where, key)


def read(key: str, check: Callable[[Any], bool]) -> Any:
    """The entry under `key` if there is one that reads back whole and passes `check`."""
    file = path(key)
    if file is None:
        return None
    try:
        with open(file, "rb") as f:
            stored_key, value = pickle.load(f)
    except Exception:  # noqa: BLE001 - missing, truncated, corrupt or foreign: made again
        return None
    return value if stored_key == key and check(value) else None


def write(key: str, value: Any) -> None:
    """Store an entry whole (a temporary file renamed into place); never an error: a cache
    that cannot be written is a cache that is not used."""
    where = folder()
    if where is None:
        return
    try:
        data = pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL)
        fd, temporary = tempfile.mkstemp(dir=where, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temporary, os.path.join(where, key))
        except BaseException:
            with _quiet():
                os.unlink(temporary)
            raise
    except Exception:  # noqa: BLE001 - a full disk, a read-only folder, an unpicklable value
        return


def cached(key: str, make: Callable[[], T], check: Callable[[Any], bool]) -> T:
    """The entry under `key`, or `make()` stored under it."""
    found = read(key, check)
    if found is not None:
        return found  # type: ignore[no-any-return]
    value = make()
    write(key, value)
    return value


class _quiet:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return True


__all__ = ["cache_key", "cached", "fingerprint", "folder", "path", "read", "write"]
