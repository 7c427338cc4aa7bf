"""Cut `#` comments out of rule text before parsing, and say which line each one describes."""

from __future__ import annotations

import attrs


@attrs.frozen
class Comment:
    """A comment, the line it sits on, and the line of the rule it describes."""

    text: str
    line: int
    target_line: int


def strip_comments(source: str) -> tuple[str, list[Comment]]:
    """Return the source with comments blanked (every offset unchanged) and the comments.

    A comment on a line of its own describes the next line that holds rule text; a comment after
    rule text describes its own line. `#` inside a double-quoted string is text, not a comment.
    """
    lines = source.split("\n")
    kept: list[str] = []
    found: list[tuple[str, int, bool]] = []
    for number, line in enumerate(lines, start=1):
        cut = _comment_start(line)
        if cut is None:
            kept.append(line)
            continue
        code = line[:cut]
        found.append((line[cut + 1:].strip(), number, bool(code.strip())))
        kept.append(code + " " * (len(line) - cut))  # same offsets as the original text
    next_code: dict[int, int] = {}
    upcoming = len(lines) + 1
    for number in range(len(lines), 0, -1):
        if kept[number - 1].strip():
            upcoming = number
        next_code[number] = upcoming
    comments = [
        Comment(text, number, number if trailing else next_code[number])
        for text, number, trailing in found
    ]
    return "\n".join(kept), comments


def _comment_start(line: str) -> int | None:
    start = 0
    if line.lstrip().startswith("|"):
        cell = _comment_cell(line)
        if cell is not None:
            return cell
        start = line.rfind("|")  # a table row: `#` between its bars is cell text (`No #1`)
    quoted = False
    for i, ch in enumerate(line[start:], start):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return i
    return None


def _comment_cell(line: str) -> int | None:
    """In a row that does not end with a bar, a `#` opening a cell starts a comment, even one
    holding a bar (`| 1 | Bruise | # a note | here`); in a closed row (`| # |`) it is text."""
    if line.rstrip().endswith("|"):
        return None
    for bar in (i for i, ch in enumerate(line) if ch == "|"):
        after = len(line) - len(line[bar + 1:].lstrip(" \t"))
        if line.startswith("#", after):
            return after
    return None


class CommentPool:
    """Comments waiting to be claimed by the node that starts on their target line."""

    def __init__(self, comments: list[Comment]) -> None:
        self._by_line: dict[int, list[str]] = {}
        for c in comments:
            self._by_line.setdefault(c.target_line, []).append(c.text)

    def claim(self, line: int) -> tuple[str, ...]:
        return tuple(self._by_line.pop(line, ()))

    def left(self) -> list[tuple[int, str]]:
        """The comments nobody claimed, with the line each describes."""
        return [(line, text) for line in sorted(self._by_line) for text in self._by_line[line]]
