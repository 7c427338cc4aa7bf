"""Property-based tests (hypothesis) of rulecraft's core promises.

1. Seeded runs are reproducible (procedures and bare dice).
2. Enumerating mode is exact: odds are Fractions summing to exactly 1, and a dice value's
   distribution agrees with brute force over every face.
3. Enumeration agrees with sampling (20,000 seeded runs, 4.5-sigma bound per outcome).
4. A randomly generated valid table round-trips through the compiler (record tables by names,
   d100 / 1..N cross tables with integer-range keys), and a gap or an overlap is a TableError.
5. Numbers are exact: formulas built on one-decimal figures agree with a `decimal` oracle.

Every oracle here is computed independently of the code under test (brute force, `decimal`,
the printed text of a generated table), never by re-running the same rule.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rulecraft
from rulecraft.compiler.evaluate import parse_dice_text

RB = rulecraft.load("ringing_steel")
ATTACK = RB.procedures["melee_attack"]
WEAPONS = RB.tables["weapons"].key_values()
ARMOURS = RB.tables["armour"].key_values()
DEFENCES = ("Parry", "Active Dodge", "Passive Dodge", "No Action")
AREAS = ("Head", "Arm", "Shoulder", "Chest", "Abdomen", "Leg")
INJURIES = ("Bruise", "L Wound", "Wound", "S Wound", "Disable", "Sever", "Death")

# No example database: the tests leave no files behind and stay independent of earlier runs.
COMMON = dict(deadline=None, database=None)


# ---- strategies ---------------------------------------------------------------------------

characteristic = st.integers(1, 20)


@st.composite
def fighter_specs(draw):
    """Keyword arguments for `rb.combatant`: characteristics, training, weapon, armour."""
    weapon = draw(st.sampled_from(WEAPONS))
    training = draw(st.dictionaries(st.sampled_from(WEAPONS), st.integers(1, 10), max_size=3))
    training[weapon] = draw(st.integers(1, 10))
    spec = dict(
        strength=draw(characteristic),
        dexterity=draw(characteristic),
        constitution=draw(characteristic),
        willpower=draw(characteristic),
        training=training,
        weapon=weapon,
        armour=draw(st.sampled_from(ARMOURS)),
    )
    if draw(st.booleans()):  # a fighter already worn down: fatigue and injuries (state)
        spec["fatigue"] = draw(st.integers(0, 40))
        spec["injuries"] = draw(st.dictionaries(
            st.sampled_from(AREAS), st.lists(st.sampled_from(INJURIES), min_size=1, max_size=2),
            max_size=2))
    return spec


def fighter(spec):
    return RB.combatant(**spec)


@st.composite
def dice_texts(draw, max_count=6, sides=(2, 3, 4, 6, 8, 10, 12, 20, 100), max_terms=3,
               max_faces=None):
    """Dice expressions as a person types them: `3d6+2`, `4d6kh3`, `d20-1`, `- d4 + 2d6kl1`."""
    n_terms = draw(st.integers(1, max_terms))
    parts = []
    faces = 1
    for i in range(n_terms):
        count = draw(st.integers(1, max_count))
        side = draw(st.sampled_from(sides))
        if max_faces is not None:
            assume(faces * side**count <= max_faces)
            faces *= side**count
        keep = draw(st.sampled_from(["", "kh", "kl", "dh", "dl"]))
        keep_text = f"{keep}{draw(st.integers(0, count))}" if keep else ""
        count_text = "" if count == 1 and draw(st.booleans()) else str(count)
        sign = draw(st.sampled_from(["+", "-"])) if i else draw(st.sampled_from(["", "-"]))
        space = draw(st.sampled_from(["", " "]))
        parts.append(f"{sign}{space}{count_text}d{side}{keep_text}")
    if draw(st.booleans()):
        constant = draw(st.integers(1, 20))
        space = draw(st.sampled_from(["", " "]))
        parts.append(f"{draw(st.sampled_from(['+', '-']))}{space}{constant}")
    return draw(st.sampled_from(["", " "])).join(parts)


def small_dice_texts():
    """Dice small enough to brute-force every face: count <= 3, sides <= 8."""
    return dice_texts(max_count=3, sides=(1, 2, 3, 4, 5, 6, 8), max_terms=2, max_faces=4096)


# ---- 1. seeded runs are reproducible -----------------------------------------------------


def _trace(result):
    return [(e.kind, e.name, e.value) for e in result.trace]


class RecordingDice:
    """A dice source that draws from a seeded source and remembers every face it handed out."""

    def __init__(self, seed):
        self.inner = rulecraft.SeededDice(seed)
        self.faces = []

    def roll(self, dice):
        total, faces = self.inner.roll(dice)
        self.faces.extend(faces)
        return total, faces


@settings(max_examples=150, **COMMON)
@given(a=fighter_specs(), b=fighter_specs(), seed=st.integers(0, 2**64),
       defence=st.sampled_from((None,) + DEFENCES))
def test_seeded_melee_attack_is_reproducible(a, b, seed, defence):
    attacker, defender = fighter(a), fighter(b)
    choices = {} if defence is None else {"defence": defence}
    first = ATTACK.run(attacker=attacker, defender=defender, seed=seed, **choices)
    second = ATTACK.run(attacker=attacker, defender=defender, seed=seed, **choices)
    assert first.outcome == second.outcome
    assert first.outcome.name == second.outcome.name
    assert dict(first.outcome.items()) == dict(second.outcome.items())
    assert _trace(first) == _trace(second)
    assert first.explain() == second.explain()
    assert first.combatants == second.combatants
    # The inputs are values: a run never changes the combatants it was given.
    assert attacker == fighter(a) and defender == fighter(b)
    # The same faces, scripted, replay the same run; a seeded run equals its recorded faces.
    recorder = RecordingDice(seed)
    recorded = ATTACK.run(attacker=attacker, defender=defender, dice=recorder, **choices)
    assert _trace(recorded) == _trace(first)
    replay = ATTACK.run(attacker=attacker, defender=defender, dice=list(recorder.faces),
                        **choices)
    assert replay.outcome == first.outcome
    assert _trace(replay) == _trace(first)


def _lone_die_keeping_nothing(dice):
    """`d20kh0`, `d6dl1`, ...: one die whose keep/drop leaves no face."""
    return len(dice.terms) == 1 and dice.terms[0].count == 1 and dice.terms[0].keep and \
        not _kept(dice.terms[0].keep, dice.terms[0].keep_count, [1])


@settings(max_examples=300, **COMMON)
@given(text=dice_texts(), seed=st.integers(0, 2**64), times=st.integers(1, 5))
def test_seeded_dice_are_reproducible(text, seed, times):
    dice = parse_dice_text(text)
    assert isinstance(dice, rulecraft.Dice)
    # Known defect, pinned by test_seeded_single_die_honours_keep_and_drop: skip only that case.
    assume(not _lone_die_keeping_nothing(dice))
    one, two = rulecraft.SeededDice(seed), rulecraft.SeededDice(seed)
    first = [one.roll(dice) for _ in range(times)]
    second = [two.roll(dice) for _ in range(times)]
    assert first == second
    for total, faces in first:
        assert len(faces) == dice.dice_count
        sides = [t.sides for t in dice.terms for _ in range(t.count)]
        assert all(1 <= f <= s for f, s in zip(faces, sides))
        assert total == _oracle_total(dice, faces)


@pytest.mark.parametrize("text", ["1d2kh0", "d20kl0", "d6dh1", "d6dl1", "d8kh0 + 3"])
def test_seeded_single_die_honours_keep_and_drop(text):
    dice = parse_dice_text(text)
    support = {total for total, _ in dice.distribution()}
    for seed in range(20):
        total, faces = rulecraft.SeededDice(seed).roll(dice)
        assert total == dice.total(faces) == rulecraft.ScriptedDice(faces).roll(dice)[0]
        assert total in support


@settings(max_examples=300, **COMMON)
@given(text=dice_texts())
def test_dice_text_round_trips_through_str(text):
    dice = parse_dice_text(text)
    assert parse_dice_text(str(dice)) == dice


# ---- 2. enumerating mode is exact --------------------------------------------------------

OUTCOMES = {
    "Parry": {"critical_miss", "parried", "hit"},
    "Active Dodge": {"critical_miss", "dodged", "hit"},
    "Passive Dodge": {"critical_miss", "missed", "hit"},
    "No Action": {"critical_miss", "missed", "hit"},
}


def _defence_potential(attacker, defender, defence):
    if defence == "Parry":
        stab = RB.tables["weapons"].lookup(attacker.weapon).type == "Stab"
        return defender.parry_stab if stab else defender.parry_cut
    if defence == "Active Dodge":
        return defender.active_dodge_factor
    if defence == "Passive Dodge":
        return defender.passive_dodge_factor
    return 0


@pytest.mark.parametrize("defence", DEFENCES)
@settings(max_examples=10, **COMMON)
@given(a=fighter_specs(), b=fighter_specs())
def test_odds_are_exact_fractions_summing_to_one(defence, a, b):
    attacker, defender = fighter(a), fighter(b)
    odds = ATTACK.odds(attacker=attacker, defender=defender, defence=defence)
    assert all(type(p) is Fraction for p in odds.values())
    assert all(p > 0 for p in odds.values())
    assert sum(odds.values()) == 1
    assert set(odds) <= OUTCOMES[defence]
    # Independent oracle from the rule text: a natural 1 always misses critically, a 20 always
    # hits, any other roll hits when Anti-Parry + roll >= defence potential.
    potential = _defence_potential(attacker, defender, defence)
    hits = sum(1 for roll in range(2, 21) if roll == 20 or attacker.anti_parry + roll >= potential)
    assert odds.get("critical_miss") == Fraction(1, 20)
    assert odds.get("hit", 0) == Fraction(hits, 20)
    # The same enumeration, grouped by another value, is a distribution too.
    by_wound = ATTACK.odds(attacker=attacker, defender=defender, defence=defence, by="wound")
    assert sum(by_wound.values()) == 1
    assert sum(p for w, p in by_wound.items() if w is not None) == odds.get("hit", 0)


def _kept(keep, n, faces):
    ordered = sorted(faces)
    if keep == "kh":
        return ordered[len(ordered) - n:] if n else []
    if keep == "kl":
        return ordered[:n]
    if keep == "dh":
        return ordered[: len(ordered) - n]
    if keep == "dl":
        return ordered[n:]
    return list(faces)


def _oracle_total(dice, faces):
    total = dice.constant
    it = iter(faces)
    for term in dice.terms:
        rolled = [next(it) for _ in range(term.count)]
        total += term.sign * sum(_kept(term.keep, term.keep_count, rolled))
    return total


def _brute_force(dice):
    ranges = [range(1, t.sides + 1) for t in dice.terms for _ in range(t.count)]
    counts = Counter(_oracle_total(dice, faces) for faces in itertools.product(*ranges))
    n = sum(counts.values())
    return {total: Fraction(c, n) for total, c in counts.items()}


@settings(max_examples=200, suppress_health_check=[HealthCheck.filter_too_much], **COMMON)
@given(text=small_dice_texts())
def test_dice_distribution_matches_brute_force(text):
    dice = parse_dice_text(text)
    dist = dice.distribution()
    totals = [t for t, _ in dist]
    assert totals == sorted(totals) and len(set(totals)) == len(totals)
    assert all(type(p) is Fraction and p > 0 for _, p in dist)
    assert sum(p for _, p in dist) == 1
    assert dict(dist) == _brute_force(dice)


@settings(max_examples=150, **COMMON)
@given(text=dice_texts(max_count=3, sides=(4, 6, 10, 12, 20), max_terms=3))
def test_dice_distribution_sums_to_one(text):
    dice = parse_dice_text(text)
    dist = dice.distribution()
    assert all(type(p) is Fraction and p > 0 for _, p in dist)
    assert sum(p for _, p in dist) == 1
    # The extremes: every kept die of an added term shows 1 (or its top), of a subtracted term
    # its top (or 1).
    lowest = highest = dice.constant
    for t in dice.terms:
        kept = len(_kept(t.keep, t.keep_count, [0] * t.count))
        lowest += kept if t.sign > 0 else -kept * t.sides
        highest += kept * t.sides if t.sign > 0 else -kept
    assert (dist[0][0], dist[-1][0]) == (lowest, highest)


@settings(max_examples=100, **COMMON)
@given(text=small_dice_texts(), low=st.integers(-10, 10), span=st.integers(0, 20),
       which=st.sampled_from(["at_least", "at_most", "both"]), seed=st.integers(0, 2**32))
def test_clamped_dice_match_brute_force(text, low, span, which, seed):
    """`max(1, d10 - skill)`: a floor or ceiling on the total, in enumeration and in play."""
    dice = parse_dice_text(text)
    assume(not _lone_die_keeping_nothing(dice))  # the known fast-path defect, pinned above
    at_least = low if which != "at_most" else None
    at_most = low + span if which != "at_least" else None
    clamped = dice.clamped(at_least=at_least, at_most=at_most)
    oracle = Counter()
    for total, p in _brute_force(dice).items():
        if at_least is not None:
            total = max(at_least, total)
        if at_most is not None:
            total = min(at_most, total)
        oracle[total] += p
    dist = clamped.distribution()
    assert sum(p for _, p in dist) == 1
    assert dict(dist) == dict(oracle)
    total, faces = rulecraft.SeededDice(seed).roll(clamped)
    assert total in oracle
    assert total == clamped.total(faces)


def test_keep_drop_enumeration_beyond_the_limit_is_refused():
    with pytest.raises(rulecraft.DiceError, match="limit"):
        parse_dice_text("5d20kh3").distribution()


# ---- 3. enumeration agrees with sampling -------------------------------------------------

SAMPLE_ATTACKER = dict(strength=14, dexterity=13, constitution=11, willpower=10,
                       training={"Sword": 6}, weapon="Sword", armour="Light")
SAMPLE_DEFENDER = dict(strength=12, dexterity=12, constitution=12, willpower=9,
                       training={"Spear": 4}, weapon="Spear", armour="Standard")


def _outcome_and_wound(result):
    return (result.outcome.name, result.outcome.get("wound"))


def test_sampled_frequencies_agree_with_exact_odds():
    attacker, defender = fighter(SAMPLE_ATTACKER), fighter(SAMPLE_DEFENDER)
    defence = "Active Dodge"  # the richest path: attack, critical, location and dodge rolls
    exact = ATTACK.odds(attacker=attacker, defender=defender, defence=defence,
                        by=_outcome_and_wound)
    assert sum(exact.values()) == 1
    n = 20_000
    source = rulecraft.SeededDice(20_260_001)  # fixed: the test is deterministic
    seen = Counter(
        _outcome_and_wound(ATTACK.run(attacker=attacker, defender=defender, dice=source,
                                      defence=defence))
        for _ in range(n))
    assert set(seen) <= set(exact), f"sampled outcomes the enumeration never gave: {seen}"
    by_name_exact, by_name_seen = Counter(), Counter()
    for key, p in exact.items():
        by_name_exact[key[0]] += p
    for key, c in seen.items():
        by_name_seen[key[0]] += c
    for observed, expected in ((seen, exact), (by_name_seen, by_name_exact)):
        for key, p in expected.items():
            freq = observed.get(key, 0) / n
            bound = 4.5 * math.sqrt(float(p * (1 - p)) / n)
            assert abs(freq - float(p)) <= bound, (key, freq, float(p), bound)


# ---- 4. generated tables round-trip through the compiler ---------------------------------

ASCII_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
word = st.text(alphabet=st.one_of(st.sampled_from(ASCII_LETTERS),
                                  st.characters(categories=("Lu", "Ll"))),
               min_size=1, max_size=7)
names = st.lists(word, min_size=1, max_size=3).map(" ".join)
# Record column labels become field names (ASCII identifiers, as rules spell `armour.factor`).
labels_ = st.lists(st.text(alphabet=ASCII_LETTERS, min_size=1, max_size=7), min_size=1,
                   max_size=3).map(" ".join)


def _snake(label):
    return re.sub(r"[^0-9A-Za-z]+", "_", label.strip().lower()).strip("_")


@st.composite
def number_cell(draw, kind):
    if kind == "integer":
        return str(draw(st.integers(-999, 9999)))
    tenths = draw(st.integers(-9999, 99999))
    sign = "-" if tenths < 0 else ""
    return f"{sign}{abs(tenths) // 10}.{abs(tenths) % 10}"


@st.composite
def cell(draw, kind, blanks):
    if blanks and draw(st.integers(0, 4)) == 0:
        return ""
    if kind == "name":
        return draw(names)
    return draw(number_cell(kind))


@st.composite
def record_tables(draw):
    """(key label, column labels, rows of [name, cells...]) with unique names and fields."""
    key_label = draw(names)
    labels = draw(st.lists(labels_, min_size=1, max_size=4, unique_by=_snake))
    kinds = [draw(st.sampled_from(["integer", "number"])) for _ in labels]
    row_names = draw(st.lists(names, min_size=1, max_size=8, unique=True))
    blanks = draw(st.booleans())
    rows = [[name] + [draw(cell(k, blanks)) for k in kinds] for name in row_names]
    return key_label, labels, rows


@st.composite
def partitions(draw, high):
    """Contiguous (low, high) ranges covering 1..high exactly, cut at random points."""
    cuts = draw(st.lists(st.integers(1, high - 1), max_size=min(12, high - 1), unique=True)) \
        if high > 1 else []
    edges = [0] + sorted(cuts) + [high]
    return [(edges[i] + 1, edges[i + 1]) for i in range(len(edges) - 1)]


def _print_key(value, d100):
    if d100:
        return "00" if value == 100 else f"{value:02d}"
    return str(value)


@st.composite
def cross_tables(draw):
    d100 = draw(st.booleans())
    high = 100 if d100 else draw(st.integers(1, 60))
    ranges = draw(partitions(high))
    separator = draw(st.sampled_from(["-", "–", "—", " to ", " - "]))
    keys = [_print_key(lo, d100) if lo == hi else
            f"{_print_key(lo, d100)}{separator}{_print_key(hi, d100)}" for lo, hi in ranges]
    columns = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    kind = draw(st.sampled_from(["integer", "number", "name"]))
    blanks = draw(st.booleans())
    above = blanks and draw(st.booleans())
    rows = [[key] + [draw(cell(kind, blanks)) for _ in columns] for key in keys]
    return dict(high=high, ranges=ranges, columns=columns, kind=kind, above=above,
                side_label=draw(names), rows=rows)


def _aligned(rows, indent="  "):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(indent + "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"
                     for r in rows)


def _record_text(table):
    key_label, labels, rows = table
    return 'table rec "Records" by item:\n' + _aligned([[key_label] + labels] + rows) + "\n"


def _cross_text(table, rows=None):
    rows = table["rows"] if rows is None else rows
    head = f'table grid "Grid" by roll: 1..{table["high"]}, col -> {table["kind"]}:\n'
    option = "  blank: above\n" if table["above"] else ""
    return head + option + _aligned([[table["side_label"]] + table["columns"]] + rows) + "\n"


def _book(*tables):
    return 'rulebook t "T"\n\n' + "\n".join(tables)


def _expected(text, kind):
    if text == "":
        return None
    if kind == "name":
        return text
    return Decimal(text)


def _same(got, expected):
    """`got` is the public form of `expected` (int when integral, float otherwise, or text)."""
    if expected is None or isinstance(expected, str):
        return got == expected
    if expected == expected.to_integral_value():
        return type(got) is int and got == expected
    return type(got) is float and Decimal(repr(got)) == expected


@settings(max_examples=100, **COMMON)
@given(record=record_tables(), cross=cross_tables())
def test_generated_tables_round_trip(record, cross):
    text = _book(_record_text(record), _cross_text(cross))
    rb = rulecraft.compile(text, filename="gen.rules")

    _, labels, rows = record
    rec = rb.tables["rec"]
    fields = [_snake(label) for label in labels]
    assert rec.key_values() == tuple(r[0] for r in rows)
    assert [[c.text for c in row.keys] + [c.text for c in row.cells] for row in rec.rows] == rows
    for row in rows:
        value = rec.lookup(row[0])
        for field, printed in zip(fields, row[1:]):
            expected = _expected(printed, "number")
            got = value if len(fields) == 1 else value[field]
            assert _same(got, expected), (row[0], field, got, printed)
            if len(fields) > 1:
                assert _same(getattr(value, field), expected), (row[0], field)

    grid = rb.tables["grid"]
    assert [[c.text for c in row.keys] + [c.text for c in row.cells] for row in grid.rows] == \
        cross["rows"]
    above = [None] * len(cross["columns"])
    for (lo, hi), row in zip(cross["ranges"], cross["rows"]):
        for j, (column, printed) in enumerate(zip(cross["columns"], row[1:])):
            expected = _expected(printed, cross["kind"])
            if expected is None and cross["above"]:
                expected = above[j]
            above[j] = expected
            for roll in range(lo, hi + 1):
                got = grid.lookup(roll, column)
                assert _same(got, expected), (roll, column, got, printed)
    with pytest.raises(rulecraft.RangeError):
        grid.lookup(cross["high"] + 1, cross["columns"][0])


def test_record_fields_named_like_mapping_methods_read_as_attributes():
    text = _book(_record_text(("Thing", ["Items", "Keys", "Values", "Get"],
                               [["Box", "1", "2", "3", "4"]])))
    box = rulecraft.compile(text, filename="gen.rules").tables["rec"].lookup("Box")
    assert [box["items"], box["keys"], box["values"], box["get"]] == [1, 2, 3, 4]
    assert [box.items, box.keys, box.values, box.get] == [1, 2, 3, 4]


def _errors(err):
    return list(getattr(err, "errors", [err]))


def _show(lo, hi):
    return str(lo) if lo == hi else f"{lo}-{hi}"


@settings(max_examples=60, **COMMON)
@given(cross=cross_tables(), data=st.data())
def test_a_missing_row_is_a_gap(cross, data):
    assume(len(cross["rows"]) >= 2)
    i = data.draw(st.integers(0, len(cross["rows"]) - 1), label="removed row")
    rows = cross["rows"][:i] + cross["rows"][i + 1:]
    text = _book(_cross_text(cross, rows))
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(text, filename="gen.rules")
    errors = _errors(info.value)
    assert errors and all(isinstance(e, rulecraft.TableError) for e in errors)
    lo, hi = cross["ranges"][i]
    gap = f"leaves {_show(lo, hi)} uncovered"
    assert all(gap in e.message for e in errors), [e.message for e in errors]
    assert len(errors) == len(cross["columns"])  # one per column, each naming it
    table_line = text.splitlines().index(next(l for l in text.splitlines()
                                               if l.startswith("table grid"))) + 1
    assert all(e.filename == "gen.rules" and e.line == table_line for e in errors)


@settings(max_examples=40, **COMMON)
@given(cross=cross_tables(), data=st.data())
def test_an_overlapping_row_is_an_error(cross, data):
    assume(len(cross["rows"]) >= 2)
    i = data.draw(st.integers(0, len(cross["rows"]) - 2), label="widened row")
    lo, hi = cross["ranges"][i]
    d100 = cross["high"] == 100
    rows = [list(r) for r in cross["rows"]]
    rows[i][0] = f"{_print_key(lo, d100)}-{_print_key(hi + 1, d100)}"
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(_book(_cross_text(cross, rows)), filename="gen.rules")
    errors = _errors(info.value)
    assert errors and all(isinstance(e, rulecraft.TableError) for e in errors)
    assert any(f"at {hi + 1}" in e.message and "overlaps" in e.message for e in errors), \
        [e.message for e in errors]


# ---- 5. numbers are exact ----------------------------------------------------------------

SKILLS = [Decimal(i) / 10 for i in range(1, 157)]  # 0.1 .. 15.6


def _figure(weapon, column):
    return Decimal(repr(RB.tables["weapons"].lookup(weapon)[column]))


def test_anti_parry_and_parries_are_exact_for_every_tenth_and_weapon():
    """Exhaustive: 156 skills x 11 weapons, each against a `decimal` oracle."""
    wrong = []
    for weapon in WEAPONS:
        a, ds, dc = (_figure(weapon, c) for c in ("a", "ds", "dc"))
        for skill in SKILLS:
            x = float(skill)
            checks = (("anti_parry", math.floor(skill * a)),
                      ("parry_stab", math.floor(skill * ds + 12)),
                      ("parry_cut", math.floor(skill * dc + 16)))
            for name, expected in checks:
                got = RB.formulas[name](skill=x, weapon=weapon)
                if type(got) is not int or got != expected:
                    wrong.append((name, x, weapon, got, expected))
    assert not wrong


@settings(max_examples=200, **COMMON)
@given(tenths=st.integers(1, 156), weapon=st.sampled_from(WEAPONS),
       as_decimal=st.booleans())
def test_anti_parry_is_never_off_by_one(tenths, weapon, as_decimal):
    skill = Decimal(tenths) / 10
    expected = math.floor(Decimal(str(float(skill))) * Decimal(str(
        RB.tables["weapons"].lookup(weapon).a)))
    given_skill = skill if as_decimal else tenths / 10
    assert RB.formulas["anti_parry"](skill=given_skill, weapon=weapon) == expected


def test_skill_matches_a_decimal_oracle_everywhere():
    """Skill = round(dexterity / 4 * ln(training + 1) * factor, 1), halves up, for every input."""
    wrong = []
    for armour in ARMOURS:
        factor = Decimal(repr(RB.tables["armour"].lookup(armour).factor))
        for dexterity in range(1, 21):
            for training in range(1, 11):
                with localcontext() as ctx:
                    ctx.prec = 60
                    exact = Decimal(dexterity) / 4 * Decimal(training + 1).ln() * factor
                expected = exact.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
                got = RB.formulas["skill"](dexterity=dexterity, training=training, armour=armour)
                if Decimal(repr(got)) != expected:
                    wrong.append((dexterity, training, armour, got, expected))
    assert not wrong
