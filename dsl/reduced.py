"""Syntax nodes built while the parser reduces, with no parse tree in between (issue 19,
"Compile at scale").

Lark's plain parse makes a tree node and a position record of a dozen fields for every rule it
reduces; the builder (dsl/parser.py `_Builder`) then walks that tree once more, and
`check_tree` a third time. Here the builder's methods are the parser's callbacks: each
reduction gets the same children and the same positions Lark would have given the tree node
(`propagate_positions`: from its first to its last child that has a place, keywords and line
ends included) and the node's value replaces its children on the parser's stack, so a file's
memory is its syntax nodes, never its parse tree.

The checks of `check_tree` are made on the way (every name and number as it is read, the
nesting as the height of each node); anything unusual — a syntax error, a name or a number
`check_tree` would refuse, too deep a nesting, a rule error raised by a builder method — stops
this path with `Unusual`, and the caller parses the file the old way, which reports it exactly
as before (file, line, column, caret, every error together). The usual file never pays for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Lark, Token, Tree

from rulecraft.runtime.limits import Limits

from .checks import _DIGITS, _LEVELS, name_problem


class Unusual(Exception):
    """This text needs the full path (dsl/parser.py `_parse_tree`): it reports the problem."""


class Reduced:
    """A value on the parser's stack and where its rule's text lies. It is also the `meta` the
    builder's methods are given: the fields Lark's `Meta` has, and no others."""

    __slots__ = ("value", "empty", "line", "column", "start_pos", "end_line", "end_column",
                 "end_pos", "height")

    def __init__(self, first: Any, last: Any, height: int) -> None:
        self.value: Any = None
        self.height = height  # nested levels (expressions, blocks) inside it, itself included
        if first is None:
            self.empty = True
            return
        self.empty = False
        self.line, self.column, self.start_pos = first.line, first.column, first.start_pos
        self.end_line, self.end_column, self.end_pos = last.end_line, last.end_column, last.end_pos


_Callback = Callable[[list[Any]], Reduced]


def parse(lark: Lark, builder: Any, text: str, start: str, limits: Limits) -> Any:
    """The builder's value for `text` parsed from the rule `start`. Raises `Unusual` when the
    text is anything but a clean parse (see the module's docstring)."""
    frontend = lark.parser
    table = _table(lark)
    callbacks = _callbacks(lark, builder, limits.nesting_depth)
    reductions = [(size, callbacks[rule], origin) for rule, size, origin in table.rules]
    try:
        result = _run(table, reductions, _token_checks(limits.number_digits),
                      frontend._make_lexer_thread(text), start)
    except Unusual:
        raise
    except Exception as err:  # a syntax error, or a builder's rule error: the full path says it
        raise Unusual() from err
    return result.value if type(result) is Reduced else result


class _Table:
    """Lark's LALR table, its actions as plain integers: a shift is the next state (0 or
    more), a reduction `~i` is rule `rules[i]` (the rule, how many values it takes off the
    stack, the name its result goes to); the same table, read without a rule's hashing and
    comparing on every reduction."""

    def __init__(self, lark: Lark) -> None:
        from lark.parsers.lalr_analysis import Shift

        parse_table = lark.parser.parser._parse_table  # type: ignore[attr-defined]
        index: dict[Any, int] = {}
        self.rules: list[tuple[Any, int, str]] = []
        self.states: dict[Any, dict[str, int]] = {}
        for state, actions in parse_table.states.items():
            row = self.states[state] = {}
            for symbol, (action, arg) in actions.items():
                if action is Shift:
                    row[symbol] = arg
                    continue
                at = index.get(arg)
                if at is None:
                    at = index[arg] = len(self.rules)
                    self.rules.append((arg, len(arg.expansion), arg.origin.name))
                row[symbol] = ~at
        self.start_states = parse_table.start_states
        self.end_states = parse_table.end_states


_TABLES: dict[int, tuple[Lark, _Table]] = {}


def _table(lark: Lark) -> _Table:
    kept = _TABLES.get(id(lark))
    if kept is None or kept[0] is not lark:
        kept = _TABLES[id(lark)] = (lark, _Table(lark))
    return kept[1]


class _Position:
    """What Lark's contextual lexer reads of the parser: the state it is in."""

    __slots__ = ("stack",)

    def __init__(self, stack: list[Any]) -> None:
        self.stack = stack

    @property
    def position(self) -> Any:
        return self.stack[-1]


def _run(table: _Table, reductions: list[tuple[int, _Callback, str]],
         checks: dict[str, Callable[[Token], Token]], lexer: Any, start: str) -> Any:
    """Lark's LALR loop (lark/parsers/lalr_parser_state.py `feed_token`) over the integer
    table: shift each token, reduce while the table says so, each reduction's callback
    replacing the values it takes."""
    states = table.states
    end_state = table.end_states[start]
    state_stack = [table.start_states[start]]
    value_stack: list[Any] = []

    def reduce(action: int) -> None:
        """The values a rule takes off the stack, replaced by what its callback makes."""
        size, callback, origin = reductions[~action]
        if size:
            taken = value_stack[-size:]
            del state_stack[-size:]
            del value_stack[-size:]
        else:
            taken = []
        value_stack.append(callback(taken))
        state_stack.append(states[state_stack[-1]][origin])

    for token in lexer.lex(_Position(state_stack)):
        check = checks.get(token.type)
        if check is not None:
            check(token)
        kind = token.type
        while True:
            action = states[state_stack[-1]][kind]  # KeyError: a syntax error
            if action >= 0:
                state_stack.append(action)
                value_stack.append(token)
                break
            reduce(action)
    while True:  # the end of the text: reduce to the start rule
        action = states[state_stack[-1]]["$END"]
        if action >= 0:
            raise Unusual()
        reduce(action)
        if state_stack[-1] == end_state:
            return value_stack[-1]


def _callbacks(lark: Lark, builder: Any, deepest: int) -> dict[Any, _Callback]:
    """One callback per grammar rule: the builder's method for it (Lark's `v_args(meta=True)`
    methods, called as the transformer calls them), or a plain tree node for a rule the
    builder has no method for."""
    out: dict[Any, _Callback] = {}
    kind = type(builder)
    for rule in lark.rules:
        name = rule.alias or rule.options.template_source or rule.origin.name
        found = None if name.startswith("_") else getattr(kind, name, None)
        method = None
        if hasattr(found, "base_func"):  # a `v_args(meta=True)` method: (meta, children)
            method = found.base_func.__get__(builder, kind)  # type: ignore[union-attr]
        elif callable(found):  # a plain transformer method takes the children alone
            plain = found.__get__(builder, kind)  # type: ignore[union-attr]
            method = lambda meta, kept, plain=plain: plain(kept)  # noqa: E731
        out[rule] = _reduction(rule, name, method, deepest)
    return out


def _reduction(rule: Any, name: str, method: Callable[[Any, list[Any]], Any] | None,
               deepest: int) -> _Callback:
    """The callback for one rule: positions, the children Lark's tree would keep (placeholders
    for left-out optional parts, `_inlined` rules' children spliced in), then the method."""
    keep_all = rule.options.keep_all_tokens
    empty = rule.options.empty_indices
    counts = ([len(ones) for ones in "".join(str(int(b)) for b in empty).split("0")]
              if empty else [0] * (len(rule.expansion) + 1))
    include: list[tuple[int, bool, int]] = []
    nones = 0
    for i, sym in enumerate(rule.expansion):
        nones += counts[i]
        if keep_all or not (sym.is_term and sym.filter_out):
            include.append((i, not sym.is_term and sym.name.startswith("_"), nones))
            nones = 0
    trailing = nones + counts[len(rule.expansion)]
    expand1 = bool(rule.options.expand1) and not rule.alias
    level = 1 if name in _LEVELS else 0
    plain = trailing == 0 and all(not x and not n for _, x, n in include)
    picks = [i for i, _, _ in include]
    alone = include[0][0] if len(include) == 1 and not include[0][1] else None

    def reduce(children: list[Any]) -> Reduced:
        first = last = None
        height = 0
        for c in children:
            if type(c) is Reduced:
                if c.height > height:
                    height = c.height
                if c.empty:
                    continue
            elif c is None:  # a left-out part handed up alone (below)
                continue
            if first is None:
                first = c
            last = c
        if plain:
            kept = [children[i] for i in picks]
            for at, c in enumerate(kept):
                if type(c) is Reduced:
                    kept[at] = c.value
        else:
            kept = []
            for i, spliced, add in include:
                if add:
                    kept += [None] * add
                c = children[i]
                if spliced:  # a list grown by a left-recursive rule is taken over, not copied
                    if kept:
                        kept += c.value.children
                    else:
                        kept = c.value.children
                else:
                    kept.append(c.value if type(c) is Reduced else c)
            if trailing:
                kept += [None] * trailing
        if expand1 and len(kept) == 1:
            # Lark hands the one child up as it is: a token or a left-out part keeps no place
            # of its own; a node takes this rule's place as its container (below)
            if alone is not None and type(children[alone]) is not Reduced:
                return children[alone]  # type: ignore[no-any-return]
            if kept[0] is None:
                return None  # type: ignore[return-value]
            out = Reduced(first, last, height)
            out.value = kept[0]
            return out
        height += level
        if height > deepest:
            raise Unusual()
        out = Reduced(first, last, height)
        out.value = method(out, kept) if method is not None else Tree(name, kept, out)
        return out

    return reduce


def _token_checks(digits: int) -> dict[str, Callable[[Token], Token]]:
    """`check_tree`'s checks of names and numbers, made as each token is read."""

    def name(tok: Token) -> Token:
        if name_problem(tok) is not None:
            raise Unusual()
        return tok

    def number(tok: Token) -> Token:
        if len(tok) > digits and any(m.end() - m.start() > digits for m in _DIGITS.finditer(tok)):
            raise Unusual()
        return tok

    return {"NAME": name, "NUMBER": number, "DICE": number, "ROW": number}
