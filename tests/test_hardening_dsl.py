"""Hardening the reader of rule files: a rule file is untrusted input, and everything that passes
the parser must compile or give a rule error, never a Python exception.

Each test quotes the sentence of the hardening issue it pins. Errors are checked as
tests/test_errors.py checks them: exact message, line, column and the caret under the mistake.
"""

from __future__ import annotations

import unicodedata

import pytest

import rulecraft
from rulecraft.compiler.evaluate import parse_dice_text
from rulecraft.dsl.formatter import format_file
from rulecraft.dsl.parser import parse, parse_expression

HEAD = 'rulebook mini "Mini"\n'
LIMIT = rulecraft.DEFAULT_LIMITS.nesting_depth
DIGITS = rulecraft.DEFAULT_LIMITS.number_digits


def hint(name: str) -> str:
    return (f"(limit {name}; raise it with --limit {name}=N on the command line, "
            f"or Limits({name}=N) from Python)")


def compile_error(text: str, **limits: int) -> rulecraft.RulecraftError:
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(text, filename="mine.rules", limits=rulecraft.Limits(**limits))
    return info.value


def errors_of(err: rulecraft.RulecraftError) -> list[rulecraft.RulecraftError]:
    return list(err.errors) if isinstance(err, rulecraft.RulecraftErrors) else [err]


def single(err: rulecraft.RulecraftError) -> rulecraft.RulecraftError:
    found = errors_of(err)
    assert len(found) == 1, f"expected one error, got {len(found)}:\n{err}"
    return found[0]


def assert_at(err: rulecraft.RulecraftError, line: int, text: str, under: str,
              column: int | None = None) -> None:
    """`err` is a syntax error on `line` (whose text is `text`), its caret under `under`
    (its first occurrence, or the one at `column`)."""
    assert isinstance(err, rulecraft.RuleSyntaxError), f"{type(err).__name__}: {err}"
    column = column or text.index(under) + 1
    assert text[column - 1:].startswith(under)
    assert (err.line, err.column) == (line, column), str(err)
    head, shown, caret = str(err).split("\n")[:3]
    assert head == f"{err.filename}:{line}:{column}: {err.message}"
    assert shown == "    " + text
    assert caret == "    " + " " * (column - 1) + "^" * len(under), str(err)


# ---- 1. names ------------------------------------------------------------------------------
# "Look-alike names: Python folds identifiers to NFKC, rule names are written into the module
# unchanged: `formula µ(x: 1..10) = x * 2` exits 3 (`KeyError: 'pub_µ'`), a table named `ﬁles`
# fails at run time, `let ﬁ = 1` and `let fi = 2` silently become one value, and `x²`, `½` are
# accepted as names and then fail with 'nested too deeply'."

def test_a_micro_sign_name_is_refused_with_the_greek_letter_to_write():
    line = "formula µ(x: 1..10) = x * 2"
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == ("'µ' is written with a look-alike character, 'µ' (U+00B5 MICRO SIGN): "
                           "write it as 'μ', with U+03BC GREEK SMALL LETTER MU")
    assert_at(err, 2, line, "µ")
    rb = rulecraft.compile(HEAD + "formula μ(x: 1..10) = x * 2\n")  # the spelling it asks for
    assert rb.formulas["μ"](x=3) == 6
    assert rulecraft.evaluate(rb, "μ(4)") == 8


def test_a_table_named_with_a_ligature_is_refused():
    line = 'table ﬁles "Files" by f:'
    err = single(compile_error(HEAD + line + "\n  | F | A |\n  | x | 1 |\n"))
    assert err.message == ("'ﬁles' is written with a look-alike character, 'ﬁ' (U+FB01 LATIN "
                           "SMALL LIGATURE FI): write it as 'files'")
    assert_at(err, 2, line, "ﬁles")


def test_two_look_alike_names_cannot_both_exist():
    lines = ["procedure p(a: 1..2):", "  let ﬁ = 1", "  let fi = 2", "  outcome o with v = ﬁ"]
    err = compile_error(HEAD + "\n".join(lines) + "\n")
    found = errors_of(err)
    assert len(found) == 2  # every use of the look-alike, so one replacement fixes the file
    message = ("'ﬁ' is written with a look-alike character, 'ﬁ' (U+FB01 LATIN SMALL LIGATURE "
               "FI): write it as 'fi'")
    assert [e.message for e in found] == [message, message]
    assert_at(found[0], 3, lines[1], "ﬁ")
    assert_at(found[1], 5, lines[3], "ﬁ")


@pytest.mark.parametrize("line, name, message", [
    ("formula x²(a: 1..2) = a", "x²",
     "'x²' is written with a look-alike character, '²' (U+00B2 SUPERSCRIPT TWO): write it as "
     "'x2'"),
    ("formula f(½: 1..2) = 1", "½",
     "'½' cannot be a name: '½' (U+00BD VULGAR FRACTION ONE HALF) is not a letter, a digit or _ "
     "(a name is letters of any alphabet, digits and _, not starting with a digit)"),
    ("formula ｆ(a: 1..2) = a", "ｆ",
     "'ｆ' is written with a look-alike character, 'ｆ' (U+FF46 FULLWIDTH LATIN SMALL LETTER F): "
     "write it as 'f'"),
    ('enum ﬂag "Flag": Up, Down', "ﬂag",
     "'ﬂag' is written with a look-alike character, 'ﬂ' (U+FB02 LATIN SMALL LIGATURE FL): "
     "write it as 'flag'"),
])
def test_names_that_python_would_fold_are_refused(line, name, message):
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == message
    assert_at(err, 2, line, name)


def test_a_name_with_a_separate_accent_is_refused_with_the_accented_letter():
    decomposed = unicodedata.normalize("NFD", "épée")  # as some editors and file systems write
    line = f"formula {decomposed}(a: 1..2) = a"
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == (f"{decomposed!r} is written with a separate accent, '\u0301' (U+0301 "
                           "COMBINING ACUTE ACCENT): write it with the accented letter, as 'épée'")
    assert_at(err, 2, line, "\u0301")


def test_names_in_any_alphabet_keep_working():
    text = HEAD + (
        'enum клинок "Клинок": Меч, Épée, "ﬁne ﬂail"\n'
        "formula épée(мечь: 1..10, 攻撃: 1..3) = мечь * 2 + 攻撃\n"
        "procedure Δ(мечь: 1..10):\n"
        "  let урон = épée(мечь, 1)\n"
        "  outcome hit with урон = урон\n"
    )
    rb = rulecraft.compile(text)
    assert rb.formulas["épée"](мечь=3, 攻撃=2) == 8
    assert rb.procedures["Δ"].run(мечь=4).values == {"урон": 9}
    # A quoted member is text, not a name: any character goes, and it stays quoted.
    assert rb.enums["клинок"].members[-1] == "ﬁne ﬂail"


def test_quoted_texts_are_not_names():
    text = HEAD + (
        'enum area "Area": Head, "Chest/Upper back", "ﬁ"\n'
        'formula hurt(a: area) = if a == "ﬁ" then 2 else 1\n'
    )
    rb = rulecraft.compile(text)
    assert rb.formulas["hurt"](a="ﬁ") == 2


def test_a_quoted_member_that_is_no_name_stays_quoted_when_formatted():
    text = HEAD + 'enum e "E": Plain, "ﬁ", "x²", "½", épée\n'
    tree = parse(text, "mine.rules")
    formatted = format_file(tree)
    assert 'enum e "E": Plain, "ﬁ", "x²", "½", épée\n' in formatted
    again = parse(formatted, "mine.rules")
    assert [m.name for m in again.declarations[1].members] == ["Plain", "ﬁ", "x²", "½", "épée"]


# ---- 2. sizes and nesting -------------------------------------------------------------------
# "Exit 3 from sizes: integer literals over 4300 digits; a 600-term `1+1+…` or 500 `d6` terms in
# `roll`/`eval` (`RecursionError`); 300 nested `if`s in `eval`; … Nesting errors inside a rule
# file point at 1:1 instead of the expression."

DEEP = (f"this expression is nested too deeply: more than {LIMIT} levels (every operator, call "
        "or lookup inside another is a level, and so is every `if` around it); split it with "
        f"`let` steps or smaller formulas {hint('nesting_depth')}")


def digits_message(count: int, what: str = "number") -> str:
    return (f"this {what} has {count} digits, more than the {DIGITS} a number may have "
            f"{hint('number_digits')}")


def test_an_integer_literal_over_4300_digits_is_a_rule_error_at_the_number():
    number = "9" * 4301
    line = f"formula f(a: 1..2) = a + {number}"
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == digits_message(4301)
    assert (err.line, err.column) == (2, line.index(number) + 1)
    rb = rulecraft.compile(HEAD + "formula f(a: 1..2) = a\n")
    with pytest.raises(rulecraft.RuleSyntaxError) as info:
        rulecraft.evaluate(rb, "1 + " + number)
    assert info.value.message == digits_message(4301)
    assert info.value.column == 5


@pytest.mark.parametrize("line, number, what", [
    (f"formula f(a: 1..{'9' * (DIGITS + 1)}) = a", "9" * (DIGITS + 1), "number"),
    (f"formula f(a: 1..2) = a + {'1' * (DIGITS + 1)}.5", "1" * (DIGITS + 1), "number"),
    (f"formula f(a: 1..2) = a + 2.{'5' * (DIGITS + 1)}", "5" * (DIGITS + 1),
     "number"),
    (f"formula f(a: 1..2) = {'3' * (DIGITS + 1)}d6", "3" * (DIGITS + 1),
     "number of dice or sides"),
])
def test_every_number_has_at_most_number_digits(line, number, what):
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == digits_message(DIGITS + 1, what)
    assert_at(err, 2, line, number)


def test_a_number_in_a_table_row_has_at_most_number_digits():
    number = "7" * (DIGITS + 1)
    row = f"  | Sword | {number} |"
    err = single(compile_error(HEAD + 'table w "W" by weapon:\n  | Weapon | A |\n' + row + "\n"))
    assert err.message == digits_message(DIGITS + 1)
    assert_at(err, 4, row, number)


def test_a_number_of_number_digits_is_read_exactly():
    number = "1" * DIGITS
    rb = rulecraft.compile(HEAD + f"formula f(a: 1..2) = a + {number} - {number}\n")
    assert rb.formulas["f"](a=2) == 2


def sum_of(terms: int, first: str = "a", term: str = "1") -> str:
    """`a + 1 + … + 1`: left-associative, so its tree is exactly `terms` deep."""
    return " + ".join([first] + [term] * (terms - 1))


def test_a_600_term_sum_in_eval_is_a_rule_error():
    rb = rulecraft.compile(HEAD + "formula f(a: 1..2) = a\n")
    with pytest.raises(rulecraft.RuleSyntaxError) as info:
        rulecraft.evaluate(rb, sum_of(600, "1"))
    assert info.value.message == DEEP
    assert (info.value.filename, info.value.line, info.value.column) == ("<expression>", 1, 1)


def test_500_d6_terms_in_a_roll_or_dice_text_are_rule_errors():
    dice = sum_of(500, "d6", "d6")
    line = f"  roll r = {dice}"
    err = single(compile_error(HEAD + "procedure p(a: 1..2):\n" + line + "\n  outcome o\n"))
    assert err.message == DEEP
    assert (err.line, err.column) == (3, line.index("d6") + 1)
    with pytest.raises(rulecraft.RulecraftError):
        parse_dice_text(dice)


def test_300_nested_ifs_in_eval_are_a_rule_error():
    rb = rulecraft.compile(HEAD + "formula f(a: 1..2) = a\n")
    nested = "if true then " * 300 + "1" + " else 2" * 300
    with pytest.raises(rulecraft.RuleSyntaxError) as info:
        rulecraft.evaluate(rb, nested)
    assert info.value.message == DEEP


def test_a_5000_term_expression_in_a_rule_file_points_at_the_expression():
    # "a 5000-term expression exit 3"; "Nesting errors inside a rule file point at 1:1"
    line = "formula f(a: 1..2) = " + sum_of(5000)
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == DEEP
    # The caret covers the part that is too deep: the innermost terms, from the first one.
    inner = sum_of(5000 - LIMIT)
    assert_at(err, 2, line, inner)


def test_a_deep_expression_inside_a_procedure_points_at_where_it_goes_too_deep():
    line = "  let x = " + "- " * (LIMIT + 5) + "a"
    err = single(compile_error(HEAD + "procedure p(a: 1..2):\n" + line + "\n  outcome o\n"))
    assert err.message == DEEP
    assert_at(err, 3, line, "- " * 5 + "a", column=line.index("-") + 2 * LIMIT + 1)


# -- at the limit everything compiles and runs; one past it is a clean error ------------------
# "everything that passes the parser must compile or give a rule error, never a Python
# exception": the generated Python nests up to two parentheses a level (`/` by a printed number,
# `max(… for …)`) and one indentation an `if`; CPython stops at 200 and 100.

def _formula_at(body: str) -> str:
    return HEAD + f"formula f(a: 1..2) = {body}\n"


AT_LIMIT = {  # body of `f`, exactly LIMIT deep, and f(a=1)
    "a long flat sum": (sum_of(LIMIT), LIMIT),
    "a chain of divisions (two Python parentheses a level)": (
        " / ".join(["a"] + ["1"] * (LIMIT - 1)), 1),
    "nested calls": ("abs(" * (LIMIT - 1) + "a" + ")" * (LIMIT - 1), 1),
    "nested conditionals": ("if a > 5 then 1 else " * (LIMIT - 2) + "a", 1),
    "nested aggregates (two parentheses and a comprehension a level)": (
        "max(" * (LIMIT - 3) + "max(x for x in [a])" + " for y in [1])" * (LIMIT - 3), 1),
    "nested negations": ("- " * (LIMIT - 1) + "a", 1 if (LIMIT - 1) % 2 == 0 else -1),
}


def depth(text: str) -> int:
    """How deep the parser counts `text`: the least nesting_depth that reads it."""
    low, high = 1, 10_000
    while low < high:
        middle = (low + high) // 2
        try:
            parse(text, "mine.rules", rulecraft.Limits(nesting_depth=middle))
            high = middle
        except rulecraft.RuleSyntaxError:
            low = middle + 1
    return low


@pytest.mark.parametrize("case", list(AT_LIMIT))
def test_an_expression_at_the_nesting_limit_compiles_and_runs(case):
    body, expected = AT_LIMIT[case]
    text = _formula_at(body)
    assert depth(text) == LIMIT
    rb = rulecraft.compile(text, filename="mine.rules")
    assert rb.formulas["f"](a=1) == expected
    assert rulecraft.evaluate(rb, "f(1)") == expected
    again = parse(format_file(parse(text, "mine.rules")), "mine.rules")  # the formatter too
    assert len(again.declarations) == 2


def test_an_expression_just_past_the_nesting_limit_is_a_clean_error():
    line = "formula f(a: 1..2) = " + sum_of(LIMIT + 1)
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == DEEP
    assert_at(err, 2, line, "a", column=line.index("= a") + 3)  # its innermost term


def nested_ifs(ifs: int, value: str = "a") -> str:
    """A procedure whose innermost outcome sits inside `ifs` nested `if` steps: the `if`s are
    levels 1 to `ifs`, the test `a > 0` of the last two more, the outcome's value one more."""
    lines = [HEAD, "procedure p(a: 1..2):\n"]
    for level in range(1, ifs + 1):
        lines.append("  " * level + "if a > 0:\n")
    lines.append("  " * (ifs + 1) + f"outcome deep with v = {value}\n")
    for level in range(ifs, 0, -1):
        lines.append("  " * level + "else:\n" + "  " * (level + 1) + f"outcome out{level}\n")
    return "".join(lines)


def test_if_steps_at_the_nesting_limit_compile_and_run():
    text = nested_ifs(LIMIT - 2)  # the last test's `a` is the last level
    assert depth(text) == LIMIT
    rb = rulecraft.compile(text, filename="mine.rules")
    result = rb.procedures["p"].run(a=1)
    assert (result.outcome.name, dict(result.outcome)) == ("deep", {"v": 1})
    assert [(p, r.outcome.name) for p, r in rb.procedures["p"].enumerate(a=2)] == [(1, "deep")]


def test_if_steps_past_the_nesting_limit_point_at_the_test_that_goes_too_deep():
    text = nested_ifs(LIMIT + 3)
    err = single(compile_error(text))
    ifs = LIMIT - 1  # that `if` is level LIMIT - 1, its test LIMIT, and the test's `a` one more
    assert err.message == DEEP.replace(" levels (", f" levels, {ifs} of them the `if`s around "
                                       "it (")
    shown = text.split("\n")[2 + ifs - 1]  # the rulebook line, the procedure line, the `if`s
    assert_at(err, 2 + ifs, shown, "a", column=shown.index("a > 0") + 1)


def test_else_if_arms_are_not_nested():
    arms = "".join(f"  else if a == {n}:\n    outcome o{n}\n" for n in range(3, LIMIT + 10))
    text = (HEAD + "procedure p(a: 1..100):\n  if a == 2:\n    outcome o2\n" + arms +
            "  else:\n    outcome other\n")
    assert depth(text) == 3
    assert rulecraft.compile(text).procedures["p"].run(a=LIMIT).outcome.name == f"o{LIMIT}"


def test_if_steps_and_the_expressions_inside_them_share_the_limit():
    half = LIMIT // 2
    inside = sum_of(LIMIT - half)
    rb = rulecraft.compile(nested_ifs(half, inside))
    assert dict(rb.procedures["p"].run(a=1).outcome) == {"v": LIMIT - half}
    err = single(compile_error(nested_ifs(half, sum_of(LIMIT - half + 1))))
    assert err.message == DEEP.replace(" levels (", f" levels, {half} of them the `if`s around "
                                       "it (")


def test_deep_types_are_bounded_too():
    line = "  state s: " + "list " * (LIMIT + 1) + "integer"
    err = single(compile_error(HEAD + "combatant c:\n  a: 1..2\n" + line + "\n"))
    assert err.message.startswith(f"this type is nested too deeply: more than {LIMIT} levels")


def test_the_nesting_limit_can_be_raised_and_lowered():
    text = _formula_at(sum_of(LIMIT + 10))
    assert rulecraft.compile(text, limits=rulecraft.Limits(nesting_depth=LIMIT + 10)) \
        .formulas["f"](a=1) == LIMIT + 10
    err = single(compile_error(_formula_at(sum_of(4)), nesting_depth=3))
    assert err.message == DEEP.replace(f"more than {LIMIT}", "more than 3")


def test_parse_expression_takes_limits():
    # `parse_expression` (`rulecraft eval`, dice text and `= …` cells) reads under limits too.
    with pytest.raises(rulecraft.RuleSyntaxError, match="limit nesting_depth"):
        parse_expression("1 + 2 + 3", limits=rulecraft.Limits(nesting_depth=2))
    with pytest.raises(rulecraft.RuleSyntaxError, match="limit number_digits"):
        parse_expression("1 + 2345", limits=rulecraft.Limits(number_digits=3))
    with pytest.raises(rulecraft.RuleSyntaxError, match="limit source_bytes"):
        parse_expression("1 + 2345", limits=rulecraft.Limits(source_bytes=5))
    assert parse_expression("1 + 2 + 3", limits=rulecraft.Limits(nesting_depth=3))


def test_a_deep_cell_expression_points_into_its_cell():
    row = "  | x | = " + sum_of(LIMIT + 1) + " |"
    text = HEAD + 'table c "C" by k -> number given a:\n  | K | V |\n' + row + "\n"
    err = single(compile_error(text))
    assert err.message == DEEP
    assert (err.line, err.column) == (4, row.index("= a") + 3)


# ---- 3. size of a rule file -------------------------------------------------------------------
# "A rule file larger than `limits.source_bytes` is refused by `parse` with a clean error naming
# the limit."

def test_a_rule_file_over_source_bytes_is_refused_where_it_passes_the_limit():
    text = HEAD + "formula épée(a: 1..2) = a\n" + "formula g(a: 1..2) = a\n"
    limit = len(HEAD.encode()) + 30  # line 2 is 28 bytes (`é` is two), so 2 bytes of line 3
    with pytest.raises(rulecraft.RuleSyntaxError) as info:
        parse(text, "mine.rules", rulecraft.Limits(source_bytes=limit))
    err = info.value
    size = len(text.encode())
    assert err.message == (f"the rule file is {size} bytes long, more than the {limit} it may "
                           f"have; it passes the limit here {hint('source_bytes')}")
    assert (err.line, err.column) == (3, 3)  # the first character past the limit
    assert single(compile_error(text, source_bytes=limit)).message == err.message
    assert parse(text, "mine.rules", rulecraft.Limits(source_bytes=len(text.encode())))


# ---- 4. comments and quotes -----------------------------------------------------------------

WOUNDS = (HEAD + 'enum injury "Injury": Bruise, Wound\n'
          'table w "W" by d: 1..2 -> injury:\n  | D | I |\n')


def test_a_trailing_comment_containing_a_bar_stays_a_comment():
    # "a trailing comment containing `|` breaks a table row"
    text = WOUNDS + "  | 1 | Bruise | # a note | here\n  | 2 | Wound |\n"
    rb = rulecraft.compile(text)
    assert rb.tables["w"].lookup(1) == "Bruise"
    table = parse(text, "mine.rules").declarations[2]
    assert table.rows[1].comments == ("a note | here",)
    assert [cell for cell, _ in table.rows[1].cells()] == ["1", "Bruise"]
    formatted = format_file(parse(text, "mine.rules"))
    assert "  # a note | here\n  | 1 | Bruise |\n" in formatted
    again = parse(formatted, "mine.rules").declarations[2]
    assert again.rows[1].comments == ("a note | here",)


def test_a_hash_cell_of_a_closed_row_is_still_text():
    text = (HEAD + 'table w "W" by n:\n  | # | No #1 |\n  | 1 | x #2 |\n'
            "  | 2 | y | # comment\n")
    table = parse(text, "mine.rules").declarations[1]
    assert [[c for c, _ in row.cells()] for row in table.rows] == [
        ["#", "No #1"], ["1", "x #2"], ["2", "y"]]
    assert table.rows[2].comments == ("comment",)


UNCLOSED = 'this quoted text is never closed: end it with " on the same line'


@pytest.mark.parametrize("line, quote", [  # the line, and which of its quotes is unclosed
    # "An unclosed string is reported at the wrong column (inside an enum list: 'unexpected
    # 'S'') and never as an unclosed string"
    ('enum injury "Injury": Bruise, "L Wound, Wound, "S Wound", Disable', 2),
    ('enum injury "Injury": Bruise, "L Wound', 2),
    ('enum injury "Injury: Bruise, Wound', 0),
    ('formula f(a: 1..2) = if a == "x then 1 else 2', 0),
])
def test_an_unclosed_quote_is_reported_at_the_quote(line, quote):
    err = single(compile_error(HEAD + line + "\n"))
    assert err.message == UNCLOSED
    column = [i for i, ch in enumerate(line) if ch == '"'][quote] + 1
    assert (err.line, err.column) == (2, column), str(err)
    assert str(err).split("\n")[2] == "    " + " " * (column - 1) + "^"
