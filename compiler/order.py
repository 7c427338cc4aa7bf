"""The dependency pass: order formulas and derived figures so each comes after what it uses."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs

from rulecraft.dsl import syntax as s


_NODE_PARTS: dict[type, tuple[str, ...]] = {}


def node_parts(kind: type) -> tuple[str, ...]:
    """The fields of a syntax node's class that may hold other nodes (all but its span), kept
    per class: these walks visit every node of every formula."""
    found = _NODE_PARTS.get(kind)
    if found is None:
        found = _NODE_PARTS[kind] = (tuple(f.name for f in attrs.fields(kind) if f.name != "span")
                                if attrs.has(kind) else ())
    return found


def names_used(node: object, calls: bool = True) -> Iterator[tuple[str, object]]:
    """Every name (and, with `calls`, called function) in an expression, with its node."""
    if isinstance(node, s.Name):
        yield node.name, node
    elif isinstance(node, s.Call) and calls:
        yield node.name, node
    for field in node_parts(type(node)):
        value = getattr(node, field)
        if isinstance(value, tuple):
            for item in value:
                if isinstance(item, tuple):
                    for inner in item:
                        yield from names_used(inner, calls)
                else:
                    yield from names_used(item, calls)
        elif node_parts(type(value)):
            yield from names_used(value, calls)


def formula_calls(node: object, formulas: Mapping[str, object]) -> Iterator[s.Call]:
    """The calls of formulas an expression makes each time it is worked out: those inside an
    aggregate are made once per item, which the aggregate's budget counts instead."""
    if isinstance(node, s.Aggregate):
        return
    if isinstance(node, s.Call) and node.name in formulas:
        yield node
    for field in node_parts(type(node)):
        value = getattr(node, field)
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            for inner in (item if isinstance(item, tuple) else (item,)):
                if node_parts(type(inner)):
                    yield from formula_calls(inner, formulas)


def nodes_in(node: object) -> list[object]:
    """Every syntax node inside an expression, itself first."""
    found = [node]
    for field in node_parts(type(node)):
        value = getattr(node, field)
        for item in value if isinstance(value, tuple) else (value,):
            for inner in item if isinstance(item, tuple) else (item,):
                if node_parts(type(inner)):
                    found += nodes_in(inner)
    return found


def evaluates(node: object, formulas: Mapping[str, object]) -> bool:
    """Whether an expression calls a formula or looks something up (a table's cell may be an
    expression of its own): what it works out may go over collections of its own."""
    return any(isinstance(n, s.Index) or isinstance(n, s.Call) and n.name in formulas
               for n in nodes_in(node))


def order(depends: Mapping[str, list[tuple[str, object]]]) -> tuple[list[str], list[list[str]]]:
    """A topological order of the keys, and every cycle found (each as the names round it)."""
    done: list[str] = []
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycles.append(path[path.index(name):] + [name])
            return
        state[name] = 1
        for dep, _ in depends.get(name, []):
            if dep in depends:
                visit(dep, path + [name])
        state[name] = 2
        done.append(name)

    for name in depends:
        visit(name, [])
    return done, cycles
