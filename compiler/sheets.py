"""Back end 2: reference sheets — a compiled rulebook rendered by Jinja as HTML for print or as
Markdown for wikis and forums.

Templates ship in `templates/` beside this module; a user may pass a folder of their own, whose
`sheet.html` or `sheet.md` replaces the built-in one (and may `{% extends "builtin/sheet.html" %}`
to change only some blocks). Every template, built-in or not, renders in Jinja's sandbox with
escaping on: rule text holding `<script>` or `{{` is printed as text, never run. Rendering is
deterministic: the same rulebook gives the same bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, PrefixLoader, StrictUndefined, TemplateError, pass_context
from markupsafe import Markup

from rulecraft.runtime.errors import RangeError, RulecraftError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.work import current

from . import sheet_source, sheet_view
from .sheet_files import FolderLoader, placed
from .sheet_sandbox import CountedSandbox, SheetError, TemplateWork

FORMATS = ("html", "md")
PAPERS = ("a4", "letter")
LAYOUTS = ("reference", "cheat", "screen")
TEMPLATES = Path(__file__).parent / "templates"
# The sheet's parts, in order, with the headings the templates give them.
SECTIONS = (("procedures", "Procedures"), ("tables", "Tables"), ("formulas", "Formulas"),
            ("combatants", "Combatants"), ("references", "Quick reference"),
            ("policies", "Policies"))


def render(rb: Rulebook, fmt: str = "html", paper: str = "a4", sources: bool = True,
           templates: str | os.PathLike[str] | None = None,
           limits: Limits = DEFAULT_LIMITS, layout: str = "reference",
           source: bool = False) -> str:
    """The sheet of `rb` as text: `fmt` "html" (for print, self-contained) or "md"; `paper`
    "a4" or "letter"; `sources` prints the book's words beside each rule; `templates` a folder
    whose `sheet.html` / `sheet.md` replace the built-in ones; `limits` bound the work of its
    quick references; `layout` "reference" (every rule), "cheat" (the pages kept at the
    table) or "screen" (the game master's panels: compiler/cheats.py); `source` appends the
    rule files, coloured (compiler/sheet_source.py), to a reference sheet."""
    if fmt not in FORMATS:
        raise SheetError(f"a sheet is html or md, not {fmt!r}")
    if paper not in PAPERS:
        raise SheetError(f"a sheet is printed on a4 or letter paper, not {paper!r}")
    if layout not in LAYOUTS:
        raise SheetError(f"a sheet's layout is {', '.join(LAYOUTS[:-1])} or {LAYOUTS[-1]}, "
                         f"not {layout!r}")
    if layout != "reference":
        if source:
            raise SheetError("the rule files' listing (--source) is printed with the reference "
                             "sheet, not with a cheat sheet or a screen")
        from .cheats import render as cheat

        return cheat(rb, layout, fmt, paper, templates, limits)
    anchors = _HtmlAnchors() if fmt == "html" else _MarkdownAnchors(rb.title)
    sheet = sheet_view.build(rb, anchors.anchor, paper, sources, limits)
    sections = [(key, title, anchors.section(key)) for key, title in SECTIONS
                if getattr(sheet, key)]
    env = environment(fmt, templates, limits)
    try:
        template = env.get_template(f"sheet.{fmt}")
        return _written(template.generate(
            sheet=sheet, sections=sections,
            parts={key: (title, anchor) for key, title, anchor in sections},
            **sheet_source.parts(rb, fmt, source)), limits)
    except (RulecraftError, TemplateError) as err:
        raise placed(err, env.texts) from None
    except Exception as err:  # noqa: BLE001 - a user's template is code: any failure is its own
        if templates is None:
            raise  # rulecraft's own templates failing is a bug in rulecraft
        raise placed(err, env.texts) from None


def _written(chunks: Iterable[str], limits: Limits) -> str:
    """The sheet's text as its template writes it, stopped as soon as it is longer than a
    command may write (`output_bytes`)."""
    out, size = [], 0
    for chunk in chunks:
        size += len(chunk.encode("utf-8"))
        if size > limits.output_bytes:
            raise RangeError(f"the sheet would be more than {limits.output_bytes} bytes "
                             f"{Limits.hint('output_bytes')}")
        out.append(chunk)
    return "".join(out)


def environment(fmt: str, templates: str | os.PathLike[str] | None = None,
                limits: Limits = DEFAULT_LIMITS) -> CountedSandbox:
    """A sandboxed Jinja environment: the user's folder first, then the built-in templates
    (also as `builtin/NAME`, for a user's template to extend), each read only from inside its
    folder; its work counted against `limits.work`. HTML is autoescaped; Markdown escapes every
    value it prints (`*`, `|`, `<`, … as `\\*`, `\\|`, `\\<`)."""
    texts: dict[str, str] = {}
    loaders: list[Any] = []
    if templates is not None:
        folder = Path(templates)
        if not folder.is_dir():
            raise SheetError(f"the templates folder {os.fsdecode(folder)!r} is not a folder")
        loaders.append(FolderLoader(folder, os.fsdecode(folder), limits.source_bytes, texts))
    builtin = FolderLoader(TEMPLATES, "builtin", limits.source_bytes, texts)
    loaders += [builtin, PrefixLoader({"builtin": builtin})]
    work = TemplateWork(current(limits))  # the command's budget, the references' too
    options: dict[str, Any] = dict(loader=ChoiceLoader(loaders), undefined=StrictUndefined,
                                   trim_blocks=True, lstrip_blocks=True,
                                   keep_trailing_newline=True, extensions=["jinja2.ext.do"])
    if fmt == "html":
        env = CountedSandbox(work, texts, autoescape=True,
                             finalize=pass_context(lambda _, value: work.printed(value)),
                             **options)
    else:
        env = CountedSandbox(work, texts, autoescape=False, finalize=pass_context(
            lambda _, value: markdown_text(work.printed(value))), **options)
    env.add_filter("css_string", css_string)
    env.add_filter("md", lambda value: Markup(markdown_text(value)))
    return env


_MARKDOWN = frozenset("\\`*_[]<>|&#~$!")


def markdown_text(value: Any) -> str:
    """A value as Markdown text that shows as itself: every character Markdown would read as
    markup (emphasis, links, raw HTML, table bars) escaped with a backslash; lines joined."""
    if isinstance(value, Markup):  # a macro's Markdown, marked `|safe`: already escaped
        return str(value)
    text = "" if value is None else str(value)
    text = " ".join(text.split("\n"))
    return "".join("\\" + ch if ch in _MARKDOWN else ch for ch in text)


def css_string(value: Any) -> Markup:
    """A CSS string literal (for `content:` in the print stylesheet) that no text can end:
    quotes, backslashes, `<` and anything unprintable escaped as hexadecimal."""
    out = []
    for ch in str(value):
        if ch.isalnum() or ch in " .,:;!?-–—'()&/+":
            out.append(ch if ch != "&" else "\\26 ")
        else:
            out.append(f"\\{ord(ch):x} ")
    return Markup('"' + "".join(out) + '"')


class _HtmlAnchors:
    """Ids for HTML: `table-wounds`, `formula-skill`; a part's id is its key."""

    def anchor(self, kind: str, name: str, heading: str) -> str:
        return f"{kind}-{name}"

    def section(self, key: str) -> str:
        return key


class _MarkdownAnchors:
    """The anchors wikis give headings (GitHub's rule: lower case, punctuation dropped, spaces
    as hyphens, a repeated one numbered), counted over the headings the template writes, in
    the order it writes them: the title, Contents, then each part's heading and its rules."""

    def __init__(self, title: str) -> None:
        self.seen: dict[str, int] = {}
        self.sections: dict[str, str] = {}
        self.kind: str | None = None
        self.slug(title)
        self.slug("Contents")

    def anchor(self, kind: str, name: str, heading: str) -> str:
        if kind != self.kind:  # the first rule of a part follows the part's heading
            self.kind = kind
            key = "policies" if kind == "policy" else kind + "s"
            self.sections[key] = self.slug(dict(SECTIONS)[key])
        return self.slug(heading)

    def section(self, key: str) -> str:
        return self.sections[key]

    def slug(self, heading: str) -> str:
        base = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = self.seen.get(base, 0)
        self.seen[base] = n + 1
        return base if n == 0 else f"{base}-{n}"


__all__ = ["FORMATS", "LAYOUTS", "PAPERS", "SheetError", "css_string", "environment", "markdown_text",
           "render"]
