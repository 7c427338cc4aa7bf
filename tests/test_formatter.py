"""The formatter: parse → format → parse gives the same tree, comments and all.

Strategies follow the grammar's expression rules, one composite strategy per rule, so every
kind of expression node is printed and read back.
"""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

import rulecraft
from rulecraft.dsl import syntax as s
from rulecraft.dsl.formatter import expression, format_file
from rulecraft.dsl.parser import parse, parse_expression


def shape(node: object) -> object:
    """A node without its spans (and a row as its cells), for comparing trees."""
    if isinstance(node, s.RowLine):
        return ("row", tuple(text for text, _ in node.cells()), node.comments)
    if attrs.has(type(node)):
        return (type(node).__name__,) + tuple(
            shape(getattr(node, f.name)) for f in attrs.fields(type(node))
            if not f.name.endswith("span"))
    if isinstance(node, tuple):
        return tuple(shape(item) for item in node)
    return node


def test_the_rulebook_round_trips():
    source = rulecraft.load("ringing_steel").source
    tree = parse(source, "ringing_steel.rules")
    once = format_file(tree)
    again = parse(once, "ringing_steel.rules")
    assert shape(again.declarations) == shape(tree.declarations)
    assert format_file(again) == once


def test_every_comment_survives_formatting():
    source = rulecraft.load("ringing_steel").source
    formatted = rulecraft.format_rules(source)
    kept = [line.strip() for line in source.splitlines() if line.strip().startswith("#")]
    for comment in kept:
        assert comment.rstrip() in formatted


def test_the_formatted_rulebook_plays_the_same():
    rb = rulecraft.load("ringing_steel")
    again = rulecraft.compile(rulecraft.format_rules(rb.source), filename="formatted.rules")
    for name, table in rb.tables.items():
        assert again.tables[name].index == table.index
    assert again.formulas["skill"](dexterity=17, training=3, armour="Light") == \
        rb.formulas["skill"](dexterity=17, training=3, armour="Light")
    fighter = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                   training={"Sword": 5}, weapon="Sword", armour="Standard")
    runs = [book.procedures["melee_attack"].run(attacker=book.combatant(**fighter),
                                                defender=book.combatant(**fighter), seed=3)
            for book in (rb, again)]
    assert runs[0].outcome == runs[1].outcome


def test_a_table_is_aligned_and_comments_stay_with_their_rows():
    text = (
        'rulebook t "T"\n'
        "table size by thing:\n"
        "  | Thing | Weight |\n"
        "  # the heavy one\n"
        "  | Anvil | 150 |\n"
        "  | Feather   | 0.1 |\n"
    )
    assert rulecraft.format_rules(text) == (
        'rulebook t "T"\n\n'
        "table size by thing:\n"
        "  | Thing   | Weight |\n"
        "  # the heavy one\n"
        "  | Anvil   | 150    |\n"
        "  | Feather | 0.1    |\n"
    )


# ---- strategies following the grammar's expression rules -------------------------------------

names = st.sampled_from(["skill", "excess", "roll", "area", "w", "fatigue_limit"])
atoms = st.one_of(
    st.integers(0, 300).map(str).map(lambda t: s.Number(t, None)),
    st.sampled_from(["2.8", "0.75", "1.5"]).map(lambda t: s.Number(t, None)),
    st.sampled_from(["Parry", "L Wound", "short/stab"]).map(lambda v: s.String(v, None)),
    st.sampled_from(["d20", "3d6", "4d6kh3", "d100"]).map(lambda t: s.DiceLit(t, None)),
    st.sampled_from([True, False, None]).map(lambda v: s.Constant(v, None)),
    names.map(lambda n: s.Name(n, None)),
)


def _compound(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "/", "==", "<", ">=", "and", "or", "in"]),
                  inner, inner).map(lambda t: s.Binary(t[0], t[1], t[2], None)),
        st.tuples(st.sampled_from(["-", "not"]), inner).map(lambda t: s.Unary(t[0], t[1], None)),
        st.tuples(inner, inner, inner).map(lambda t: s.Conditional(*t, None)),
        st.tuples(inner, names).map(lambda t: s.Attr(t[0], t[1], None)),
        st.tuples(inner, st.lists(inner, min_size=1, max_size=2)).map(
            lambda t: s.Index(t[0], tuple(t[1]), None)),
        st.tuples(st.sampled_from(["max", "round", "skill"]), st.lists(inner, max_size=3)).map(
            lambda t: s.Call(t[0], tuple(t[1]), (), None)),
        st.tuples(inner, names, inner).map(
            lambda t: s.Aggregate("max", t[0], t[1], t[2], None)),
        st.lists(inner, max_size=3).map(lambda items: s.ListLit(tuple(items), None)),
    )


expressions = st.recursive(atoms, _compound, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_expressions_round_trip(tree):
    text = expression(tree)
    again = parse_expression(text)
    assert shape(again) == shape(tree), text
    assert expression(again) == text


def test_shipped_rulebooks_are_in_canonical_layout():
    for name in rulecraft.builtin_rulebooks():
        source = rulecraft.load(name).source
        assert rulecraft.format_rules(source, f"{name}.rules") == source, name
