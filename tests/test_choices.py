"""Choices across calls and what a party knows (issue 15, item 7): a caller answering its
callee's choice (`call … choosing manner = "…"`), a choice made `seeing` only some values, a
choice made `in secret` and revealed later, and standing constraints on a party's choices
while it is under a condition.

Seeds quoted: Ringing Steel (002: feinting, grappling), RQ3 house rules (003: C's split attack,
D's "Must declare in statement of intent").
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft
from rulecraft.runtime.errors import RulecraftError

FEINT = '''rulebook feints "Ringing Steel: feints and grapples"

enum side: Left, Right, Back
enum defence: Parry, "Active Dodge", "Hand parry", "No defence"
enum condition: Grappling, Retreating

combatant fighter:
  skill: 1..20

# Grappling: "Only dodging and hand parries are possible as active defence."
while "Grappling", defence may only be ["Active Dodge", "Hand parry"]
# Retreat: "During the time for a Retreat no active defence can be made"
while "Retreating", defence may not be ["Parry", "Active Dodge", "Hand parry"]

policy wary "A wary fighter":
  detect = feint_move != "Back"
  defence = if attack_roll >= 10 then "Active Dodge" else "Parry"

# Feinting: "The feint must be declared secretly, including which real moves are to be made,
# at the start of the action." "A combatant may attempt to detect a feint by his target by
# announcing the attempt ... after the feint and before the real moves."
procedure feint "Feint" (feinter: fighter, target: fighter):
  choose feint_move by feinter from side default "Left"
  choose real_move by feinter in secret from side default "Right"
  choose detect by target seeing feint_move from [true, false] default false
  reveal real_move
  if not detect:
    outcome undetected with (moved = real_move)
  roll detection = d10
  # "The detector's skill less his opponent's skill plus a d10 roll is calculated. If the
  # result is seven or less then the feint is detected."
  if target.skill - feinter.skill + detection <= 7:
    outcome detected with (moved = real_move)
  outcome undetected with (moved = real_move)

procedure defend "Defend" (attacker: fighter, defender: fighter, grappling: bool = false):
  if grappling:
    give defender "Grappling"
  roll attack_roll = d20
  choose defence by defender seeing attack_roll from defence default "Parry"
  outcome defended with (defence = defence, attack_roll = attack_roll)

procedure strike "Strike" (attacker: fighter, defender: fighter):
  call blow = defend(attacker, defender) choosing defence = "Hand parry"
  outcome struck with (defence = blow.defence)

procedure grapple "A blow in a grapple" (attacker: fighter, defender: fighter):
  call blow = defend(attacker, defender, true) choosing defence = "Parry"
  outcome struck with (defence = blow.defence)

procedure cornered "Retreating in a grapple" (attacker: fighter, defender: fighter):
  give defender "Retreating"
  call blow = defend(attacker, defender, true)
  outcome struck with (defence = blow.defence)
'''


@pytest.fixture(scope="module")
def rb(tmp_path_factory):
    path = tmp_path_factory.mktemp("choices") / "feints.rules"
    path.write_text(FEINT, encoding="utf-8")
    return rulecraft.load(str(path))


def pair(rb):
    return rb.combatant(skill=12), rb.combatant(skill=10)


def compile_error(tmp_path, text):
    path = tmp_path / "t.rules"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulecraftError) as caught:
        rulecraft.load(str(path))
    return caught.value


# ---- a caller answering its callee's choices -------------------------------------------------

def test_a_caller_answers_its_callees_choice(rb):
    a, b = pair(rb)
    r = rb.procedures["strike"].run(attacker=a, defender=b, dice=[4])
    assert r.outcome["defence"] == "Hand parry"
    made = next(e for e in r.trace if e.kind == "choose")
    assert made.detail == "by defender, answered by the caller"
    # The caller's answer stands before the run's own and the policy's.
    again = rb.procedures["strike"].run(attacker=a, defender=b, defence="Parry", policy="wary",
                                        dice=[15])
    assert again.outcome["defence"] == "Hand parry"


def test_a_callers_answer_in_seeded_runs_and_exact_odds(rb):
    a, b = pair(rb)
    strike = rb.procedures["strike"]
    assert strike.odds(attacker=a, defender=b) == {"struck": Fraction(1)}
    assert strike.odds(attacker=a, defender=b, by="defence") == {"Hand parry": Fraction(1)}
    assert {r.outcome["defence"] for r in strike.runs(20, seed=5, attacker=a, defender=b)} == {
        "Hand parry"}


def test_a_callers_answer_must_be_open_to_the_party(rb):
    # While grappling the defender may only dodge or parry by hand: a caller's "Parry" is not.
    a, b = pair(rb)
    with pytest.raises(RulecraftError, match="the caller answers defence with 'Parry', which "
                       "defender cannot choose: the options are Active Dodge, Hand parry"):
        rb.procedures["grapple"].run(attacker=a, defender=b, dice=[3])


@pytest.mark.parametrize("answer, column, words", [
    ('defense = "Parry"', 51,
     "unknown choice of defend (a caller answers the `choose` steps its callee makes): "
     "'defense'; did you mean 'defence'?"),
    ('defence = "Parri"', 61, "unknown defence 'Parri'; did you mean 'Parry'?"),
    ('defence = 3', 61, "defender chooses defence from a defence, not a whole number"),
])
def test_choosing_is_checked_against_the_callees_choices(tmp_path, answer, column, words):
    text = FEINT.replace('choosing defence = "Hand parry"', "choosing " + answer)
    err = compile_error(tmp_path, text)
    line = FEINT.splitlines().index(
        '  call blow = defend(attacker, defender) choosing defence = "Hand parry"') + 1
    assert (err.line, err.column) == (line, column), str(err)
    assert words in str(err)


# ---- what a party sees -----------------------------------------------------------------------

def test_a_policy_reads_what_the_party_sees(rb):
    # The defender sees the attack roll: a wary fighter dodges a roll of 10 or more.
    a, b = pair(rb)
    defend = rb.procedures["defend"]
    assert defend.run(attacker=a, defender=b, policy="wary", dice=[12]).outcome["defence"] == \
        "Active Dodge"
    assert defend.odds(attacker=a, defender=b, policy="wary", by="defence") == {
        "Active Dodge": Fraction(11, 20), "Parry": Fraction(9, 20)}


def test_a_chooser_is_shown_only_what_the_party_sees(rb):
    a, b = pair(rb)
    shown = []

    def detector(options, values):
        shown.append(values)
        return True

    rb.procedures["feint"].run(feinter=a, target=b, detect=detector, feint_move="Back",
                               dice=[1])
    # It sees the feint move; not the real move, chosen in secret and not yet revealed.
    assert shown == [{"feint_move": "Back"}]


def test_a_policy_reading_what_the_party_does_not_see_is_an_error(tmp_path):
    text = FEINT.replace('  defence = if attack_roll >= 10 then "Active Dodge" else "Parry"',
                         '  defence = if grappling then "Active Dodge" else "Parry"')
    err = compile_error(tmp_path, text)
    assert (err.line, err.column) == (17, 16), str(err)
    assert "policy wary reads grappling, which defender does not see when choosing defence " \
           "(it sees attack_roll)" in str(err)


# ---- secret choices, revealed later ----------------------------------------------------------

def test_a_secret_choice_is_traced_and_revealed(rb):
    a, b = pair(rb)
    r = rb.procedures["feint"].run(feinter=a, target=b, detect=True, dice=[5])
    # skill 10 - 12 + 5 = 3: detected.
    assert (r.outcome.name, r.outcome["moved"]) == ("detected", "Right")
    secret = next(e for e in r.trace if e.name == "real_move")
    assert secret.detail == "by feinter, default, in secret"
    revealed = next(e for e in r.trace if e.kind == "reveal")
    assert (revealed.name, revealed.value, revealed.detail) == ("real_move", "Right",
                                                                "chosen by feinter")


def test_feint_odds_with_a_wary_target(rb):
    a, b = pair(rb)
    # Wary: detect a feint that is not a step back. 10 - 12 + d10 <= 7: 9 in 10.
    assert rb.procedures["feint"].odds(feinter=a, target=b, policy="wary") == {
        "detected": Fraction(9, 10), "undetected": Fraction(1, 10)}
    assert rb.procedures["feint"].odds(feinter=a, target=b, policy="wary",
                                       feint_move="Back") == {"undetected": Fraction(1)}


def test_another_partys_secret_cannot_be_seen_before_it_is_revealed(tmp_path):
    text = FEINT.replace("choose detect by target seeing feint_move from",
                         "choose detect by target seeing real_move from").replace(
                             '  detect = feint_move != "Back"', "  detect = true")
    err = compile_error(tmp_path, text)
    line = text.splitlines().index(
        "  choose detect by target seeing real_move from [true, false] default false") + 1
    assert (err.line, err.column) == (line, 3), str(err)
    assert "real_move is chosen in secret by feinter and not yet revealed when target chooses " \
           "detect: target cannot see it (write `reveal real_move` before this step)" in str(err)


def test_revealing_what_was_not_chosen_in_secret_is_an_error(tmp_path):
    err = compile_error(tmp_path, FEINT.replace("  reveal real_move", "  reveal feint_move"))
    assert (err.line, err.column) == (FEINT.splitlines().index("  reveal real_move") + 1, 3)
    assert "reveal feint_move: no choice called feint_move is made in secret before this step" \
        in str(err)


# ---- standing constraints --------------------------------------------------------------------

def test_while_grappling_only_dodges_and_hand_parries(rb):
    # "While grappling ... Only dodging and hand parries are possible as active defence."
    a, b = pair(rb)
    defend = rb.procedures["defend"]
    r = defend.run(attacker=a, defender=b, grappling=True, dice=[4])
    assert r.outcome["defence"] == "Active Dodge"     # the default, Parry, is not open: the first
    made = next(e for e in r.trace if e.kind == "choose")
    assert made.detail == "by defender, default, while Grappling"
    assert defend.run(attacker=a, defender=b, grappling=True, defence="Hand parry",
                      dice=[4]).outcome["defence"] == "Hand parry"
    assert defend.run(attacker=a, defender=b, dice=[4]).outcome["defence"] == "Parry"
    with pytest.raises(RulecraftError, match="defender cannot choose 'Parry' for defence: the "
                       "options are Active Dodge, Hand parry"):
        defend.run(attacker=a, defender=b, grappling=True, defence="Parry", dice=[4])
    offered = []
    defend.run(attacker=a, defender=b, grappling=True, dice=[4],
               defence=lambda options, values: offered.append(options) or options[-1])
    assert offered == [["Active Dodge", "Hand parry"]]


def test_standing_constraints_in_exact_odds(rb):
    a, b = pair(rb)
    defend = rb.procedures["defend"]
    assert defend.odds(attacker=a, defender=b, grappling=True, by="defence") == {
        "Active Dodge": Fraction(1)}
    assert defend.odds(attacker=a, defender=b, grappling=True, policy="wary",
                       by="defence") == {"Active Dodge": Fraction(1)}


@pytest.mark.parametrize("rule, column, words", [
    ('while "Grappling", defense may only be "Hand parry"', 1,
     "unknown choice (a standing constraint binds the `choose` steps of procedures): "
     "'defense'; did you mean 'defence'?"),
    ('while "Grapling", defence may only be "Hand parry"', 1,
     "unknown condition 'Grapling'; did you mean 'Grappling'?"),
    ('while "Grappling", defence may only be "Hand parri"', 40,
     "unknown defence 'Hand parri'; did you mean 'Hand parry'?"),
])
def test_standing_constraints_are_checked(tmp_path, rule, column, words):
    old = 'while "Grappling", defence may only be ["Active Dodge", "Hand parry"]'
    err = compile_error(tmp_path, FEINT.replace(old, rule))
    assert (err.line, err.column) == (FEINT.splitlines().index(old) + 1, column), str(err)
    assert words in str(err)


def test_no_option_left_is_an_error(rb):
    a, b = pair(rb)
    with pytest.raises(RulecraftError, match="defender has no option left for defence while "
                       "Grappling and Retreating"):
        rb.procedures["cornered"].run(attacker=a, defender=b, dice=[3])


# ---- RQ3: a statement of intent, answered with `choosing` ------------------------------------

INTENT = '''rulebook rq3_intent "RQ3: statements of intent"
extends rq3_house

# RQ3's melee round opens with statements of intent, each combatant saying what it will do
# before anyone acts. House D: "Must declare in statement of intent"; B: "x1/2 (before bonuses
# to hit) for aimed blows, wild swings, split attacks". What each declares is hidden from the
# other until both have declared; then the blows are struck as declared.
procedure declared_round "A round as declared" (first: adventurer, second: adventurer):
  choose first_manner by first in secret from attack_manner default "Normal"
  choose first_aim by first in secret from aims("Melee", first_manner) default usual_aim("Melee", first_manner)
  choose second_manner by second in secret from attack_manner default "Normal"
  reveal first_manner, first_aim, second_manner
  call first_blow = melee_attack(first, second) choosing manner = first_manner, aim = first_aim
  call second_blow = melee_attack(second, first) choosing manner = second_manner
  outcome played "Played" with (first = first_blow, second = second_blow)
'''

# Broadsword 60%: an aimed blow is at half, 30%.
SWORDSMAN = dict(strength=13, constitution=12, size=13, intelligence=12, power=11, dexterity=14,
                 appearance=10, weapon="Broadsword", attacks={"Broadsword": 60},
                 parries={"Broadsword": 50}, skills={"Dodge": 40}, armour={"Chest": 4})


@pytest.fixture(scope="module")
def intent(tmp_path_factory):
    path = tmp_path_factory.mktemp("intent") / "intent.rules"
    path.write_text(INTENT, encoding="utf-8")
    return rulecraft.load(str(path))


def test_rq3_statement_of_intent_answers_the_blows_choices(intent):
    a, b = intent.combatant(**SWORDSMAN), intent.combatant(**SWORDSMAN)
    round_ = intent.procedures["declared_round"]
    # The first declares an aimed blow: at half (30%), 29 hits, to the location chosen (the
    # head by default): d8+1 = 4, d4 = 1, 5 to the head. The second, a normal blow, rolls 61.
    r = round_.run(first=a, second=b, first_manner="Aimed blow", defence="No defence",
                   manner="Wild swing", dice=[29, 3, 1, 61])
    assert (r.outcome["first"].name, r.outcome["second"].name) == ("hit", "missed")
    assert r.combatants["second"].location_damage == {"Head": 5}
    answered = [(e.value, e.detail) for e in r.trace if e.name == "manner"]
    assert answered == [("Aimed blow", "by attacker, answered by the caller"),
                        ("Normal", "by attacker, answered by the caller")]
    assert [e.name for e in r.trace if e.kind == "reveal"] == [
        "first_manner", "first_aim", "second_manner"]
    # 31 misses at half, where a normal blow (60%) would have hit.
    missed = round_.run(first=a, second=b, first_manner="Aimed blow", defence="No defence",
                        dice=[31, 61])
    assert missed.outcome["first"].name == "missed"


def test_rq3_statement_of_intent_odds_refused_with_sampling_offered(intent):
    # A call answering its callee's choices is worked out by states, its answers handed on:
    # two whole blows, declared in secret, are still too many, and the refusal offers
    # sampling, which plays them as declared.
    a, b = intent.combatant(**SWORDSMAN), intent.combatant(**SWORDSMAN)
    round_ = intent.procedures["declared_round"]
    with pytest.raises(RulecraftError, match="by sampling instead"):
        round_.odds(first=a, second=b, defence="No defence", first_manner="Wild swing")
    made = round_.sample(400, seed=2, first=a, second=b, defence="No defence",
                         first_manner="Wild swing", by=lambda r: r.outcome["first"].name)
    landed = sum(e.count for name, e in made.items() if name != "missed")
    assert 80 <= landed <= 160                          # half of 60%: 30 in 100


def test_a_declaration_cannot_read_the_other_sides_before_it_is_revealed(tmp_path):
    text = INTENT.replace('from attack_manner default "Normal"\n  reveal',
                         'from attack_manner default first_manner\n  reveal')
    err = compile_error(tmp_path, text)
    assert (err.line, err.column) == (11, 71), str(err)
    assert "first_manner is chosen in secret by first and not yet revealed when second " \
           "chooses second_manner: its default cannot read it" in str(err)


def test_rq3_house_split_attack_answers_the_manner_of_both_blows():
    # C: "splitting skill among 2 foes if raw skill is >100%"; B: "x1/2 ... for ... split
    # attacks". Broadsword 110%: each blow at 55%, so 56 misses what a whole blow would hit.
    rb = rulecraft.load("rq3_house")
    attacker = rb.combatant(**{**SWORDSMAN, "attacks": {"Broadsword": 110}})
    foes = dict(first_foe=rb.combatant(**SWORDSMAN), second_foe=rb.combatant(**SWORDSMAN))
    split = rb.procedures["split_attack"]
    r = split.run(attacker=attacker, defence="No defence", dice=[56, 56], **foes)
    assert (r.outcome.name, r.outcome["first"].name, r.outcome["second"].name) == (
        "struck", "missed", "missed")
    assert [e.value for e in r.trace if e.name == "manner"] == ["Split attack", "Split attack"]
    assert split.run(attacker=attacker, defence="No defence", dice=[55, 3, 1, 5, 56],
                     **foes).outcome["first"].name == "hit"
    # Raw skill 60% may not be split.
    short = rb.combatant(**SWORDSMAN)
    assert split.run(attacker=short, dice=[], **foes).outcome == "not_allowed"


def test_sheets_and_show_say_the_standing_constraints_and_what_a_party_knows(rb):
    from click.testing import CliRunner

    from rulecraft.cli import cli

    assert [(r.condition, r.choice, r.mode, r.options) for r in rb.standing] == [
        ("Grappling", "defence", "only", ("Active Dodge", "Hand parry")),
        ("Retreating", "defence", "not", ("Parry", "Active Dodge", "Hand parry"))]
    out = CliRunner().invoke(cli, ["sheet", rb.filename, "--format", "md", "--rules-only"])
    assert out.exit_code == 0, out.output
    assert "Defender chooses the Defence, seeing Attack Roll: Parry, Active Dodge, Hand parry " \
        "or No defence (by default Parry). While Grappling, only Active Dodge or Hand parry. " \
        "While Retreating, never Parry, Active Dodge or Hand parry." in out.output
    assert "Feinter chooses the Real Move, in secret: Left, Right or Back" in out.output
    assert "Reveal Real Move (chosen in secret)." in out.output
    assert "its Defence chosen by this procedure: Hand parry" in out.output
    shown = CliRunner().invoke(cli, ["show", rb.filename])
    assert "standing constraints:\n  while Grappling, defence may only be [\"Active Dodge\", " \
        "\"Hand parry\"] (line 11)" in shown.output


def test_the_new_constructs_format_back_as_written():
    from rulecraft.dsl.formatter import format_file
    from rulecraft.dsl.parser import parse

    from test_referee import APPEAL

    for text in (FEINT, INTENT, APPEAL):
        once = format_file(parse(text, "x.rules"))
        assert format_file(parse(once, "x.rules")) == once
    assert 'choose real_move by feinter in secret from side default "Right"' in \
        format_file(parse(FEINT, "x.rules"))


def test_a_house_file_adds_a_standing_constraint(tmp_path):
    # RQ3 house H5: "Victims with maimed or severed limbs are in shock: can only crawl/Heal/DI/
    # call for help" (no parry or dodge).
    path = tmp_path / "h.rules"
    path.write_text('rulebook rq3_more "RQ3, in shock"\nextends rq3_house\n\n'
                    'while "In shock", defence may only be "No defence"\n', encoding="utf-8")
    rb = rulecraft.load(str(path))
    assert [(r.condition, r.options) for r in rb.standing] == [("In shock", ("No defence",))]


def test_a_reveal_in_one_branch_leaves_the_choice_secret_on_the_other(tmp_path):
    text = FEINT.replace("  choose detect by target seeing feint_move from",
                         "  if feinter.skill > 5:\n    reveal real_move\n"
                         "  choose detect by target seeing feint_move, real_move from").replace(
        '  detect = feint_move != "Back"', "  detect = true")
    text = text.replace("  reveal real_move\n  if not detect:", "  if not detect:")
    err = compile_error(tmp_path, text)
    assert "real_move is chosen in secret by feinter and not yet revealed when target " \
           "chooses detect" in str(err)


def test_seeing_a_value_not_set_is_an_error(tmp_path):
    err = compile_error(tmp_path, FEINT.replace("seeing attack_roll from", "seeing atack_roll from"))
    assert "unknown value (defender chooses defence seeing values set before it) 'atack_roll'; " \
           "did you mean 'attack_roll'?" in str(err)
