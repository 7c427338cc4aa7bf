"""Lark's parse errors, told as a rule author reads them: plain words, a line and a caret."""

from __future__ import annotations

import unicodedata

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from rulecraft.runtime.errors import RuleSyntaxError, Span

from .checks import describe, name_problem

_WORDS = {
    "_NL": "the end of the line", "_INDENT": "an indented block", "_DEDENT": "the end of a block",
    "NAME": "a name", "NUMBER": "a number", "STRING": 'a quoted text like "Sword"',
    "DICE": "dice such as d20", "ROW": "a table row starting with |", "COLON": '":"',
    "EQUAL": '"="', "LPAR": '"("', "RPAR": '")"', "LSQB": '"["', "RSQB": '"]"', "COMMA": '","',
    "DOT": '"."', "COMPARE": "a comparison", "ADD": '"+" or "-"', "MUL": '"*" or "/"',
    "SIGN": '"-"', "__ANON_0": '"->"', "$END": "the end of the file", "IN_CELLS": '"in cells"',
}


def _describe(lark: Lark, expected: set[str]) -> str:
    """Expected tokens as a person reads them: keywords quoted, the rest in words."""
    names = set()
    for name in expected:
        if name in _WORDS:
            names.add(_WORDS[name])
            continue
        try:
            pattern = lark.get_terminal(name).pattern
        except KeyError:
            names.add(name.lower())
            continue
        names.add(f'"{pattern.value}"' if pattern.type == "str" else name.lower())
    ordered = sorted(names)
    if len(ordered) > 8:
        ordered = ordered[:8] + ["…"]
    return ", ".join(ordered)


_UNEXPECTED = {
    "_NL": "the line ends before the rule is complete",
    "$END": "the file ends before the rule is complete",
    "_INDENT": "this line is indented more than the one above it",
    "_DEDENT": "this block ends too early",
}


def syntax_error(lark: Lark, err: UnexpectedInput, text: str, source: str, filename: str,
                 line_offset: int, column_offset: int, rule: str = "start") -> RuleSyntaxError:
    line = (err.line if err.line and err.line > 0 else text.count("\n") + 1) + line_offset
    column = (err.column if err.column and err.column > 0 else 1)
    if err.line == 1:
        column += column_offset
    width = 1
    if isinstance(err, UnexpectedToken):
        message, line, column, width = _unexpected_token(lark, err, text, line, column,
                                                         line_offset, column_offset, rule)
    elif isinstance(err, UnexpectedCharacters):
        position = err.pos_in_stream or 0
        char = text[position] if position < len(text) else ""
        message = f"unexpected character {char!r}"
        if char == "'":
            message += ' (texts are written in double quotes: "like this")'
        elif char == '"':
            message = _UNCLOSED_TEXT
        elif unicodedata.category(char).startswith("M"):
            message = _combining_mark(text, position)
    elif isinstance(err, UnexpectedEOF):
        message = f"the {'expression' if rule == 'expr' else 'file'} ends too early; expected " \
            f"{_describe(lark, set(err.expected))}"
    else:
        message = "the rule text does not follow the language"
    return RuleSyntaxError(message, Span(filename, line, column, line, column + width), source)


def _unexpected_token(lark: Lark, err: UnexpectedToken, text: str, line: int, column: int,
                      line_offset: int, column_offset: int,
                      rule: str) -> tuple[str, int, int, int]:
    """The message for a token the grammar does not allow here, and where to point."""
    token = err.token
    if token.type in ("_INDENT", "_DEDENT") and token.end_line:
        # Lark dates an indentation change from the newline before it: point at the line.
        line, column = token.end_line + line_offset, token.end_column or 1
    start = token.start_pos
    word = _word_at(text, start, str(token)) if start is not None else str(token)
    opening = _unclosed_quote(text, start or 0)
    if opening is not None:  # point at the quote that opens the text, as for a lone quote
        column = opening - (text.rfind("\n", 0, opening) + 1) + 1
        return _UNCLOSED_TEXT, line, column + (column_offset if err.line == 1 else 0), 1
    width = max(1, len(word)) if not token.type.startswith("_") else 1
    missing = _what_to_write(err, text)
    if missing is not None:
        message, at_line, at_column = missing
        return message, at_line + line_offset, at_column, 1
    if _empty_block(text, err.line or 0):
        message = "the lines of a block go indented under the line ending in ':' above"
    elif _indented_declaration(text, err.line or 0):
        message = ("a declaration (rulebook, enum, table, formula, combatant, procedure) "
                   "starts at the beginning of its line, without indentation")
        column, width = 1, 1
    elif token.type in _UNEXPECTED:
        said = _UNEXPECTED[token.type]
        if rule == "expr":
            said = "the expression ends too early"
        message = f"{said}; expected {_describe(lark, err.expected)}"
    else:
        message = f"unexpected {word!r}; expected {_describe(lark, err.expected)}"
    opened = _unclosed(text, token.start_pos or 0)
    if opened is not None:
        bracket, at_line, at_column = opened
        closer = ")" if bracket == "(" else "]"
        if at_line + line_offset < line:  # point where the author forgot, as Python does
            message = (f'this "{bracket}" is never closed with "{closer}" (line '
                       f"{line} goes on with {word!r})")
            line, column, width = at_line + line_offset, at_column, 1
        else:
            message += f' (the "{bracket}" at column {at_column} is not closed yet)'
    return message, line, column, width


def _what_to_write(err: UnexpectedToken, text: str) -> tuple[str, int, int] | None:
    """A rule a new author left unfinished in a way we know: what to add, and where (the
    line and column of the rule that needs it), instead of the token the parser wanted."""
    token, lines = err.token, text.split("\n")
    here = lines[err.line - 1] if err.line and 0 < err.line <= len(lines) else ""
    if token.type == "_BLOCK" and set(err.expected) == {"COMMA"} and \
            here.lstrip().startswith("repeat until"):
        return ("`repeat until …` needs a cap on how often it repeats: write "
                f"`{here.strip().rstrip(':')}, at most N times:`", err.line, err.column)
    if set(err.expected) in ({"AT"}, {"AT", "NO"}) and token.type in ("_DEDENT", "$END"):
        before = lines[: (token.end_line or err.line or len(lines)) - 1]
        for number in range(len(before), 0, -1):
            words = before[number - 1].split()
            if words[:1] == ["encounter"] and len(words) > 1:
                name = words[1].split("(")[0]
                unit = "rounds" if any(x.strip().startswith("each round")
                                       for x in before[number:]) else "turns"
                return (f"encounter {name} needs a cap on its length: add a line `at most N "
                        f"{unit}` after its `ends when` line, or `no cap` for a fight that goes "
                        "on until it ends", number, 1)
            if before[number - 1][:1] not in (" ", "\t", "#", ""):
                break
    return None


def _combining_mark(text: str, position: int) -> str:
    """A name written with a separate accent (`e` + U+0301), as some editors and file systems
    decompose it: the precomposed spelling when there is one."""
    def in_word(ch: str) -> bool:
        return ch.isalnum() or ch == "_" or unicodedata.category(ch).startswith("M")

    start, end = position, position
    while start > 0 and in_word(text[start - 1]):
        start -= 1
    while end < len(text) and in_word(text[end]):
        end += 1
    word = text[start:end]
    composed = unicodedata.normalize("NFC", word)
    mark = describe(text[position])
    if composed != word and name_problem(composed) is None:
        return (f"{word!r} is written with a separate accent, {mark}: write it with the "
                f"accented letter, as {composed!r}")
    return f"unexpected character {mark}: a name cannot hold a combining mark"


_UNCLOSED_TEXT = 'this quoted text is never closed: end it with " on the same line'


def _unclosed_quote(text: str, position: int) -> int | None:
    """Where a text opens that the lexer closed with the next text's opening quote: a word
    stuck to a closing quote on a line of unpaired quotes (`"L Wound, Wound, "S Wound"`)."""
    if position < 2 or text[position - 1] != '"':
        return None
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    if text.count('"', start, end if end >= 0 else len(text)) % 2 == 0:
        return None
    opening = text.rfind('"', start, position - 1)
    return opening if opening >= 0 else None


def _word_at(text: str, start: int, token: str) -> str:
    """The whole word a token begins (`formula`, where the lexer only took `for`)."""
    end = start + len(token)
    while end < len(text) and (text[end].isalnum() or text[end] == "_") and token[-1:].isalnum():
        end += 1
    return text[start:end] or token


def _empty_block(text: str, line: int) -> bool:
    """Whether `line` follows a line ending in ':' without being indented under it."""
    lines = text.split("\n")
    if not 2 <= line <= len(lines):
        return False
    here = lines[line - 1]
    for above in reversed(lines[: line - 1]):
        if above.strip():
            indent = len(above) - len(above.lstrip())
            return above.rstrip().endswith(":") and len(here) - len(here.lstrip()) <= indent
    return False


_DECLARATION_WORDS = ("rulebook", "enum", "table", "formula", "combatant", "procedure")


def _indented_declaration(text: str, line: int) -> bool:
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return False
    here = lines[line - 1]
    words = here.split()
    return bool(words) and here[:1] in " \t" and words[0] in _DECLARATION_WORDS


def _unclosed(text: str, position: int) -> tuple[str, int, int] | None:
    """The innermost bracket still open at `position`: the bracket, its line and column."""
    stack: list[tuple[str, int, int]] = []
    line, column = 1, 0
    quoted = False
    for ch in text[:position]:
        column += 1
        if ch == "\n":
            line, column = line + 1, 0
        elif ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([":
            stack.append((ch, line, column))
        elif ch in ")]" and stack:
            stack.pop()
    return stack[-1] if stack else None
