"""Security: rule text is data. In the spirit of Jinja's sandbox tests, every way an attacker's
rule file (or a value handed in beside it) could reach a Python object other than the
rulebook's own records and combatants is tried here, and each must end in a RulecraftError.

Hardening issue: "A rule may read only the fields of the rulebook's own records and combatants,
by names the compiler checked; nothing else is reachable, whatever type a value has."
"""

from __future__ import annotations

import os
import sys

import pytest

import rulecraft
from rulecraft.runtime import helpers, values

HEAD = 'rulebook sandbox "Sandbox"\n'
FIGHTER = """combatant fighter:
  strength: 1..20
  weapon: weapons
  state wounds: integer = 0
table weapons "Weapons" by weapon:
  | Weapon | A |
  | Sword  | 2 |
"""
# A table whose expression cell takes a `given` figure of no declared type: the one place a
# value's type is known only when the rule runs.
CELLS = """table probe "Probe" by key given x:
  | Key    | Value     |
  | Class  | = x.__class__ |
  | Upper  | = x.upper |
  | Item   | = x["__globals__"] |
  | Sum    | = x + 1 |
  | Len    | = len(x) |
"""


def rule_error(text: str) -> rulecraft.RulecraftError:
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(HEAD + text, "sandbox.rules")
    return info.value


def messages(err: rulecraft.RulecraftError) -> str:
    return "\n".join(e.message for e in getattr(err, "errors", [err]))


# -- the attack from the issue -------------------------------------------------------------------

def test_the_environment_leak_from_the_issue_is_refused_when_compiling():
    # "formula env(x: any, k: name) = x.check.__func__.__globals__["random"]._os.environ[k]"
    err = rule_error('formula env(x: any, k: name) = '
                     'x.check.__func__.__globals__["random"]._os.environ[k]\n')
    assert "any" in messages(err)


def test_an_untyped_parameter_is_refused_not_read_as_anything():
    # "`formula f(x) = x + 1` called with "a"" — a parameter without a type took any value.
    err = rule_error("formula f(x) = x + 1\n")
    assert "x" in messages(err) and "type" in messages(err)


@pytest.mark.parametrize("chain", [
    "__class__", "__globals__", "check", "__func__", "upper", "_data", "_values", "model",
    "__dict__", "mro",
])
@pytest.mark.parametrize("declared", ["integer", "name", "dice", "bool", "weapon", "fighter"])
def test_no_attribute_of_a_typed_value_outside_its_fields(declared, chain):
    err = rule_error(FIGHTER + f"formula f(x: {declared}) = x.{chain}\n")
    assert isinstance(err, rulecraft.RulecraftError)


@pytest.mark.parametrize("key, given", [
    ("Class", lambda: 5), ("Class", "text"), ("Upper", "text"), ("Item", {"a": 1}),
    ("Item", helpers), ("Sum", "text"), ("Len", 5), ("Class", rulecraft.compile),
])
def test_a_value_of_unknown_type_reaches_no_python_attribute(key, given):
    rb = rulecraft.compile(HEAD + CELLS, "sandbox.rules")
    cell = rb.tables["probe"].lookup(key)
    with pytest.raises(rulecraft.RulecraftError):
        cell(x=given() if callable(given) and not isinstance(given, type(helpers)) and
             given is not rulecraft.compile else given)


def test_a_module_or_function_handed_in_is_refused_at_the_boundary():
    rb = rulecraft.compile(HEAD + FIGHTER + "formula f(x: integer) = x\n", "sandbox.rules")
    for bad in (os, os.system, print, object(), type, b"bytes", {1, 2}):
        with pytest.raises(rulecraft.RangeError):
            rb.formulas["f"](bad)
        with pytest.raises(rulecraft.RangeError):
            rb.combatant(strength=bad, weapon="Sword")


# -- builtins and dunder names -------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    'eval("1")', 'exec("1")', '__import__("os")', 'getattr(x, "real")', 'open("/etc/passwd")',
    'globals()', 'vars()', 'type(x)', 'compile("1", "f", "eval")', '_check(x, x)', '_item(x, 1)',
    '_ctx', 'v_x', 'f_f', 'pub_f', '_Decimal(1)',
])
def test_python_builtins_and_generated_names_are_not_in_the_language(call):
    err = rule_error(f"formula f(x: 1..3) = {call}\n")
    assert isinstance(err, (rulecraft.UnknownNameError, rulecraft.RulecraftErrors,
                            rulecraft.RuleSyntaxError, rulecraft.RuleTypeError))


@pytest.mark.parametrize("name", ["__import__", "__class__", "_ctx", "_check", "_item", "derive",
                                  "exec", "print", "__builtins__", "self", "cls"])
def test_rule_names_that_look_like_python_or_helpers_hijack_nothing(name):
    rb = rulecraft.compile(HEAD + f"""formula {name}(x: 1..3) = x * 2
formula twice(x: 1..3) = {name}(x) + 1
combatant fighter:
  {name}: 1..20
procedure p(a: fighter, {name}_: 1..3):
  let {name} = {name}_ + a.{name}
  outcome done with (total = {name})
""", "sandbox.rules")
    assert rb.formulas[name](3) == 6
    assert rb.formulas["twice"](2) == 5
    fighter = rb.combatant(**{name: 4})
    result = rb.procedures["p"].run(a=fighter, seed=1, **{name + "_": 2})
    assert result.outcome["total"] == 6


@pytest.mark.parametrize("name", ["_ctx", "_args", "v_x", "_MISSING"])
def test_a_procedure_parameter_named_like_generated_code_is_its_own(name):
    rb = rulecraft.compile(HEAD + f"""procedure p({name}: 1..3, x: 1..3):
  roll r = d6
  outcome done with (total = {name} + x + r)
""", "sandbox.rules")
    assert rb.procedures["p"].run(dice=[4], **{name: 1, "x": 2}).outcome["total"] == 7


@pytest.mark.parametrize("name", ["self", "dice", "seed", "choices", "limits", "by"])
def test_a_procedure_parameter_or_choice_cannot_take_a_run_option_name(name):
    # `run(dice=..., seed=...)` could never pass a parameter of the same name.
    err = rule_error(FIGHTER + f"procedure p({name}: 1..3):\n  outcome done\n")
    assert f"cannot be called {name}" in messages(err)
    err = rule_error(FIGHTER + f"procedure p(a: fighter):\n  choose {name} by a from [1, 2] "
                     "default 1\n  outcome done\n")
    assert f"cannot be called {name}" in messages(err)


# -- callables as values -------------------------------------------------------------------------

def test_a_choice_default_from_the_rule_is_never_called():
    # "A callable given as a `choose … default` is called by the runtime": an expression cell is
    # callable in Python; as a default it is a value of the wrong kind, never a chooser to call.
    text = HEAD + FIGHTER + """table pick "Pick" by key given x:
  | Key | Value |
  | A   | = x   |
procedure p(a: fighter):
  choose how by a from ["A", "B"] default pick["A"]
  outcome done with (how = how)
"""
    with pytest.raises(rulecraft.RulecraftError) as info:
        rb = rulecraft.compile(text, "sandbox.rules")
        rb.procedures["p"].run(a=rb.combatant(strength=10, weapon="Sword"), seed=1)
    assert "table expression" in str(info.value) or "pick" in str(info.value)


def test_the_runtime_calls_only_a_callers_own_chooser():
    rb = rulecraft.compile(HEAD + FIGHTER + """procedure p(a: fighter):
  choose how by a from ["A", "B"] default "A"
  outcome done with (how = how)
""", "sandbox.rules")
    fighter = rb.combatant(strength=10, weapon="Sword")
    proc = rb.procedures["p"]
    assert proc.run(a=fighter, seed=1).outcome["how"] == "A"
    assert proc.run(a=fighter, seed=1, how=lambda options, values: "B").outcome["how"] == "B"


# -- injection through every place text enters generated code ------------------------------------

PAYLOAD = "\nraise SystemExit(99)\n#"
TEXTS = [
    ("title", f'rulebook inj "Title \\" ; raise SystemExit(99) ; \\""\n'),
    ("string", 'rulebook inj "I"\nformula f(x: 1..2) = if x == 1 then "a\\"); raise SystemExit(99) #" '
               'else "b"\n'),
    ("header", 'rulebook inj "I"\ntable t "T" by k:\n  | K | It\'s "x" {{1}} \\ |\n  | A | 1 |\n'),
    ("cell", 'rulebook inj "I"\ntable t "T" by k:\n  | K | V |\n  | A | \'); raise SystemExit(99) # |\n'),
    ("enum", 'rulebook inj "I"\nenum e "E\\"\\n": A, B\nformula f(x: e) = x\n'),
    ("comment", 'rulebook inj "I"\n# \x0craise SystemExit(99)\u2028raise SystemExit(99)\n'
                'formula f(x: 1..2) = x # \x0braise SystemExit(99)\n'),
]


@pytest.mark.parametrize("where, text", TEXTS, ids=[w for w, _ in TEXTS])
def test_text_never_becomes_code(where, text):
    try:
        rb = rulecraft.compile(text, "inj.rules")
    except rulecraft.RulecraftError:
        return  # refused: fine, and nothing ran
    for line in rb.python_source.splitlines():
        code = line.split("#", 1)[0] if "'" not in line and '"' not in line else line
        assert not code.strip().startswith("raise SystemExit"), line


def test_a_filename_is_never_code():
    rb = rulecraft.compile('rulebook inj "I"\nformula f(x: 1..2) = x\n', f"a{PAYLOAD}.rules")
    assert rb.formulas["f"](1) == 1
    assert not any(line.strip().startswith("raise SystemExit") for line in
                   rb.python_source.splitlines())


def test_compiling_an_attack_changes_no_runtime_module():
    before = {name: getattr(values, name) for name in dir(values)}
    before_helpers = {name: getattr(helpers, name) for name in dir(helpers)}
    for where, text in TEXTS:
        try:
            rulecraft.compile(text, "inj.rules")
        except rulecraft.RulecraftError:
            pass
    assert {name: getattr(values, name) for name in dir(values)} == before
    assert {name: getattr(helpers, name) for name in dir(helpers)} == before_helpers
    assert "os" not in vars(values) or vars(values)["os"] is sys.modules.get("os")
