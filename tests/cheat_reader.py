"""Reads a cheat sheet's HTML back: each item (`data-rule="kind:name"`) with the text of its
tables' cells, row by row — what a player sees, for the tests to check against the engine."""

from __future__ import annotations

from html.parser import HTMLParser


class CheatReader(HTMLParser):
    """`items`: "kind:name" -> its tables, each a list of rows of cell texts (the header's
    rows first: `heads` counts them); `texts`: "kind:name" -> the item's whole text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.items: dict[str, list[list[list[str]]]] = {}
        self.texts: dict[str, str] = {}
        self.heads: dict[str, list[int]] = {}
        self._thead = False
        self._item: str | None = None
        self._depth = 0
        self._cell: list[str] | None = None
        self._in_del = 0
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "article" and found.get("data-rule"):
            self._item = found["data-rule"]
            self.items[self._item] = []
            self.texts[self._item] = ""
            self.heads[self._item] = []
        if self._item is None:
            return
        if tag == "table":
            self.items[self._item].append([])
            self.heads[self._item].append(0)
        elif tag == "thead":
            self._thead = True
        elif tag == "tr":
            self.items[self._item][-1].append([])
            self.heads[self._item][-1] += self._thead
        elif tag in ("td", "th") and self.items[self._item]:
            self._cell = []
        elif tag == "del":
            self._in_del += 1

    def handle_endtag(self, tag: str) -> None:
        if self._item is None:
            return
        if tag in ("td", "th") and self._cell is not None:
            self.items[self._item][-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "del":
            self._in_del -= 1
        elif tag == "thead":
            self._thead = False
        elif tag == "article":
            self._item = None

    def handle_data(self, data: str) -> None:
        if self._item is None:
            return
        self.texts[self._item] += data
        if self._cell is not None and not self._in_del:  # a base's figure is not the value
            self._cell.append(data)
