"""The sandbox a sheet's templates render in: Jinja's, with the work a template does counted.

A user's template is untrusted code. Jinja's sandbox keeps it from Python's internals and caps
one `range`; here, besides, every loop pass, call, include and value a template makes draws
from `limits.work` (by its size: a string by its characters, a list by its items), so nested
loops, doubling strings and width bombs stop with an error naming the limit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from functools import wraps
from typing import Any

from jinja2 import nodes, pass_context
from jinja2.runtime import Context, LoopContext
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import _PassArg
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

from rulecraft.runtime.errors import RangeError, RulecraftError
from rulecraft.runtime.limits import Limits
from rulecraft.runtime.work import Work

# What each step costs, in this module's units (one is ~50 ns of rendering; SCALE of them make
# one unit of `limits.work`): an empty loop pass two, the rest by their time beside it
# (measured: a sandboxed call ~50 passes, a filter or a concatenation ~15) — a printed value
# more, for the memory a captured piece holds (~130 bytes) — so that the default budget is a
# few seconds of rendering.
PASS = 2
CALL = 96
STEP = 32  # a filter, a concatenation
PRINT = 64  # a printed value
OPERATOR = 16  # an intercepted +, *, **, %, / or //
ITEM = 8  # a list's or map's item costs what 8 characters do: its memory, roughly
SCALE = 6  # these units in one of runtime/work.py's (about an aggregate's item, ~0.3 µs)
# Methods of a list, map or set that do not go over all of it.
_QUICK = frozenset({"append", "add", "get", "pop", "keys", "values", "items", "setdefault"})
_CONTEXT_KEYS = frozenset({"_loop_vars", "_block_vars"})  # Jinja's own, passed to every call
# str methods that multiply a string by something no argument shows, and no sheet needs.
_UNSAFE_STR = frozenset({"translate", "maketrans", "expandtabs"})
_DIGITS = re.compile(r"\d+")
# Filters whose number makes that many of something for each of their value's items: `indent`
# a width for each line, `slice` a list for each slice asked.
_PER_ITEM = {"indent": lambda value: _length(value), "slice": lambda value: ITEM}


class SheetError(RulecraftError):
    """A sheet could not be made: an unknown format or paper, a template that fails."""


class TemplateWork:
    """What a template may still do, in units of this module (a loop pass is PASS, a string
    made its length, a container its items, ITEM each), spent from the command's budget of
    work (runtime/work.py), whose unit is SCALE of these: a sheet's references and its
    templates draw from one budget."""

    def __init__(self, work: Work) -> None:
        self.work = work

    @property
    def left(self) -> int:
        return max(self.work.left, -1) * SCALE

    def spend(self, amount: int) -> None:
        work = self.work
        work.left -= -(-amount // SCALE)  # rounded up: a step is never free
        if work.left < 0:
            work.left = -1  # stays spent: every later step refuses too
            raise RangeError(f"the template does more work than a sheet may "
                             f"({work.limit:,} steps of the command's work: loop passes, calls "
                             f"and the characters of what it makes) {Limits.hint('work')}")

    def loop(self, items: Any, weight: int) -> Iterator[Any]:
        """`items` for a `{% for %}`: each pass spent before it is made (`weight` more for the
        text the loop's body writes each time)."""
        if weight < 0:
            raise SheetError("a loop's weight is never below zero")
        try:
            count = len(items)
        except TypeError:  # a generator: spent pass by pass
            for item in items:
                self.spend(PASS + weight)
                yield item
            return
        self.spend(count * (PASS + weight))  # all at once: the inner loop of a nest stops at once
        yield from items

    def arguments(self, args: Iterable[Any], times: int = 1) -> None:
        """A call's or filter's arguments: no number so large it could only make a value too
        large (`center(10**10)`; a filter's number `times` its value's length, for `indent`
        and `slice`), no container whose text would be (a list holding itself)."""
        for arg in args:
            if type(arg) is int and abs(arg) * times > self.left:
                self.spend(abs(arg) * times)
            elif isinstance(arg, (list, tuple, dict, set, frozenset)):
                self.measure(arg)

    def measure(self, value: Any) -> int:
        """Spend what printing `value` would: every item of a container however nested, each
        time it is reached (a list of itself twice over, forty deep, is 2^40 items)."""
        stack, spent = [value], 0
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                spent += len(item)
            elif isinstance(item, dict):
                spent += ITEM * len(item)
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, (list, tuple, set, frozenset)):
                spent += ITEM * len(item)
                stack.extend(item)
            else:
                spent += 1
            if spent > self.left:
                break
        self.spend(spent)
        return spent

    def made(self, value: Any, cost: int = 0) -> Any:
        """Spend what a value a template made holds (its characters or items; `cost` more for
        making it), and pass it on."""
        if isinstance(value, str):
            self.spend(cost + len(value))
        elif isinstance(value, (list, tuple, dict, set, frozenset)):
            self.spend(cost + ITEM * len(value))
        elif cost:
            self.spend(cost)
        return value

    def printed(self, value: Any) -> Any:
        """A value a template prints (`{{ … }}`): measured, then turned to text here so that
        the text is what is spent."""
        self.spend(PRINT)
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if not isinstance(value, str):
            self.measure(value)
            html = getattr(value, "__html__", None)
            value = Markup(html()) if html is not None else str(value)
        return self.made(value)

    def formatted(self, template: str) -> None:
        """A format string (`%` or `|format` or `.format`): no width or precision larger than
        the work left (`'%10000000000d'`)."""
        for digits in _DIGITS.findall(template):
            if len(digits) > 18 or int(digits) > self.left:
                self.spend(int(digits[:19]))


class CountedSandbox(SandboxedEnvironment):
    """Jinja's sandbox, with each operation that can grow a value or repeat work spending from
    a TemplateWork; the templates it compiles count their loops and concatenations."""

    intercepted_binops = frozenset({"+", "*", "**", "%", "/", "//"})

    def __init__(self, work: TemplateWork, texts: dict[str, str], **options: Any) -> None:
        super().__init__(**options)
        self.work = work
        self.texts = texts  # each template read, by file name: its length spent at each include
        self.filters = {name: _counted_filter(work, name, f) for name, f in self.filters.items()}
        self.tests = {name: _counted_filter(work, name, f) for name, f in self.tests.items()}
        del self.globals["lipsum"]  # paragraphs by the million at a word; no sheet needs them
        self.filters["_rc_loop"] = _in_context(work.loop)
        self.filters["_rc_text"] = _measured(work)
        self.filters["_rc_made"] = _in_context(lambda value: work.made(value, STEP))

    def add_filter(self, name: str, function: Callable[..., Any]) -> None:
        """A filter of rulecraft's own, counted like Jinja's."""
        self.filters[name] = _counted_filter(self.work, name, function)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = _Counting().visit(super()._parse(source, name, filename))
        tree.set_environment(self)
        return tree

    def _load_template(self, name: str, globals: Any) -> Any:  # noqa: A002 - Jinja's name
        template = super()._load_template(name, globals)
        self.work.spend(CALL + len(self.texts.get(template.filename or "", "")))
        return template

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, str) and attr in _UNSAFE_STR:
            return False
        return super().is_safe_attribute(obj, attr, value)

    def call(__self, __context: Any, __obj: Any, *args: Any,  # noqa: N805 - Jinja's names
             **kwargs: Any) -> Any:
        work = __self.work
        work.spend(CALL)
        if args:
            work.arguments(args)
            if isinstance(__obj, LoopContext):  # a recursive loop's next level
                args = (work.loop(args[0], 0), *args[1:])
        if kwargs:
            work.arguments(value for key, value in kwargs.items() if key not in _CONTEXT_KEYS)
        owner = getattr(__obj, "__self__", None)
        if owner is not None:
            _foresee(work, owner, getattr(__obj, "__name__", ""), args)
        return work.made(super().call(__context, __obj, *args, **kwargs))

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(argument, tuple):  # hashed as a key, item by item
            self.work.measure(argument)
        found = super().getitem(obj, argument)
        return self.work.made(found) if isinstance(argument, slice) else found

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        work = self.work
        work.spend(OPERATOR + _size_of(operator, left, right))
        if operator == "%" and isinstance(left, str):
            work.formatted(left)
            work.arguments(right if isinstance(right, tuple) else (right,))
        return work.made(super().call_binop(context, operator, left, right))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        self.work.formatted(value.__self__)
        return wrapped


def _size_of(operator: str, left: Any, right: Any) -> int:
    """What `left OPERATOR right` will make, worked out before it is made."""
    sized = (str, list, tuple)
    if operator == "*":
        if isinstance(left, sized) and type(right) is int:
            return len(left) * max(right, 0) * (1 if isinstance(left, str) else ITEM)
        if isinstance(right, sized) and type(left) is int:
            return _size_of("*", right, left)
        if type(left) is int and type(right) is int:
            return _arithmetic(_digits(left) + _digits(right))
    elif operator == "+" and isinstance(left, sized) and isinstance(right, sized):
        return (len(left) + len(right)) * (1 if isinstance(left, str) else ITEM)
    elif operator == "**" and type(left) is int and type(right) is int and right > 0:
        return _arithmetic(math.ceil(right * math.log10(abs(left))) if abs(left) > 1 else 1)
    elif operator in ("/", "//", "%") and type(left) is int:
        return _arithmetic(_digits(left))
    return 0


def _digits(number: int) -> int:
    return number.bit_length() * 30103 // 100000 + 1


def _arithmetic(digits: int) -> int:
    """What working out a whole number of `digits` digits costs: more than its digits, as
    multiplying and dividing long numbers take time that grows faster than their length."""
    return digits + digits * digits // 10_000


def _foresee(work: TemplateWork, owner: Any, name: str, args: tuple[Any, ...]) -> None:
    """Spend, before a method's call, what a str method makes that its arguments do not show: a
    `replace` of every character, a `join` with a long separator; and a list or map grown in
    place (`extend`, `update`), which no value returned shows."""
    if isinstance(owner, str) and name == "replace" and len(args) >= 2:
        work.spend(owner.count(str(args[0])) * len(str(args[1])))  # "" is found len + 1 times
    elif isinstance(owner, str) and name == "join" and args:
        try:
            work.spend(len(owner) * len(args[0]))
        except TypeError:  # a generator: what it makes is spent as the result
            pass
    elif isinstance(owner, (list, dict, set)) and name in ("extend", "update", "append",
                                                           "insert", "add"):
        grown = args[-1] if name in ("extend", "update") and args else ()
        try:
            work.spend(ITEM * (1 + len(grown)))
        except TypeError:
            work.spend(ITEM)
    if isinstance(owner, (str, list, tuple, dict, set, frozenset)) and name not in _QUICK:
        work.spend(len(owner))  # a method of a string or list goes over it: count, find, copy


def _counted_filter(work: TemplateWork, name: str, function: Callable[..., Any]) -> Any:
    """A filter whose arguments are measured before it runs and whose result is spent. It
    takes the template's context, so Jinja never runs it while compiling (to fold constants)."""
    passed = _PassArg.from_obj(function)

    @wraps(function)
    def counted(context: Context, value: Any, *args: Any, **kwargs: Any) -> Any:
        work.spend(STEP)
        size = 0
        if isinstance(value, (str, list, tuple, dict, set, frozenset)):
            size = work.measure(value)  # a filter goes over its value: `wordcount`, `sort`
        if name == "format" and isinstance(value, str):
            work.formatted(value)
        times = _PER_ITEM[name](value) if name in _PER_ITEM else 1
        work.arguments(args, times)
        work.arguments(kwargs.values(), times)
        if name == "join" and args and isinstance(value, (list, tuple)):
            work.spend(len(str(args[0])) * len(value))
        elif name == "replace" and len(args) >= 2 and isinstance(value, str):
            work.spend(value.count(str(args[0])) * len(str(args[1])))
        elif name == "sum" and isinstance(value, (list, tuple)):
            work.spend(len(value) * size // 2)  # a start of lists copies each sum again
        first = {_PassArg.context: (context,), _PassArg.eval_context: (context.eval_ctx,),
                 _PassArg.environment: (context.environment,)}.get(passed, ())  # type: ignore
        return work.made(function(*first, value, *args, **kwargs))

    return pass_context(counted)  # over the filter's own marker, which wraps copied


def _length(value: Any) -> int:
    try:
        return max(1, len(value))
    except TypeError:
        return 1


def _measured(work: TemplateWork) -> Callable[..., Any]:
    @pass_context
    def measured(context: Context, value: Any) -> Any:
        if isinstance(value, (str, list, tuple, dict, set, frozenset)):
            work.measure(value)
        return value

    return measured


def _in_context(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` as a filter Jinja never runs while compiling (it takes the context)."""
    @pass_context
    def in_context(context: Context, *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return in_context


class _Counting(NodeTransformer):
    """Rewrites a template as it is compiled: each `for` loop's items counted (with the text its
    body writes), each `~` concatenation's parts measured and its result spent."""

    def visit_For(self, node: nodes.For) -> nodes.For:  # noqa: N802 - Jinja's visitor names
        self.generic_visit(node)
        weight = sum(len(data.data) for body in node.body
                     for data in body.find_all(nodes.TemplateData))
        node.iter = nodes.Filter(node.iter, "_rc_loop", [nodes.Const(weight)], [], None, None,
                                 lineno=node.iter.lineno)
        return node

    def visit_Compare(self, node: nodes.Compare) -> nodes.Compare:  # noqa: N802
        """`a == b` and `a in b` go over both sides: each is measured first."""
        self.generic_visit(node)
        node.expr = _measure(node.expr)
        for operand in node.ops:
            operand.expr = _measure(operand.expr)
        return node

    def visit_List(self, node: nodes.List) -> nodes.Expr:  # noqa: N802
        """A list written in a template is measured whole as it is made: `[l, l]` forty times
        over holds 2^40 items to print, compare or hash, in a few bytes."""
        self.generic_visit(node)
        return _measure(node)

    def visit_Dict(self, node: nodes.Dict) -> nodes.Expr:  # noqa: N802
        self.generic_visit(node)
        return _measure(node)

    def visit_Tuple(self, node: nodes.Tuple) -> nodes.Expr:  # noqa: N802
        self.generic_visit(node)
        return _measure(node) if node.ctx == "load" else node  # not `{% for a, b in … %}`

    def visit_Concat(self, node: nodes.Concat) -> nodes.Expr:  # noqa: N802
        self.generic_visit(node)
        node.nodes = [_measure(part) for part in node.nodes]
        return nodes.Filter(node, "_rc_made", [], [], None, None, lineno=node.lineno)


def _measure(node: nodes.Expr) -> nodes.Expr:
    """`node`, measured by the work when it is worked out."""
    return nodes.Filter(node, "_rc_text", [], [], None, None, lineno=node.lineno)


__all__ = ["CountedSandbox", "SheetError", "TemplateWork"]
