"""A sheet's source listing (`rulecraft sheet RB --source`): the rule file and each base it
extends, coloured by rulecraft's own Pygments lexer (dsl/highlight.py) in HTML and fenced
```rulecraft in Markdown, so a referee can check every figure against the text it came from."""

from __future__ import annotations

import os
import re

import attrs
from markupsafe import Markup

from rulecraft.runtime.rulebook import Rulebook

from .sheet_sandbox import SheetError


@attrs.frozen
class Listing:
    """One rule file as a sheet prints it: its name, and its text coloured (HTML) or fenced
    (Markdown, in a fence longer than any run of backticks in it)."""

    name: str
    listed: Markup


def parts(rb: Rulebook, fmt: str, source: bool) -> dict[str, object]:
    """What the templates' `_source` partial reads: `listings` (none without `source`) and
    `listing_style`, the colours' stylesheet."""
    if not source:
        return {"listings": (), "listing_style": Markup("")}
    return {"listings": listings(rb, fmt), "listing_style": style() if fmt == "html" else ""}


def listings(rb: Rulebook, fmt: str) -> tuple[Listing, ...]:
    """The files of `rb`, its own first, then each base it extends."""
    found = []
    while rb is not None:
        listed = _coloured(rb.source) if fmt == "html" else _fenced(rb.source)
        found.append(Listing(os.path.basename(rb.filename), listed))
        rb = getattr(rb, "base", None)
    return tuple(found)


def _fenced(text: str) -> Markup:
    """`text` as a Markdown code block: inside a fence nothing is markup."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return Markup(f"{fence}rulecraft\n{text.rstrip(chr(10))}\n{fence}\n")


def style() -> Markup:
    """The listing's colours, for the sheet's stylesheet."""
    from pygments.formatters import HtmlFormatter

    return Markup(HtmlFormatter(style="default").get_style_defs(".rules-source"))


def _coloured(text: str) -> Markup:
    """`text` as Pygments HTML (every character escaped by Pygments), its lines numbered."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
    except ImportError:
        raise SheetError("--source colours the rule files with Pygments, which is not "
                       "installed: pip install 'rulecraft[editors]'") from None
    from rulecraft.dsl.highlight import RulesLexer

    formatter = HtmlFormatter(cssclass="rules-source", linenos="inline", wrapcode=True)
    return Markup(highlight(text, RulesLexer(), formatter))
