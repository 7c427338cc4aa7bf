"""`rulecraft watch`: check a rule file, play its worked examples and make its sheet again each
time it (a base it extends, or a fighter file given with it) is saved; with `--serve`, show the
sheet in the browser, reloaded on every change, with the errors on the page.

Files are polled (every `interval` seconds): a save shows once the file has stopped changing,
and a file saved half-written is an error to show, never the end of the watch."""

from __future__ import annotations

import html
import os
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

from rulecraft.runtime.errors import RulecraftError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits

from . import api


@attrs.define
class State:
    """What the watch last made: the sheet, or the errors that stopped it; a version the page
    polls to know when to reload."""

    version: int = 0
    sheet: str = ""
    errors: str = ""
    summary: str = ""
    lock: threading.Lock = attrs.field(factory=threading.Lock)

    def update(self, sheet: str, errors: str, summary: str) -> None:
        with self.lock:
            self.version += 1
            if sheet:
                self.sheet = sheet  # an error keeps the last good sheet under the errors
            self.errors, self.summary = errors, summary


def signature(paths: Sequence[str]) -> tuple[Any, ...]:
    """What changes when any of the files is saved (a file that vanished is a change too)."""
    found = []
    for path in paths:
        try:
            st = os.stat(path)
            found.append((path, st.st_mtime_ns, st.st_size))
        except OSError:
            found.append((path, None, None))
    return tuple(found)


def once(rulebook: str, fighters: Sequence[str], limits: Limits = DEFAULT_LIMITS,
         bases: Sequence[str] = ()) -> tuple[list[str], str, str, str]:
    """One pass: (the files to watch, the sheet or "", the errors or "", a one-line summary)."""
    from .fight import fight, read_fighter

    watched = [rulebook, *fighters]
    name = os.path.basename(rulebook)
    try:
        rb = api.load(rulebook, limits, tuple(bases))
    except RulecraftError as err:
        return watched, "", str(err), f"{name}: errors"
    watched = list(dict.fromkeys([*api.rule_files(rb), *watched]))
    problems: list[str] = []
    outcomes = [e.run(limits) for e in rb.examples]
    problems += [o.report() for o in outcomes if not o.passed]
    passed = sum(o.passed for o in outcomes)
    summary = f"{name}: ok — {passed} of {len(outcomes)} examples passed"
    if fighters:
        try:
            made = [read_fighter(rb, path, limits=limits) for path in fighters]
            done = fight(rb, made, seed=1, limits=limits)
            summary += f"; a fight (seed 1): {done.result.outcome.name}"
        except RulecraftError as err:
            problems.append(str(err))
    try:
        sheet = api.sheet(rb, "html", limits=limits)
    except RulecraftError as err:
        problems.append(str(err))
        sheet = ""
    if problems:
        summary = summary.replace(": ok —", ": problems —")
    return watched, sheet, "\n\n".join(problems), summary


def watch(rulebook: str, fighters: Sequence[str], say: Callable[[str], None],
          state: State | None = None, interval: float = 0.5, limits: Limits = DEFAULT_LIMITS,
          bases: Sequence[str] = (), stop: threading.Event | None = None) -> None:
    """Run a pass now and after every save, until `stop` is set (or forever)."""
    stop = stop or threading.Event()
    state = state or State()
    seen: tuple[Any, ...] | None = None
    watched = [rulebook, *fighters]
    while not stop.is_set():
        now = signature(watched)
        if now != seen:
            time.sleep(interval / 2)  # a save in progress settles first
            if signature(watched) != now:
                continue
            watched, sheet, errors, summary = once(rulebook, fighters, limits, bases)
            state.update(sheet, errors, summary)
            say(f"{time.strftime('%H:%M:%S')} {summary}" + (f"\n{errors}" if errors else ""))
            seen = signature(watched)
        stop.wait(interval)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} — rulecraft watch</title>
<style>body{{margin:0;font-family:sans-serif}} #bar{{padding:.4em .8em;background:#eee;
font-size:.9em}} #errors{{white-space:pre-wrap;color:#900;background:#fff4f4;margin:0;
padding:.8em;font-size:.85em}} #errors:empty{{display:none}} iframe{{border:0;width:100%;
height:calc(100vh - 2.2em)}}</style></head>
<body><div id="bar">{summary}</div><pre id="errors">{errors}</pre>
<iframe id="sheet" src="/sheet?v={version}" title="the sheet"></iframe>
<script>
let shown = {version};
setInterval(async () => {{
  try {{
    const now = parseInt(await (await fetch("/version", {{cache: "no-store"}})).text());
    if (now !== shown) {{ location.reload(); }}
  }} catch (e) {{}}
}}, 400);
</script></body></html>
"""


def server(state: State, title: str, port: int = 0) -> ThreadingHTTPServer:
    """A local server of the page (the sheet in a frame, the errors above it), `/sheet` and
    `/version`; only on this machine (127.0.0.1)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            with state.lock:
                version, sheet, errors, summary = (state.version, state.sheet, state.errors,
                                                   state.summary)
            path = self.path.split("?", 1)[0]
            if path == "/version":
                body, kind = str(version), "text/plain"
            elif path == "/sheet":
                body, kind = sheet or "<p>No sheet yet: the rule file has errors.</p>", \
                    "text/html"
            elif path == "/":
                body, kind = _PAGE.format(title=html.escape(title), summary=html.escape(summary),
                                          errors=html.escape(errors), version=version), \
                    "text/html"
            else:
                self.send_error(404)
                return
            data = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            return

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)
