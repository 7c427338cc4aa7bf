"""Check parsed rule text against the naming rule and the reading limits, before it becomes
syntax nodes: whatever passes here compiles, or fails with a rule error, never a Python one."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import attrs
from lark import Token, Tree

from rulecraft.runtime.errors import RulecraftError, RulecraftErrors, RuleSyntaxError, Span
from rulecraft.runtime.limits import Limits

# ---- names ---------------------------------------------------------------------------------
# Generated code writes a rule name into a Python identifier with a prefix (`f_skill`, `v_x`),
# and Python reads identifiers folded to NFKC: `ﬁles` and `files` would be one identifier, and
# `µ` would be looked up as `μ`. A name must therefore already be in NFKC form, so that every
# generated identifier is exactly its rule name and two names that look alike never both exist.


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a rule name (a message), or None when it can."""
    folded = unicodedata.normalize("NFKC", name)
    if folded == name and ("v_" + name).isidentifier():
        return None
    if folded != name and ("v_" + folded).isidentifier():
        # The first character Python would read as another; none when only a sequence of
        # characters folds (conjoining Hangul jamo into a syllable): then name the whole result.
        odd = next((c for c in name if unicodedata.normalize("NFKC", c) != c), "")
        instead = unicodedata.normalize("NFKC", odd) if odd else folded
        which = f", {describe(odd)}" if odd else ""
        shown = "" if instead.isascii() else ", with " + describe(instead, quoted=False)
        return (f"{name!r} is written with a look-alike character{which}: write it as "
                f"{folded!r}{shown}")
    odd = next((c for i, c in enumerate(name) if not ("v_" + name[: i + 1]).isidentifier()
                or unicodedata.normalize("NFKC", c) != c), name[0])
    return (f"{name!r} cannot be a name: {describe(odd)} is not a letter, a digit or _ (a name "
            "is letters of any alphabet, digits and _, not starting with a digit)")


def describe(chars: str, quoted: bool = True) -> str:
    """Characters as an author can look them up: `'ﬁ' (U+FB01 LATIN SMALL LIGATURE FI)`."""
    names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'UNNAMED')}" for c in chars)
    return f"{chars!r} ({names})" if quoted else names


# ---- where a piece of the parse tree sits ------------------------------------------------------


@attrs.frozen
class Place:
    """Turns Lark positions into spans; an expression parsed on its own (a table's `= …` cell)
    is offset to where it sits in its file (its first line by the column offset too)."""

    filename: str
    line_offset: int = 0
    column_offset: int = 0
    position_offset: int = 0  # where the text starts in its file: spans slice the file's text

    def of_meta(self, meta: Any) -> Span:
        if getattr(meta, "empty", False):
            return Span(self.filename, 1 + self.line_offset, 1 + self.column_offset)
        col_shift = self.column_offset if meta.line == 1 else 0
        end_shift = self.column_offset if meta.end_line == 1 else 0
        return Span(self.filename, meta.line + self.line_offset, meta.column + col_shift,
                    meta.end_line + self.line_offset, meta.end_column + end_shift,
                    meta.start_pos + self.position_offset, meta.end_pos + self.position_offset)

    def of_token(self, tok: Token, start: int = 0, length: int | None = None) -> Span:
        """The token's span, or `length` characters from `start` inside its (one-line) text."""
        line, column = tok.line or 1, (tok.column or 1) + start
        col_shift = self.column_offset if line == 1 else 0
        if length is None:
            end_line, end_column = tok.end_line or line, tok.end_column or column
        else:
            end_line, end_column = line, column + length
        position = (tok.start_pos or 0) + start + self.position_offset
        return Span(self.filename, line + self.line_offset, column + col_shift,
                    end_line + self.line_offset, end_column + col_shift, position,
                    position + (length if length is not None else len(tok) - start))


# ---- sizes ---------------------------------------------------------------------------------


def check_size(text: str, place: Place, source: str, limits: Limits, what: str) -> None:
    """Refuse rule text longer than `source_bytes`, pointing at where it passes the limit."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= limits.source_bytes:
        return
    inside = text.encode("utf-8", "surrogatepass")[: limits.source_bytes].decode("utf-8", "ignore")
    line = inside.count("\n") + 1
    column = len(inside) - (inside.rfind("\n") + 1) + 1
    if line == 1:
        column += place.column_offset
    raise RuleSyntaxError(f"the {what} is {size} bytes long, more than the "
                          f"{limits.source_bytes} it may have; it passes the limit here "
                          f"{Limits.hint('source_bytes')}",
                          Span(place.filename, line + place.line_offset, column), source)


# Nodes of the parse tree that nest in the generated Python or in every pass that walks the
# steps: each expression node is one level (Python parentheses, one frame of every compiler
# pass), and so is each step that opens a block (`if`, `step`, `for each`, `repeat`, an
# encounter's loop and its `every`: one more indentation, one more frame of each walk; the
# `else if` arms of an `if` are not nested). Parentheses the author wrote add nothing: they
# leave no node behind.
_EXPRESSIONS = frozenset({
    "conditional", "or_", "and_", "not_", "compare", "member_of", "not_member_of", "binop",
    "mod_", "range_expr", "neg", "attr", "index", "call", "aggregate", "list_", "number",
    "string", "dice", "name", "true", "false", "none",
})
_BLOCKS = {"if_step": "if", "named_step": "step", "for_step": "for each",
           "repeat_step": "repeat", "turn_loop": "turn", "round_loop": "each round",
           "every_block": "every",
           "turns_step": "take turns", "afterwards": "afterwards"}  # issue 15: time
_LEVELS = _EXPRESSIONS | {"type_map", "type_list"} | set(_BLOCKS)
_DIGITS = re.compile(r"\d+")


def check_tree(tree: Tree, place: Place, source: str, limits: Limits) -> None:
    """Every name, number and nesting of a parse tree, walked without recursion (a deep tree
    must be refused, not overflow the stack); all problems are reported together, a nesting
    once for each outermost expression or block (where it first goes too deep)."""
    found: list[RulecraftError] = []
    too_deep: set[int] = set()  # the outermost expressions and blocks already reported
    # node, depth, the kinds of the blocks around it (outermost first), the outermost level
    stack: list[tuple[Any, int, tuple[str, ...], Any]] = [(tree, 0, (), None)]
    while stack:
        node, depth, blocks, outermost = stack.pop()
        if isinstance(node, Token):
            found += _check_token(node, place, source, limits)
            continue
        if not isinstance(node, Tree):
            continue  # an optional part left out (None)
        if node.data in _LEVELS:
            depth += 1
            outermost = node if outermost is None else outermost
            if depth > limits.nesting_depth:
                if id(outermost) not in too_deep:
                    too_deep.add(id(outermost))
                    found.append(_too_deep(node, blocks, place, source, limits))
                continue
            if node.data in _BLOCKS:
                blocks += (_BLOCKS[node.data],)
        stack.extend((child, depth, blocks, outermost) for child in reversed(node.children))
    if found:
        found.sort(key=lambda e: (e.line or 0, e.column or 0))
        raise found[0] if len(found) == 1 else RulecraftErrors(found)


def _check_token(tok: Token, place: Place, source: str, limits: Limits) -> list[RulecraftError]:
    if tok.type == "NAME":
        problem = name_problem(str(tok))
        return [] if problem is None else [RuleSyntaxError(problem, place.of_token(tok), source)]
    if tok.type not in ("NUMBER", "DICE", "ROW"):
        return []
    out: list[RulecraftError] = []
    for run in _DIGITS.finditer(str(tok)):
        digits = run.end() - run.start()
        if digits > limits.number_digits:
            what = "number" if tok.type != "DICE" else "number of dice or sides"
            out.append(RuleSyntaxError(
                f"this {what} has {digits} digits, more than the {limits.number_digits} a number "
                f"may have {Limits.hint('number_digits')}",
                place.of_token(tok, run.start(), digits), source))
    return out


def _too_deep(node: Tree, blocks: tuple[str, ...], place: Place, source: str,
              limits: Limits) -> RuleSyntaxError:
    # It says how many of the levels are the blocks around it: an `if` never goes too deep
    # before its own test does, but a `step` block (no expression of its own) can.
    what = ("type" if node.data in ("type_map", "type_list") else
            "step" if node.data in _BLOCKS else "expression")
    only_ifs = set(blocks) <= {"if"}
    kinds = [f"`{k}`" for k in dict.fromkeys(blocks)]
    named = ", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1 else "".join(kinds)
    around = ("" if not blocks else f", {len(blocks)} of them the `if`s around it" if only_ifs
              else f", {len(blocks)} of them the {named} blocks around it")
    each, split = (("`if`", "`let` steps or smaller formulas") if only_ifs else
                   ("block", "`let` steps, smaller formulas or procedures called"))
    return RuleSyntaxError(
        f"this {what} is nested too deeply: more than {limits.nesting_depth} levels{around} "
        f"(every operator, call or lookup inside another is a level, and so is every {each} "
        f"around it); split it with {split} {Limits.hint('nesting_depth')}",
        place.of_meta(node.meta), source)
