"""Work spread over worker processes that are this process's to end (`rulecraft fight --runs`).

Each worker dies with its parent (Linux tells the kernel so; elsewhere a thread watches the
parent's id), holds none of the caller's standard streams (a caller reading a pipe to its end
would otherwise wait for the workers too), and leaves Ctrl-C to the parent, which ends them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from rulecraft.runtime.errors import RulecraftError

_INHERITED: list[Any] = []  # what a forked worker has of its parent's: the job's compiled form
_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def spread(play: Callable[[Any, Any, Any], Any], job: Any, inherited: Any,
           chunks: Iterator[Any] | Callable[[], Any], workers: int,
           take: Callable[[Any], None]) -> None:
    """Each chunk played by one of `workers` processes as `play(inherited, job, chunk)`, one
    chunk at a time each, and each reply handed to `take` as it comes back. A worker forked
    from this process is given `inherited` (what cannot be sent, such as a compiled rulebook);
    a spawned one None. The workers end however this ends: done, an error, Ctrl-C.

    `chunks` is an iterator, or a function giving the next chunk or None for "nothing now"
    (a sweep that decides what to play next from the replies): a worker given nothing waits
    for the next reply to come back, and all is done when nothing is given and none is busy."""
    import multiprocessing
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux")
                                          else "spawn")
    started: dict[Any, Any] = {}  # our end of a worker's pipe -> the worker
    finished = False
    _INHERITED[:] = [inherited]
    try:
        with _no_interrupts():
            for _ in range(workers):
                ours, theirs = context.Pipe()
                worker = context.Process(target=_work, args=(play, job, theirs, os.getpid()),
                                         daemon=True, name="rulecraft worker")
                worker.start()
                theirs.close()  # a worker's death then ends its pipe
                started[ours] = worker
        _INHERITED.clear()
        pull = chunks if callable(chunks) else (lambda: next(chunks, None))  # type: ignore[arg-type]
        idle = list(started)
        busy: list[Any] = []
        while True:
            while idle:  # each idle worker given what there is to play now
                chunk = pull()
                if chunk is None:
                    break
                conn = idle.pop()
                _send(conn, started[conn], chunk)
                busy.append(conn)
            if not busy:
                break
            for conn in wait(busy):
                take(_received(conn, started[conn]))
                busy.remove(conn)
                idle.append(conn)
        finished = True
    finally:
        _INHERITED.clear()
        _ended(started, finished)


def _send(conn: Any, worker: Any, chunk: Any) -> bool:
    """A chunk to a worker (True), or nothing left for it (False)."""
    if chunk is None:
        return False
    try:
        conn.send(chunk)
    except OSError:
        raise _stopped(worker) from None
    return True


def _received(conn: Any, worker: Any) -> Any:
    """A worker's reply for its chunk, or the error that stopped it."""
    try:
        kind, found = conn.recv()
    except (EOFError, OSError):
        raise _stopped(worker) from None
    if kind == "error":
        raise found
    if kind == "crash":
        raise RuntimeError(found)
    return found


def _stopped(worker: Any) -> RulecraftError:
    """A worker gone before its work was done (killed from outside, out of memory)."""
    worker.join(timeout=5)
    how = f"killed by signal {-worker.exitcode}" if (worker.exitcode or 0) < 0 else \
        f"exit status {worker.exitcode}"
    return RulecraftError(f"a worker process stopped ({how}) before its work was done")


def _ended(started: dict[Any, Any], finished: bool) -> None:
    """Every worker ended and reaped: told to stop when all went well, else killed at once."""
    for conn, worker in started.items():
        if finished:
            with contextlib.suppress(OSError):
                conn.send(None)
        else:
            worker.kill()
        conn.close()
    for worker in started.values():
        worker.join(timeout=5)
        if worker.is_alive():  # pragma: no cover - a worker that did not stop when told
            worker.kill()
            worker.join()


@contextlib.contextmanager
def _no_interrupts() -> Iterator[None]:
    """Ctrl-C held back while workers start, so that none is interrupted before it ignores it
    itself (a worker's traceback would reach the caller's terminal), then acted on: pressed
    meanwhile, it interrupts once they have started (and are then stopped), instead of being
    lost while the fights go on."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # run where Ctrl-C is ignored
        yield
        return
    pressed: list[int] = []
    before = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if pressed:
        raise KeyboardInterrupt


def _work(play: Callable[[Any, Any, Any], Any], job: Any, conn: Any, parent: int) -> None:
    """A worker: plays each chunk it is sent and sends back the reply, until told to stop or
    its parent is gone."""
    _tie_to(parent)
    inherited = _INHERITED[0] if _INHERITED else None
    while True:
        try:
            chunk = conn.recv()
        except EOFError:
            return
        if chunk is None:
            return
        try:
            reply: tuple[str, Any] = ("done", play(inherited, job, chunk))
        except RulecraftError as err:
            reply = ("error", _portable(err))
        except Exception as err:  # noqa: BLE001 - the parent reports it as a bug
            reply = ("crash", f"{type(err).__name__}: {err}"[:2000])
        conn.send(reply)


def _portable(err: RulecraftError) -> RulecraftError:
    """An error as it can be sent to the parent (some do not survive pickling whole)."""
    import pickle

    try:
        pickle.loads(pickle.dumps(err))
    except Exception:  # noqa: BLE001
        return RulecraftError(str(err))
    return err


def _tie_to(parent: int) -> None:
    """Make this worker die with its parent and let go of the caller's standard streams."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    tied = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            tied = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent:  # it ended before this worker was tied to it
        os._exit(1)
    if not tied:
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()


def _watch(parent: int) -> None:
    """Where the kernel cannot be asked to: end this worker once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


__all__ = ["spread", "usable_cores"]
