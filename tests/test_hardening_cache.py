"""Issue 21, item 15: the disk cache (runtime/cache.py) holds code — its entries are read back
with pickle — so it trusts only the user's own private folder and only regular files in it, never
blocks on what it finds there, keeps to a size, and says so when it turns itself off.

"a cache entry replaced by a FIFO hangs every later command (open only regular files, without
blocking); no size cap or eviction (add both); an unsafe cache folder turns the cache off silently
(say so once); a relative `RULECRAFT_CACHE` is resolved once, and a folder inside the project
being checked is refused (entries are code: only the user's own private folder is trusted)."
"""

from __future__ import annotations

import os
import pickle
import stat
import threading
from pathlib import Path

import pytest

from rulecraft import api
from rulecraft.runtime import cache

import resources  # tests/resources.py: the command in a capped child

BASE = '''rulebook base "Base"
formula bonus(x: 1..10) "Bonus" = x + 1
'''
HANG_GUARD = 60  # seconds until a child still running is taken as blocked (no timing asserted)
NOT_ROOT = "only root can give a file or folder to another user"


class Planted:
    """What an attacker would put in a cache entry: unpickling it makes the folder `marker`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.mkdir, (str(self.marker),)


@pytest.fixture
def book(tmp_path) -> Path:
    """A rule file in a folder of its own (the cache is never beside it)."""
    folder = tmp_path / "book"
    folder.mkdir()
    path = folder / "base.rules"
    path.write_text(BASE, encoding="utf-8")
    return path


@pytest.fixture
def own_cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("RULECRAFT_CACHE", str(folder))
    api._cache.clear()
    yield folder
    api._cache.clear()


def evaluate(book: Path, cwd: Path | None = None, **env: str) -> resources.Measured:
    """`rulecraft eval BOOK "bonus(3)"` in a child, from the book's folder unless told."""
    return resources.rulecraft(["eval", str(book), "bonus(3)"], cwd=cwd or book.parent, env=env)


def assert_worked(done: resources.Measured) -> None:
    assert (done.returncode, done.stdout.strip()) == (0, "4"), done.output
    assert done.peak_mb < 200


def said(done: resources.Measured) -> str:
    """The one line the command said on stderr."""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


# ---- entries that are not regular files of the user's -------------------------------------

def guarded(book: Path, fifos: list[Path], **env: str) -> resources.Measured:
    """`evaluate` in a thread. A child still running after HANG_GUARD seconds is blocked opening a
    FIFO: opening each FIFO for writing (which succeeds only while someone reads it) lets it go,
    and the test fails."""
    done: list[resources.Measured] = []
    running = threading.Thread(target=lambda: done.append(evaluate(book, **env)))
    running.start()
    running.join(HANG_GUARD)
    hung = running.is_alive()
    while running.is_alive():
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # nobody is reading it
                pass
        running.join(1)
    assert not hung, "a command hung opening a cache entry that is a FIFO"
    return done[0]


def test_a_fifo_entry_neither_hangs_a_command_nor_stays(book, own_cache):
    """"a cache entry replaced by a FIFO hangs every later command (open only regular files,
    without blocking)"."""
    assert_worked(evaluate(book, RULECRAFT_CACHE=str(own_cache)))
    fifos = entries(own_cache)
    assert len(fifos) >= 3  # the parser's tables, the file's tree, its symbol table
    for entry in fifos:
        entry.unlink()
        os.mkfifo(entry, 0o600)
    assert_worked(guarded(book, fifos, RULECRAFT_CACHE=str(own_cache)))
    assert all(stat.S_ISREG(os.lstat(entry).st_mode) for entry in fifos)  # made again


def plant(file: Path, marker: Path) -> None:
    file.write_bytes(pickle.dumps(Planted(marker)))
    os.chmod(file, 0o600)


def test_a_linked_entry_is_not_followed(own_cache, tmp_path):
    """An entry that is a link is not read (what it names could be anyone's), and a new entry
    replaces the link, not what it names."""
    key = cache.cache_key("tree", ["linked"])
    assert cache.folder() == str(own_cache)
    elsewhere, marker = tmp_path / "elsewhere", tmp_path / "ran"
    plant(elsewhere, marker)
    planted = elsewhere.read_bytes()
    (own_cache / key).symlink_to(elsewhere)
    assert cache.read(key, lambda value: True) is None
    assert not marker.exists()
    cache.write(key, 5)
    assert cache.read(key, lambda value: True) == 5
    assert stat.S_ISREG(os.lstat(own_cache / key).st_mode)
    assert elsewhere.read_bytes() == planted  # untouched


def test_an_entry_others_can_write_is_not_read(own_cache, tmp_path):
    key = cache.cache_key("tree", ["shared"])
    assert cache.folder() == str(own_cache)
    marker = tmp_path / "ran"
    plant(own_cache / key, marker)
    os.chmod(own_cache / key, 0o666)
    assert cache.read(key, lambda value: True) is None
    assert not marker.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason=NOT_ROOT)
def test_an_entry_of_another_user_is_not_read(own_cache, tmp_path):
    key = cache.cache_key("tree", ["theirs"])
    assert cache.folder() == str(own_cache)
    marker = tmp_path / "ran"
    plant(own_cache / key, marker)
    os.chown(own_cache / key, 65534, 65534)
    assert cache.read(key, lambda value: True) is None
    assert not marker.exists()


# ---- a size cap, least recently used first --------------------------------------------------

def test_the_folder_keeps_to_its_size_least_recently_used_first(own_cache, monkeypatch):
    """"No size cap or eviction: add both"; eviction runs after a write, never on a read."""
    keys = [cache.cache_key("tree", [str(n)]) for n in range(5)]
    cache.write(keys[0], b"x" * 1000)
    size = os.stat(own_cache / keys[0]).st_size
    monkeypatch.setenv("RULECRAFT_CACHE_SIZE", str(3 * size + size // 2))
    (own_cache / "notes.txt").write_bytes(b"n" * 10 * size)  # not an entry: never removed
    left, writing = own_cache / ".tmp-deadbeef", own_cache / ".tmp-inflight"
    left.write_bytes(b"t")  # a temporary file of a process that died an hour ago
    os.utime(left, (1000, 1000))
    writing.write_bytes(b"t")  # one being written now
    for age, key in enumerate(keys[:3]):
        cache.write(key, b"x" * 1000)
        os.utime(own_cache / key, (1000 + age, 1000 + age))
    listed: list[object] = []
    for name in ("scandir", "listdir"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda *a, real=real: listed.append(a) or real(*a))
    assert cache.read(keys[0], lambda value: True) == b"x" * 1000  # used: now the newest
    assert listed == []  # a read never lists the folder
    cache.write(keys[3], b"x" * 1000)
    assert {p.name for p in entries(own_cache)} == {keys[0], keys[2], keys[3], "notes.txt"}
    assert writing.exists() and not left.exists()
    cache.write(keys[4], b"x" * 4 * size)  # bigger than the whole cache: not kept
    assert {p.name for p in entries(own_cache)} == {keys[0], keys[2], keys[3], "notes.txt"}


def test_the_size_cap_defaults_and_is_read_from_the_environment(monkeypatch, capsys):
    monkeypatch.delenv("RULECRAFT_CACHE_SIZE", raising=False)
    assert cache.size_cap() == cache.CACHE_BYTES == 200 * 1024 * 1024
    monkeypatch.setenv("RULECRAFT_CACHE_SIZE", "5000000")
    assert cache.size_cap() == 5_000_000
    monkeypatch.setenv("RULECRAFT_CACHE_SIZE", "lots")
    assert cache.size_cap() == cache.size_cap() == cache.CACHE_BYTES
    (line,) = capsys.readouterr().err.splitlines()
    assert "RULECRAFT_CACHE_SIZE" in line and "bytes" in line


# ---- an unsafe folder: said once, the command goes on without the cache ----------------------

def unsafe(kind: str, folder: Path, tmp_path: Path) -> None:
    if kind == "writable":
        folder.mkdir(mode=0o700)
        os.chmod(folder, 0o777)
    elif kind == "link":
        (tmp_path / "real").mkdir(mode=0o700)
        folder.symlink_to(tmp_path / "real")
    else:
        folder.mkdir(mode=0o700)
        os.chown(folder, 65534, 65534)


@pytest.mark.parametrize("kind, why", [
    ("writable", "chmod go-w"), ("link", "link"),
    pytest.param("owner", "another user", marks=pytest.mark.skipif(os.geteuid() != 0,
                                                                     reason=NOT_ROOT))])
def test_an_unsafe_folder_is_said_once_and_not_used(kind, why, book, tmp_path):
    """"an unsafe cache folder turns the cache off silently (say so once)"."""
    folder = tmp_path / "cache"
    unsafe(kind, folder, tmp_path)
    done = evaluate(book, RULECRAFT_CACHE=str(folder))
    assert_worked(done)
    line = said(done)
    assert str(folder) in line and why in line
    assert os.listdir(tmp_path / "real" if kind == "link" else folder) == []


def test_a_relative_folder_is_refused(book):
    """"a relative `RULECRAFT_CACHE` is resolved once": refused instead, since a relative path
    names a folder inside whichever project a command runs in."""
    done = evaluate(book, RULECRAFT_CACHE="kept")
    assert_worked(done)
    assert "RULECRAFT_CACHE" in said(done) and "absolute" in said(done)
    assert not (book.parent / "kept").exists()


def test_a_folder_in_the_home_folder_may_be_written_with_a_tilde(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RULECRAFT_CACHE", "~/kept")
    assert cache.folder() == str(tmp_path / "kept")


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    """The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored."""
    monkeypatch.delenv("RULECRAFT_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert cache.folder() == str(tmp_path / ".cache" / "rulecraft")


# ---- a folder inside the project being checked ----------------------------------------------

def test_a_folder_beside_the_rule_file_is_refused(tmp_path):
    """"a folder inside the project being checked is refused (entries are code: only the user's
    own private folder is trusted)": entries planted in it are never unpickled."""
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    (project / "house.rules").write_text(BASE, encoding="utf-8")
    (other / "base.rules").write_text(BASE, encoding="utf-8")
    folder, marker = project / ".rulecraft-cache", tmp_path / "ran"
    assert_worked(evaluate(other / "base.rules", RULECRAFT_CACHE=str(folder)))  # trusted there
    assert entries(folder)
    for entry in entries(folder):
        plant(entry, marker)
    done = evaluate(project / "house.rules", cwd=other, RULECRAFT_CACHE=str(folder))
    assert_worked(done)
    assert not marker.exists()
    assert str(folder) in said(done) and str(project) in said(done)


def test_a_folder_inside_the_working_folder_is_refused(book, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    folder = work / "cache"
    done = evaluate(book, cwd=work, RULECRAFT_CACHE=str(folder))
    assert_worked(done)
    assert "working folder" in said(done)
    assert not folder.exists()


def test_the_home_folder_is_no_project(tmp_path, monkeypatch):
    """The default location (and an explicit folder in the home folder) is trusted when a
    command runs from home on a rule file kept there: home is not a project someone sent."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "base.rules").write_text(BASE, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("RULECRAFT_CACHE")
    done = evaluate(home / "base.rules")
    assert_worked(done)
    assert done.stderr == "" and entries(home / ".cache" / "rulecraft")
    done = evaluate(home / "base.rules", RULECRAFT_CACHE=str(home / "kept"))
    assert_worked(done)
    assert done.stderr == "" and entries(home / "kept")
