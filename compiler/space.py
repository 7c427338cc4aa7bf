"""Space in the expression walk: hexes and facings checked and written.

The emitter (expressions.py) hands this module what concerns space — a hex's arithmetic and
fields, the built-ins of the grid, a pattern looked up and put down, a distance in a unit — so
that one construct's decisions live in one place (its declarations: compiler/patterns.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulecraft.dsl import syntax as s
from rulecraft.runtime.space import RELATIVE

from .types import ANY, BOOL, FACING, HEX, INT, NUM, T, accepts

if TYPE_CHECKING:
    from .expressions import Emitter, Env

# The built-ins of space, with what they take (docs/language.md, "Space").
SPACE_CALLS = ("hex", "distance", "step", "turn", "mirror", "line", "facing_to", "approach",
               "in_front", "hexes_within", "party_at", "parties_within", "occupies", "in_hexes")
HEX_LIST = T("list", item=HEX)


# ---- expressions ---------------------------------------------------------------------------
def space_name(em: Emitter, node: s.Name) -> tuple[str, T] | None:
    """A pattern by its name (one without keys is its hexes), or a direction seen from a
    fighter (`ahead`, `front_right`: a number of turns to the left)."""
    info = em.scope.patterns.get(node.name)
    if info is not None:
        if not info.key_types:
            hexes = dict(info.runtime.rows).get((), ())
            return em.scope.constant("HEXES_", hexes), HEX_LIST
        return info.ref, T("pattern", ref=node.name)
    if node.name in RELATIVE:
        return repr(RELATIVE.index(node.name)), FACING
    return None


def space_index(em: Emitter, node: s.Index, code: str, t: T, env: Env) -> tuple[str, T]:
    """`reach["Short", "Right"]`: a pattern's hexes by its key cells, as drawn for facing 0."""
    info = em.scope.patterns[t.ref or ""]
    if node.given:
        return em._bad("a pattern is looked up by its keys alone", node)
    if len(node.keys) != len(info.key_types):
        names = ", ".join(k.name for k in info.decl.keys)
        return em._bad(f"pattern {info.decl.name} is looked up by {len(info.key_types)} "
                       f"key(s) ({names}), not {len(node.keys)}", node)
    codes = []
    for key, kt in zip(node.keys, info.key_types):
        kc, ktype = em.present(*em.expr(key, env), key)
        if not accepts(kt, ktype):
            em._bad(f"a key of pattern {info.decl.name} is {kt}, not {ktype}", key)
        elif kt.kind == "int":
            kc = em.cast(kc, ktype, "int", key)
        em.check_member(key, ktype, kt)
        codes.append(kc)
    keys = "(" + "".join(c + ", " for c in codes) + ")"
    return f"_sp_pattern({code}, {info.decl.name!r}, {keys}, {em.scope.span_ref(node.span)})", \
        HEX_LIST


def visit_placed(em: Emitter, node: s.Placed, env: Env) -> tuple[str, T]:
    """`reach["Short", "Right"] from f.at facing f.facing`: hexes drawn for facing 0 around
    the own hex, put down at a hex and turned to a facing."""
    offsets, ot = em.present(*em.expr(node.offsets, env), node.offsets)
    if ot.kind == "pattern":
        return em._bad(f"pattern {ot.ref} is looked up by its keys before it is put down: "
                       f"{ot.ref}[…] from … facing …", node.offsets)
    if not (ot == HEX or (ot.kind == "list" and (ot.item or ANY).kind in ("hex", "any",
                                                                          "nothing"))
            or ot.kind == "any"):
        return em._bad(f"`from … facing …` puts down a hex or a list of hexes (a pattern), "
                       f"not {ot}", node.offsets)
    at = hex_arg(em, node.at, env, "`from` names the hex it is put down at")
    facing = facing_arg(em, node.facing, env, "`facing`")
    where = em.scope.span_ref(node.span)
    return f"_sp_placed({offsets}, {at}, {facing}, {where})", (HEX if ot == HEX else HEX_LIST)


def hex_arg(em: Emitter, node: s.Expr, env: Env, what: str) -> str:
    code, t = em.present(*em.expr(node, env), node)
    if t.kind not in ("hex", "any"):
        em._bad(f"{what}: a hex (such as hex(2, -1) or f.at), not {t}", node)
    return em.cast(code, t, "hex", node)


def facing_arg(em: Emitter, node: s.Expr, env: Env, what: str) -> str:
    """A facing or a whole number (a record cell printed `2` too: checked whole as it runs)."""
    code, t = em.present(*em.expr(node, env), node)
    if t.kind not in ("int", "num", "any"):
        em._bad(f"{what} is a facing, 0 to 5 (or a number of turns), not {t}", node)
    return code


def number_arg(em: Emitter, node: s.Expr, env: Env, what: str) -> str:
    """A whole number; a number typed `number` (a record's cell) is checked whole as it runs
    (issue 15: "record cells holding coordinates need floor() before hex built-ins")."""
    code, t = em.present(*em.expr(node, env), node)
    if t.kind not in ("int", "num", "any"):
        em._bad(f"{what} is a whole number, not {t}", node)
    return code


def space_call(em: Emitter, node: s.Call, env: Env) -> tuple[str, T] | None:
    """A built-in of space, checked and written; None if the name is not one of them (or
    `hex_distance`/`hex_in_front` are given their numbers, the older form)."""
    name, args, where = node.name, node.args, em.scope.span_ref(node.span)
    n = len(args)
    if name == "hex_distance" and n == 2:
        name = "distance"
    if name == "hex_in_front" and n == 3:
        name = "in_front"
    if name not in SPACE_CALLS:
        return None
    if node.named:
        return em._bad(f"{name} takes no named arguments", node)
    shape = {"hex": (2, 2), "distance": (2, 2), "step": (2, 3), "turn": (2, 2),
             "mirror": (2, 3), "line": (2, 2), "facing_to": (2, 2), "approach": (2, 2),
             "in_front": (3, 3), "hexes_within": (2, 2), "party_at": (1, 1),
             "parties_within": (2, 2), "occupies": (2, 2), "in_hexes": (2, 2)}[name]
    if not shape[0] <= n <= shape[1]:
        return em._bad(f"{name} takes {_usage(name)}", node)
    if name == "hex":
        q, r = (number_arg(em, a, env, "a hex's coordinate") for a in args)
        return f"_sp_hex({q}, {r}, {where})", HEX
    if name == "turn":
        f = facing_arg(em, args[0], env, "turn's first argument")
        by = number_arg(em, args[1], env, "turn's turns")
        return f"_sp_turn({f}, {by}, {where})", FACING
    if name == "in_hexes":
        return _in_hexes(em, node, env)
    if name == "party_at":
        # `_ctx.parties`: a segment reading it is not cut, so exact odds walk its paths.
        return f"_sp_party_at(_ctx.parties, {hex_arg(em, args[0], env, 'party_at asks of')}, " \
            f"{where})", \
            _party(em).or_none()
    if name == "occupies":
        who, wt = em.present(*em.expr(args[0], env), args[0])
        if wt.kind not in ("combatant", "any"):
            em._bad(f"occupies(party, hex) asks of a combatant, not {wt}", args[0])
        return f"_sp_occupies({who}, {hex_arg(em, args[1], env, 'occupies asks of')}, " \
            f"{where})", BOOL
    first = hex_arg(em, args[0], env, f"{name}'s first argument")
    if name == "step":
        f = facing_arg(em, args[1], env, "step's direction")
        moves = number_arg(em, args[2], env, "step's moves") if n == 3 else "1"
        digits = em.scope.limits.number_digits
        return f"_sp_sized(_sp_step({first}, {f}, {moves}, {where}), {where}, {digits})", HEX
    if name == "mirror":
        f = facing_arg(em, args[1], env, "mirror's line")
        about = hex_arg(em, args[2], env, "mirror's third argument") if n == 3 else "_sp_HERE"
        return f"_sp_mirror({first}, {f}, {about}, {where})", HEX
    if name == "in_front":
        f = facing_arg(em, args[1], env, "in_front's facing")
        other = hex_arg(em, args[2], env, "in_front's third argument")
        return f"_sp_in_front({first}, {f}, {other}, {where})", BOOL
    if name in ("hexes_within", "parties_within"):
        moves = number_arg(em, args[1], env, f"{name}'s moves")
        if name == "hexes_within":
            return f"_sp_within({first}, {moves}, {where}, {em.items_limit})", HEX_LIST
        return f"_sp_parties_within(_ctx.parties, {first}, {moves}, {where})", \
            T("list", item=_party(em))
    second = hex_arg(em, args[1], env, f"{name}'s second argument")
    if name == "distance":
        return f"_sp_distance({first}, {second}, {where})", INT
    if name == "line":
        return f"_sp_line({first}, {second}, {where}, {em.items_limit})", HEX_LIST
    if name == "facing_to":
        return f"_sp_facing_to({first}, {second}, {where})", FACING.or_none()
    return f"_sp_approach({first}, {second}, {where})", INT.or_none()


def _usage(name: str) -> str:
    return {"hex": "(q, r)", "distance": "(hex, hex)", "step": "(hex, direction) or (hex, "
            "direction, moves)", "turn": "(facing, turns)", "mirror": "(hex, facing) or (hex, "
            "facing, about)", "line": "(hex, hex)", "facing_to": "(hex, hex)",
            "approach": "(hex, hex)", "in_front": "(hex, facing, hex)",
            "hexes_within": "(hex, moves)", "party_at": "(hex)",
            "parties_within": "(hex, moves)", "occupies": "(party, hex)",
            "in_hexes": "(distance, unit): `in_hexes(30, feet)`"}[name]


def _in_hexes(em: Emitter, node: s.Call, env: Env) -> tuple[str, T]:
    """`in_hexes(30, feet)`: a distance the book gives in its unit, in hexes (exact: a rule
    rounds it as the book says)."""
    value, unit = node.args
    if not isinstance(unit, s.Name) or unit.name not in em.scope.units:
        return em._bad(f"in_hexes(distance, unit) takes a unit declared with `unit` "
                       f"({', '.join(em.scope.units) or 'none is'})", unit)
    code = number_arg(em, value, env, "in_hexes' distance")
    per = em.scope.units[unit.name].per_hex
    per_code = repr(per) if isinstance(per, int) else em.scope.constant("C", per)
    return f"_div({code}, {per_code})", NUM


def _party(em: Emitter) -> T:
    """The type of a party found on the grid: the first model with a place (`at`)."""
    for name, fields in em.scope.model_fields.items():
        if "at" in fields:
            return T("combatant", ref=name)
    return T("combatant", ref=next(iter(em.scope.models), None))


def space_attr(em: Emitter, node: s.Attr, code: str) -> tuple[str, T]:
    """`h.q`, `h.r`, `h.s`: a hex's axial coordinates and its third cube coordinate."""
    if node.name not in ("q", "r", "s"):
        em.scope.unknown("field of a hex:", node.name, node.span, ["q", "r", "s"])
        return "None", ANY
    return f"{code}.{node.name}", INT


def space_binary(em: Emitter, node: s.Binary, left: str, lt: T, right: str,
                 rt: T) -> tuple[str, T] | None:
    """`a + b`, `a - b` of hexes (offsets added); a facing plus or minus turns goes round.
    None when neither side is a hex or a facing."""
    if node.op not in ("+", "-", "*", "/", "mod"):
        return None  # compared, or looked for: as any other value
    if "hex" in (lt.kind, rt.kind) or FACING in (lt.sure(), rt.sure()):
        # `facing_to(a, b) - f.facing`: a value that may be none is checked where it is used.
        (left, lt), (right, rt) = em.present(left, lt, node.left), em.present(right, rt,
                                                                               node.right)
    if "hex" in (lt.kind, rt.kind):
        if node.op not in ("+", "-"):
            return em._bad(f"hexes are added and subtracted (an offset: `f.at + hex(1, 0)`), "
                           f"not combined with {node.op}", node)
        if lt.kind not in ("hex", "any") or rt.kind not in ("hex", "any"):
            return em._bad(f"a hex is added to a hex, not to {rt if lt == HEX else lt} (a hex "
                           "n moves away is step(h, direction, n))", node)
        left, right = em.cast(left, lt, "hex", node.left), em.cast(right, rt, "hex", node.right)
        # Added in a loop a hex could double each pass: its coordinates keep `number_digits`.
        return f"_sp_sized({left} {node.op} {right}, {em.scope.span_ref(node.span)}, " \
            f"{em.scope.limits.number_digits})", HEX
    if FACING in (lt, rt) and node.op in ("+", "-") and is_whole(lt) and is_whole(rt):
        sign = "" if node.op == "+" else "-"
        return f"_sp_turn({left}, {sign}({right}), {em.scope.span_ref(node.span)})", FACING
    return None


def is_whole(t: T) -> bool:
    return t.kind in ("int", "any")


def unit_of(em: Emitter, node: s.Binary, left: str, lt: T, env: Env) -> tuple[str, T] | None:
    """`distance(a, b) in feet`: a distance in hexes read in a declared unit."""
    right = node.right
    if not isinstance(right, s.Name) or right.name in env or right.name not in em.scope.units:
        return None
    unit = em.scope.units[right.name]
    if node.op != "in":
        return em._bad(f"{right.name} is a unit: `d in {right.name}` reads a distance in it",
                       node)
    if lt.sure().kind not in ("int", "num", "any"):
        return em._bad(f"a distance in hexes is read in {right.name}, not {lt}", node.left)
    left = em.cast(left, lt, "num", node.left)
    per = repr(unit.per_hex) if isinstance(unit.per_hex, int) else \
        em.scope.constant("C", unit.per_hex)
    whole = isinstance(unit.per_hex, int) and lt.sure().kind == "int"
    return f"_sp_in_unit({left}, {per})", (INT if whole else NUM)


__all__ = ["HEX_LIST", "SPACE_CALLS", "facing_arg", "hex_arg", "space_attr", "space_binary",
           "space_call", "space_index", "space_name", "unit_of", "visit_placed"]
