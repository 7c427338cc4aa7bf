"""The dynamic half of procedures (issue 6): calls, outcome schemas, loops, parties as handles,
and definite assignment. Each test quotes the issue or the seed it pins."""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft

HEAD = """rulebook duel "Duel"
enum characteristic: Strength, Willpower
combatant fighter:
  strength: 1..20
  willpower: 1..20
  state stamina: 0..30 = 10
  state wounds: integer = 0
  derived tough = strength + willpower
"""


def compiled(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, "duel.rules")


def errors(text: str) -> list[rulecraft.RulecraftError]:
    with pytest.raises(rulecraft.RulecraftError) as info:
        compiled(text)
    return list(getattr(info.value, "errors", [info.value]))


def fighters(rb, a=(12, 10), b=(10, 14)):
    return (rb.combatant(strength=a[0], willpower=a[1]),
            rb.combatant(strength=b[0], willpower=b[1]))


# "A Saving throw ... Three d6 are rolled and the total score added. This is then compared to an
# appropriate characteristic ... if it is less than or equal to the characteristic the Saving
# Throw is successful." (Ringing Steel)
SAVE = """procedure saving_throw (who: fighter, against: characteristic = "Willpower"):
  outcomes:
    all with throw
    made
    failed
  let score = if against == "Strength" then who.strength else who.willpower
  roll throw = 3d6
  if throw <= score:
    outcome made
  outcome failed
"""

BLOW = SAVE + """procedure blow (attacker: fighter, defender: fighter):
  outcomes:
    all with damage
    struck with save_throw
    felled
  roll damage = d6
  add damage to defender.wounds
  call save = saving_throw(defender)
  let save_throw = save.throw
  if save == "failed":
    set defender.stamina = 0
    outcome felled
  outcome struck
"""


# ---- calls -------------------------------------------------------------------------------------

def test_a_blow_rolls_the_saving_throw_its_wound_calls_for():
    # "a blow cannot roll the saving throw a Serious Wound calls for" — now it can.
    rb = compiled(BLOW)
    a, b = fighters(rb)
    r = rb.procedures["blow"].run(attacker=a, defender=b, dice=[4, 6, 5, 6])  # 17 > 14: failed
    assert r.outcome == "felled" and r.outcome["damage"] == 4
    assert r.combatants["defender"].stamina == 0 and r.combatants["defender"].wounds == 4
    r = rb.procedures["blow"].run(attacker=a, defender=b, dice=[2, 1, 2, 3])  # 6 <= 14: made
    assert r.outcome == "struck" and r.outcome["save_throw"] == 6


def test_the_caller_s_combatants_are_never_changed():
    rb = compiled(BLOW)
    a, b = fighters(rb)
    rb.procedures["blow"].run(attacker=a, defender=b, dice=[4, 6, 5, 6])
    assert (b.stamina, b.wounds) == (10, 0)


def test_one_trace_shows_the_nesting():
    # "One dice source and one trace across the calls (the trace shows the nesting)"
    rb = compiled(BLOW)
    a, b = fighters(rb)
    r = rb.procedures["blow"].run(attacker=a, defender=b, dice=[4, 6, 5, 6])
    kinds = [(e.kind, e.name, e.depth) for e in r.trace]
    assert ("call", "save", 0) in kinds and ("return", "save", 0) in kinds
    assert [(e.name, e.value, e.depth) for e in r.trace if e.kind == "roll"] == [
        ("damage", 4, 0), ("throw", 17, 1)]
    call = next(e for e in r.trace if e.kind == "call")
    assert call.line == HEAD.count("\n") + SAVE.count("\n") + 8
    assert "\n  duel.rules:15:3: roll throw = 17" in r.explain()  # the callee's lines are indented


def test_exact_odds_go_through_calls():
    rb = compiled(BLOW)
    a, b = fighters(rb)
    odds = rb.procedures["blow"].odds(attacker=a, defender=b)
    # 3d6 > 14 (willpower): 20 of 216.
    assert odds == {"felled": Fraction(20, 216), "struck": Fraction(196, 216)}
    assert sum(odds.values()) == 1


def test_seeded_runs_through_calls_repeat():
    rb = compiled(BLOW)
    a, b = fighters(rb)
    first = rb.procedures["blow"].run(attacker=a, defender=b, seed=11)
    again = rb.procedures["blow"].run(attacker=a, defender=b, seed=11)
    assert first.outcome == again.outcome and first.trace == again.trace


def test_a_callee_s_choices_are_the_caller_s():
    rb = compiled("""procedure pick (who: fighter):
  choose how by who from characteristic default "Strength"
  outcome picked with (how = how)
procedure outer (a: fighter):
  call p = pick(a)
  outcome done with (how = p.how)
""")
    assert "how" in rb.procedures["outer"].choice_names
    a, _ = fighters(rb)
    assert rb.procedures["outer"].run(a=a, how="Willpower").outcome["how"] == "Willpower"


@pytest.mark.parametrize("body, words", [
    ('  call s = saving_throw(d, "Luck")\n  outcome o\n', "unknown characteristic 'Luck'"),
    ("  call s = saving_throws(d)\n  outcome o\n", "did you mean 'saving_throw'"),
    ("  call s = saving_throw()\n  outcome o\n", "saving_throw needs who"),
    ("  call s = saving_throw(d, modifier = 2)\n  outcome o\n", "parameter of saving_throw"),
    ("  call s = saving_throw(d)\n  outcome o with (x = s.thrown)\n", "did you mean 'throw'"),
    ('  call s = saving_throw(d)\n  if s == "mad":\n    outcome o\n  outcome p\n',
     "did you mean 'made'"),
    ("  call s = saving_throw(3)\n  outcome o\n", "who must be a fighter"),
])
def test_calls_are_checked_against_the_callee(body, words):
    found = errors(SAVE + "procedure q (d: fighter):\n" + body)
    assert any(words in e.message for e in found), [e.message for e in found]


def test_procedures_calling_each_other_in_a_circle_are_refused():
    found = errors("""procedure a (n: 1..2):
  call x = b(n)
  outcome o
procedure b (n: 1..2):
  call y = a(n)
  outcome o
""")
    assert any("call each other in a circle" in e.message for e in found)


# ---- outcome schemas ---------------------------------------------------------------------------

def test_an_outcome_is_filled_from_values_of_the_same_name():
    rb = compiled(SAVE)
    a, _ = fighters(rb)
    r = rb.procedures["saving_throw"].run(who=a, dice=[1, 1, 1])
    assert r.outcome == "made" and dict(r.outcome) == {"throw": 3}
    assert rb.procedures["saving_throw"].outcomes == {"made": ("throw",), "failed": ("throw",)}


@pytest.mark.parametrize("body, words", [
    ("  outcomes:\n    hit with damage\n  outcome hit\n", "no value called damage"),
    ("  outcomes:\n    hit\n  outcome hit with (damage = 3)\n", "unknown value of outcome hit"),
    ("  outcomes:\n    hit\n  outcome hot\n", "did you mean 'hit'"),
    ("  outcomes:\n    hit\n    miss\n  outcome hit\n", "outcome miss is declared but no step"),
    ("  outcomes:\n    hit\n    hit\n  outcome hit\n", "declared twice"),
])
def test_outcome_steps_are_checked_against_the_schema(body, words):
    found = errors("procedure p (n: 1..6):\n" + body)
    assert any(words in e.message for e in found), [e.message for e in found]


# ---- iteration ---------------------------------------------------------------------------------

def test_for_each_over_a_list_an_enum_and_a_map():
    rb = compiled("""procedure p (n: 1..6, scores: map characteristic -> integer):
  let total = 0
  for each x in [1, 2, n]:
    let total = total + x
  let names = 0
  for each c in characteristic:
    let names = names + 1
  let keyed = 0
  for each k in scores:
    let keyed = keyed + scores[k]
  outcome done with (total = total, names = names, keyed = keyed)
""")
    r = rb.procedures["p"].run(n=4, scores={"Strength": 3, "Willpower": 5})
    assert dict(r.outcome) == {"total": 7, "names": 2, "keyed": 8}
    assert [e.value for e in r.trace if e.kind == "each" and e.name == "x"] == [1, 2, 4]


def test_for_each_changes_every_party_of_a_list():
    # "writable lists of combatants; a party bound by `let` or by a loop can be changed"
    rb = compiled("""procedure volley (party: list fighter):
  for each f in party:
    add 1 to f.wounds
  outcome done
""")
    a, b = fighters(rb)
    r = rb.procedures["volley"].run(party=[a, b, a])
    assert r.trace[-2].name == "f.wounds" and r.trace[-2].value == 2  # the same fighter twice
    assert a.wounds == 0


def test_repeat_until_with_its_cap_written_in_the_rule():
    # d20 initiative: "roll-offs until no ties" — here, roll until a six, at most three times.
    rb = compiled("""procedure until_six (n: 1..6):
  repeat until r == 6, at most 3 times:
    roll r = d6
  at the cap:
    outcome gave_up with (last = r)
  outcome six
""")
    p = rb.procedures["until_six"]
    assert p.run(n=1, dice=[2, 6]).outcome == "six"
    r = p.run(n=1, dice=[1, 2, 3])
    assert r.outcome == "gave_up" and r.outcome["last"] == 3
    assert p.odds(n=1) == {"six": 1 - Fraction(5, 6) ** 3, "gave_up": Fraction(5, 6) ** 3}


def test_a_repeat_without_an_at_the_cap_block_stops_with_a_rule_error():
    rb = compiled("""procedure p (n: 1..6):
  repeat until r == 6, at most n times:
    roll r = d6
  outcome six
""")
    with pytest.raises(rulecraft.RangeError, match="reached its cap without r == 6") as info:
        rb.procedures["p"].run(n=2, dice=[1, 1])
    assert info.value.line == HEAD.count("\n") + 2


def test_loop_passes_are_bounded_by_a_named_limit():
    rb = compiled("""procedure p (n: 1..6):
  let total = 0
  repeat until total < 0, at most 150000 times:
    let total = total + 1
  at the cap:
    outcome capped
  outcome never
""")
    # The default (100,000 passes a run) stops the loop before its own cap; raised, the cap
    # is reached.
    with pytest.raises(rulecraft.RangeError, match="loop_passes"):
        rb.procedures["p"].run(n=1)
    limits = rulecraft.Limits(loop_passes=200_000)
    assert rb.procedures["p"].run(n=1, limits=limits).outcome == "capped"


def test_a_duel_to_the_end_round_after_round():
    # "a duel to the end (round after round until one side falls) as one procedure, seeded
    # and scripted"
    rb = compiled("""procedure duel (a: fighter, b: fighter):
  repeat until a.stamina == 0 or b.stamina == 0, at most 100 times:
    roll hit_a = d6
    set b.stamina = max(0, b.stamina - hit_a)
    if b.stamina > 0:
      roll hit_b = d6
      set a.stamina = max(0, a.stamina - hit_b)
  at the cap:
    outcome draw
  if b.stamina == 0:
    outcome a_wins
  outcome b_wins
""")
    a, b = fighters(rb)
    r = rb.procedures["duel"].run(a=a, b=b, dice=[6, 1, 6])  # b: 10 -> 4 -> 0
    assert r.outcome == "a_wins"
    assert (r.combatants["a"].stamina, r.combatants["b"].stamina) == (9, 0)
    seeded = rb.procedures["duel"].run(a=a, b=b, seed=3)
    assert seeded.outcome in ("a_wins", "b_wins")
    assert rb.procedures["duel"].run(a=a, b=b, seed=3).trace == seeded.trace


# ---- parties -----------------------------------------------------------------------------------

def test_a_party_bound_by_let_can_be_changed():
    # Defect 3: "`let who = a` then `set who.stamina = 5` passes `check`, then exits 3 (`KeyError`)"
    rb = compiled("""procedure p (a: fighter, b: fighter):
  let loser = if a.tough < b.tough then a else b
  set loser.stamina = 5
  outcome done with (a_stamina = a.stamina, b_stamina = b.stamina)
""")
    a, b = fighters(rb)  # tough 22 and 24: a loses
    r = rb.procedures["p"].run(a=a, b=b)
    assert dict(r.outcome) == {"a_stamina": 5, "b_stamina": 10}
    assert r.combatants["a"].stamina == 5


@pytest.mark.parametrize("step, words", [
    ("set a.tough = 3", "tough is a derived figure"),
    ("set a.strength = 3", "strength is a characteristic"),
    ("set a.stamna = 3", "did you mean 'stamina'"),
])
def test_only_state_is_changed_and_the_error_says_why(step, words):
    found = errors(f"procedure p (a: fighter):\n  {step}\n  outcome done\n")
    assert any(words in e.message for e in found), [e.message for e in found]


# ---- definite assignment -----------------------------------------------------------------------

def test_a_name_set_inside_a_loop_only_is_not_read_after_it():
    found = errors("""procedure p (xs: list integer):
  for each x in xs:
    let last = x
  outcome done with (last = last)
""")
    assert any("last is not set on every path" in e.message for e in found)


def test_a_repeat_body_runs_at_least_once():
    rb = compiled("""procedure p (n: 1..6):
  repeat until r > 0, at most 2 times:
    roll r = d6
  outcome done with (r = r)
""")
    assert rb.procedures["p"].run(n=1, dice=[4]).outcome["r"] == 4


# ---- state ranges ------------------------------------------------------------------------------

def test_set_and_add_respect_the_state_s_declared_range():
    # "`set`/`add` respect the state's declared range (say in the rule whether it clamps or is
    # an error)": stamina is 0..30 and not clamped.
    rb = compiled("""procedure p (a: fighter, n: integer):
  add n to a.stamina
  outcome done with (stamina = a.stamina)
""")
    a, _ = fighters(rb)
    assert rb.procedures["p"].run(a=a, n=20).outcome["stamina"] == 30
    with pytest.raises(rulecraft.RangeError, match=r"a.stamina would become 31, outside its "
                       r"range 0..30") as info:
        rb.procedures["p"].run(a=a, n=21)
    assert info.value.line == HEAD.count("\n") + 2


def test_a_clamped_state_is_held_to_its_range():
    text = HEAD.replace("state stamina: 0..30 = 10", "state stamina: 0..30 = 10 clamped") + \
        "procedure p (a: fighter, n: integer):\n  add n to a.stamina\n  outcome done\n"
    rb = rulecraft.compile(text)
    a = rb.combatant(strength=10, willpower=10)
    assert rb.procedures["p"].run(a=a, n=-50).combatants["a"].stamina == 0
    assert rb.procedures["p"].run(a=a, n=50).combatants["a"].stamina == 30
    assert rulecraft.format_rules(text).count("= 10 clamped") == 1


# ---- more than one combatant model -------------------------------------------------------------

MOUNTED = """rulebook mounted "Mounted"
combatant rider:
  skill: 1..20
  state mount: horse
  state fatigue: integer = 0
  derived charge_speed = mount.speed + skill
combatant horse:
  speed: 1..30
  state stamina: 0..20 = 20
procedure charge (r: rider, h: horse):
  set h.stamina = h.stamina - 5
  add 1 to r.fatigue
  let before = r.charge_speed
  set r.mount = h
  outcome done with (before = before, stamina = r.mount.stamina, speed = r.charge_speed)
procedure tire_held (r: rider):
  let h = r.mount
  set h.stamina = 0
  outcome done
"""


def test_a_rider_and_a_horse_are_two_models_and_one_holds_the_other():
    # "more than one combatant model per rulebook, and a combatant holding another (rider and
    # horse)"
    rb = rulecraft.compile(MOUNTED)
    assert list(rb.combatant_models) == ["rider", "horse"]
    horse = rb.combatant_models["horse"].build(speed=12)
    rider = rb.combatant(skill=8, mount=horse)
    assert rider.charge_speed == 20
    r = rb.procedures["charge"].run(r=rider, h=horse)
    assert dict(r.outcome) == {"before": 20, "stamina": 15, "speed": 20}
    assert r.combatants["h"].stamina == 15 and horse.stamina == 20


def test_a_held_combatant_is_changed_only_as_a_party():
    rb = rulecraft.compile(MOUNTED)
    rider = rb.combatant(skill=8, mount=rb.combatant_models["horse"].build(speed=12))
    with pytest.raises(rulecraft.RangeError, match="h is a combatant held by another"):
        rb.procedures["tire_held"].run(r=rider)


@pytest.mark.parametrize("text, words", [
    ("procedure p (r: rider):\n  outcome o with (x = r.mount.sped)\n", "did you mean 'speed'"),
    ("procedure p (h: horse):\n  add 1 to h.fatigue\n  outcome o\n", "unknown state field"),
])
def test_each_model_has_its_own_fields(text, words):
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(MOUNTED + text)
    assert words in str(info.value)


def test_a_party_of_the_wrong_model_is_refused():
    rb = rulecraft.compile(MOUNTED)
    horse = rb.combatant_models["horse"].build(speed=12)
    with pytest.raises(rulecraft.RangeError, match="r must be"):
        rb.procedures["charge"].run(r=horse, h=horse)


def test_a_state_without_a_default_must_be_given():
    # "a state field without a default must be given when the combatant is made"
    rb = rulecraft.compile(MOUNTED)
    with pytest.raises(rulecraft.RangeError, match="a rider needs mount"):
        rb.combatant(skill=8)


def test_every_problem_of_a_combatant_is_reported_at_once_from_python():
    # Defect 10: an error about a combatant's values "shows only the first problem".
    rb = compiled("")
    with pytest.raises(rulecraft.RangeError) as info:
        rb.combatant(strength=31, willpower=0, luck=3)
    messages = [e.message for e in info.value.errors]
    assert len(messages) == 3
    assert any("luck" in m for m in messages) and any("strength" in m for m in messages)
    assert any("willpower" in m for m in messages)


def test_a_formula_reads_a_combatants_fields_by_name_or_by_a_name_value():
    # Found while writing RQ3: "A formula can't read a combatant's fields, because formulas
    # compile before combatants"; and a generated field named like a Python constant crashed.
    rb = rulecraft.compile("rulebook t\nenum e: a, b\ncombatant pc:\n  a: 1..3\n  b: 1..3\n"
                           "  derived None = a + b\n"
                           'formula f(p: pc, k: e) = p[k] + p.a + p["b"]\n'
                           "formula g(p: pc, n: name) = p[n]\n")
    p = rb.combatant(a=1, b=2)
    assert rb.formulas["f"](p=p, k="b") == 5
    assert rb.formulas["g"](p=p, n="None") == 3
