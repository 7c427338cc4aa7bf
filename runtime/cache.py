"""The on-disk cache: the parser's tables and read rule files, kept between processes.

Where: `$RULECRAFT_CACHE` if set (`off` turns the cache off; an absolute path, `~` allowed),
else `$XDG_CACHE_HOME/rulecraft` (when that is absolute, as the XDG spec asks), else
`~/.cache/rulecraft`. The folder is made for the user alone (mode 0700).

Whom it trusts: what an entry holds is read back with `pickle`, so an entry is code, trusted as
Python trusts its own `__pycache__`. The folder is used only when it is a real folder (not a
link) of the user's own that nobody else can write in, and, when named by `RULECRAFT_CACHE`, not
inside the project being checked: not inside the working folder nor a rule file's folder (the
home folder and those above it are no project). A relative `RULECRAFT_CACHE` is refused, since it
would name a folder inside whichever project a command runs in. An entry is opened only as a
regular file of the user's that nobody else can write, never through a link and never in a way
that can block (a FIFO, a device). A folder refused is said once per process on stderr, with
how to fix it, and the command goes on without the cache.

What: each entry is named by a key (`cache_key`) made from everything it depends on — the texts
it was made from, rulecraft's version and the limits — so an edited file, or a house file's
edited base, is simply another key. Entries are written whole under a temporary name and renamed
into place (two processes racing write the same bytes, and a reader never sees half a file);
one that cannot be read back (corrupt, truncated, from another version) is ignored and made
again.

How much: the entries together keep to `CACHE_BYTES` (`$RULECRAFT_CACHE_SIZE` bytes if set), one
entry to `ENTRY_BYTES`. Reading an entry touches it; after an entry is written, the least
recently used ones are removed until the rest fit (only then is the folder listed, so a command
that finds what it needs never lists it). Only files named as entries are counted and removed.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

FORMAT = 1  # bumped when what an entry holds changes shape
CACHE_BYTES = 200 * 1024 * 1024  # all entries together, unless $RULECRAFT_CACHE_SIZE says
# One entry: a rule file at `source_bytes` (1 MB) makes a tree of ~17 MB and a symbol table of
# ~30 MB; a house file's whole chain of bases (`extends_bytes`) may make more, then not kept.
ENTRY_BYTES = 64 * 1024 * 1024
STALE_SECONDS = 3600  # a temporary file this old was left by a process that died


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
    """The cache folder, made if need be; None when the cache is off or the folder is not to be
    trusted (said once)."""
    chosen = _chosen()
    if chosen is None:
        return None
    where, default = chosen
    if not default and _in_project(where):
        return None
    refusal = _private(where)
    if refusal is not None:
        _say(refusal)
        return None
    return where


def reading(filename: str) -> None:
    """A rule file is about to be read: a cache folder named by `RULECRAFT_CACHE` inside the
    rule file's folder is not trusted by this process from then on (what sits beside a rule file
    came with it)."""
    chosen = _chosen()
    if chosen is not None and not chosen[1]:
        _in_project(chosen[0], os.path.dirname(os.path.abspath(filename)))


def _in_project(where: str, beside: str | None = None) -> bool:
    """Whether the folder `where` lies in a project: the working folder, or `beside` (a rule
    file's folder). Said once, and not trusted by this process from then on."""
    if where in _DISTRUSTED:
        return True
    try:
        places = [("the working folder", os.getcwd())]
    except OSError:  # a working folder since removed holds nothing
        places = []
    if beside is not None:
        places.append((f"{_shown(beside)}, the folder of a rule file read", beside))
    for name, project in places:
        if _inside(where, project):
            _DISTRUSTED.add(where)
            _say(f"the cache folder {_shown(where)} is inside {name}, so it is not used; set "
                 "RULECRAFT_CACHE to a folder of your own outside it, or unset it")
            return True
    return False


_OFF = ("", "0", "off", "no", "false")
_DISTRUSTED: set[str] = set()  # cache folders found inside a project


def _chosen() -> tuple[str, bool] | None:
    """Where the cache is asked to be and whether that is the default location; None when it
    is turned off or asked for by a relative path (said once)."""
    asked = os.environ.get("RULECRAFT_CACHE")
    if asked is not None and asked.strip().lower() in _OFF:
        return None
    default = _default()
    if asked is None:
        if default is None:
            _say("the disk cache is off: there is no home folder to keep it in; set "
                 "RULECRAFT_CACHE to an absolute path")
        return None if default is None else (default, True)
    where = os.path.expanduser(asked)
    if not os.path.isabs(where):
        _say(f"RULECRAFT_CACHE ({_shown(asked)}) is not an absolute path, so the disk cache is "
             "off; set it to one, such as ~/.cache/rulecraft")
        return None
    where = os.path.normpath(where)
    return where, where == default


def _default() -> str | None:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative path is invalid and ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.normpath(os.path.join(base, "rulecraft")) if os.path.isabs(base) else None


def _inside(where: str, project: str) -> bool:
    """Whether the folder `where` lies in the folder `project`, when that can be a project:
    the home folder and those above it are not."""
    project = os.path.realpath(project)
    home = os.path.realpath(os.path.expanduser("~"))
    return not _within(home, project) and _within(os.path.realpath(where), project)


def _within(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # another drive
        return False


def _private(where: str) -> str | None:
    """Make the folder `where` if need be; why it is not to be used, if it is not."""
    try:
        try:
            info = os.lstat(where)
        except FileNotFoundError:
            os.makedirs(where, mode=0o700, exist_ok=True)
            info = os.lstat(where)
    except OSError as err:
        return (f"the cache folder {_shown(where)} cannot be made "
                f"({(err.strerror or str(err)).lower()}), so the disk cache is off; set "
                "RULECRAFT_CACHE to a folder of your own, or to off")
    shown = _shown(where)
    elsewhere = "or set RULECRAFT_CACHE to another folder"
    if stat.S_ISLNK(info.st_mode):
        why, fix = "is a link", f"make it a real folder of your own, {elsewhere}"
    elif not stat.S_ISDIR(info.st_mode):
        why, fix = "is not a folder", f"remove it, {elsewhere}"
    elif hasattr(os, "getuid") and info.st_uid != os.getuid():
        why, fix = "belongs to another user", f"remove it, {elsewhere}"
    elif info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        why, fix = "can be written by others", f"run chmod go-w {_quoted(shown)}"
    else:
        return None
    return f"the cache folder {shown} {why}, so it is not used; {fix}"


def _quoted(path: str) -> str:
    import shlex  # only when there is something to say

    return shlex.quote(path)


def _say(message: str) -> None:
    """Tell the user once per process why the cache is not used."""
    if message not in _SAID:
        _SAID.add(message)
        with _quiet():
            sys.stderr.write(f"note: {message}\n")
            sys.stderr.flush()


_SAID: set[str] = set()


def _shown(text: str) -> str:
    """A path as one line a terminal shows as it is: control characters escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def path(key: str) -> str | None:
    where = folder()
    return None if where is None else os.path.join(where, key)


def read(key: str, check: Callable[[Any], bool]) -> Any:
    """The entry under `key` if there is one that reads back whole and passes `check`."""
    file = path(key)
    data = None if file is None else _entry_bytes(file)
    if data is None:
        return None
    try:
        stored_key, value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - truncated, corrupt or foreign: made again
        return None
    return value if stored_key == key and check(value) else None


# Never follow a link nor wait for a writer (a FIFO), on the systems that have these flags.
_OPEN = os.O_RDONLY | sum(getattr(os, flag, 0) for flag in (
    "O_NONBLOCK", "O_NOFOLLOW", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"))


def _entry_bytes(file: str) -> bytes | None:
    """What the entry `file` holds, if it is a regular file of the user's that nobody else can
    write and no bigger than an entry may be: opened without following a link or blocking (a
    FIFO), then looked at; touched, since it is used."""
    try:
        fd = os.open(file, _OPEN)
    except OSError:  # missing, a link
        return None
    try:
        info = os.fstat(fd)
        if not _own_file(info) or info.st_size > entry_cap():
            return None
        data = read_at_most(fd, info.st_size)
        if os.utime in os.supports_fd:
            with _quiet():
                os.utime(fd)  # used now: the least recently used are evicted first
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def _own_file(info: os.stat_result) -> bool:
    return (stat.S_ISREG(info.st_mode) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            and (not hasattr(os, "getuid") or info.st_uid == os.getuid()))


def read_at_most(fd: int, size: int) -> bytes | None:
    """At most `size` bytes of an open file, read no further than one byte past them: None if
    it holds more (a cache entry changed since it was looked at, a file over its limit)."""
    chunks, left = [], size + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return None if left <= 0 else b"".join(chunks)


def write(key: str, value: Any) -> None:
    """Store an entry whole (a temporary file renamed into place), then keep the folder to its
    size; never an error: a cache that cannot be written is a cache that is not used."""
    where = folder()
    if where is None:
        return
    try:
        data = pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > entry_cap():
            return
        fd, temporary = tempfile.mkstemp(dir=where, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temporary, os.path.join(where, key))  # replaces a link, not its target
        except BaseException:
            with _quiet():
                os.unlink(temporary)
            raise
    except Exception:  # noqa: BLE001 - a full disk, a read-only folder, an unpicklable value
        return
    _evict(where, size_cap())



def size_cap() -> int:
    """How many bytes the entries may hold together: `$RULECRAFT_CACHE_SIZE`, else CACHE_BYTES
    (said once when it is not a number of bytes)."""
    asked = os.environ.get("RULECRAFT_CACHE_SIZE", "").strip()
    if not asked:
        return CACHE_BYTES
    try:
        size = int(asked)
    except ValueError:
        size = -1
    if size < 0:
        _say(f"RULECRAFT_CACHE_SIZE ({_shown(asked)}) is not a number of bytes, so the cache "
             f"keeps to {CACHE_BYTES} bytes")
        return CACHE_BYTES
    return size


def entry_cap() -> int:
    """How many bytes one entry may hold."""
    return min(ENTRY_BYTES, size_cap())


def _evict(where: str, cap: int) -> None:
    """Remove the least recently used entries until those left fit in `cap` bytes, and the
    temporary files of processes that died; nothing not named as an entry."""
    kept: list[tuple[int, int, str]] = []
    total = 0
    try:
        with os.scandir(where) as listing:
            for item in listing:
                temporary = _is_temporary(item.name)
                if not (temporary or _is_entry(item.name)):
                    continue
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:  # removed meanwhile by another process
                    continue
                if not stat.S_ISREG(info.st_mode):
                    continue
                if temporary and time.time() - info.st_mtime > STALE_SECONDS:
                    with _quiet():
                        os.unlink(item.path)
                    continue
                total += info.st_size
                if not temporary:
                    kept.append((info.st_mtime_ns, info.st_size, item.path))
    except OSError:
        return
    for _, size, file in sorted(kept):
        if total <= cap:
            break
        with _quiet():
            os.unlink(file)
        total -= size


def _is_temporary(name: str) -> bool:
    """Whether `name` is one `write` makes before renaming it (`tempfile.mkstemp`'s)."""
    return (len(name) == 13 and name.startswith(".tmp-") and
            all(c in "abcdefghijklmnopqrstuvwxyz0123456789_" for c in name[5:]))


def _is_entry(name: str) -> bool:
    """Whether `name` is one `cache_key` makes: a kind, a dash and 40 hex digits."""
    kind, dash, digest = name.partition("-")
    return (bool(dash) and kind.isascii() and kind.isalpha() and len(digest) == 40 and
            all(c in "0123456789abcdef" for c in digest))


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


__all__ = ["CACHE_BYTES", "ENTRY_BYTES", "cache_key", "cached", "entry_cap", "fingerprint",
           "folder", "path", "read", "reading", "size_cap", "write"]
