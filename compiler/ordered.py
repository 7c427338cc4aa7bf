"""Expressions on order: an enum's members in their declared order (`next(m)`, `previous(m)`,
`shift(m, n)`, `index(m)`, `a < b`), a list's items by position (`xs[0]`, `xs[-1]`) and a
list grouped by a key (`group(c.side for c in party)`).

A mixin of the Emitter (compiler/expressions.py): the same walk types and writes them."""

from __future__ import annotations

from typing import Any

from rulecraft.dsl import syntax as s

from .types import BOOL, INT, T, join

ORDER_BUILTINS = ("next", "previous", "shift", "index")


class OrderedExpressions:
    """What the Emitter does with order; `self` is an Emitter."""

    scope: Any

    def member_order(self: Any, node: s.Call, env: Any) -> tuple[str, T] | None:
        """`next(m)`, `previous(m)`, `shift(m, n)`, `index(m)`: None when the call is not one."""
        wanted = 2 if node.name == "shift" else 1
        if node.name not in ORDER_BUILTINS or node.named or len(node.args) != wanted:
            return None
        code, t = self.present(*self.expr(node.args[0], env), node.args[0])
        domain = t.domain if t.kind == "name" else None
        if domain is None:
            return self._bad(f"{node.name} goes by the order of an enum's members, so it "
                             f"needs a member of an enum (such as an injury), not {t}",
                             node.args[0])
        members = self.scope.constant("ITEMS_", domain.members)
        where = self.scope.span_ref(node.span)
        if node.name == "index":
            return f"_rank({code}, {members}, {where})", INT
        if node.name == "shift":
            by, bt = self.present(*self.expr(node.args[1], env), node.args[1])
            if bt.kind not in ("int", "any"):
                return self._bad(f"shift moves a member by a whole number of places, not {bt}",
                                 node.args[1])
            by = self.cast(by, bt, "int", node.args[1])
        else:
            by = "1" if node.name == "next" else "-1"
        return f"_shift({code}, {by}, {members}, {where})", T("name", domain=domain)

    def member_compare(self: Any, node: s.Binary, left: str, lt: T, right: str,
                       rt: T) -> tuple[str, T] | None:
        """`wound < "Serious"`: two members of one enum compared by its declared order; None
        when the two sides are not names."""
        if lt.sure().kind != "name" or rt.sure().kind != "name":
            return None
        domain = lt.domain or rt.domain
        if domain is None:
            return self._bad(f"{node.op} compares names only by an enum's order: neither side "
                             "here is a member of an enum", node)
        if lt.domain is not None and rt.domain is not None and lt.domain != rt.domain:
            return self._bad(f"{lt} and {rt} are of two enums: their members have no order "
                             "between them", node)
        self.check_member(node.left, lt, T("name", domain=domain))
        self.check_member(node.right, rt, T("name", domain=domain))
        members = self.scope.constant("ITEMS_", domain.members)
        where = self.scope.span_ref(node.span)
        left, _ = self.present(left, lt, node.left)
        right, _ = self.present(right, rt, node.right)
        return f"(_rank({left}, {members}, {where}) {node.op} " \
            f"_rank({right}, {members}, {where}))", BOOL

    def list_item(self: Any, node: s.Index, code: str, t: T, key: str,
                  kt: T) -> tuple[str, T]:
        """`xs[0]`, the first item; `xs[-1]`, the last: a position out of the list is an error
        when the rule runs, at the lookup."""
        if kt.kind not in ("int", "any"):
            return self._bad(f"an item of a list is picked by its position, a whole number "
                             f"(0 is the first, -1 the last), not {kt}", node.keys[0])
        key = self.cast(key, kt, "int", node.keys[0])
        label = repr(self.scope.text(node.value.span))
        return f"_nth({code}, {key}, {self.scope.span_ref(node.span)}, {label})", \
            (t.item or T("any"))

    def grouped(self: Any, node: s.Aggregate, inner: Any, each: str,
                var_type: T) -> tuple[str, T]:
        """`group(c.side for c in party)`: a map from each key to the items that have it, keys
        in the order first met, items in the list's order."""
        key, kt = self.present(*self.expr(node.body, inner), node.body)
        if kt.kind not in ("int", "name", "bool", "any"):
            return self._bad(f"group's key is a name, a whole number or yes/no, not {kt}",
                             node.body)
        var = f"v_{node.var}"
        return f"_group([({key}, {var}) {each}])", \
            T("map", key=kt, item=T("list", item=var_type))


__all__ = ["ORDER_BUILTINS", "OrderedExpressions", "join"]
