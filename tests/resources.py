"""Running the `rulecraft` command in a child process and measuring what it took: how the
hardening tests see a refusal as a user would, and that it came before the machine suffered.

The child runs under a hard cap of address space and CPU time, so an attack that is not refused
fails the test quickly instead of taking the machine with it. Tests assert the exit status, the
message and the peak memory (a measure of the work, not of how busy the machine is); the
seconds are reported by `benchmarks/bench_refusals.py`, never asserted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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


# What the child runs: the caps, then rulecraft's own entry point; at its end (a refusal's
# sys.exit included) it writes its peak memory where RULECRAFT_PEAK says. The peak is VmHWM, the
# high-water mark of this program's own memory: the child's rusage would also count the pages of
# the forked test process it started as (a late test would measure the whole suite).
CHILD = f"""
import atexit, os, resource
resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))
resource.setrlimit(resource.RLIMIT_CPU, ({CPU_CAP}, {CPU_CAP}))

def _peak():
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["RULECRAFT_PEAK"], "w") as out:
        out.write(kb)

atexit.register(_peak)
from rulecraft.cli import main
main()
"""


def rulecraft(args: Sequence[str], cwd: str | os.PathLike[str] | None = None,
              env: dict[str, str] | None = None, stdin: str = "") -> Measured:
    """`rulecraft ARGS` in a child process (this interpreter), measured; a child that ended
    without saying its peak (killed at a cap) measures infinite."""
    with tempfile.TemporaryDirectory() as folder:
        peak_file = os.path.join(folder, "peak")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=cwd, input=stdin.encode(),
                              env={**os.environ, **(env or {}), "RULECRAFT_PEAK": peak_file},
                              capture_output=True)
        seconds = time.perf_counter() - start
        try:
            with open(peak_file) as said:
                peak = int(said.read()) / 1024
        except (OSError, ValueError):
            peak = float("inf")
    return Measured(done.returncode, done.stdout.decode(errors="replace"),
                    done.stderr.decode(errors="replace"), seconds, peak)
