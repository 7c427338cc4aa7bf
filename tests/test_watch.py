"""Issue 20: "`rulecraft watch RULEBOOK [--serve]`: re-check, re-run the examples and re-render
the sheet whenever the file (or a base it extends, or a fighter file it is run with) changes,
printing errors as they appear; `--serve` shows the sheet in the browser on a local port and
reloads it on each change, with errors shown on the page. Tested in headless Chromium ...
`watch` survives a file saved half-written."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from browser import Browser, chromium

GOOD = '''rulebook watched "Watched"

formula bonus(x: 1..20) "Bonus" = max(0, x - 5)

example "The bonus of a strong fighter":
  expect bonus(12) == 7
'''


class Watch:
    """`rulecraft watch` in a child process, its output read line by line as it comes."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from rulecraft.cli import main; main()", "watch", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)

    def line(self, wanted: str, timeout: float = 20.0) -> str:
        """The next line holding `wanted` (lines before it are skipped)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            if wanted in line:
                return line
        raise AssertionError(f"the watch never said {wanted!r}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdout.close()


def _save(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    os.utime(path, None)


def test_each_save_is_checked_tested_and_a_half_written_file_is_one_more_error(tmp_path):
    rules = tmp_path / "watched.rules"
    _save(rules, GOOD)
    watch = Watch(str(rules), "--interval", "0.1")
    try:
        assert "watched.rules: ok — 1 of 1 examples passed" in watch.line("watched.rules")
        time.sleep(0.3)
        _save(rules, GOOD + "formula broken(")  # saved half-written
        assert watch.line("watched.rules: errors")
        assert "the file ends before the rule is complete" in watch.line("ends before")
        time.sleep(0.3)
        _save(rules, GOOD.replace("== 7", "== 8"))  # a rule and its example out of step
        assert "problems — 0 of 1 examples passed" in watch.line("watched.rules: problems")
        assert "expected bonus(12) == 8; got bonus(12) = 7" in watch.line("expected")
        time.sleep(0.3)
        _save(rules, GOOD)
        assert "ok — 1 of 1 examples passed" in watch.line("watched.rules: ok")
        assert watch.process.poll() is None  # still watching
    finally:
        watch.stop()


def test_once_checks_tests_and_fights_then_stops_with_a_status(tmp_path):
    rules = tmp_path / "watched.rules"
    _save(rules, GOOD)
    done = subprocess.run([sys.executable, "-c", "from rulecraft.cli import main; main()",
                           "watch", str(rules), "--once"], capture_output=True, text=True)
    assert done.returncode == 0 and "ok — 1 of 1 examples passed" in done.stdout
    _save(rules, GOOD + "formula broken(")
    done = subprocess.run([sys.executable, "-c", "from rulecraft.cli import main; main()",
                           "watch", str(rules), "--once"], capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr


@pytest.mark.skipif(chromium() is None, reason="needs headless Chromium (Debian: chromium)")
def test_the_served_sheet_reloads_in_the_browser_and_shows_errors_on_the_page(tmp_path):
    rules = tmp_path / "watched.rules"
    _save(rules, GOOD)
    watch = Watch(str(rules), "--serve", "--port", "0", "--interval", "0.1")
    try:
        url = watch.line("serving the sheet at").split(" at ", 1)[1].split()[0]
        watch.line("watched.rules: ok")
        with Browser() as browser:
            browser.events.clear()
            browser.page("Page.navigate", url=url)
            browser._wait_for("Page.loadEventFired")

            def shown(expression: str) -> str:
                return browser.page("Runtime.evaluate", expression=expression,
                                    returnByValue=True)["result"].get("value") or ""

            def until(expression: str, wanted: str) -> str:
                end = time.monotonic() + 20
                while time.monotonic() < end:
                    text = shown(expression)
                    if wanted in text:
                        return text
                    time.sleep(0.2)
                raise AssertionError(f"the page never showed {wanted!r}: {text!r}")

            sheet = "document.getElementById('sheet').contentDocument.body.innerText"
            assert "Bonus" in until(sheet, "Watched")
            _save(rules, GOOD.replace('"Watched"', '"Watched Again"'))
            until(sheet, "Watched Again")  # reloaded by itself
            _save(rules, GOOD + "formula broken(")
            errors = until("document.getElementById('errors').innerText",
                           "the file ends before the rule is complete")
            assert "watched.rules:" in errors
            until(sheet, "Watched Again")  # the last good sheet stays under the errors
    finally:
        watch.stop()
