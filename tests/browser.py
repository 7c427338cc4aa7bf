"""Headless Chromium for the sheet tests: print a sheet to PDF, measure its print layout, take
a screenshot of its first page — one browser launch for all of a sheet's pages.

Chromium is driven over its DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
messages ending in NUL, read by Chromium on fd 3 and written on fd 4), so nothing beyond the
standard library and the Debian package `chromium` is needed.

`python tests/browser.py` (re)makes docs/sheet_<rulebook>.png for every built-in rulebook, and
docs/cheat_<rulebook>.png (docs/screen_<rulebook>.png) of its cheat sheet (screen).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# Page sizes and the sheet's @page margins (13mm 11mm 12mm 11mm), in CSS pixels (96 per inch).
MM = 96 / 25.4
PAPER = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_SIDES = 22.0  # left + right, mm
MARGIN_ENDS = 25.0  # top + bottom, mm

# Every line of text whose box reaches past the page's printable width, in print layout.
_SPILLS = """(() => {
  const width = document.documentElement.clientWidth;
  const spills = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    range.selectNodeContents(node);
    for (const box of range.getClientRects()) {
      if (box.right > width + 0.5 || box.left < -0.5) {
        spills.push(node.textContent.trim().slice(0, 60) + " (to " + Math.round(box.right) + "px)");
        break;
      }
    }
  }
  return {width: width, scrollWidth: document.documentElement.scrollWidth, spills: spills};
})()"""


# A cheat sheet or screen (landscape, compiler/templates/cheat.css: margins 8mm 8mm 9mm 8mm)
# laid out as print lays it out: its columns one page high, so that column k is on page
# k // count. Every item whole in one column, no text wider than its column.
LANDSCAPE_SIDES = 16.0  # left + right, mm
LANDSCAPE_ENDS = 17.0  # top + bottom, mm
_COLUMNS = """((pageHeight) => {
  const flow = document.querySelector("main.flow");
  flow.style.height = pageHeight + "px";
  flow.style.columnFill = "auto";
  const style = getComputedStyle(flow);
  const count = parseInt(style.columnCount, 10);
  const gap = parseFloat(style.columnGap);
  const box = flow.getBoundingClientRect();
  const column = (box.width - gap * (count - 1)) / count;
  const split = [], wide = [], columns = new Set();
  const range = document.createRange();
  for (const item of document.querySelectorAll("main.flow > *, main.flow article.item, main.flow h2, main.flow table")) {
    const rects = Array.from(item.getClientRects()).filter(r => r.height > 0.5);
    if (!rects.length) continue;
    const owner = item.closest("article.item");
    const name = (owner ? owner.dataset.rule : item.tagName) +
      (item.matches("table") ? " (a table of it)" : "");
    // An item is whole in one column; a quick reference's grids, a long table's parts, each
    // whole in one.
    const whole = item.matches("table") || (item.matches("article.item") && !item.matches(".reference, .long"));
    if (whole && rects.length > 1) { split.push(name); continue; }
    for (const r of rects) {
      const index = Math.floor((r.left - box.left + gap / 2) / (column + gap));
      columns.add(index);
      const left = box.left + index * (column + gap), right = left + column;
      if (item.matches("article.item") && !item.matches(".reference, .long") || item.matches(".reference table, .long table")) {
        const walker = document.createTreeWalker(item, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
          const node = walker.currentNode;
          if (!node.textContent.trim()) continue;
          range.selectNodeContents(node);
          for (const t of range.getClientRects()) {
            if (t.right > right + 0.5 || t.left < left - 0.5) {
              wide.push(name + ": " + node.textContent.trim().slice(0, 40) + " (" +
                        Math.round(t.right - right) + "px past its column)");
              break;
            }
          }
        }
      }
    }
  }
  return {count: count, columns: Math.max(...columns) + 1, split: split, wide: wide.slice(0, 8)};
})"""


def chromium() -> str | None:
    """The Chromium executable, if installed."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium, closed on exit from `with`."""

    def __init__(self, executable: str | None = None, timeout: float = 60.0) -> None:
        exe = executable or chromium()
        if exe is None:
            raise RuntimeError("chromium is not installed (apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="rulecraft-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def on_fds_3_and_4() -> None:  # in the child: Chromium reads fd 3, writes fd 4
            high_r = os.dup(to_chrome_r)
            high_w = os.dup(from_chrome_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                "--disable-dev-shm-usage", "--font-render-hinting=none",
                f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        close_fds=False, preexec_fn=on_fds_3_and_4)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.timeout = timeout
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        self.page("Page.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    # -- the protocol ----------------------------------------------------------------------
    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        return self.send(method, self.session, **params)

    def _read(self) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_chrome], [], [], self.timeout)
            if not ready:
                raise RuntimeError("chromium did not answer in time")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _wait_for(self, method: str) -> None:
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[: i + 1]
                    return
            self.events.append(self._read())

    # -- what the tests ask ----------------------------------------------------------------
    def open(self, path: Path) -> None:
        self.events.clear()
        self.page("Page.navigate", url=path.resolve().as_uri())
        self._wait_for("Page.loadEventFired")

    def pdf(self) -> bytes:
        """The open page printed as its own @page rule says (size, margins, header, numbers)."""
        result = self.page("Page.printToPDF", preferCSSPageSize=True, printBackground=True)
        return base64.b64decode(result["data"])

    def spills(self, paper: str) -> dict[str, Any]:
        """Text laid out for print on `paper` that reaches outside the printable width."""
        width_mm, height_mm = PAPER[paper]
        self.page("Emulation.setEmulatedMedia", media="print")
        self.page("Emulation.setDeviceMetricsOverride",
                  width=round((width_mm - MARGIN_SIDES) * MM),
                  height=round((height_mm - MARGIN_ENDS) * MM), deviceScaleFactor=1,
                  mobile=False)
        try:
            return self.page("Runtime.evaluate", expression=_SPILLS,
                             returnByValue=True)["result"]["value"]
        finally:
            self.page("Emulation.clearDeviceMetricsOverride")
            self.page("Emulation.setEmulatedMedia", media="")

    def columns(self, paper: str) -> dict[str, Any]:
        """A cheat sheet or screen laid out in columns a printed page high on landscape
        `paper`: how many columns it has a page and fills, the items split across two, the
        text reaching past its column."""
        height_mm, width_mm = PAPER[paper]  # landscape
        width = round((width_mm - LANDSCAPE_SIDES) * MM)
        height = round((height_mm - LANDSCAPE_ENDS) * MM)
        self.page("Emulation.setEmulatedMedia", media="print")
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        try:
            return self.page("Runtime.evaluate", expression=f"{_COLUMNS}({height})",
                             returnByValue=True)["result"]["value"]
        finally:
            self.page("Runtime.evaluate", expression="location.reload()")
            self._wait_for("Page.loadEventFired")
            self.page("Emulation.clearDeviceMetricsOverride")
            self.page("Emulation.setEmulatedMedia", media="")

    def landscape_png(self, paper: str = "a4") -> bytes:
        """The first page of a cheat sheet or screen as printed: landscape, its columns a
        page high, its margins drawn as padding."""
        height_mm, width_mm = PAPER[paper]
        width, height = round(width_mm * MM), round(height_mm * MM)
        self.page("Emulation.setEmulatedMedia", media="print")
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        inner = round((height_mm - LANDSCAPE_ENDS) * MM)
        self.page("Runtime.evaluate", expression=(
            "document.body.style.padding = '8mm 8mm 9mm 8mm';"
            f"const f = document.querySelector('main.flow'); f.style.height = '{inner}px';"
            "f.style.columnFill = 'auto'; f.style.overflow = 'hidden';"
            "document.body.style.overflow = 'hidden';"))
        shot = self.page("Page.captureScreenshot", format="png",
                         clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        return base64.b64decode(shot["data"])

    def first_page_png(self, paper: str = "a4") -> bytes:
        """The top of the sheet as printed: print layout, the page's width and height, its
        margins drawn as padding."""
        width_mm, height_mm = PAPER[paper]
        width, height = round(width_mm * MM), round(height_mm * MM)
        self.page("Emulation.setEmulatedMedia", media="print")
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        self.page("Runtime.evaluate", expression="document.body.style.padding = '13mm 11mm'")
        shot = self.page("Page.captureScreenshot", format="png",
                         clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        return base64.b64decode(shot["data"])


def page_count(pdf: bytes) -> int:
    """The pages of a PDF, from its page tree's root (`/Type /Pages … /Count N`)."""
    counts = [int(n) for n in re.findall(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)", pdf)]
    counts += [int(n) for n in re.findall(rb"/Count\s+(\d+)[^>]*?/Type\s*/Pages\b", pdf)]
    if counts:
        return max(counts)
    return len(re.findall(rb"/Type\s*/Page\b", pdf))


def screenshots(folder: Path) -> list[Path]:
    """docs/sheet_<name>.png for every built-in rulebook: the top of its A4 sheet."""
    import rulecraft
    from rulecraft.compiler.sheets import render

    made = []
    with tempfile.TemporaryDirectory() as tmp, Browser() as browser:
        for name in rulecraft.builtin_rulebooks():
            html = Path(tmp) / f"{name}.html"
            html.write_text(render(rulecraft.load(name), "html", "a4"), encoding="utf-8")
            browser.open(html)
            target = folder / f"sheet_{name}.png"
            target.write_bytes(browser.first_page_png("a4"))
            made.append(target)
    return made


def cheat_screenshots(folder: Path) -> list[Path]:
    """docs/cheat_<name>.png for every built-in rulebook, and docs/screen_<name>.png for each
    declaring a game master's screen: the first page, landscape A4, as printed."""
    import rulecraft
    from rulecraft.compiler.sheets import render

    made = []
    with tempfile.TemporaryDirectory() as tmp, Browser() as browser:
        for name in rulecraft.builtin_rulebooks():
            rb = rulecraft.load(name)
            for layout in ("cheat", "screen"):
                if layout == "screen" and "screen" not in rb.sheet_plans:
                    continue
                html = Path(tmp) / f"{name}_{layout}.html"
                html.write_text(render(rb, "html", "a4", layout=layout), encoding="utf-8")
                browser.open(html)
                target = folder / f"{layout}_{name}.png"
                target.write_bytes(browser.landscape_png("a4"))
                made.append(target)
    return made


if __name__ == "__main__":
    docs = Path(__file__).resolve().parent.parent / "docs"
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else docs
    for path in screenshots(folder) + cheat_screenshots(folder):
        print(path)
