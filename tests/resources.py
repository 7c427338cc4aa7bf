"""Running the `rulecraft` command in a child process and measuring what it took: how the
hardening tests see a refusal as a user would, and that it came before the machine suffered.

The child runs under a hard cap of address space and CPU time, so an attack that is not refused
fails the test quickly instead of taking the machine with it. Tests assert the exit status, the
message and the peak memory (a measure of the work, not of how busy the machine is); the
seconds are reported by `benchmarks/bench_refusals.py`, never asserted.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

import attrs

MEMORY_CAP = 1 << 30  # a child that reaches 1 GB of address space fails instead of swapping
CPU_CAP = 60  # seconds of CPU a child may use before it is killed


@attrs.frozen
class Measured:
    """What one command did: its exit status, what it printed, its time and peak memory."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def _capped() -> None:  # runs in the child, before rulecraft starts
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_CAP, CPU_CAP))


def rulecraft(args: Sequence[str], cwd: str | os.PathLike[str] | None = None,
              env: dict[str, str] | None = None, stdin: str = "") -> Measured:
    """`rulecraft ARGS` in a child process (this interpreter), measured."""
    command = [sys.executable, "-c", "from rulecraft.cli import main; main()", *args]
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env={**os.environ, **(env or {})},
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, preexec_fn=_capped)
    read: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda n=n, f=f: read.__setitem__(n, f.read()))
               for n, f in (("out", child.stdout), ("err", child.stderr))]
    for reader in readers:
        reader.start()
    assert child.stdin is not None
    child.stdin.write(stdin.encode())
    child.stdin.close()
    _, status, usage = os.wait4(child.pid, 0)  # reaped here, so its own rusage is ours to read
    seconds = time.perf_counter() - start
    for reader in readers:
        reader.join()
    for pipe in (child.stdout, child.stderr):
        pipe.close()  # type: ignore[union-attr]
    child.returncode = os.waitstatus_to_exitcode(status)
    return Measured(child.returncode, read["out"].decode(errors="replace"),
                    read["err"].decode(errors="replace"), seconds, usage.ru_maxrss / 1024)
