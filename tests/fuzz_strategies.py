"""Fuzzing inputs and verdicts: mutated built-in rulebooks, grammar-directed programs, and the
checks that say whether rulecraft answered an input with a result or a rule error.

Rule files are untrusted input (see runtime/limits.py): whatever a file holds, rulecraft must
compile it or say where it is wrong, and whatever a compiled rulebook is asked, it must answer
or raise a `RulecraftError` — never another exception. `tests/test_fuzz.py` states the
properties; this module draws the inputs.

- Mutations (`mutated_texts`, `mutated_bytes`) start from the text of each shipped rulebook,
  whole or a run of its first declarations, and apply one to three edits of the kind a person,
  an editor or a broken download makes: lines and tokens deleted, doubled, swapped or
  corrupted, a number or a name changed, look-alike characters, random bytes, a byte-order
  mark, CRLF, tabs, long lines.
- Programs (`programs`) mirror the grammar, one composite strategy per rule as avrae/d20's
  tests do, and keep a record of what is declared so far (`Declared`) so that most programs
  are well-formed, compile and can be run (`exercise`): enums, notations, tables of every
  layout, formulas, one or two combatant models, and procedures that call the ones above
  them, loop, declare their outcomes and set every name on every path before reading it
  (now and then deliberately not, to reach the compiler's errors).
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any

from hypothesis import strategies as st

import rulecraft
import rulecraft.compiler.evaluate
import rulecraft.runtime.results
import rulecraft.runtime.tables

# ---- verdicts ---------------------------------------------------------------------------


class Finding(AssertionError):
    """An input made rulecraft do something other than succeed or raise a rule error."""


class OutOfTime(BaseException):
    """Raised by `time_limit`; a BaseException so no `except Exception` in rulecraft eats it."""


class Slow:
    """What a call came to when it ran out of time in a run that keeps slow cases (`SLOW`)."""

    def __init__(self, what: str) -> None:
        self.what = what


# Issue 21, item 16: "a long run must not end on a slow case". When this is a list (the long
# profile makes it one), a call out of time is kept here and answers `Slow`; else a Finding.
SLOW: list[str] | None = None


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the body after `seconds` of this process's CPU time (a hard cap for one case:
    CPU, not the wall clock, so a loaded machine does not make a case slow; SIGPROF, main
    thread only)."""
    if not seconds or not hasattr(signal, "setitimer") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        # Raised in a garbage-collector callback (Hypothesis times the collector) or a
        # `__del__`, the exception would be printed and dropped ("Exception ignored in ..."):
        # the timer comes again every second of CPU until it lands in the body.
        if frame is None or frame.f_code.co_name not in ("gc_callback", "__del__"):
            raise OutOfTime(f"took more than {seconds} s of CPU")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def where(err: BaseException) -> str:
    """The innermost frame an exception came from, `file:line in function` (to tell bugs apart)."""
    frames = traceback.extract_tb(err.__traceback__)
    if not frames:
        return "?"
    last = frames[-1]
    return f"{os.path.basename(last.filename)}:{last.lineno} in {last.name}"


def position_problems(err: rulecraft.RulecraftError) -> list[str]:
    """What is wrong with a compile error's report: each error needs a line and a column >= 1."""
    problems = []
    errors = getattr(err, "errors", None)
    if isinstance(err, rulecraft.RulecraftErrors) and not errors:
        problems.append("RulecraftErrors holding no errors")
    for e in errors or [err]:
        line, column = e.line, e.column
        if type(line) is not int or type(column) is not int or line < 1 or column < 1:
            problems.append(f"{type(e).__name__} without a position (line={line!r}, "
                            f"column={column!r}): {e.message}")
    return problems + render_problems(err)


# A rule error that owns up to a bug in rulecraft (the formatter's self-check) is a finding too.
ADMITTED_BUG = re.compile(r"bug in rulecraft|internal error", re.IGNORECASE)


def render_problems(err: rulecraft.RulecraftError) -> list[str]:
    """What is wrong with any rule error: it must render, and not be a bug of rulecraft's."""
    try:
        text = str(err)
    except Exception as broken:  # noqa: BLE001 - any failure to render is the finding
        return [f"str() of {type(err).__name__} raised {type(broken).__name__}: {broken}"]
    if ADMITTED_BUG.search(text):
        return [f"{type(err).__name__} admits a bug: {text}"]
    return []


def _run(action: Callable[[], Any], seconds: float | None) -> Any:
    """`action()`; a rule error is returned, any other exception becomes a Finding."""
    try:
        with time_limit(seconds):
            return action()
    except OutOfTime as err:
        if SLOW is None:
            raise Finding(str(err)) from None
        SLOW.append(f"{err} at {where(err)}")
        return Slow(str(err))
    except rulecraft.RulecraftError as err:
        return err
    except Exception as err:  # noqa: BLE001 - this is what the fuzz tests look for
        raise Finding(f"{type(err).__name__} at {where(err)}: {err}") from err


def compiled_or_positioned_error(action: Callable[[], Any], seconds: float | None = None) -> Any:
    """The Rulebook `action` compiles, or the RulecraftError it raises with a line and column."""
    result = _run(action, seconds)
    if isinstance(result, rulecraft.RulecraftError):
        problems = position_problems(result)
        if problems:
            raise Finding("; ".join(problems)) from result
        return result
    if not isinstance(result, (rulecraft.Rulebook, Slow)):
        raise Finding(f"returned {type(result).__name__}, neither a Rulebook nor a rule error")
    return result


def rule_errors_only(action: Callable[[], Any], seconds: float | None = None) -> Any:
    """What `action` returns, or the RulecraftError it raises; anything else is a Finding."""
    result = _run(action, seconds)
    if isinstance(result, rulecraft.RulecraftError):
        problems = render_problems(result)
        if problems:
            raise Finding("; ".join(problems)) from result
    return result


# ---- mutations of the built-in rulebooks ------------------------------------------------


@cache
def builtin_sources() -> tuple[tuple[str, str], ...]:
    """(name, text) of every shipped rulebook, read as `rulecraft.load` reads them."""
    folder = resources.files("rulecraft.rulebooks")
    return tuple((name, (folder / f"{name}.rules").read_text(encoding="utf-8"))
                 for name in rulecraft.builtin_rulebooks())


def declarations(text: str) -> list[str]:
    """The text cut before each unindented rule line (comments stay with the line above)."""
    chunks: list[str] = []
    for line in text.splitlines(keepends=True):
        if line[:1].isalpha() and chunks and chunks[-1].strip():
            chunks.append("")
        if not chunks:
            chunks.append("")
        chunks[-1] += line
    return chunks


@st.composite
def rulebook_documents(draw: Any) -> tuple[str, str]:
    """(file name, text): a whole shipped rulebook, or its first few declarations (which
    compile on their own, since a rulebook declares things before it uses them) — cheaper."""
    name, text = draw(st.sampled_from(builtin_sources()))
    chunks = declarations(text)
    if draw(st.integers(0, 2)) == 0:
        return f"{name}.rules", text
    return f"{name}.rules", "".join(chunks[: draw(st.integers(1, len(chunks)))])


# Characters that look like others, have no width, turn text around, change length when
# case-folded, or break lines in some readers but not others.
LOOKALIKES = (
    "ﬁ", "µ", "²", "½", "Ａ", "ｄ", "１", "２０", "\u200b", "\u200c", "\u200d", "\u2060",
    "\u200e", "\u200f", "\u202e", "\u2066", "\ufeff", "–", "—", "−", "‐", "“", "”", "‘", "’",
    "«", "·", "…", "\u00a0", "\u3000", "а", "е", "о", "ο", "İ", "ı", "ß", "ǅ", "\u0301",
    "🎲", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x00", "\x7f", "\ud800", "\r",
    "\t", "𝟘", "Ⅻ", "⁰", "₁", "٣", "۳", "߃", "Ⅷ", "〇",
)

# Words and marks of the language, and numbers and dice at or over the edge of what it takes.
TOKENS = (
    "rulebook", "enum", "table", "formula", "combatant", "procedure", "by", "in cells", "->",
    "given", "map", "list", "derived", "state", "combined", "roll", "let", "choose", "from",
    "default", "if", "else", "then", "set", "add", "to", "outcome", "with", "and", "or", "not",
    "in", "for", "true", "false", "none", "integer", "number", "dice", "bool", "name", ":", ",",
    "=", "==", "(", ")", "[", "]", ".", "..", "-", "+", "*", "/", "<=", '"', '""', "#", "|",
    "|---|", "0", "-0", "00", "1..0", "5..1", "-5..-9", "0.0..0.0", "d0", "0d6", "d1", "0d0",
    "1000d1000", "99999d2", "4d6kh9", "d6kl0", "d6dh7", "9" * 70, "1" + "0" * 30,
    "0." + "0" * 40 + "1", "1e5", "NaN", "inf", "−1", "１２", "½", "ln(0)", "sqrt(-1)", "1/0",
    "0/0", "above", "below", "and up", "or more", "blank: above", "blank: below", "= 1/0",
    "= ln(0)", "= d6", "= x(", "=", "1–3", "3–1", "99-00", "00-99", ">", "<", ">=", "8+",
    "01-10", "-", "a/b/c", "1/2/3/4", "None", "True", "class", "__import__", "_check", "v_x",
    "floor(", "round(1, 99)", "round(1, -1)", "max()", "min(1)", "dice(-1, 6)", "dice(1, 0)",
    "count(", "flatten(1)", "len(1)", "any(x for x in 1)", "[", "[1, 2][5]", "a.b.c.d",
    "t[1, 2, 3]", "outcome x", "else:", "if x:", "    ", "\\", "'", "`", "{", "}", "@", "$",
)

SEPARATOR = re.compile(r"(\s+|\|)")


def _tokens(text: str) -> tuple[list[str], list[int]]:
    parts = SEPARATOR.split(text)
    return parts, [i for i, p in enumerate(parts) if p and not p.isspace()]


@cache
def _index(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, max(0, n - 1))


def _pick(draw: Any, n: int) -> int:
    """An index below `n` (strategies cached: building one per draw costs more than drawing)."""
    return draw(_index(n))


def _one(draw: Any, options: Any) -> Any:
    """One of `options`, like `st.sampled_from` without building a strategy per draw."""
    return options[_pick(draw, len(options))]


@cache
def _between(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


def _int(draw: Any, low: int, high: int) -> int:
    return draw(_between(low, high))


def _line_edit(draw: Any, text: str) -> str:
    lines = text.splitlines(keepends=True) or [""]
    i, j = _pick(draw, len(lines)), _pick(draw, len(lines))
    edit = draw(st.sampled_from(["delete", "duplicate", "swap", "move", "indent", "dedent",
                                 "blank", "tab"]))
    if edit == "delete":
        del lines[i]
    elif edit == "duplicate":
        lines.insert(j, lines[i])
    elif edit == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif edit == "move":
        lines.insert(j, lines.pop(i))
    elif edit == "indent":
        lines[i] = " " * draw(st.integers(1, 9)) + lines[i]
    elif edit == "dedent":
        lines[i] = lines[i][draw(st.integers(1, 4)):] or "\n"
    elif edit == "blank":
        lines[i] = "\n"
    else:
        lines[i] = re.sub(r"^( {2}| {4})", "\t", lines[i])
    return "".join(lines)


def _token_edit(draw: Any, text: str) -> str:
    parts, tokens = _tokens(text)
    if not tokens:
        return text + draw(st.sampled_from(TOKENS))
    i, j = tokens[_pick(draw, len(tokens))], tokens[_pick(draw, len(tokens))]
    edit = draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "corrupt",
                                 "corrupt"]))
    if edit == "delete":
        parts[i] = ""
    elif edit == "duplicate":
        parts[j] = parts[j] + " " + parts[i]
    elif edit == "swap":
        parts[i], parts[j] = parts[j], parts[i]
    elif edit == "replace":
        parts[i] = draw(st.sampled_from(TOKENS))
    else:
        parts[i] = _corrupt(draw, parts[i])
    return "".join(parts)


def _corrupt(draw: Any, token: str) -> str:
    """One character of a token changed, added, removed or case-changed, or the token cut."""
    at = draw(st.integers(0, len(token)))
    char = draw(st.sampled_from(LOOKALIKES) | st.characters(codec="utf-8") |
                st.sampled_from("0123456789.-+|:,=()[]\"'#d_ "))
    how = draw(st.sampled_from(["insert", "replace", "delete", "case", "cut", "double"]))
    if how == "insert":
        return token[:at] + char + token[at:]
    if how == "replace":
        return token[:at] + char + token[at + 1:]
    if how == "delete":
        return token[:at] + token[at + 1:]
    if how == "case":
        return token.swapcase()
    if how == "cut":
        return token[:at]
    return token * 2


NUMBERS = ("0", "1", "-1", "2", "00", "01", "0.0", "0.5", "-0.5", "10", "20", "21", "99", "100",
           "101", "1000000", "99999999999", "1.0000000000000000000000000001", "3.14159")
NUMBER = re.compile(r"(?<![\w])(?<!(?<!\.)\.)\d+(\.\d+)?(?![\w])")  # not d20 or x1
IDENTIFIER = re.compile(r"(?<![\w\"])[^\W\d]\w*")


def _number_edit(draw: Any, text: str) -> str:
    """One printed number changed to another (a mutation that keeps the syntax, so it reaches
    table coverage, ranges, divisions and logarithms)."""
    found = list(NUMBER.finditer(text))
    if not found:
        return text
    m = found[_pick(draw, len(found))]
    return text[:m.start()] + _one(draw, NUMBERS) + text[m.end():]


def _rename(draw: Any, text: str) -> str:
    """One name changed to another name of the same file: the wrong table, formula, type or
    field, a formula calling itself, a name used before it is defined."""
    found = list(IDENTIFIER.finditer(text))
    if len(found) < 2:
        return text
    m = found[_pick(draw, len(found))]
    other = found[_pick(draw, len(found))].group()
    return text[:m.start()] + other + text[m.end():]


def _insert(draw: Any, text: str, piece: str) -> str:
    at = draw(st.integers(0, len(text)))
    return text[:at] + piece + text[at:]


def _insert_unicode(draw: Any, text: str) -> str:
    piece = draw(st.lists(st.sampled_from(LOOKALIKES), min_size=1, max_size=3).map("".join)
                 | st.text(min_size=1, max_size=4))
    return _insert(draw, text, piece)


def _insert_random_bytes(draw: Any, text: str) -> str:
    raw = draw(st.binary(min_size=1, max_size=16))
    decoding = draw(st.sampled_from(["replace", "surrogateescape", "latin-1"]))
    piece = raw.decode("latin-1") if decoding == "latin-1" else raw.decode("utf-8", decoding)
    return _insert(draw, text, piece)


def _line_breaks(draw: Any, text: str) -> str:
    how = draw(st.sampled_from(["crlf", "some crlf", "cr", "lone cr", "separators", "no final"]))
    if how == "crlf":
        return text.replace("\n", "\r\n")
    if how == "cr":
        return text.replace("\n", "\r")
    if how == "no final":
        return text.rstrip("\n")
    lines = text.split("\n")
    i = _pick(draw, len(lines))
    mark = {"some crlf": "\r\n", "lone cr": "\r"}.get(how) or draw(
        st.sampled_from(["\u2028", "\x85", "\x0c", "\x0b", "\r\r\n", "\n\r"]))
    return "\n".join(lines[:i]) + mark + "\n".join(lines[i:])


def _bom(draw: Any, text: str) -> str:
    how = draw(st.sampled_from(["start", "twice", "inside"]))
    if how == "start":
        return "\ufeff" + text
    if how == "twice":
        return "\ufeff\ufeff" + text
    return _insert(draw, text, "\ufeff")


def _tabs(draw: Any, text: str) -> str:
    if draw(st.booleans()):
        return re.sub(r"(?m)^  ", "\t", text)
    return text.replace(" | ", "\t|\t", draw(st.integers(1, 50)))


def _long_line(draw: Any, text: str, size: int) -> str:
    """A line of `size` characters or so: a repeated token, a long name or number, deep
    brackets, a long sum, a long `else if` chain or a wide table row."""
    n = draw(st.integers(1, size))
    lines = text.splitlines(keepends=True) or ["\n"]
    i = _pick(draw, len(lines))
    how = draw(st.sampled_from(["repeat", "name", "digits", "brackets", "sum", "chain", "row",
                                "indent"]))
    if how == "repeat":
        _, tokens = _tokens(lines[i])
        word = SEPARATOR.split(lines[i])[tokens[0]] if tokens else "x"
        lines[i] = lines[i].rstrip("\n") + (" " + word) * max(1, n // (len(word) + 1)) + "\n"
    elif how == "name":
        lines.insert(i, "enum " + "n" * n + ": A\n")
    elif how == "digits":
        lines.insert(i, f"formula big{i}() = " + "9" * n + "\n")
    elif how == "brackets":
        depth = max(1, n // 2)
        lines.insert(i, f"formula deep{i}(x: 1..2) = " + "(" * depth + "x" + ")" * depth + "\n")
    elif how == "sum":
        lines.insert(i, f"formula long{i}(x: 1..2) = x" + " + x" * max(1, n // 4) + "\n")
    elif how == "chain":
        arms = " ".join(f"if x == {k} then {k} else" for k in range(max(1, n // 20)))
        lines.insert(i, f"formula chain{i}(x: 1..9) = {arms} 0\n")
    elif how == "row":
        lines[i] = "  " + "| x " * max(1, n // 4) + "|\n"
    else:
        lines[i] = " " * n + lines[i]
    return "".join(lines)


@st.composite
def mutations(draw: Any, text: str, long_line: int = 4000) -> str:
    """`text` after one edit; `long_line` caps the length of a made-up long line."""
    edit = draw(st.sampled_from(["line", "line", "token", "token", "token", "number", "number",
                                 "rename", "rename", "unicode", "bytes", "breaks", "bom", "tabs",
                                 "long"]))
    if edit == "number":
        return _number_edit(draw, text)
    if edit == "rename":
        return _rename(draw, text)
    if edit == "line":
        return _line_edit(draw, text)
    if edit == "token":
        return _token_edit(draw, text)
    if edit == "unicode":
        return _insert_unicode(draw, text)
    if edit == "bytes":
        return _insert_random_bytes(draw, text)
    if edit == "breaks":
        return _line_breaks(draw, text)
    if edit == "bom":
        return _bom(draw, text)
    if edit == "tabs":
        return _tabs(draw, text)
    return _long_line(draw, text, long_line)


@st.composite
def mutated_texts(draw: Any, long_line: int = 4000) -> tuple[str, str]:
    """(file name, text): a shipped rulebook, or its start, after one to three mutations."""
    filename, text = draw(rulebook_documents())
    for _ in range(draw(st.integers(1, 3))):
        text = draw(mutations(text, long_line))
    return filename, text


@st.composite
def mutated_bytes(draw: Any) -> bytes:
    """The bytes of a mutated rulebook as a file may hold them: invalid UTF-8, a character cut
    in half, another encoding, a byte-order mark, stray bytes."""
    _, text = draw(mutated_texts(long_line=400))
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16", "cp1252",
                                     "latin-1"]))
    data = text.encode(encoding, errors="replace" if encoding != "utf-8" else "surrogatepass")
    how = draw(st.sampled_from(["none", "insert", "cut", "truncate", "bom", "nul"]))
    at = draw(st.integers(0, len(data)))
    if how == "insert":
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    elif how == "cut":  # drop one byte: often the middle of a multi-byte character
        data = data[:at] + data[at + 1:]
    elif how == "truncate":
        data = data[:at]
    elif how == "bom":
        data = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"])) + data
    elif how == "nul":
        data = data[:at] + b"\x00" + data[at:]
    return data


# ---- grammar-directed programs ----------------------------------------------------------
# A kind is what an expression yields: "int", "num", "bool", "text", "dice", "enum:NAME" (an
# enum's members), "key:NAME" (a record table's row names, its key type), "rows:NAME" (the row
# names of a table whose results read across), "list:KIND", "map:KEY:VALUE", "party:MODEL" (a
# combatant of that model) or "call:PROCEDURE" (what a call of that procedure came to).

RULE_WORDS = frozenset(
    "rulebook enum table by in cells given map list formula combatant derived state combined "
    "procedure roll let choose from default if else then set add to outcome with or and not for "
    "true false none integer number outcomes all call each repeat until at most times the cap "
    "notation adds clamped mod".split())
# Python keywords and the generated code's own prefixes and helpers are ordinary rule names.
ODD_NAMES = ("class", "def", "lambda", "import", "return", "None", "True", "self", "print",
             "eval", "__import__", "_check", "_ctx", "_args", "_names", "pub_x", "f_x", "v_x",
             "p_x", "derive", "seed", "choices", "limits", "épée", "攻撃", "Δx", "İx")
MEMBERS = ("Left", "Right", "Back", "Head", "Arm", "Chest", "Leg", "Bruise", "L Wound",
           "S Wound", "Death", "Parry", "Passive Dodge", "short/stab", "med/cut", "Épée",
           "None", "True", "If", "Zwei Hände", "x", "Q", "N/A", "Stab")
ROWS = ("Sword", "Dagger", "Short sword", "Hand axe", "Club", "Épée", "Net", "No #1", "Pole arm",
        "Shield", "Whip", "Long bow", "Spear/Javelin", "None", "X")
WORDS = ("none", "dead", "passes out", "Head", "see text", "L Arm", "x", "Épée")
ROUNDING = ("floor", "ceil", "round", "round_half_down", "round_half_even", "truncate")
DICE = ("d6", "d20", "2d6", "3d6+2", "d10-1", "4d6kh3", "2d20kl1", "d100", "2d4+12", "d2",
        "5d6dl2", "d1", "3d6dh1", "d%")
# A notation's marks (a mark follows a number in a cell: `12*`) and the dice each adds.
MARKS = ("*", "^", "!", "†")
NOTATION_DICE = ("2d4", "2d6", "2d8", "d10", "1d6", "d%", "3d6kh2")
# Characteristics a combatant's figure is read by (`defender["Will Power"]`): an enum member
# and the field it names.
STATS = ("Strength", "Will Power", "Dexterity", "Constitution", "Size")


class Model:
    """A combatant model as declared: each field's kind, which are state, and the enum whose
    members name some of its fields (`defender[against]`), if any."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: dict[str, str] = {}  # field -> kind ("map:K:V" for maps)
        self.state: dict[str, str] = {}  # state field -> kind
        self.by_enum: str | None = None


class Proc:
    """A procedure as declared: its parameters, for calls, and the outcomes it comes to."""

    def __init__(self, name: str, params: list[tuple[str, str, str]]) -> None:
        self.name = name
        self.params = params  # (name, type as written, kind)
        self.schema: dict[str, dict[str, str]] | None = None  # its `outcomes:` block
        self.outcomes: dict[str, dict[str, str]] = {}  # outcome -> value -> kind, as reached

    def values(self) -> dict[str, str]:
        """The values a caller can read (`c.value`), each of one kind in every outcome."""
        kinds: dict[str, set[str]] = {}
        for values in (self.schema or self.outcomes).values():
            for value, kind in values.items():
                kinds.setdefault(value, set()).add(kind)
        return {v: k.pop() for v, k in kinds.items() if len(k) == 1}


class Declared:
    """What a program has declared so far, so later rules can use it correctly."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.count = 0
        self.enums: dict[str, list[str]] = {}
        self.records: dict[str, dict[str, Any]] = {}  # table -> key type, rows, field kinds
        # (and, for a table of expressions, the figures it is given)
        self.lookups: list[tuple[str, list[str], str, str]] = []  # table, key kinds, value
        # kind, and what follows the brackets (`.lo` for a record cell's field)
        self.pair_tables: dict[str, str] = {}  # `combined by` table -> its enum
        self.across: dict[str, list[str]] = {}  # `results: across` table -> its row names
        self.notations: dict[str, list[str]] = {}  # notation -> its marks ("" for `none`)
        self.formulas: list[tuple[str, list[tuple[str, str]], str]] = []  # name, (type, kind) of
        # each parameter, result kind
        self.models: dict[str, Model] = {}  # the first is the one `rb.combatant` makes
        self.procedures: list[Proc] = []  # declared so far (a call goes to one of these)
        self.current: Proc | None = None  # the procedure being written

    def fresh(self, draw: Any, prefix: str) -> str:
        """A new name: mostly `prefix` and a number, sometimes a Python keyword or a letter of
        another alphabet (the generated code must not care)."""
        if _int(draw, 0, 11) == 0:
            odd = _one(draw, ODD_NAMES)
            if odd not in self.names:
                self.names.add(odd)
                return odd
        self.count += 1
        name = f"{prefix}{self.count}"
        self.names.add(name)
        return name


def _title(draw: Any) -> str:
    return _one(draw, ["", "", ' "A title"', ' "Épée — the ½ table"', ' ""',
                                 ' "Table #2"'])


def _quoted(draw: Any, member: str) -> str:
    bare = re.fullmatch(r"[^\W\d]\w*", member) and member not in RULE_WORDS
    return member if bare and _int(draw, 0, 1) else f'"{member}"'


def _wrap(text: str) -> str:
    """Brackets around a compound expression, so it can stand as an operand."""
    return text if re.fullmatch(r'(?!.*\.\.)([\w."]+|[\w.]+\[[^\[\]]*\]|-?\d+(\.\d+)?)',
                                text) else f"({text})"


@st.composite
def enum_decls(draw: Any, declared: Declared) -> str:
    """`enum NAME "Title": A, "B c", ...`"""
    name = declared.fresh(draw, "e")
    members = draw(st.lists(st.sampled_from(MEMBERS), min_size=1, max_size=5, unique=True))
    declared.enums[name] = members
    return f"enum {name}{_title(draw)}: {', '.join(_quoted(draw, m) for m in members)}\n"


@st.composite
def notation_decls(draw: Any, declared: Declared) -> str:
    """`notation NAME "Title":` with `none adds DICE` and `"*" adds DICE` lines (BT's `12*`)."""
    name = declared.fresh(draw, "dmg")
    marks = draw(st.lists(st.sampled_from(MARKS), max_size=3, unique=True))
    bare = not marks or _int(draw, 0, 2) > 0
    lines = [f"notation {name}{_title(draw)}:\n"]
    if bare:
        lines.append(f"  none adds {_one(draw, NOTATION_DICE)}\n")
    lines += [f'  "{m}" adds {_one(draw, NOTATION_DICE)}\n' for m in marks]
    # A notation without a `none` line reads a bare number as a fixed amount.
    declared.notations[name] = [""] + marks
    return "".join(lines)


def _row(draw: Any, cells: list[str], indent: str = "  ") -> str:
    pad = _one(draw, [0, 1, 3])
    return indent + "|" + "|".join(f" {c}{' ' * pad} " for c in cells) + "|\n"


def _table_text(draw: Any, head: str, header: list[str], rows: list[list[str]],
                options: list[str] = ()) -> str:
    lines = [head]
    lines += [f"  {o}\n" for o in options]
    lines.append(_row(draw, header))
    if _int(draw, 0, 3) == 0:
        lines.append(_row(draw, ["---"] * len(header)))
    lines += [_row(draw, r) for r in rows]
    return "".join(lines)


def _cell(draw: Any, kind: str, declared: Declared) -> str:
    if kind == "int":
        return str(_int(draw, -20, 40))
    if kind == "num":
        return f"{_int(draw, -5, 30)}.{_int(draw, 0, 99)}"
    if kind == "dice":
        return _one(draw, DICE)
    if kind == "record":
        return f"{_int(draw, -5, 9)}/{_int(draw, -5, 9)}"
    if kind.startswith("enum:"):
        return _one(draw, declared.enums[kind[5:]])
    if kind.startswith("notation:"):  # 12, 12*, or dice written out
        marks = declared.notations[kind[9:]]
        return _one(draw, [f"{_int(draw, 0, 20)}{_one(draw, marks)}"] * 3 +
                    [f"{_int(draw, 0, 9)} + 1d6", "2d6", "d%"])
    return _one(draw, WORDS)


# A record table's columns: (header, kind of its cells), and how a column is declared.
COLUMNS = ("A", "B", "DS", "Two Words", "Mod", "Note", "Size", "Damage", "Kind")
DECLARED_AS = {"int": "integer", "num": "number", "text": "name", "dice": "dice"}


@st.composite
def record_tables(draw: Any, declared: Declared) -> str:
    """`table NAME by KEY:` with named columns; rows are the key type's values. A column may be
    declared (`b: integer`, `kind: ENUM`, `damage: NOTATION`) by a line before the rows."""
    name, key = declared.fresh(draw, "t"), declared.fresh(draw, "k")
    rows = draw(st.lists(st.sampled_from(ROWS), min_size=1, max_size=5, unique=True))
    labels = draw(st.lists(st.sampled_from(COLUMNS), min_size=2, max_size=4, unique=True))
    extra = [f"enum:{e}" for e in declared.enums] + [f"notation:{n}" for n in declared.notations]
    kinds = [_one(draw, ["int", "int", "num", "text", "dice"] + extra[:2]) for _ in labels]
    fields, options = {}, []
    for label, kind in zip(labels, kinds):
        field = label.lower().replace(" ", "_")
        if ":" in kind:  # an enum or a notation column is read so only when declared
            options.append(f"{field}: {kind.split(':')[1]}")
        elif _int(draw, 0, 3) == 0:
            options.append(f"{field}: {DECLARED_AS[kind]}")
        fields[field] = "dice" if kind.startswith("notation:") else kind
    blank = _int(draw, 0, 3) == 0
    cells = [[r] + ["" if blank and _int(draw, 0, 4) == 0 else _cell(draw, k, declared)
                    for k in kinds] for r in rows]
    declared.records[name] = {"key": key, "rows": rows, "fields": fields}
    return _table_text(draw, f"table {name}{_title(draw)} by {key}:\n", ["Name"] + labels, cells,
                       draw(st.permutations(options)))


def _key_column(draw: Any, declared: Declared) -> tuple[str, str, list[str], list[str]]:
    """A key down the side: (its declaration, its kind, its printed values, table options)."""
    shape = _one(draw, ["range", "range", "enum", "bands", "numbers", "gaps"])
    if shape == "enum" and declared.enums:
        enum = _one(draw, sorted(declared.enums))
        members = draw(st.permutations(declared.enums[enum]))
        return enum, f"enum:{enum}", list(members), []
    if shape == "bands":
        low, high = sorted(draw(st.lists(st.integers(-20, 30), min_size=2, max_size=2)))
        return "integer", "int", [f"below {low}", f"{low} – {high}", f">{high}"], []
    if shape == "gaps":  # whole numbers left out on purpose (and sometimes not said so)
        low = _int(draw, -20, 10)
        mid = low + _int(draw, 0, 5)
        after = mid + 1 + _int(draw, 1, 3)
        high = after + _int(draw, 0, 5)
        said = ["gaps: allowed"] if _int(draw, 0, 15) != 7 else []
        return "integer", "int", [f"<{low}", f"{low}–{mid}", f"{after} to {high}",
                                  f"{high + 1} and up"], said
    if shape == "numbers":
        return "number", "num", ["0.1–1.9", "2.0–3.9", "4 and up"], []
    size = _int(draw, 1, 8)
    cuts = sorted(draw(st.sets(st.integers(2, size), max_size=size - 1))) if size > 1 else []
    starts = [1] + cuts
    ends = [c - 1 for c in cuts] + [size]
    printed = [str(a) if a == b else f"{a}{_one(draw, ['-', '–', ' to '])}{b}"
               for a, b in zip(starts, ends)]
    return f"1..{size}", "int", printed, []


@st.composite
def cross_tables(draw: Any, declared: Declared) -> str:
    """`table NAME by K1: ..., K2: ENUM -> TYPE:` (a key across the top) or one key `-> TYPE`."""
    name = declared.fresh(draw, "x")
    side_decl, side_kind, side_values, options = _key_column(draw, declared)
    value = _one(draw, ["int", "num", "dice", "text", "record"] +
                 [f"enum:{e}" for e in declared.enums] +
                 [f"notation:{n}" for n in declared.notations])
    cell_type = {"int": "integer", "num": "number", "dice": "dice", "text": "name",
                 "record": "(lo, hi)"}.get(value, value.split(":")[-1])
    keys, header_tail, columns = [side_kind], ["Value"], 1
    head = f"table {name}{_title(draw)} by {declared.fresh(draw, 'r')}: {side_decl}"
    if declared.enums and _int(draw, 0, 1):
        across = _one(draw, sorted(declared.enums))
        header_tail = list(draw(st.permutations(declared.enums[across])))
        columns = len(header_tail)
        keys.append(f"enum:{across}")
        head += f", {declared.fresh(draw, 'c')}: {across}"
    blank_ok = _int(draw, 0, 3) == 0
    if blank_ok:
        options = options + ["blank: above"]
    rows = [[v] + ["" if blank_ok and i and _int(draw, 0, 3) == 0
                   else _cell(draw, value, declared) for _ in range(columns)]
            for i, v in enumerate(side_values)]
    if value == "record":
        declared.lookups += [(name, keys, "num", ".lo"), (name, keys, "num", ".hi")]
    else:
        declared.lookups.append((name, keys, "dice" if value.startswith("notation:") else value,
                                 ""))
    return _table_text(draw, f"{head} -> {cell_type}:\n", ["Key"] + header_tail, rows, options)


@st.composite
def inverted_tables(draw: Any, declared: Declared) -> str:
    """`table NAME by BIAS: ENUM, ROLL: 1..N in cells -> ENUM:` — rolls printed in the cells."""
    if not declared.enums:
        return draw(cross_tables(declared))
    bias, result = (_one(draw, sorted(declared.enums)) for _ in range(2))
    results = declared.enums[result]
    size = draw(st.integers(len(results), len(results) + 5))
    columns = []
    for _ in declared.enums[bias]:
        cuts = sorted(draw(st.sets(st.integers(2, max(2, size)), min_size=len(results) - 1,
                                   max_size=len(results) - 1))) if len(results) > 1 else []
        bounds = list(zip([1] + cuts, [c - 1 for c in cuts] + [size]))
        columns.append([str(a) if a == b else f"{a}–{b}" for a, b in bounds])
    name = declared.fresh(draw, "i")
    rows = [[r] + [col[i] for col in columns] for i, r in enumerate(results)]
    declared.lookups.append((name, [f"enum:{bias}", "int"], f"enum:{result}", ""))
    head = (f"table {name}{_title(draw)} by {declared.fresh(draw, 'b')}: {bias}, "
            f"{declared.fresh(draw, 'r')}: 1..{size} in cells -> {result}:\n")
    options = ["results: down"] if _int(draw, 0, 5) == 0 else []
    return _table_text(draw, head, ["Result"] + declared.enums[bias], rows, options)


@st.composite
def across_tables(draw: Any, declared: Declared) -> str:
    """`table NAME by ROW, D: integer in cells -> ENUM:` with `results: across`: the results
    head the columns and each row prints its own bands (the Missiles Table's ranges)."""
    if not declared.enums:
        return draw(cross_tables(declared))
    result = _one(draw, sorted(declared.enums))
    members = declared.enums[result]
    names = draw(st.lists(st.sampled_from(ROWS), min_size=1, max_size=3, unique=True))
    rows = []
    for row in names:
        cells, at = [], _int(draw, -3, 3)
        for i, _ in enumerate(members):
            if i == len(members) - 1 and _int(draw, 0, 1):
                cells.append(_one(draw, [f">{at - 1}", f"{at}+", f"{at} and up"]))
                break
            width = _int(draw, 0, 9)
            cells.append(str(at) if not width else f"{at}{_one(draw, ['–', '-'])}{at + width}")
            at += width + 1
        if len(cells) > 1 and _int(draw, 0, 3) == 0:  # a row that stops early
            cells = cells[:_int(draw, 1, len(cells) - 1)]
        rows.append([row] + cells + [""] * (len(members) - len(cells)))
    name = declared.fresh(draw, "m")
    declared.across[name] = names
    declared.lookups.append((name, [f"rows:{name}", "int"], f"enum:{result}", ""))
    head = (f"table {name}{_title(draw)} by {declared.fresh(draw, 'w')}, "
            f"{declared.fresh(draw, 'd')}: integer in cells -> {result}:\n")
    return _table_text(draw, head, ["Weapon"] + members, rows, ["results: across"])


@st.composite
def given_tables(draw: Any, declared: Declared) -> str:
    """`table NAME by KEY given A, B:` with `= expression` cells, read from Python and by
    lookups that give the figures (`g["Sword", a = 3, b = 1]`)."""
    name, a, b = (declared.fresh(draw, p) for p in ("g", "ga", "gb"))
    env = {a: "int", b: "int"}
    rows, names = [], draw(st.lists(st.sampled_from(ROWS), min_size=1, max_size=3, unique=True))
    for row in names:
        cell = expression(draw, declared, env, "int", 2) if _int(draw, 0, 1) else \
            str(_int(draw, -5, 20))
        rows.append([row, f"= {cell}" if not cell.lstrip("-").isdigit() else cell])
    key = declared.fresh(draw, "k")
    declared.records[name] = {"key": key, "rows": names, "fields": {}, "given": (a, b)}
    return _table_text(draw, f"table {name}{_title(draw)} by {key} given {a}, {b}:\n",
                       ["Code", "Time"], rows)


@st.composite
def pair_tables(draw: Any, declared: Declared) -> str:
    """`table NAME by held: E, new: E:` — what two items of a state list combine into."""
    if not declared.enums:
        return draw(record_tables(declared))
    enum = _one(draw, sorted(declared.enums))
    members = declared.enums[enum]
    pairs = draw(st.lists(st.tuples(st.sampled_from(members), st.sampled_from(members)),
                          min_size=1, max_size=4, unique=True))
    name = declared.fresh(draw, "acc")
    declared.pair_tables[name] = enum
    rows = [[h, n, _one(draw, members)] for h, n in pairs]
    return _table_text(draw, f"table {name}{_title(draw)} by held: {enum}, new: {enum}:\n",
                       ["Held", "New", "Result"], rows)


# -- expressions, one production per grammar rule -----------------------------------------


def _vars(env: dict[str, str], kind: str) -> list[str]:
    return sorted(n for n, k in env.items() if k == kind)


def _parties(env: dict[str, str], model: str | None = None) -> list[str]:
    """Combatants in scope (of `model`, or of any)."""
    return sorted(n for n, k in env.items()
                  if k.startswith("party:") and (model is None or k[6:] == model))


def _figures(declared: Declared, env: dict[str, str], kind: str) -> list[str]:
    """A combatant's figures of a kind: `p.field`, `p.mount.field` (a held combatant's),
    `p["Will Power"]` and `p[stat]` (by an enum naming fields), and the values of calls."""
    out = []
    for var, vkind in sorted(env.items()):
        if vkind.startswith("call:"):
            proc = next((p for p in declared.procedures if p.name == vkind[5:]), None)
            if proc is not None:
                out += [f"{var}.{v}" for v, k in proc.values().items() if k == kind]
            continue
        model = declared.models.get(vkind[6:]) if vkind.startswith("party:") else None
        if model is None:
            continue
        for field, fkind in model.fields.items():
            if fkind == kind:
                out.append(f"{var}.{field}")
            held = declared.models.get(fkind[6:]) if fkind.startswith("party:") else None
            if held is not None and held is not model:
                out += [f"{var}.{field}.{f}" for f, k in held.fields.items() if k == kind]
        if kind == "int" and model.by_enum:
            out += [f'{var}["{m}"]' for m in declared.enums[model.by_enum]]
            out += [f"{var}[{e}]" for e in _vars(env, f"enum:{model.by_enum}")]
    return out


def _leaves(draw: Any, declared: Declared, env: dict[str, str],
            kind: str) -> list[Callable[[], str]]:
    """Atoms of a kind (drawn only when picked): literals, names in scope, record fields,
    combatant figures, the values calls came to."""
    pick = lambda options: lambda: _one(draw, options)  # noqa: E731
    out = [lambda v=v: v for v in _vars(env, kind)]
    if kind == "int":
        out += [lambda: str(_int(draw, -3, 30)),
                pick(["0", "1", "100", str(10**12)])]
    elif kind == "num":
        out += [lambda: f"{_int(draw, 0, 20)}.{_int(draw, 0, 9)}"]
    elif kind == "bool":
        out += [pick(["true", "false"])]
    elif kind == "text":
        out += [pick([f'"{w}"' for w in WORDS])]
    elif kind == "dice":
        out += [pick(DICE)]
    elif kind.startswith("enum:"):
        out += [pick([f'"{m}"' for m in declared.enums[kind[5:]]])]
    elif kind.startswith("key:"):
        out += [pick([f'"{r}"' for r in declared.records[kind[4:]]["rows"]])]
    elif kind.startswith("rows:"):
        out += [pick([f'"{r}"' for r in declared.across[kind[5:]]])]
    elif kind.startswith("list:") and _leaves(draw, declared, env, kind[5:]):
        item = kind[5:]
        out += [lambda: "[" + ", ".join(expression(draw, declared, env, item, 0)
                                        for _ in range(_int(draw, 1, 3))) + "]"]
    elif kind.startswith("party:"):  # a combatant another holds (`r.mount`)
        held = [f"{p}.{f}" for p in _parties(env)
                for f, k in declared.models[env[p][6:]].fields.items() if k == kind]
        out += [pick(held)] if held else []
    for table, info in declared.records.items():
        for field, fkind in info["fields"].items():
            if fkind == kind:
                out.append(pick([f'{table}["{row}"].{field}' for row in info["rows"]]))
                out += [lambda v=v, f=field: f"{v}.{f}" for v in _vars(env, f"key:{table}")]
    if not kind.startswith("party:"):
        figures = _figures(declared, env, kind)
        out += [pick(figures)] * min(3, len(figures))
    return out


def expression(draw: Any, declared: Declared, env: dict[str, str], kind: str,
                depth: int = 3) -> str:
    """An expression of `kind` (rule `expr` and below), mostly well-typed, `depth` deep."""
    if depth <= 0 or not _int(draw, 0, 2):
        leaves = _leaves(draw, declared, env, kind)
        if leaves:
            return _one(draw, leaves)()
        if depth < -2:
            return "none"  # no value of this kind in scope (callers avoid asking for one)
    sub = lambda k, d=depth - 1: expression(draw, declared, env, k, d)  # noqa: E731
    options: list[Callable[[], str]] = [lambda: f"if {sub('bool')} then {_wrap(sub(kind))} "
                                                f"else {_wrap(sub(kind))}"]
    options += [lambda n=name, ps=params: f"{n}({', '.join(_argument(draw, sub, p) for p in ps)})"
                for name, params, result in declared.formulas if result == kind]
    options += [lambda t=table, ks=keys, f=field: f"{t}[{', '.join(sub(k) for k in ks)}]{f}"
                for table, keys, value, field in declared.lookups if value == kind]
    if kind in ("int", "num"):
        options += _arithmetic(draw, declared, env, kind, sub)
    elif kind == "bool":
        options += _conditions(draw, declared, env, sub)
    elif kind == "dice":
        options += [lambda: f"{_wrap(sub('dice'))} + {_wrap(sub('int'))}",
                    lambda: f"max(1, {sub('dice')} - {_wrap(sub('int'))})",
                    lambda: f"min({sub('int')}, {sub('dice')})",
                    lambda: f"dice({sub('int', 0)}, {sub('int', 0)})",
                    lambda: f"{_wrap(sub('dice'))} + {_wrap(sub('dice'))}"]
    elif kind.startswith("list:"):
        options += _lists(draw, declared, env, kind[5:], depth)
    if kind != "bool" and not kind.startswith(("list:", "dice", "call:", "map:")):
        # `argmin`/`argmax`: the item of a collection whose figure is least or greatest.
        over = [c for item, c in _collections(draw, declared, env) if item == kind]
        if over:
            options.append(lambda: _aggregate(draw, declared, env, _one(draw, ["argmin",
                                                                             "argmax"]),
                                              _one(draw, over), kind, _sort_key, depth))
    return _one(draw, options)()


def _argument(draw: Any, sub: Callable[..., str], param: tuple[str, str]) -> str:
    """An argument for a parameter declared `(type as written, kind)`: for a range, often a
    number inside it (a number outside is a compile error, which would end the program)."""
    written, kind = param
    if ".." in written and _int(draw, 0, 3):
        low, high = written.split("..")
        if kind == "int":
            return str(_int(draw, int(low), int(high)))
        return str(draw(st.decimals(low, high, places=1)))
    return sub(kind)


def _collections(draw: Any, declared: Declared,
                 env: dict[str, str]) -> list[tuple[str, Callable[[], str]]]:
    """What an aggregate, `in`, `len`, `count` or `for each` goes over, as (item kind, code):
    a list, a range `1..6`, an enum by its name, a record table by its name or its row type,
    a map (its keys), a list in scope, combatants in a list."""
    sub = lambda k: expression(draw, declared, env, k, 0)  # noqa: E731
    out: list[tuple[str, Callable[[], str]]] = [
        ("int", lambda: f"[{', '.join(sub('int') for _ in range(_int(draw, 1, 3)))}]"),
        ("int", lambda: f"{_int(draw, -2, 3)}..{_int(draw, 0, 8)}"),
        ("int", lambda: f"1..{_wrap(sub('int'))}"),
    ]
    out += [(f"enum:{e}", lambda e=e: e) for e in declared.enums]
    for table, info in declared.records.items():
        out += [(f"key:{table}", lambda t=table: t),
                (f"key:{table}", lambda k=info["key"]: k)]
    out += [(_map_parts(kind)[0], lambda c=code: c) for code, kind in _maps(declared, env)]
    for name, kind in sorted(env.items()):
        if kind.startswith("list:"):
            out.append((kind[5:], lambda n=name: n))
    for party in _parties(env):
        model = declared.models[env[party][6:]]
        out += [(kind[5:], lambda c=f"{party}.{f}": c) for f, kind in model.fields.items()
                if kind.startswith("list:")]
    for model in sorted({env[p] for p in _parties(env)}):
        same = _vars(env, model)
        out.append((model, lambda s=same: "[" + ", ".join(
            draw(st.lists(st.sampled_from(s), min_size=1, max_size=3))) + "]"))
    return out


def _aggregate(draw: Any, declared: Declared, env: dict[str, str], how: str,
               collection: Callable[[], str], item: str,
               body: Callable[..., str], depth: int) -> str:
    """`HOW(BODY for NAME in COLLECTION)`, the body seeing NAME as an item of the kind."""
    var = declared.fresh(draw, "w")
    return f"{how}({body(draw, declared, {**env, var: item}, depth - 1)} for {var} in " \
           f"{collection()})"


def _sort_key(draw: Any, declared: Declared, env: dict[str, str], depth: int) -> str:
    """What `argmin`, `argmax` and the sorts compare: a number or a list of numbers."""
    if _int(draw, 0, 3) == 0:
        return f"[{expression(draw, declared, env, 'int', depth)}, " \
               f"{expression(draw, declared, env, 'num', 0)}]"
    return expression(draw, declared, env, _one(draw, ["int", "num"]), depth)


def _body(kind: str) -> Callable[..., str]:
    return lambda draw, declared, env, depth: expression(draw, declared, env, kind,
                                                         max(depth, 0))


def _lists(draw: Any, declared: Declared, env: dict[str, str], item: str,
           depth: int) -> list[Callable[[], str]]:
    """Lists of a kind: made item by item, sorted from a collection, joined with `+`."""
    options = [lambda: f"{_wrap(expression(draw, declared, env, 'list:' + item, depth - 1))} + "
                       f"{_wrap(expression(draw, declared, env, 'list:' + item, depth - 1))}"]
    collections = _collections(draw, declared, env)
    options.append(lambda: _comprehension(draw, declared, env, item, depth))
    options += [lambda c=c: _aggregate(draw, declared, env,
                                       _one(draw, ["sort", "sort_descending"]), c, item,
                                       _sort_key, depth)
                for kind, c in collections if kind == item][:2]
    return options


def _comprehension(draw: Any, declared: Declared, env: dict[str, str], item: str,
                   depth: int) -> str:
    """`[EXPR for NAME in COLLECTION]`."""
    over, collection = _one(draw, _collections(draw, declared, env))
    var = declared.fresh(draw, "w")
    made = expression(draw, declared, {**env, var: over}, item, max(0, depth - 1))
    return f"[{made} for {var} in {collection()}]"


def _arithmetic(draw: Any, declared: Declared, env: dict[str, str], kind: str,
                sub: Callable[..., str]) -> list[Callable[[], str]]:
    """`sum`, `product`, `mod`, `unary`, rounding, the dice figures, aggregates over every
    collection and the other functions of numbers."""
    num = _one(draw, ["int", "num"]) if kind == "num" else "int"
    var = f"w{declared.count + 1}"
    options = [
        lambda: f"{_wrap(sub(num))} {_one(draw, '+-*')} {_wrap(sub(num))}",
        lambda: f"{_wrap(sub(num))} mod {_wrap(sub(num))}",
        lambda: f"-{_wrap(sub(kind))}",
        lambda: f"{_one(draw, ['min', 'max'])}({sub(kind)}, {sub(kind)})",
        lambda: f"abs({sub(kind)})",
        lambda: f"{_one(draw, ROUNDING)}({sub('num')})",
        lambda: f"len([{', '.join(sub('int', 0) for _ in range(_int(draw, 0, 3)))}])",
        lambda: f"count([{sub('int', 0)}, {sub('int', 0)}], {sub('int', 0)})",
        lambda: f"{_one(draw, ['sum', 'max', 'min'])}("
                f"{expression(draw, declared, {**env, var: 'int'}, 'int', 1)} for {var} in "
                f"[{sub('int', 0)}, {sub('int', 0)}])",
        lambda: f"{_one(draw, ['maximum', 'minimum'])}({sub('dice')})",
    ]
    depth = 1 if kind == "int" else 0
    collections = _collections(draw, declared, env)
    options += [
        lambda: (lambda item, c: _aggregate(draw, declared, env, _one(draw, ["sum", "max", "min"]),
                                            c, item, _body(kind), depth))(
            *_one(draw, collections)),
        lambda: (lambda item, c: _aggregate(draw, declared, env, "count", c, item,
                                            _body("bool"), depth))(*_one(draw, collections)),
        lambda: f"len({_one(draw, collections)[1]()})",
        lambda: (lambda item, c: f"count({c()}, {sub(item, 0)})")(*_one(draw, collections)),
    ]
    for table, info in declared.records.items():
        if "given" in info:  # a table expression worked out with its figures
            figures = [f for f in info["given"] if _int(draw, 0, 7)]
            options += [lambda t=table, fs=figures: f"{t}[{sub('key:' + t, 0)}"
                        + "".join(f", {f} = {sub('int', 0)}" for f in fs) + "]"] * 3
    for code, mkind in _maps(declared, env):
        if mkind.endswith(":int"):
            options.append(lambda m=code: f"{_one(draw, ['sum', 'max', 'min'])}("
                                          f"{m}[{var}] for {var} in {m})")
            options.append(lambda m=code, k=_map_parts(mkind)[0]: f"{m}[{sub(k, 0)}]")
        else:
            options.append(lambda m=code: f"len(flatten({m}))")
            options.append(lambda m=code, k=_map_parts(mkind)[0]: f"len({m}[{sub(k, 0)}])")
            options.append(lambda m=code, k=_map_parts(mkind)[1][5:]:
                           f"count(flatten({m}), {sub(k, 0)})")
    if kind == "num":
        options += [lambda: f"{_wrap(sub(num))} / {_wrap(sub(num))}",
                    lambda: f"round({sub('num')}, {_int(draw, 1, 3)})",
                    lambda: f"{_one(draw, ['ln', 'sqrt'])}({sub('num')})",
                    lambda: f"mean({sub('dice')})"]
    return options


def _maps(declared: Declared, env: dict[str, str]) -> list[tuple[str, str]]:
    """Maps in scope as (code, kind): a combatant's map fields, bare inside the combatant."""
    found = [(name, kind) for name, kind in env.items() if kind.startswith("map:")]
    for party in _parties(env):
        model = declared.models[env[party][6:]]
        found += [(f"{party}.{f}", k) for f, k in model.fields.items() if k.startswith("map:")]
    return sorted(found)


def _conditions(draw: Any, declared: Declared, env: dict[str, str],
                sub: Callable[..., str]) -> list[Callable[[], str]]:
    """`comparison`, `not_expr`, `and_expr`, `or_expr`, `in` (a list, a range, any collection),
    `any`/`all`, and what a call came to (`save == "made"`)."""
    num = _one(draw, ["int", "num"])
    var = f"w{declared.count + 1}"
    collections = _collections(draw, declared, env)
    options = [
        lambda: f"{_wrap(sub(num))} {_one(draw, ['==', '!=', '<', '<=', '>', '>='])} "
                f"{_wrap(sub(num))}",
        lambda: f"not {_wrap(sub('bool'))}",
        lambda: f"{_wrap(sub('bool'))} {_one(draw, ['and', 'or'])} {_wrap(sub('bool'))}",
        lambda: f"{_wrap(sub('int'))} {_one(draw, ['in', 'not in'])} "
                f"[{sub('int', 0)}, {sub('int', 0)}]",
        lambda: f"{_wrap(sub('int'))} {_one(draw, ['in', 'not in'])} "
                f"{_wrap(sub('int', 0))}..{_wrap(sub('int', 0))}",
        lambda: f"{_one(draw, ['any', 'all'])}({var} > {sub('int', 0)} for {var} in "
                f"[{sub('int', 0)}, {sub('int', 0)}])",
        lambda: (lambda item, c: _aggregate(draw, declared, env, _one(draw, ["any", "all"]),
                                            c, item, _body("bool"), 1))(
            *_one(draw, collections)),
        lambda: (lambda item, c: f"{_wrap(sub(item, 0))} {_one(draw, ['in', 'not in'])} "
                                 f"{c()}")(*_one(draw, collections)),
    ]
    for code, mkind in _maps(declared, env):
        key, value = _map_parts(mkind)
        options.append(lambda m=code, k=key: f"{sub(k, 0)} in {m}")
        if value.startswith("list:"):
            options.append(lambda m=code, k=value[5:]: f"{_one(draw, ['any', 'all'])}("
                                                       f"{var} == {sub(k, 0)} for {var} in "
                                                       f"flatten({m}))")
    for enum in declared.enums:
        options.append(lambda e=enum: f"{_wrap(sub('enum:' + e))} "
                                      f"{_one(draw, ['==', '!='])} {sub('enum:' + e, 0)}")
    for name, kind in sorted(env.items()):
        proc = next((p for p in declared.procedures if f"call:{p.name}" == kind), None)
        if proc is not None and (proc.schema or proc.outcomes):
            reached = sorted(proc.schema or proc.outcomes)
            options += [lambda n=name, o=reached: f"{n} {_one(draw, ['==', '!='])} "
                                                  f'"{_one(draw, o)}"'] * 2
    return options


# -- formulas, combatant, procedures ------------------------------------------------------


def _param_types(draw: Any, declared: Declared, count: int) -> list[tuple[str, str]]:
    """(type as written, kind) for `count` parameters."""
    out = []
    for _ in range(count):
        choices = [("1..20", "int"), ("-5..5", "int"), ("0..0", "int"), ("integer", "int"),
                   ("0.0..20.0", "num"), ("number", "num"), ("bool", "bool"), ("dice", "dice"),
                   ("list integer", "list:int")]
        choices += [(e, f"enum:{e}") for e in declared.enums]
        choices += [(info["key"], f"key:{t}") for t, info in declared.records.items()]
        out.append(_one(draw, choices))
    return out


@st.composite
def formula_decls(draw: Any, declared: Declared) -> str:
    """`formula NAME(p: TYPE, ...) "Title" = EXPR` (it may call the formulas above it)."""
    name = declared.fresh(draw, "f")
    types = _param_types(draw, declared, _int(draw, 0, 3))
    params = [(declared.fresh(draw, "a"), written, kind) for written, kind in types]
    env = {p: kind for p, _, kind in params}
    result = _one(draw, ["int", "int", "num", "bool"] +
                                  [f"enum:{e}" for e in declared.enums])
    body = expression(draw, declared, env, result, 3)
    written = []
    for p, text, kind in params:
        default = ""
        if kind == "int" and text.count("..") and _int(draw, 0, 3) == 0:
            default = f" = {text.split('..')[0]}"
        written.append(f"{p}: {text}{default}")
    declared.formulas.append((name, [(w, k) for _, w, k in params], result))
    if " + " in body and _int(draw, 0, 4) == 0:  # a long expression continues inside ( … )
        body = "(" + body.replace(" + ", "\n    + ", 1) + ")"
    return f"formula {name}({', '.join(written)}){_title(draw)} = {body}\n"


def _held_model(draw: Any, declared: Declared) -> str:
    """A second model (a horse), whose combatant the first holds: `combatant NAME:` with a
    characteristic or two and a state that may be `clamped`."""
    model = Model(declared.fresh(draw, "horse"))
    lines = [f"combatant {model.name}{_title(draw)}:\n"]
    for _ in range(_int(draw, 1, 2)):
        field = declared.fresh(draw, "speed")
        lines.append(f"  {field}: 1..{_int(draw, 1, 30)}\n")
        model.fields[field] = "int"
    field = declared.fresh(draw, "stamina")
    clamped = " clamped" if _int(draw, 0, 1) else ""
    lines.append(f"  state {field}: 0..20 = {_int(draw, 0, 20)}{clamped}\n")
    model.fields[field] = model.state[field] = "int"
    declared.models[model.name] = model
    return "".join(lines)


@st.composite
def combatant_decls(draw: Any, declared: Declared, held: bool = True) -> str:
    """`combatant NAME:` characteristics, equipment, state (maybe `combined by`, maybe
    `clamped`) and derived; sometimes an enum whose members name some of its fields, and (when
    `held`) a second model whose combatant it holds (a rider's horse, which no fighter file
    can give)."""
    name = declared.fresh(draw, "fighter")
    model = Model(name)
    declared.models[name] = model
    lines = [f"combatant {name}{_title(draw)}:\n"]
    before, after = "", ""
    fields: dict[str, str] = {}
    for _ in range(_int(draw, 1, 3)):
        field = declared.fresh(draw, "ch")
        written, kind = _param_types(draw, declared, 1)[0]
        lines.append(f"  {field}: {written}\n")
        fields[field] = kind
    if _int(draw, 0, 2) == 0:  # `defender[against]`: an enum naming some fields
        enum = declared.fresh(draw, "stat")
        members = [f"{m}{declared.count}" for m in
                   draw(st.lists(st.sampled_from(STATS), min_size=1, max_size=3, unique=True))]
        for member in members:
            field = member.lower().replace(" ", "_")
            declared.names.add(field)
            lines.append(f"  {field}: {_one(draw, ['1..20', '0..5', 'integer'])}\n")
            fields[field] = "int"
        before += f"enum {enum}: {', '.join(_quoted(draw, m) for m in members)}\n"
        declared.enums[enum] = members
        model.by_enum = enum
    for table, info in list(declared.records.items())[:1]:
        field = declared.fresh(draw, "tr")
        lines.append(f"  {field}: map {info['key']} -> 1..10\n")
        fields[field] = f"map:key:{table}:int"
    state: dict[str, str] = {}
    if held and _int(draw, 0, 2) == 0:  # a rider's horse
        after = _held_model(draw, declared)
        held = list(declared.models)[-1]
        field = declared.fresh(draw, "mount")
        role = "state " if _int(draw, 0, 3) else ""
        lines.append(f"  {role}{field}: {held}\n")
        fields[field] = f"party:{held}"
        if role:
            state[field] = f"party:{held}"
    field = declared.fresh(draw, "hp")
    if _int(draw, 0, 1):
        lines.append(f"  state {field}: integer = {_int(draw, 0, 20)}\n")
    else:
        clamped = " clamped" if _int(draw, 0, 2) else ""
        lines.append(f"  state {field}: 0..30 = {_int(draw, 0, 30)}{clamped}\n")
    state[field] = "int"
    if declared.enums:
        enum = _one(draw, sorted(declared.enums))
        field = declared.fresh(draw, "marks")
        pair = [t for t, e in declared.pair_tables.items() if e == enum]
        combined = f" combined by {pair[0]}" if pair and _int(draw, 0, 1) else ""
        lines.append(f"  state {field}: map {enum} -> list {enum}{combined}\n")
        state[field] = f"map:enum:{enum}:list:enum:{enum}"
        field = declared.fresh(draw, "tally")
        lines.append(f"  state {field}: map {enum} -> integer\n")
        state[field] = f"map:enum:{enum}:int"
        field = declared.fresh(draw, "log")
        lines.append(f"  state {field}: list {enum}\n")
        state[field] = f"list:enum:{enum}"
    fields.update(state)
    model.fields, model.state = fields, state
    for _ in range(_int(draw, 0, 3)):
        field = declared.fresh(draw, "dv")
        env = dict(fields)
        kind = _one(draw, ["int", "num", "bool"])
        lines.append(f"  derived {field} = {expression(draw, declared, env, kind, 2)}\n")
        fields[field] = kind
    return before + "".join(lines) + after


def _map_parts(kind: str) -> tuple[str, str]:
    """`map:KEYKIND:VALUEKIND` → (key kind, value kind); kinds may hold colons themselves."""
    rest = kind[4:]
    key_len = 2 if rest.startswith(("enum:", "key:")) else 1
    parts = rest.split(":")
    return ":".join(parts[:key_len]), ":".join(parts[key_len:])


# Kinds a `let` step, an outcome's value or a joined name may hold.
def _value_kinds(declared: Declared) -> list[str]:
    return ["int", "int", "num", "bool"] + [f"enum:{e}" for e in sorted(declared.enums)]


def simple_step(draw: Any, declared: Declared, env: dict[str, str], indent: str) -> str:
    """A `roll`, `let`, `choose`, `set` or `add` step (binds names into `env`): a `let` may
    name a combatant (`let loser = if … then a else b`), a list, or a value an outcome of
    the procedure's `outcomes:` block carries."""
    parties = _parties(env)
    schema = declared.current.schema if declared.current else None
    carried = sorted({v: k for o in (schema or {}).values() for v, k in o.items()}.items())
    kinds = ["roll", "let", "let", "list"] + \
        (["choose", "change", "change", "party"] if parties else []) + \
        (["value", "value"] if carried else [])
    step = _one(draw, kinds)
    if step == "roll":
        name = declared.fresh(draw, "r")
        text = f"roll {name} = {expression(draw, declared, env, 'dice', 2)}"
        env[name] = "int"
    elif step == "let":
        kind = _one(draw, _value_kinds(declared))
        name = declared.fresh(draw, "v")
        text = f"let {name} = {expression(draw, declared, env, kind, 2)}"
        env[name] = kind
    elif step == "list":
        kind = "list:" + _one(draw, ["int"] + [f"enum:{e}" for e in sorted(declared.enums)])
        name = declared.fresh(draw, "xs")
        text = f"let {name} = {expression(draw, declared, env, kind, 2)}"
        env[name] = kind
    elif step == "value":
        name, kind = _one(draw, carried)
        text = f"let {name} = {expression(draw, declared, env, kind, 2)}"
        env[name] = kind
    elif step == "party":
        party = _one(draw, parties)
        name = declared.fresh(draw, "who")
        text = f"let {name} = {expression(draw, declared, env, env[party], 2)}"
        env[name] = env[party]
    elif step == "choose":
        name, party = declared.fresh(draw, "pick"), _one(draw, parties)
        how = _int(draw, 0, 2)
        if declared.enums and how == 0:
            enum = _one(draw, sorted(declared.enums))
            default = _one(draw, declared.enums[enum])
            text = f'choose {name} by {party} from {enum} default "{default}"'
            env[name] = f"enum:{enum}"
        elif how == 1:
            high = _int(draw, 1, 6)
            text = f"choose {name} by {party} from 1..{high} default {_int(draw, 1, high)}"
            env[name] = "int"
        else:
            options = draw(st.lists(st.integers(0, 9), min_size=1, max_size=4, unique=True))
            text = (f"choose {name} by {party} from [{', '.join(map(str, options))}] "
                    f"default {_one(draw, options)}")
            env[name] = "int"
    else:
        text = _change(draw, declared, env, _one(draw, parties))
    return f"{indent}{text}\n"


def _change(draw: Any, declared: Declared, env: dict[str, str], party: str) -> str:
    """`set PARTY.FIELD[...] = EXPR` or `add EXPR to PARTY.FIELD[...]` (a held combatant is
    set to a party of its model: `set r.mount = h`)."""
    state = declared.models[env[party][6:]].state
    fields = [f for f, k in state.items() if not k.startswith("party:") or _vars(env, k)]
    field = _one(draw, sorted(fields))
    kind = state[field]
    target = f"{party}.{field}"
    if kind.startswith("party:"):
        return f"set {target} = {_one(draw, _vars(env, kind))}"
    if kind.startswith("map:"):
        key, kind = _map_parts(kind)
        target += f"[{expression(draw, declared, env, key, 1)}]"
    if kind.startswith("list:"):
        return f"add {expression(draw, declared, env, kind[5:], 1)} to {target}"
    value = expression(draw, declared, env, kind, 2)
    return f"set {target} = {value}" if _int(draw, 0, 1) else f"add {value} to {target}"


def outcome_step(draw: Any, declared: Declared, env: dict[str, str], indent: str,
                 name: str | None = None) -> str:
    """`outcome NAME "Title" with (k = v, ...)`. Under an `outcomes:` block, one of its
    outcomes, each value given or (when a value of its name is set) filled from it."""
    proc = declared.current
    values = []
    if proc is not None and proc.schema:
        if name is None:
            name = _one(draw, sorted(proc.schema))
        for value, kind in proc.schema[name].items():
            if env.get(value) == kind and _int(draw, 0, 3):
                continue  # filled from the value of the same name
            if _int(draw, 0, 99) == 50:
                continue  # nothing to fill it with, most likely: a compile error
            values.append(f"{value} = {expression(draw, declared, env, kind, 1)}")
        proc.outcomes[name] = dict(proc.schema[name])
    else:
        name = name or _one(draw, ["hit", "miss", "done", "class", declared.fresh(draw, "o")])
        kinds = _value_kinds(declared) + sorted(
            {k for k in env.values() if not k.startswith(("party:", "call:", "list:party:"))})
        given = {}
        for _ in range(_int(draw, 0, 3)):
            value, kind = declared.fresh(draw, "k"), _one(draw, kinds)
            given[value] = kind
            values.append(f"{value} = {expression(draw, declared, env, kind, 1)}")
        if proc is not None:
            proc.outcomes.setdefault(name, {}).update(given)
    if not values:
        return f"{indent}outcome {name}{_title(draw)}\n"
    if len(values) == 1 and _int(draw, 0, 1):
        return f"{indent}outcome {name}{_title(draw)} with {values[0]}\n"
    return f"{indent}outcome {name}{_title(draw)} with ({', '.join(values)})\n"


def _callees(declared: Declared, env: dict[str, str]) -> list[Proc]:
    """The procedures declared above that a call here can give every argument."""
    return [p for p in declared.procedures
            if all(_vars(env, k) or (k.startswith("list:party:") and _vars(env, k[5:]))
                   for _, _, k in p.params if k.startswith(("party:", "list:party:")))]


def call_step(draw: Any, declared: Declared, env: dict[str, str], indent: str) -> str:
    """`call NAME = PROCEDURE(args)`: an earlier procedure (so never a circle); NAME is then
    what it came to, compared with its outcomes and read by its values."""
    callees = _callees(declared, env)
    if not callees:
        return simple_step(draw, declared, env, indent)
    proc = _one(draw, callees)
    args = []
    for param, written, kind in proc.params:
        if kind.startswith("list:party:") and not _vars(env, kind):
            arg = "[" + ", ".join(draw(st.lists(st.sampled_from(_vars(env, kind[5:])),
                                                min_size=1, max_size=3))) + "]"
        elif kind.startswith("party:") or kind.startswith("list:party:"):
            arg = _one(draw, _vars(env, kind))
        else:
            arg = _argument(draw, lambda k, d=1: expression(draw, declared, env, k, d),
                            (written, kind))
        args.append(arg)
    if args and _int(draw, 0, 3) == 0:  # named arguments, in another order
        named = [f"{p} = {a}" for (p, _, _), a in zip(proc.params, args)]
        args = list(draw(st.permutations(named)))
    name = declared.fresh(draw, "c")
    env[name] = f"call:{proc.name}"
    return f"{indent}call {name} = {proc.name}({', '.join(args)})\n"


def for_step(draw: Any, declared: Declared, env: dict[str, str], indent: str,
             depth: int) -> str:
    """`for each NAME in COLLECTION:` — over a list, a range, an enum, a map's keys, a table
    by name, or combatants (changing each); sometimes adding up into a name set before it."""
    inner = indent + _one(draw, ["  ", "    "])
    options = _collections(draw, declared, env)
    fighters = [o for o in options if o[0].startswith("party:")]
    item, collection = _one(draw, fighters if fighters and _int(draw, 0, 1) else options)
    var = declared.fresh(draw, "x")
    inside = {**env, var: item}
    text, body = "", ""
    if _int(draw, 0, 2) == 0:
        total = declared.fresh(draw, "total")
        text += f"{indent}let {total} = 0\n"
        more = _wrap(expression(draw, declared, inside, "int", 1))
        body += f"{inner}let {total} = {total} + {more}\n"
        env[total] = inside[total] = "int"
    if item.startswith("party:"):
        body += f"{inner}{_change(draw, declared, inside, var)}\n"
    body += block(draw, declared, inside, inner, depth, ends=False)
    if _int(draw, 0, 5) == 0:
        body += _exit(draw, declared, inside, inner)
    if _int(draw, 0, 30) == 15:  # names set only in the loop read after it: a compile error
        env.update({n: k for n, k in inside.items() if n != var})
    return f"{text}{indent}for each {var} in {collection()}:\n{body}"


def repeat_step(draw: Any, declared: Declared, env: dict[str, str], indent: str,
                depth: int) -> str:
    """`repeat until COND, at most N times:` and maybe `at the cap:`; the block runs at least
    once, so what it sets is set after it."""
    inner = indent + _one(draw, ["  ", "    "])
    inside = dict(env)
    body = ""
    if _int(draw, 0, 1):
        roll = declared.fresh(draw, "r")
        body += f"{inner}roll {roll} = {_one(draw, DICE)}\n"
        inside[roll] = "int"
    body += block(draw, declared, inside, inner, depth, ends=False)
    if _int(draw, 0, 5) == 0:
        body += _exit(draw, declared, inside, inner)
    until = expression(draw, declared, inside, "bool", 2)
    cap = str(_int(draw, 1, 5)) if _int(draw, 0, 5) else \
        _wrap(expression(draw, declared, env, "int", 1))
    text = f"{indent}repeat until {until}, at most {cap} times:\n{body}"
    if _int(draw, 0, 2):
        text += f"{indent}at the cap:\n"
        text += block(draw, declared, dict(inside), inner, depth, ends=bool(_int(draw, 0, 1)))
    env.update(inside)
    return text


def _exit(draw: Any, declared: Declared, env: dict[str, str], indent: str) -> str:
    """`if COND:` and an outcome, without an `else` (an early way out of a loop)."""
    return (f"{indent}if {expression(draw, declared, env, 'bool', 1)}:\n"
            + outcome_step(draw, declared, dict(env), indent + "  "))


def step(draw: Any, declared: Declared, env: dict[str, str], indent: str, depth: int) -> str:
    """One step that does not end the procedure: mostly a simple one; a call, a loop."""
    how = _int(draw, 0, 11)
    if how < 2 and _callees(declared, env):
        return call_step(draw, declared, env, indent)
    if depth > 0 and how == 2:
        return for_step(draw, declared, env, indent, depth - 1)
    if depth > 0 and how == 3:
        return repeat_step(draw, declared, env, indent, depth - 1)
    return simple_step(draw, declared, env, indent)


def block(draw: Any, declared: Declared, env: dict[str, str], indent: str, depth: int,
           ends: bool = True) -> str:
    """Steps at one indentation; when `ends`, every path through them reaches an outcome."""
    text = "".join(step(draw, declared, env, indent, depth) for _ in range(_int(draw, 0, 3)))
    if depth > 0 and _int(draw, 0, 3) == 0:
        text += if_step(draw, declared, env, indent, depth - 1, ends=False)
    if not ends:
        return text or simple_step(draw, declared, env, indent)
    if depth > 0 and _int(draw, 0, 1):
        return text + if_step(draw, declared, env, indent, depth - 1, ends=True)
    return text + outcome_step(draw, declared, env, indent)


def if_step(draw: Any, declared: Declared, env: dict[str, str], indent: str, depth: int,
             ends: bool) -> str:
    """`if C:` block, `else if C:` blocks, `else:` block (always there when it must end).
    A name may be set in every branch (then read after), or set to `none` first and in some
    branches; rarely set in some branches only and read after all (a compile error)."""
    inner = indent + _one(draw, ["  ", "    "])
    joined, how, text = None, "", ""
    if not ends and _int(draw, 0, 2) == 0:
        joined, kind = declared.fresh(draw, "j"), _one(draw, _value_kinds(declared))
        how = _one(draw, ["every", "every", "none", "none"] + ["some"] * (_int(draw, 0, 9) == 5))
        if how == "none":
            text += f"{indent}let {joined} = none\n"
    arms = _int(draw, 1, 3)
    otherwise = ends or how == "every" or _int(draw, 0, 1)
    for i in range(arms + otherwise):
        if i < arms:
            word = "if" if i == 0 else "else if"
            text += f"{indent}{word} {expression(draw, declared, env, 'bool', 2)}:\n"
        else:
            text += f"{indent}else:\n"
        branch = dict(env)
        text += block(draw, declared, branch, inner, depth, ends)
        if joined and not (how == "some" and i == 0) and (how != "none" or _int(draw, 0, 2)):
            text += f"{inner}let {joined} = {expression(draw, declared, branch, kind, 1)}\n"
    if joined:
        env[joined] = kind
    return text


def _outcomes_block(draw: Any, declared: Declared, proc: Proc) -> str:
    """`outcomes:` with `all with …` and `NAME "Title" with …` lines (sets `proc.schema`)."""
    shared = {declared.fresh(draw, "k"): _one(draw, _value_kinds(declared))
              for _ in range(_int(draw, 0, 2))}
    names = list(dict.fromkeys(_one(draw, ["hit", "miss", "done", declared.fresh(draw, "o")])
                               for _ in range(_int(draw, 1, 3))))
    lines = ["  outcomes:\n"]
    if shared:
        lines.append(f"    all with {', '.join(shared)}\n")
    proc.schema = {}
    for name in names:
        own = {declared.fresh(draw, "k"): _one(draw, _value_kinds(declared))
               for _ in range(_one(draw, [0, 0, 1, 2]))}
        carries = f" with {', '.join(own)}" if own else ""
        lines.append(f"    {name}{_title(draw)}{carries}\n")
        proc.schema[name] = {**shared, **own}
    return "".join(lines)


@st.composite
def procedure_decls(draw: Any, declared: Declared) -> str:
    """`procedure NAME "Title" (a: fighter, n: 1..6, ...):`, maybe an `outcomes:` block, and
    its steps; it may call the procedures above it."""
    name = declared.fresh(draw, "p")
    params = []
    models = list(declared.models)
    if models:
        params += [(declared.fresh(draw, "party"), models[0], f"party:{models[0]}")
                   for _ in range(_int(draw, 1, 2))]
        if len(models) > 1 and _int(draw, 0, 1):
            params.append((declared.fresh(draw, "steed"), models[1], f"party:{models[1]}"))
        if _int(draw, 0, 3) == 0:
            params.append((declared.fresh(draw, "band"), f"list {models[0]}",
                           f"list:party:{models[0]}"))
        stats = declared.models[models[0]].by_enum
        if stats and _int(draw, 0, 1):  # `defender[against]`
            params.append((declared.fresh(draw, "against"), stats, f"enum:{stats}"))
    params += [(declared.fresh(draw, "n"), written, kind)
               for written, kind in _param_types(draw, declared, _int(draw, 0, 2))]
    proc = Proc(name, params)
    declared.current = proc
    env = {p: kind for p, _, kind in params}
    head = _outcomes_block(draw, declared, proc) if _int(draw, 0, 2) == 0 else ""
    body = block(draw, declared, env, "  ", 2)
    guards = ""
    if proc.schema:  # every declared outcome must be reached by some step
        for outcome in [o for o in proc.schema if o not in proc.outcomes]:
            first = {p: kind for p, _, kind in params}
            guards += f"  if {expression(draw, declared, first, 'bool', 1)}:\n"
            guards += outcome_step(draw, declared, first, "    ", outcome)
    declared.current = None
    declared.procedures.append(proc)
    signature = ", ".join(f"{p}: {t}" for p, t, _ in params)
    return f"procedure {name}{_title(draw)} ({signature}):\n{head}{guards}{body}"


def program(draw: Any) -> tuple[str, Declared]:
    """A whole rule file (rule `start`): rulebook, enums, notations, tables, formulas,
    combatant models and procedures; declared in dependency order, or shuffled (the language
    allows any order)."""
    declared = Declared()
    head = f"rulebook {declared.fresh(draw, 'book')}{_title(draw)}\n"
    if _int(draw, 0, 1):
        head += '  source: "generated"\n  clock: "tenths"\n'
    parts = [draw(enum_decls(declared)) for _ in range(_int(draw, 0, 3))]
    if _int(draw, 0, 2) == 0:
        parts.append(draw(notation_decls(declared)))
    tables = [record_tables, record_tables, cross_tables, cross_tables, inverted_tables,
              given_tables, pair_tables, across_tables]
    parts += [draw(_one(draw, tables)(declared)) for _ in range(_int(draw, 0, 3))]
    parts += [draw(formula_decls(declared)) for _ in range(_int(draw, 0, 3))]
    if _int(draw, 0, 2):
        parts.append(draw(combatant_decls(declared)))
    parts += [draw(procedure_decls(declared)) for _ in range(_one(draw, [0, 1, 1, 2, 2, 3]))]
    if _int(draw, 0, 4) == 0:
        parts = list(draw(st.permutations(parts)))
    blank = _one(draw, ["", "\n"])
    return _commented(draw, head + blank + blank.join(parts)), declared


COMMENTS = ("why", "", "#", "| a | b |", "Épée: ½", "rulebook x", ":", "= 1/0", '"')


def _commented(draw: Any, text: str) -> str:
    """A few `#` comments: on lines of their own, indented like the line they describe, and
    at the ends of lines (comments are cut out before parsing and attached afterwards)."""
    lines = text.split("\n")
    for _ in range(_int(draw, 0, 3)):
        i = _pick(draw, len(lines))
        indent = re.match(r"[ \t]*", lines[i]).group()
        lines.insert(i, f"{indent}# {_one(draw, COMMENTS)}")
    for _ in range(_int(draw, 0, 3)):
        i = _pick(draw, len(lines))
        if lines[i].strip():
            lines[i] += f"  # {_one(draw, COMMENTS)}"
    return "\n".join(lines)


@st.composite
def programs(draw: Any) -> str:
    """The text of a generated rule file."""
    return program(draw)[0]


@st.composite
def programs_and_queries(draw: Any) -> tuple[str, list[str]]:
    """A generated rule file and a few expressions over what it declares, for `evaluate`."""
    text, declared = program(draw)
    kinds = ["int", "num", "bool", "dice"] + [f"enum:{e}" for e in declared.enums]
    return text, [expression(draw, declared, {}, _one(draw, kinds), 2)
                  for _ in range(_int(draw, 0, 2))]


# The step and expression rules as strategies (the generator calls the functions directly:
# a strategy built per draw costs more than the draw).
expressions = st.composite(expression)
simple_steps = st.composite(simple_step)
outcome_steps = st.composite(outcome_step)
if_steps = st.composite(if_step)
call_steps = st.composite(call_step)
for_steps = st.composite(for_step)
repeat_steps = st.composite(repeat_step)
blocks = st.composite(block)


# ---- running what compiled --------------------------------------------------------------


def values_for(vt: Any) -> st.SearchStrategy[Any]:
    """Python values a parameter, characteristic or state field of type `vt` accepts."""
    kind = vt.kind
    if kind == "integer":
        low = -10**6 if vt.low is None else vt.low
        high = 10**6 if vt.high is None else vt.high
        return st.integers(low, high) if low <= high else st.just(low)
    if kind == "number":
        low = Decimal(-10**6) if vt.low is None else Decimal(vt.low)
        high = Decimal(10**6) if vt.high is None else Decimal(vt.high)
        if low > high:
            return st.just(low)
        exact = st.decimals(low, high, places=2, allow_nan=False, allow_infinity=False)
        return exact | exact.map(float)
    if kind == "enum" and vt.members:
        return st.sampled_from(vt.members)
    if kind == "bool":
        return st.booleans()
    if kind == "map" and vt.key is not None and vt.item is not None:
        return st.dictionaries(values_for(vt.key), values_for(vt.item), max_size=3)
    if kind == "list" and vt.item is not None:
        return st.lists(values_for(vt.item), max_size=3)
    if kind == "dice":
        return st.sampled_from(DICE).map(rulecraft.compiler.evaluate.parse_dice_text)
    return st.one_of(st.integers(-5, 5), st.sampled_from(WORDS), st.none())


def _given(data: Any, params: Any, rb: Any, label: str) -> dict[str, Any] | None:
    """Arguments for a formula or procedure; None when a combatant could not be made."""
    args: dict[str, Any] = {}
    for p in params:
        if p.has_default and data.draw(st.booleans(), label=f"{label}: default {p.name}"):
            continue
        try:
            args[p.name] = _made(data, p.type, rb, f"{label}: {p.name}")
        except _Unmade:
            return None
    return args


class _Unmade(Exception):
    """A combatant's model refused the figures drawn for it (a rule error), or has none."""


def _made(data: Any, vt: Any, rb: Any, label: str, depth: int = 0) -> Any:
    """A value of type `vt`: a combatant is built by its model (`combatant_models[...]`) from
    every field without a default and some with one, a combatant it holds built first; a list
    of combatants holds a few."""
    if vt.kind == "combatant":
        model = (getattr(rb, "combatant_models", None) or {}).get(vt.text)
        if model is None or depth > 3:
            raise _Unmade(vt.text)
        spec = {}
        for f in model.fields:
            if f.role == "derived" or f.type is None or (
                    f.has_default and data.draw(st.booleans(), label=f"{label}: default")):
                continue
            spec[f.name] = _made(data, f.type, rb, f"{label}.{f.name}", depth + 1)
        made = rule_errors_only(lambda: model.build(**spec))
        if isinstance(made, (rulecraft.RulecraftError, Slow)):
            raise _Unmade(str(made))
        return made
    if vt.kind == "list" and vt.item is not None and vt.item.kind == "combatant":
        size = data.draw(st.integers(0, 3), label=f"{label}: how many")
        return [_made(data, vt.item, rb, label, depth + 1) for _ in range(size)]
    return data.draw(values_for(vt), label=label)


SMALL_ODDS = dict(enumeration_paths=300, enumeration_work=30_000, distribution_work=100_000,
                  keep_drop_outcomes=5_000)


def exercise(rb: Any, data: Any, seconds: float | None = None) -> int:
    """Call every formula, read every table cell, and run every procedure seeded, scripted and
    enumerated; any exception but a rule error is a Finding. Returns how many calls it made."""
    calls = 0
    for name, formula in rb.formulas.items():
        args = _given(data, formula.params, rb, name)
        if args is not None:
            rule_errors_only(lambda: formula(**args), seconds)
            calls += 1
    for table in rb.tables.values():
        calls += _read_table(table, data, seconds)
    limits = rulecraft.Limits(**SMALL_ODDS)
    for name, procedure in rb.procedures.items():
        args = _given(data, procedure.params, rb, name)
        if args is None:
            continue
        choices = {c: data.draw(CHOICES, label=f"choice {c}")
                   for c in procedure.choice_names if data.draw(st.booleans())}
        seed = data.draw(st.integers(0, 2**32), label="seed")
        scripted = data.draw(st.lists(st.integers(1, 20), max_size=8), label="scripted dice")
        for play in (lambda: procedure.run(seed=seed, choices=choices, **args),
                     lambda: procedure.run(dice=scripted, choices=choices, **args)):
            result = rule_errors_only(play, seconds)
            if isinstance(result, rulecraft.runtime.results.Result):
                calls += _replay(procedure, result, args, seed, seconds)
        rule_errors_only(lambda: procedure.odds(choices=choices, limits=limits, **args), seconds)
        calls += 3
    return calls


# Choices as a caller gives them: a member, a number, a stray word, or a function.
CHOICES = st.sampled_from(["Left", 1, "x", 0, lambda options, values: options[-1],
                           lambda options, values: None])


def _replay(procedure: Any, result: Any, args: dict[str, Any], seed: int,
            seconds: float | None) -> int:
    """Render a result as text and JSON, then play again with the combatants it changed (a
    fight revisits states)."""
    rule_errors_only(lambda: (result.explain(), json.dumps(result.as_json())), seconds)
    again = {**args, **{k: v for k, v in result.combatants.items() if k in args}}
    rule_errors_only(lambda: procedure.run(seed=seed + 1, **again), seconds)
    return 2


def _read_table(table: Any, data: Any, seconds: float | None) -> int:
    """Look up every printed key and one drawn key per axis; call expression cells."""
    calls = 0
    for keys in list(table.index)[:20]:
        value = rule_errors_only(lambda: table.lookup(*keys), seconds)
        cells = value.as_dict().values() if isinstance(value, rulecraft.runtime.tables.Record) \
            else [value]
        for cell in cells:
            if isinstance(cell, rulecraft.runtime.tables.CellExpression):
                given = {p: data.draw(st.integers(-5, 25), label=p) for p in cell.params}
                rule_errors_only(lambda: cell(**given), seconds)
        calls += 1
    keys = [data.draw(st.integers(-30, 130) | st.sampled_from(a.key.members or ("x",)) |
                      st.decimals(-30, 130, places=1, allow_nan=False), label="key")
            for a in table.axes]
    rule_errors_only(lambda: table.lookup(*keys), seconds)
    return calls + 1
