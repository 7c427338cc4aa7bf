"""The dependency pass: order formulas and derived figures so each comes after what it uses."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs

from rulecraft.dsl import syntax as s


def names_used(node: object, calls: bool = True) -> Iterator[tuple[str, object]]:
    """Every name (and, with `calls`, called function) in an expression, with its node."""
    if isinstance(node, s.Name):
        yield node.name, node
    elif isinstance(node, s.Call) and calls:
        yield node.name, node
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):  # type: ignore[arg-type]
            value = getattr(node, field.name)
            if isinstance(value, tuple):
                for item in value:
                    if isinstance(item, tuple):
                        for inner in item:
                            yield from names_used(inner, calls)
                    else:
                        yield from names_used(item, calls)
            elif attrs.has(type(value)) and field.name != "span":
                yield from names_used(value, calls)


def formula_calls(node: object, formulas: Mapping[str, object]) -> Iterator[s.Call]:
    """The calls of formulas an expression makes each time it is worked out: those inside an
    aggregate are made once per item, which the aggregate's budget counts instead."""
    if isinstance(node, s.Aggregate):
        return
    if isinstance(node, s.Call) and node.name in formulas:
        yield node
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):  # type: ignore[arg-type]
            value = getattr(node, field.name)
            items = value if isinstance(value, tuple) else (value,)
            for item in items:
                for inner in (item if isinstance(item, tuple) else (item,)):
                    if attrs.has(type(inner)) and field.name != "span":
                        yield from formula_calls(inner, formulas)


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
