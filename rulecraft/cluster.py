"""A sweep's tasks played on a Dask cluster (`--cluster tcp://HOST:PORT`): the same tasks as on
this machine's cores (rulecraft/workers.py), handed to Dask's distributed scheduler instead.

Why Dask: its scheduler runs plain Python functions on plain Python processes a user starts
with two commands (`dask scheduler`, then `dask worker tcp://HOST:8786` on each machine), with
no other service to run, and `distributed.LocalCluster` starts one inside a test. Each worker
needs rulecraft installed; the rule files travel with the job (their text), and a worker
compiles each rulebook once. Only the scheduler's address is ours to know: nothing is started,
stopped or changed on the cluster but the tasks submitted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulecraft.runtime.errors import RulecraftError

CONNECT_SECONDS = 10  # how long to wait for the scheduler to answer
IN_FLIGHT = 2  # tasks submitted per worker thread: one playing, one waiting its turn


def spread_on(address: str, play: Callable[[Any, Any, Any], Any], job: Any,
              pull: Callable[[], Any], take: Callable[[Any], None]) -> None:
    """Each task `pull` gives played on the cluster at `address` as `play(None, job, task)`,
    and each reply handed to `take` as it comes back; `pull` may give None for "nothing now"
    (all is done when it does and nothing is in flight). Errors of the rules are raised here
    as they were there."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise RulecraftError("--cluster needs Dask's distributed scheduler: "
                             "pip install 'rulecraft[cluster]'") from None
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise RulecraftError(f"cannot reach a Dask scheduler at {address} ({err}); start one "
                             "with `dask scheduler` and workers with `dask worker ADDRESS`, "
                             "or leave out --cluster to use this machine's cores") from None
    try:
        slots = IN_FLIGHT * max(1, sum(client.nthreads().values()))
        shared = client.scatter(job, broadcast=True, hash=False)  # sent once, not per task
        done = as_completed(loop=client.loop)
        in_flight = 0

        def feed() -> None:
            nonlocal in_flight
            while in_flight < slots:
                task = pull()
                if task is None:
                    return
                done.add(client.submit(play, None, shared, task, pure=False))
                in_flight += 1

        feed()
        for future in done:
            in_flight -= 1
            take(future.result())
            feed()
    finally:
        client.close()


def play_study(_: Any, job: Any, chunk: tuple[int, int]) -> Any:
    """A chunk of `fight --runs` on a cluster worker: its rulebook compiled once a process."""
    from .fight import _tally
    from .sweep_cells import compiled

    return _tally(compiled((job.source, job.filename, job.bases), job.limits), job, chunk)


__all__ = ["play_study", "spread_on"]
