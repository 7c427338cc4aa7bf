"""Fighters from TOML files, for `rulecraft fight` and `rulecraft.read_fighter`."""

from __future__ import annotations

import contextlib
import math
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.errors import RangeError, RulecraftError, UnknownRulebookError
from rulecraft.runtime.fights import Fight, encounters, fight
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.results import who
from rulecraft.runtime.rulebook import Rulebook

from .api import shown
from .arguments import read_values


def read_fighter(rulebook: Rulebook, path: str, model: str | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> Combatant:
    """A combatant from a TOML file: its fields as the rulebook names them; `model = "horse"`
    picks a model other than the first. Errors name the file and the field."""
    try:
        data = read_values(path, limits, toml=True)  # bounded as a combatant file is
    except ValueError as err:  # TOMLDecodeError is a ValueError
        raise UnknownRulebookError(f"cannot read the fighter {shown(path)}: {err}") from None
    chosen = data.pop("model", model)
    models = rulebook.combatant_models
    if chosen is None:
        chosen = next(iter(models), None)
    if chosen not in models:
        raise RangeError(f"{path}: the rulebook {rulebook.name} has no combatant model "
                         f"{chosen!r} (it has: {', '.join(models) or 'none'})")
    try:
        return models[chosen].build(**data)
    except RulecraftError as err:
        problems = getattr(err, "errors", [err])
        raise RangeError("\n".join(f"{path}: {e.message}" for e in problems)) from None


def fighter_files(paths: Sequence[str]) -> list[str]:
    """Each path as given, refusing folders with a clear message."""
    for path in paths:
        if os.path.isdir(path):
            raise UnknownRulebookError(f"{path} is a folder; give the fighters' .toml files")
    return list(paths)


__all__ = ["Fight", "Study", "Tally", "encounters", "fight", "fighter_files", "read_fighter", "study",
           "usable_cores"]


# ---- many fights -------------------------------------------------------------------------------

CHUNK = 250  # fights a worker plays between reports; fixed, so that workers change nothing


@attrs.frozen
class Study:
    """Many fights of the same fighters: how each ended, how long they took, how each fighter
    fared. The same seed gives the same figures whatever the number of workers."""

    runs: int
    outcomes: dict[str, int]
    standing: dict[str, int]  # fighter -> fights it ended with a turn still coming
    mean_time: float
    mean_passes: float
    states: dict[str, dict[str, float]]  # fighter -> state field (or injury) -> mean per fight

    def win_rates(self) -> dict[str, tuple[float, float, float]]:
        """Each fighter's rate of standing at the end, with a 95% (Wilson) interval."""
        return {name: (count / self.runs, *_wilson(count, self.runs))
                for name, count in self.standing.items()}

    def report(self) -> str:
        lines = [f"{self.runs} fights"]
        lines += [f"  {name}: {count / self.runs:6.1%}" for name, count in self.outcomes.items()]
        for name, (rate, low, high) in self.win_rates().items():
            lines.append(f"{name} standing at the end: {rate:6.1%} (95% interval "
                         f"{low:.1%}–{high:.1%})")
        lines.append(f"mean length: {self.mean_time:.1f} (time), {self.mean_passes:.1f} "
                     "(turns or rounds)")
        for name, figures in self.states.items():
            shown = ", ".join(f"{k} {v:.2f}" for k, v in figures.items())
            lines.append(f"{name}, mean per fight: {shown}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "outcomes": self.outcomes,
                "win_rates": {k: {"rate": r, "low": lo, "high": hi}
                              for k, (r, lo, hi) in self.win_rates().items()},
                "mean_time": self.mean_time, "mean_passes": self.mean_passes,
                "states": self.states}


Exact = int | Fraction  # a sum kept exactly: the same whatever order fights are added in


@attrs.define
class Tally:
    """What a study keeps as fights finish: counts and exact sums, never a fight's own record,
    so that its size does not grow with the fights and any order of adding gives the same."""

    runs: int = 0
    outcomes: dict[str, int] = attrs.field(factory=dict)
    standing: dict[str, int] = attrs.field(factory=dict)
    time: Exact = 0
    passes: Exact = 0
    states: dict[str, dict[str, Exact]] = attrs.field(factory=dict)

    def add(self, done: Fight) -> None:
        """One finished fight: how it ended, who was standing, each fighter's state."""
        outcome = done.result.outcome
        self.runs += 1
        _count(self.outcomes, outcome.name, 1)
        if any(e["kind"] == "turn" for e in done.events):  # nobody stands in an unplayed fight
            for fighter in done.standing():
                _count(self.standing, done.name(fighter), 1)
        self.time += _exact(outcome.get("time", 0) or 0)
        self.passes += _exact(outcome.get("turns", outcome.get("rounds", 0)) or 0)
        for fighter in done.fighters:
            into = self.states.setdefault(done.name(fighter), {})
            for key, figure in _state_figures(fighter):
                _count(into, key, figure)

    def merge(self, other: Tally) -> None:
        """Another tally's fights added to these."""
        self.runs += other.runs
        for name, count in other.outcomes.items():
            _count(self.outcomes, name, count)
        for name, count in other.standing.items():
            _count(self.standing, name, count)
        self.time += other.time
        self.passes += other.passes
        for name, figures in other.states.items():
            into = self.states.setdefault(name, {})
            for key, figure in figures.items():
                _count(into, key, figure)

    def study(self, names: Sequence[str]) -> Study:
        """The study's figures: counts as they are, sums as means per fight; the fighters
        named first, in that order, any other after them by name."""
        def mean(total: Exact) -> float:
            return float(Fraction(total) / self.runs)

        def fighters(found: Mapping[str, Any]) -> list[str]:
            return list(dict.fromkeys(names)) + sorted(set(found) - set(names))

        outcomes = dict(sorted(self.outcomes.items(), key=lambda kv: (-kv[1], kv[0])))
        standing = {name: self.standing.get(name, 0) for name in fighters(self.standing)}
        states = {name: {k: mean(v) for k, v in sorted(self.states.get(name, {}).items())}
                  for name in fighters(self.states)}
        return Study(self.runs, outcomes, standing, mean(self.time), mean(self.passes), states)


def _count(into: dict[str, Any], key: str, amount: Exact) -> None:
    into[key] = into.get(key, 0) + amount


def _exact(number: Any) -> Exact:
    """A figure as an exact number (a float's exact value): sums then do not depend on order."""
    return number if isinstance(number, int) else Fraction(number)


def _state_figures(fighter: Combatant) -> list[tuple[str, Exact]]:
    """A fighter's state as numbers to average: numbers as they are, each item of a list or a
    map of lists counted (injuries by kind)."""
    figures: list[tuple[str, Exact]] = []
    for f in fighter.model.fields:
        if f.role != "state":
            continue
        value = fighter[f.name]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            figures.append((f.name, _exact(value)))
        items = [i for v in value.values() for i in v] if isinstance(value, Mapping) and all(
            isinstance(v, (list, tuple)) for v in value.values()) else \
            list(value) if isinstance(value, (list, tuple)) else []
        figures += [(f"{f.name}: {item}", 1) for item in items]
    return figures


@attrs.frozen
class _Job:
    """What every worker needs to play its share of a study: the rulebook, the fighters as
    given, the fight's options and the limits of the command."""

    source: str
    filename: str
    fighters: list[tuple[str, dict[str, Any]]]  # (combatant model, values given)
    names: list[str]
    options: dict[str, Any]  # encounter, policy, settings, until
    seed: int
    limits: Limits


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def study(rulebook: Rulebook, fighters: Sequence[Combatant], runs: int, seed: int | None = None,
          names: Sequence[str] | None = None, encounter: str | None = None,
          policy: str | None = None, workers: int | None = None,
          progress: Any = None, settings: Mapping[str, Any] | None = None,
          until: Any = None, limits: Limits = DEFAULT_LIMITS) -> Study:
    """`runs` fights, fight i seeded from (seed, i), each within `limits`; spread over
    `workers` processes (all cores by default, never more) in chunks, and summed as they come
    back: the same figures whatever the number of workers."""
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
        raise RangeError(f"runs is a whole number of fights, 1 or more, not {runs!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    names = list(names or (who(f) for f in fighters))
    job = _Job(str(rulebook.source), rulebook.filename,
               [(f.model.name, _given(f)) for f in fighters], names,
               {"encounter": encounter, "policy": policy, "settings": dict(settings or {}),
                "until": until}, seed, limits)
    chunks = [(start, min(runs, start + CHUNK)) for start in range(0, runs, CHUNK)]
    workers = min(workers or usable_cores(), usable_cores(), len(chunks))
    if workers <= 1:
        total = Tally()
        for chunk in chunks:
            total.merge(_tally(rulebook, job, chunk))
            if progress is not None:
                progress(chunk[1] - chunk[0])
    else:
        total = _spread(rulebook, job, chunks, workers, progress)
    return total.study(names)


def _given(fighter: Combatant) -> dict[str, Any]:
    return {f.name: fighter[f.name] for f in fighter.model.fields if f.role != "derived"}


def _tally(rb: Rulebook, job: _Job, chunk: tuple[int, int]) -> Tally:
    """Fights chunk[0] … chunk[1] - 1 of a study, tallied."""
    made = [rb.combatant_models[model].build(**given) for model, given in job.fighters]
    tally = Tally()
    for i in range(*chunk):
        tally.add(fight(rb, made, seed=job.seed * 1_000_003 + i, names=job.names,
                        limits=job.limits, **job.options))
    return tally


def _wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound at 0 and 1, unlike the normal one)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# ---- worker processes --------------------------------------------------------------------------
# Workers are this process's to end: each dies with it (Linux tells the kernel so; elsewhere a
# watch on the parent's id), none holds the caller's standard streams (a caller waiting for a
# pipe's end would wait for the workers too), and Ctrl-C is the parent's alone, which ends them.

_STARTED: dict[tuple[str, str, Limits], Rulebook] = {}  # a forked worker's: the parent's
_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


def _spread(rulebook: Rulebook, job: _Job, chunks: list[tuple[int, int]], workers: int,
            progress: Any) -> Tally:
    """The chunks played by `workers` processes, one chunk at a time each, summed as each comes
    back; the processes end however this ends (done, an error, Ctrl-C)."""
    import multiprocessing
    from multiprocessing.connection import wait

    # Forked, a worker has the rulebook as compiled here (and the options it was read with);
    # elsewhere (no fork) it compiles the source again.
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux")
                                          else "spawn")
    started: dict[Any, Any] = {}  # our end of a worker's pipe -> the worker
    todo = iter(chunks)
    total = Tally()
    finished = False
    _STARTED[(job.source, job.filename, job.limits)] = rulebook
    try:
        with _no_interrupts():
            for _ in range(workers):
                ours, theirs = context.Pipe()
                worker = context.Process(target=_work, args=(job, theirs, os.getpid()),
                                         daemon=True, name="rulecraft fight worker")
                worker.start()
                theirs.close()  # a worker's death then ends its pipe
                started[ours] = worker
        _STARTED.clear()
        busy = [conn for conn, worker in started.items()
                if _send(conn, worker, next(todo, None))]
        while busy:
            for conn in wait(busy):
                tally = _received(conn, started[conn])
                total.merge(tally)
                if progress is not None:
                    progress(tally.runs)
                if not _send(conn, started[conn], next(todo, None)):
                    busy.remove(conn)
        finished = True
    finally:
        _STARTED.clear()
        _ended(started, finished)
    return total


def _send(conn: Any, worker: Any, chunk: tuple[int, int] | None) -> bool:
    """A chunk to a worker (True), or nothing left for it (False)."""
    if chunk is None:
        return False
    try:
        conn.send(chunk)
    except OSError:
        raise _stopped(worker) from None
    return True


def _received(conn: Any, worker: Any) -> Tally:
    """A worker's tally of its chunk, or the error that stopped it."""
    try:
        kind, found = conn.recv()
    except (EOFError, OSError):
        raise _stopped(worker) from None
    if kind == "error":
        raise found
    if kind == "crash":
        raise RuntimeError(found)
    return found  # type: ignore[no-any-return]


def _stopped(worker: Any) -> RulecraftError:
    """A worker gone before its work was done (killed from outside, out of memory)."""
    worker.join(timeout=5)
    how = f"killed by signal {-worker.exitcode}" if (worker.exitcode or 0) < 0 else \
        f"exit status {worker.exitcode}"
    return RulecraftError(f"a worker process playing the fights stopped ({how}); the fights "
                          "were not finished")


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
    """Ctrl-C ignored while workers start, so that none is interrupted before it ignores it
    itself (a worker's traceback would reach the caller's terminal)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _work(job: _Job, conn: Any, parent: int) -> None:
    """A worker: plays each chunk it is sent and sends back its tally, until told to stop or
    its parent is gone."""
    _tie_to(parent)
    rb = _STARTED.get((job.source, job.filename, job.limits))
    while True:
        try:
            chunk = conn.recv()
        except EOFError:
            return
        if chunk is None:
            return
        try:
            if rb is None:
                from .api import compile as compile_rules
                rb = compile_rules(job.source, job.filename, job.limits)
            reply: tuple[str, Any] = ("tally", _tally(rb, job, chunk))
        except RulecraftError as err:
            reply = ("error", _portable(err))
        except Exception as err:  # noqa: BLE001 - reported by the parent as a bug
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
