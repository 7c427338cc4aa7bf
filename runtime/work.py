"""One command's budget of work, which every loop pass, procedure call, aggregate item and
reference cell draws from.

Each other limit caps one thing (passes of one run, items of one evaluation, paths of one
odds); their product is what a hostile rule file multiplies. The budget caps the product: a
command (`rulecraft run`, `odds`, `sheet`, `sweep`; each fight of `fight --runs`) opens one,
and whatever it plays inside spends from it. A unit is about one item an aggregate goes over
(~0.3 µs); a loop pass costs three for each step its body writes, a call three for each step
its procedure writes (compiler.scope.cost); the default, `Limits.work`, is about two seconds
of the slowest kind.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

from .errors import RangeError, Span
from .limits import Limits


class Work:
    """What is left of a budget of work; spending past it is refused, naming the limit."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def spend(self, cost: int, span: Span | None = None, source: str | None = None) -> None:
        self.left -= cost
        if self.left < 0:
            self.refuse(span, source)

    def refuse(self, span: Span | None, source: str | None,
               progress: tuple[int, int] | None = None) -> None:
        """Refuse, saying the work done and, when a loop knows how far it got (`progress`:
        passes made, passes it has), about how much the whole loop needs."""
        needed = self.limit - self.left  # what the work so far and this step come to
        self.left = -1  # refused for good: a caller that catches it cannot go on spending
        said = f": {needed:,} by this step"
        if progress is not None and 0 < progress[0] < progress[1]:
            made, passes = progress
            said += (f", with the loop here at pass {made + 1:,} of {passes:,}: all of it "
                     f"needs about {needed * passes // (made + 1):,}")
        err = RangeError(f"this would take more than {self.limit:,} steps of work in all "
                         f"(loop passes, procedure calls and the items of lists, each weighed "
                         f"by the steps it plays){said} {Limits.hint('work')}",
                         span, source)
        err.limit = "work"  # type: ignore[attr-defined]  # as exact odds' refusals name theirs
        raise err

    @property
    def spent(self) -> int:
        return self.limit - max(self.left, 0)


_OPEN: contextvars.ContextVar[Work | None] = contextvars.ContextVar("rulecraft_work",
                                                                    default=None)


@contextlib.contextmanager
def budget(limits: Limits, own: bool = False) -> Iterator[Work]:
    """The budget of the command under way, or a new one of `limits.work` for this one: what
    runs inside draws from it, however many runs, fights or cells that is. `own`: a new one
    even inside a command (each of a study's fights, whose number the user gave)."""
    work = _OPEN.get()
    if work is not None and not own:
        yield work
        return
    work = Work(limits.work)
    token = _OPEN.set(work)
    try:
        yield work
    finally:
        _OPEN.reset(token)


def current(limits: Limits) -> Work:
    """The open budget, or (a run played with none open) a budget of its own."""
    work = _OPEN.get()
    return work if work is not None else Work(limits.work)


# The open budget, if any (an aggregate worked out in no command spends none): the context
# variable's own `get`, called for every aggregate, with no Python call around it.
opened: Callable[[], Work | None] = _OPEN.get
