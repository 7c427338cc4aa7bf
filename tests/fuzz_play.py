"""Playing one fuzz case of whole fights in a child process of its own, and judging what
came of it.

A case (tests/fuzz_cases.py) is played in a forked child under a budget of CPU seconds and of
address space (`isolated`), with Python's recursion limit as a command has it: the work is
bounded by the engine's own limits, set low (`SMALL`), and the child's budget only catches a
path that skips them — measured in CPU time, which a loaded machine does not shorten, and
never ending the parent's run. In the child (`play`) the rule file is loaded, its fighters
read, and the façade's calls and the `rulecraft` commands the case names are made; each
answer is judged:

- a call raises a `RulecraftError` (one that renders, quotes no Python repr and owns up to no
  bug) or returns; a compile error has a line and a column;
- a command exits 0, 1 or 2, raises nothing (in `rulecraft.cli.main` an exception is exit 3),
  prints no traceback, no control character (item 13, while it is open: the long run only)
  and never the text of a file outside the case's folder;
- the child stays under `MEMORY_BOUND` of memory more than it started with (and no one call
  or command raises its peak by more), and under its CPU budget; in the long run, no one call
  or command takes more than `SLOW_ACTION` seconds of CPU.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import re
import resource
import select
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
from click.testing import CliRunner

import fuzz_strategies as fs
import rulecraft
from fuzz_cases import SECRET, Case
from fuzz_field import LONG

# A work budget per case: the engine's own limits, set low, bound every case.
SMALL = rulecraft.Limits(
    loop_passes=2_000, list_items=500, aggregate_items=20_000, work=200_000,
    trace_entries=5_000, enumeration_paths=300, odds_states=500, enumeration_work=30_000,
    distribution_work=100_000, keep_drop_outcomes=5_000, input_bytes=100_000,
    output_bytes=2_000_000, extends_bytes=400_000)
LIMIT_ARGS = tuple(arg for name in ("loop_passes", "list_items", "aggregate_items", "work",
                                    "trace_entries", "enumeration_paths", "odds_states",
                                    "enumeration_work", "distribution_work",
                                    "keep_drop_outcomes", "input_bytes", "output_bytes",
                                    "extends_bytes")
                   for arg in ("--limit", f"{name}={getattr(SMALL, name)}"))
MEMORY_BOUND = 200  # MB a case may add to the process it runs in
ADDRESS_SPACE = 1 << 30  # bytes more of address space: past it, a MemoryError, not swapping
CPU_SECONDS = 60  # a case past this many seconds of CPU skips the limits somewhere
# A call or command past this many seconds of CPU under SMALL does work no limit counts (item
# 5): a finding of the long run (the suite's short run does not time anything).
SLOW_ACTION = 5.0
WALL_GUARD = 900  # seconds: a child that neither works nor ends (blocked) is ended

# What no output may hold: C0 and C1 controls but tab and newline, and DEL.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
REPR = re.compile(r"<class '|<built-in|object at 0x|Traceback \(most recent call last\)")


@attrs.frozen
class Played:
    """What came of a case: its findings as (where, what), how its calls and commands ended
    (for the closing note), the CPU seconds and memory it took."""

    findings: tuple[tuple[str, str], ...]
    counts: dict[str, int]
    cpu_seconds: float
    peak_mb: float


# ---- the child ------------------------------------------------------------------------------


class Judge:
    """Collects the findings of one case, and what each call or command came to."""

    def __init__(self, controls: bool | None = None, slow: float | None = None) -> None:
        self.findings: list[tuple[str, str]] = []
        self.counts: Counter[str] = Counter()
        self.slow = (SLOW_ACTION if LONG else None) if slow is None else slow
        self.peak = 0  # the process's peak memory after the last call or command, in kB
        # Control characters in what a command prints are no finding here: a pipe (as the
        # runner's output is) gets a rule's text as written, and a terminal gets it escaped by
        # `rulecraft.cli.main` (item 13, tested under a pseudo-terminal in
        # tests/test_hardening_outputs.py); a verdict may still be asked to look for them.
        self.controls = False if controls is None else controls

    def timed(self, action: str, shown: str, started: float) -> None:
        """A finding when one call or command took more CPU than any should under SMALL, or
        raised this process's peak of memory by more than MEMORY_BOUND."""
        spent = time.process_time() - started
        if self.slow is not None and spent > self.slow:
            self.findings.append((action, f"slow: {shown} took {spent:.1f} s of CPU under the "
                                          "small limits"))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if self.peak and (peak - self.peak) / 1024 > MEMORY_BOUND:
            self.findings.append((action, f"memory: {shown} took {(peak - self.peak) / 1024:.0f}"
                                          f" MB more (bound: {MEMORY_BOUND} MB)"))
        self.peak = peak

    def call(self, action: str, fn: Callable[[], Any], compiling: bool = False) -> Any:
        """`fn()` judged: its result, or None (a rule error, or a finding recorded)."""
        started = time.process_time()
        try:
            result = (fs.compiled_or_positioned_error if compiling else fs.rule_errors_only)(fn)
        except fs.Finding as finding:
            self.findings.append((action, str(finding)))
            self.counts[f"{action}: finding"] += 1
            return None
        finally:
            self.timed(action, action, started)
        if isinstance(result, rulecraft.RulecraftError):
            self.counts[f"{action}: rule error"] += 1
            if REPR.search(str(result)):
                self.findings.append((action, f"a Python repr in a message: {result}"))
            if SECRET in str(result):
                self.findings.append((action, f"a file outside its folder in a message: "
                                              f"{str(result)[:300]}"))
            return None
        self.counts[f"{action}: ok"] += 1
        return result

    def command(self, args: Sequence[str], command: Any = None,
                limits: Sequence[str] = LIMIT_ARGS) -> None:
        """`rulecraft ARGS` (in this process, as `rulecraft.cli.main` runs it), judged."""
        if command is None:
            from rulecraft.cli import cli as command

        action = f"cli {args[0]}"
        # As on a terminal: click keeps escape sequences it would strip from a pipe.
        started = time.process_time()
        result = CliRunner().invoke(command, [*args, *limits], catch_exceptions=True,
                                    color=True)
        self.timed(action, f"`rulecraft {' '.join(args)}`", started)
        self.counts[f"{action}: exit {result.exit_code}"] += 1
        output = result.stdout + result.stderr
        shown = " ".join(args)
        error = result.exception
        if error is not None and not isinstance(error, SystemExit):
            self.findings.append((action, f"`rulecraft {shown}` raised (exit 3): "
                                          f"{type(error).__name__} at {fs.where(error)}: {error}"))
        elif result.exit_code not in (0, 1, 2):
            self.findings.append((action, f"`rulecraft {shown}` exited {result.exit_code}: "
                                          f"{output[-500:]}"))
        for pattern, what in ((REPR, "a traceback or a Python repr"),
                              (fs.ADMITTED_BUG, "an internal error"),
                              (re.compile(SECRET), "a file outside its folder")):
            found = pattern.search(output)
            if found:
                self.findings.append((action, f"`rulecraft {shown}` printed {what}: "
                                              f"{_around(output, found.start())}"))
        found = CONTROL.search(output)
        if found and self.controls:
            self.findings.append((action, f"`rulecraft {shown}` printed a control character "
                                          f"{found.group()!r}: {_around(output, found.start())}"))


def _around(text: str, at: int) -> str:
    return repr(text[max(0, at - 80):at + 80])


def play(case: Case, folder: str) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """Play a case whose files are in `folder`: the façade's calls, then the commands."""
    os.chdir(folder)
    judge = Judge()
    judge.peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rng = random.Random(case.seed)
    rb = judge.call("api load", lambda: rulecraft.load(case.main, SMALL), compiling=True)
    fighters = _fighters(judge, rb, case, rng) if rb is not None else []
    for action in sorted(a for a in case.actions if a.startswith("api ")):
        if rb is not None:
            API[action[4:]](judge, rb, case, fighters, rng)
    for action in sorted(a for a in case.actions if a.startswith("cli ")):
        for args in COMMANDS[action[4:]](rb, case, rng):
            judge.command(args)
    return judge.findings, dict(judge.counts)


def _fighters(judge: Judge, rb: Any, case: Case, rng: random.Random) -> list[Any]:
    """The case's fighter files as read; a fighter made of values of its types for a file
    that is refused (a fight is played whatever the files hold)."""
    made = []
    for path in case.fighters:
        fighter = judge.call("api read_fighter",
                             lambda: rulecraft.read_fighter(rb, path, limits=SMALL))
        if fighter is None and rb.combatant_model is not None:
            fighter = judge.call("api combatant", lambda: _made(rb, rb.combatant_model, rng))
        if fighter is not None:
            made.append(fighter)
    return made


def _made(rb: Any, model: Any, rng: random.Random, depth: int = 0) -> Any:
    given = {f.name: _value(rb, f.type, rng, depth) for f in model.fields
             if f.role != "derived" and f.type is not None and not f.has_default}
    return model.build(**given)


def _value(rb: Any, vt: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value of a declared type, drawn from `rng`."""
    kind = vt.kind
    if kind in ("integer", "number"):
        low = -3 if vt.low is None else vt.low
        high = 20 if vt.high is None else vt.high
        return rng.randint(int(low), max(int(low), int(high))) if kind == "integer" else low
    if kind == "enum" and vt.members:
        return rng.choice(vt.members)
    if kind == "map" and vt.key is not None and vt.item is not None:
        return {_value(rb, vt.key, rng, depth): _value(rb, vt.item, rng, depth)}
    if kind == "list" and vt.item is not None:
        return [_value(rb, vt.item, rng, depth) for _ in range(rng.randint(0, 2))]
    if kind == "combatant" and depth < 3 and vt.text in rb.combatant_models:
        try:
            return _made(rb, rb.combatant_models[vt.text], rng, depth + 1)
        except rulecraft.RulecraftError:  # a derived figure that does not work out
            return None
    return {"bool": rng.random() < 0.5, "dice": rng.randint(1, 6), "name": "x"}.get(kind)


def _arguments(rb: Any, proc: Any, fighters: list[Any], rng: random.Random) -> dict[str, Any]:
    """Arguments for a procedure or an encounter: the fighters for its combatants (all of
    them for a list), values of their types for the rest (defaults kept now and then)."""
    args: dict[str, Any] = {}
    queue = list(fighters)
    for p in proc.params:
        if p.type.kind == "combatant" and queue:
            args[p.name] = queue.pop(0) if len(queue) > 1 else queue[0]
        elif p.type.kind == "list" and p.type.item is not None \
                and p.type.item.kind == "combatant":
            args[p.name] = list(fighters)
        elif not (p.has_default and rng.random() < 0.5):
            args[p.name] = _value(rb, p.type, rng)
    return args


def _encounters(rb: Any) -> list[str]:
    return [n for n, p in rb.procedures.items() if p.clock is not None][:2]


def _procedures(rb: Any) -> list[str]:
    """The procedures to play: the first two and the last two (the rules that ask for a lot
    of work come last)."""
    names = [n for n, p in rb.procedures.items() if p.clock is None]
    return names if len(names) <= 4 else names[:2] + names[-2:]


def _policy(rb: Any, rng: random.Random) -> str | None:
    policies = next((p.policies for p in rb.procedures.values()), ())
    return rng.choice([None, *policies])


def api_fight(judge: Judge, rb: Any, case: Case, fighters: list[Any], rng: random.Random) -> None:
    for name in _encounters(rb):
        until = rng.choice([None, None, 5, 40])
        fought = judge.call("api fight", lambda: rb.fight(
            fighters, encounter=name, seed=case.seed, limits=SMALL, policy=_policy(rb, rng),
            until=until))
        if fought is not None:
            judge.call("api fight log", lambda: (fought.log(), json.dumps(fought.as_json()),
                                                 fought.standing()))


def _with_arguments(judge: Judge, rb: Any, fighters: list[Any], rng: random.Random
                    ) -> Iterator[tuple[Any, dict[str, Any]]]:
    """The procedures to play (and the first encounter), each with arguments made for it."""
    for name in _procedures(rb) + _encounters(rb)[:1]:
        proc = rb.procedures[name]
        args = judge.call("api arguments", lambda: _arguments(rb, proc, fighters, rng))
        if args is not None:
            yield proc, args


def api_run(judge: Judge, rb: Any, case: Case, fighters: list[Any], rng: random.Random) -> None:
    for proc, args in _with_arguments(judge, rb, fighters, rng):
        result = judge.call("api run", lambda: proc.run(seed=case.seed, limits=SMALL, **args))
        if result is not None:
            judge.call("api explain", lambda: (result.explain(), json.dumps(result.as_json())))


def api_odds(judge: Judge, rb: Any, case: Case, fighters: list[Any], rng: random.Random) -> None:
    for proc, args in _with_arguments(judge, rb, fighters, rng):
        judge.call("api odds", lambda: proc.odds(limits=SMALL, **args))


def api_references(judge: Judge, rb: Any, case: Case, fighters: list[Any],
                   rng: random.Random) -> None:
    for reference in list(rb.references.values())[:3]:
        judge.call("api references", lambda: reference.grids(SMALL))


def api_sheet(judge: Judge, rb: Any, case: Case, fighters: list[Any], rng: random.Random) -> None:
    how = rng.choice(["md", "html"])
    judge.call("api sheet", lambda: rulecraft.sheet(rb, how, limits=SMALL))


def api_format(judge: Judge, rb: Any, case: Case, fighters: list[Any], rng: random.Random) -> None:
    for name in filter(None, (case.main, case.base)):
        text = case.text(name)
        if isinstance(text, str):
            judge.call("api format", lambda: rulecraft.format_rules(text, name, SMALL))


def api_diff(judge: Judge, rb: Any, case: Case, fighters: list[Any], rng: random.Random) -> None:
    from rulecraft.diff import diff

    old = judge.call("api load base", lambda: rulecraft.load(case.base or case.main, SMALL),
                     compiling=True)
    if old is not None:
        judge.call("api diff", lambda: [(str(c), c.as_json()) for c in diff(old, rb)])


API: dict[str, Callable[..., None]] = {
    "fight": api_fight, "run": api_run, "odds": api_odds, "references": api_references,
    "sheet": api_sheet, "format": api_format, "diff": api_diff}


# The commands a case makes, as argument lists (the rule file's names, when it compiled).


def _proc_args(rb: Any, name: str, case: Case, rng: random.Random) -> list[str]:
    """`run`'s and `odds`' arguments: the fighter files for combatants (`a=@a.toml`), values
    of their types for the rest, as typed (`n=3`); defaults kept now and then."""
    files = iter(case.fighters * 2)
    args = []
    for p in rb.procedures[name].params:
        if p.type.kind == "combatant":
            args.append(f"{p.name}=@{next(files)}")
        elif not (p.has_default and rng.random() < 0.5):
            value = _value(rb, p.type, rng)
            if isinstance(value, (bool, int, str)):
                args.append(f"{p.name}={str(value).lower() if isinstance(value, bool) else value}")
    return args


def _named(rb: Any, rng: random.Random, which: Callable[[Any], list[str]]) -> list[str]:
    return which(rb) if rb is not None else ["nothing"]


COMMANDS: dict[str, Callable[[Any, Case, random.Random], list[list[str]]]] = {
    "check": lambda rb, case, rng: [["check", case.main]],
    "fmt": lambda rb, case, rng: [["fmt", case.main], ["fmt", "--check", case.main]],
    "show": lambda rb, case, rng: [["show", case.main]] + [
        ["show", case.main, name] for name in (
            list(rb.procedures)[:1] + list(rb.tables)[:1] + list(rb.references)[:1]
            if rb is not None else ["nothing"])],
    "run": lambda rb, case, rng: [
        ["run", case.main, name, *(_proc_args(rb, name, case, rng) if rb is not None else []),
         "--seed", str(case.seed), rng.choice(["--trace", "--json"])]
        for name in _named(rb, rng, lambda r: _procedures(r)[-1:] + _encounters(r)[:1])],
    "odds": lambda rb, case, rng: [
        ["odds", case.main, name, *(_proc_args(rb, name, case, rng) if rb is not None else [])]
        for name in _named(rb, rng, lambda r: _procedures(r)[-1:] + _encounters(r)[:1])],
    "fight": lambda rb, case, rng: [_fight_args(rb, case, rng)],
    "sheet": lambda rb, case, rng: [["sheet", case.main, "--format", rng.choice(["md", "html"])]],
    "diff": lambda rb, case, rng: [["diff", case.base or case.main, case.main]],
    "eval": lambda rb, case, rng: [["eval", case.main, _expression(rb, rng)]],
}


def _fight_args(rb: Any, case: Case, rng: random.Random) -> list[str]:
    args = ["fight", case.main, *case.fighters, "--seed", str(case.seed)]
    policy = _policy(rb, rng) if rb is not None else None
    args += ["--policy", policy] if policy else []
    args += rng.choice([[], [], ["--until", "30"], ["--json"], ["--runs", "3", "--workers", "1"]])
    return args


def _expression(rb: Any, rng: random.Random) -> str:
    """An expression for `eval`: a call of one of the rulebook's formulas with arguments of
    its types, or a sum."""
    if rb is None or not rb.formulas:
        return "1 + 2"
    name, formula = rng.choice(sorted(rb.formulas.items()))
    args = [_value(rb, p.type, rng) for p in formula.params]
    shown = ", ".join(json.dumps(a) if isinstance(a, str) else str(a).lower()
                      if isinstance(a, bool) else str(a) for a in args if a is not None)
    return f"{name}({shown})"


# ---- the parent -----------------------------------------------------------------------------


def _memory_kb(field: str) -> int:
    """A figure of this process's memory from /proc (VmRSS, VmSize), in kB; 0 elsewhere."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def isolated(run: Callable[[], Any], cpu_seconds: int = CPU_SECONDS,
             memory_bound: int = MEMORY_BOUND) -> tuple[Any, list[str], float, float]:
    """`run()` in a forked child under a CPU budget and a cap of address space: (what it
    returned or None, problems of the child itself, CPU seconds, peak MB it added)."""
    reading, writing = os.pipe()
    space = _memory_kb("VmSize") * 1024 + ADDRESS_SPACE
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(reading)
        payload = b""
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 2))
            if space > ADDRESS_SPACE:
                resource.setrlimit(resource.RLIMIT_AS, (space, space))
            _as_a_command_runs()
            start = _memory_kb("VmRSS")
            payload = pickle.dumps((run(), start, ""))
        except BaseException as err:  # noqa: BLE001 - the child reports whatever it met
            try:
                payload = pickle.dumps((None, 0, f"{type(err).__name__} at {fs.where(err)}: "
                                                 f"{str(err)[:500]}"))
            except BaseException:  # noqa: BLE001 - out of memory even for the message
                payload = b""
        finally:
            with os.fdopen(writing, "wb") as out:
                out.write(payload)
            os._exit(0)
    os.close(writing)
    data, problems = _read_child(reading, pid)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    result, start_kb, failure = pickle.loads(data) if data else (None, 0, "")
    if failure:
        problems.append(failure)
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status)).name
        spent = sig == "SIGXCPU" or sig == "SIGKILL" and cpu >= cpu_seconds
        problems.append(f"took more than {cpu_seconds} s of CPU ({sig})" if spent
                        else f"ended by {sig} after {cpu:.1f} s of CPU")
    peak = max(0.0, (usage.ru_maxrss - start_kb) / 1024) if start_kb else 0.0
    if peak > memory_bound:
        problems.append(f"took {peak:.0f} MB of memory (bound: {memory_bound} MB)")
    return result, problems, cpu, peak


def _as_a_command_runs() -> None:
    """Python's own recursion limit, counted from here: Hypothesis raises it while a test
    runs, and a case nested too deeply for `rulecraft` (1000 frames) must fail here too."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(depth + 1000)


def _read_child(reading: int, pid: int) -> tuple[bytes, list[str]]:
    """All the child writes; a child that neither writes nor ends for WALL_GUARD seconds (a
    blocked read: it uses no CPU) is ended."""
    chunks, problems = [], []
    deadline = time.monotonic() + WALL_GUARD
    with os.fdopen(reading, "rb") as pipe:
        while True:
            ready, _, _ = select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                problems.append(f"blocked: no progress in {WALL_GUARD} s")
                break
            chunk = pipe.read1(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks), problems


def write_case(case: Case, folder: str) -> str:
    """The case's files in `folder`/case (a secret beside it and a link out, for `extends`
    to try); the case folder's path."""
    inside = os.path.join(folder, "case")
    os.makedirs(inside, exist_ok=True)
    with open(os.path.join(folder, "secret.txt"), "w") as secret:
        secret.write(f"{SECRET}\n{SECRET} = 1\n")
    os.symlink(os.path.join("..", "secret.txt"), os.path.join(inside, "link.rules"))
    os.makedirs(os.path.join(inside, "folder"), exist_ok=True)
    for name, text in case.files:
        with open(os.path.join(inside, name), "wb") as handle:
            handle.write(text if isinstance(text, bytes) else
                         text.encode("utf-8", "surrogatepass"))
    return inside


def played(case: Case, folder: str, cpu_seconds: int = CPU_SECONDS) -> Played:
    """Write a case into `folder` and play it in a child: its findings and counts."""
    inside = write_case(case, folder)
    result, problems, cpu, peak = isolated(lambda: play(case, inside), cpu_seconds)
    findings, counts = result if result is not None else ([], {})
    findings = list(findings) + [("case", p) for p in problems]
    return Played(tuple(findings), counts, cpu, peak)
