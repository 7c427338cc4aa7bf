"""Ringing Steel part IV, Mounted Combat and the lance (seed 002, lines 33-154 and 302-326): the
horse's tables pinned cell by cell to the text, its formulas, and the procedures of a rider and
his horse with scripted dice."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.space import Hex

SEED = "/work/shared/seeds/002_41f740bb26c2da28.txt"


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


def knight(rb, **changes):
    figures = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                   training={"Sword": 5}, weapon="Sword", armour="Standard", riding=5,
                   lance=4, mounted=True)
    figures.update(changes)
    return rb.combatant(**figures)


def footman(rb, **changes):
    figures = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                   training={"Spear": 5}, weapon="Spear", armour="Standard")
    figures.update(changes)
    return rb.combatant(**figures)


def steed(rb, **changes):
    figures = dict(strength=16, dexterity=10, constitution=14, willpower=6, training=5)
    figures.update(changes)
    return rb.combatant_models["horse"].build(**figures)


# ---- tables ---------------------------------------------------------------------------------

MOVE_RATES = [  # "Armour Walk Canter Gallop"
    ("None", (4, 2, 1)), ("Protection", (4, 2, 1)), ("Light", (4, 2, 1)),      # None to light 4 2 1
    ("Standard", (5, 2, 1)), ("Heavy", (5, 2, 1)),                            # Std, Hvy 5 2 1
    ("Heavy Plus", (5, 3, 1)), ("Extra Heavy", (5, 3, 1)),                    # Hxy+, XHvy 5 3 1
    ("Super Heavy", (6, 3, 2)), ("Full", (6, 3, 2)),                          # SHvy, Full 6 3 2
]


@pytest.mark.parametrize("armour, rates", MOVE_RATES)
def test_horse_move_rates_are_the_books_rows(rb, armour, rates):
    row = rb.tables["horse_move_rates"].lookup(armour)
    assert (row.walk, row.canter, row.gallop) == rates


MOUNTED = [  # (horse skill, rider skill): "base speed/attack/defence"
    (0.1, 0.1, (3, -4, -5)),   # 0.1–1.9 row, first cell "3/-4/-5"
    (1.9, 9.0, (0, -1, -2)),   # 0.1–1.9 row, last cell "0/-1/-2"
    (2.0, 1.9, (2, -3, -4)),   # 2.0–3.9 row, first cell
    (3.9, 8.0, (-1, 0, -1)),   # 2.0–3.9 row, "8 and up": "-1/0/-1"
    (4.0, 2.0, (1, -1, -3)),   # 4.0–5.9 row, 2.0–3.9 column "1/-1/-3"
    (5.9, 4.0, (0, 0, -1)),    # "0/0/-1"
    (6.0, 6.0, (-1, 1, 0)),    # 6.0–7.9 row, 6.0–7.9 column "-1/1/0"
    (7.9, 8.0, (-2, 2, 1)),    # "-2/2/1"
    (8.0, 0.1, (1, -2, -3)),   # 8 and up row, first cell "1/-2/-3"
    (9.5, 2.5, (0, 0, -2)),    # "0/0/-2"
    (8.0, 5.9, (-1, 1, -1)),   # "-1/1/-1"
    (8.0, 6.0, (-2, 2, 0)),    # "-2/2/0"
    (12.0, 12.0, (-3, 3, 2)),  # last cell "-3/3/2"
]


@pytest.mark.parametrize("horse, rider, cell", MOUNTED)
def test_mounted_combat_table_horse_down_rider_across(rb, horse, rider, cell):
    # "The relative skills of horse (down) and rider (across) are cross referenced"
    row = rb.tables["mounted_combat"].lookup(horse, rider)
    assert (row.base_speed, row.attack, row.defence) == cell


LANCE = [  # "Target is: Running Towards, Walking Towards, Stationary, Walking Away, Running Away"
    ("Gallop", "Running Towards", 10), ("Gallop", "Stationary", 6), ("Gallop", "Running Away", 2),
    ("Canter", "Running Towards", 5), ("Canter", "Walking Towards", 5), ("Canter", "Walking Away", 2),
    ("Canter", "Running Away", 0), ("Walk", "Running Towards", 2), ("Walk", "Stationary", 0),
    ("Walk", "Walking Away", -1), ("Walk", "Running Away", -2),
]


@pytest.mark.parametrize("horse, target, bonus", LANCE)
def test_lance_blow_strength_table(rb, horse, target, bonus):
    assert rb.tables["lance_blow"].lookup(horse, target) == bonus


@pytest.mark.parametrize("score, skill_sum, effect", [
    (-11, 8, "Attacker must move back one hex"),  # below -10
    (-10, 8, "None"), (0, 8, "None"),             # -10 – 0
    (1, 8, "Horse moves back one hex"), (8, 8, "Horse moves back one hex"),  # 1 – Skill Sum
    (9, 8, "Rider knocked off"),                  # > Skill Sum
])
def test_hits_to_the_rider_table(rb, score, skill_sum, effect):
    assert rb.tables["rider_hits"].lookup(score, skill_sum=skill_sum) == effect


# ---- formulas -------------------------------------------------------------------------------

def test_horse_figures_reuse_part_one(rb):
    # "A = 1.8, B = 6 and modifier = -2"; skill (10/4) x ln 6 x 1.3 (no armour) = 5.8
    h = steed(rb)
    assert h.skill == pytest.approx(5.8)
    assert h.anti_parry == 10                # floor(5.8 x 1.8)
    assert h.blow_strength == 22             # 16 + 6
    assert h.base_speed == 9                 # floor(20 - 5.8 - 3 - 2)
    assert (h.walk, h.canter, h.gallop) == (4, 2, 1)
    assert h.fatigue_limit == 36             # 16 + 14 + 6
    assert (h.active_dodge_factor, h.passive_dodge_factor) == (27, 13)
    assert list(h.hexes) == [rulecraft.runtime.space.Hex(0, 0), rulecraft.runtime.space.Hex(-1, 0)]


def test_horse_legs_have_half_protection(rb):
    # "except all legs have half the given protection, rounded down": Super Heavy legs 12 -> 6
    f = rb.formulas["horse_protection"]
    assert f("Super Heavy", "Leg") == 6 and f("Super Heavy", "Chest") == 15
    assert f("Light", "Leg") == 0


def test_moving_horse_attack_penalty_only_the_largest(rb):
    # "decreased by one for a turn or walk, two for a canter, or four for a gallop, only the
    # largest counting"
    f = rb.formulas["mounted_motion_penalty"]
    assert [f("Stationary"), f("Stationary", True), f("Walk"), f("Canter", True), f("Gallop", True)] \
        == [0, 1, 1, 2, 4]


def test_horse_against_horse(rb):
    f = rb.formulas["horse_vs_horse"]
    assert f("Canter", "Gallop", True) == 2 and f("Gallop", "Canter", True) == 2   # "increased by two"
    assert f("Gallop", "Gallop", True) == 6                                          # "by six"
    assert f("Gallop", "Gallop", False) == 0 and f("Canter", "Canter", True) == 0


def test_rider_or_horse_by_the_d10(rb):
    # "Rider at end attacked is hit on 1–6; Rider at other end is hit at a 1–3"
    f = rb.formulas["rider_is_hit"]
    assert [f(r, True) for r in (1, 6, 7, 10)] == [True, True, False, False]
    assert [f(r, False) for r in (1, 3, 4)] == [True, True, False]


def test_thrown_by_a_shy(rb):
    # "if this is more than 3 x rider's skill he falls. A roll of 20 always throws and a roll of
    # one never."
    f = rb.formulas["rider_thrown"]
    assert f(15, 5.0) is False and f(16, 5.0) is True
    assert f(20, 9.0) is True and f(1, 0.0) is False


def test_falls_and_mounting(rb):
    # "Bash Score + 15 - Skill Sum, or 15 - Skill Rider if the fall is due to shying"
    assert rb.formulas["knocked_off_blow"](12, 11.4) == 15
    assert rb.formulas["shy_fall_blow"](5.6) == 9
    # "20 - Skill of rider tenths if the horse is stationary, 25 - Skill of rider tenths if it is
    # walking"
    assert rb.formulas["mount_time"](5.6, "Stationary") == 14
    assert rb.formulas["mount_time"](5.6, "Walk") == 19


# ---- procedures -----------------------------------------------------------------------------

def test_control_action_and_response_times(rb):
    # "taking 10 - skill of rider tenths. The horse will respond 10 - skill of horse tenths later"
    k, h = knight(rb), steed(rb)
    assert k.riding_skill == pytest.approx(5.4)   # 12/4 x ln 6 x 1.0
    r = rb.procedures["control_horse"].run(rider=k, horse=h, order="Faster")
    assert r.outcome == "ordered" and (r.outcome["control_time"], r.outcome["response_time"]) == (4, 4)
    r = rb.procedures["control_horse"].run(rider=k, horse=steed(rb, training=4), order="Keep attacking")
    assert r.outcome == "refused"
    r = rb.procedures["control_horse"].run(rider=knight(rb, riding=0), horse=h, order="Faster")
    assert r.outcome == "refused"


def test_speed_changes_one_category_and_turns_need_moves(rb):
    h = steed(rb, gait="Walk")
    p = rb.procedures["horse_responds"]
    r = p.run(horse=h, order="Faster")
    assert r.outcome["gait"] == "Canter"
    h = r.combatants["horse"]
    assert h.fatigue == 1                       # "Starting to canter"
    # "when cantering two moves must be made between each turn"
    assert p.run(horse=h, order="Turn left").outcome == "not_yet"
    h = steed(rb, gait="Canter", moves_since_turn=2, facing=0)
    r = p.run(horse=h, order="Turn right")
    assert r.outcome == "turned" and r.combatants["horse"].facing == 5 and r.outcome["time"] == 2   # "the canter move rate"


def test_blow_from_horseback_adjusts_attack_and_blow_strength(rb):
    # Horse skill 5.8, rider 5.4: "0/0/-1"; at a canter, -2 to attack; hand weapons -2 blow
    # strength; long column: roll 9 long/cut is Chest.
    k, h, f = knight(rb), steed(rb, gait="Canter"), footman(rb)
    r = rb.procedures["mounted_blow"].run(rider=k, horse=h, defender=f, dice=[18, 9])
    assert (r.outcome["attack_bonus"], r.outcome["blow_bonus"]) == (-2, -2)
    blow = r.outcome["blow"]
    assert blow == "hit" and blow["location"] == "Chest"
    assert blow["effective_blow_strength"] == k.blow_strength - 2 - 8


def test_blow_at_the_horse_can_make_it_shy_and_throw_the_rider(rb):
    # d10 8: at the horse (rider at end attacked hit on 1-6); d20 5 hits its passive dodge 13
    # (Anti-Parry 10: excess 2); d10 6 long/stab: Chest, no armour; the spear's blow strength
    # 18 + 4 = 22, DF round(24/4) = 6: Wound; save 3d6 = 18 > Will Power 6 + skill 5.8: it
    # shies; d20 20 throws.
    k, h, f = knight(rb), steed(rb, gait="Walk"), footman(rb)
    r = rb.procedures["blow_at_horseman"].run(attacker=f, defender=k, horse=h,
                                             dice=[8, 5, 6, 6, 6, 6, 20, 10, 6])
    assert r.outcome == "at_horse"
    assert r.outcome["horse_blow"]["location"] == "Chest"
    assert r.outcome["horse_blow"]["wound"] == "Wound"
    shy = r.outcome["shy"]["shy"]
    assert r.outcome["shy"] == "shied" and shy["thrown"] is True
    # "blow strength used is ... 15 - Skill Rider if the fall is due to shying": 15 - 5.4 -> 9,
    # less Standard armour's 8 on the Chest (short stab table, d10 6); d20 10 - Passive Dodge
    # Factor 13 is no excess: damage factor 1 "is counted as not injuring".
    assert shy["fall"] == "unhurt" and shy["fall"]["effective_blow_strength"] == 1
    # He lands beside the horse: hex 2 (`mounting_hexes`), "The fall starts at the end of the
    # first walk move of the shy".
    assert shy["fall_at"] == 8
    assert r.combatants["defender"].mounted is False
    assert r.combatants["defender"].fatigue == 0 and r.combatants["attacker"].fatigue == 1
    # "a time equal to that for two walk moves": the Wound's four tenths lengthen each walk
    # ("Adds a modifier of four tenths"): 2 x (4 + 4).
    assert shy["shy_time"] == 16


def test_blow_at_the_rider_is_part_one_with_the_horses_dodge(rb):
    # d10 3: the rider; d20 against the horse's passive dodge 13 instead of his own
    k, h, f = knight(rb), steed(rb), footman(rb)
    r = rb.procedures["blow_at_horseman"].run(attacker=f, defender=k, horse=h, dice=[3, 3])
    assert r.outcome == "at_rider"
    assert r.outcome["blow"]["defence_potential"] == h.passive_dodge_factor


# ---- the language: a number cell may print its sign ------------------------------------------

def test_a_number_cell_may_print_a_plus_sign():
    # Lance: "Galloping +10 +8 +6 +4 +2" — the sign is printed, and the cell is a number.
    rb = rulecraft.compile('rulebook t "T"\n'
                           'table bonus "Bonus" by pace -> integer:\n'
                           '  | Pace | Bonus |\n'
                           '  | Fast | +10   |\n'
                           '  | Slow | -2    |\n'
                           '  | Even | +0    |\n', "t.rules")
    t = rb.tables["bonus"]
    assert (t.lookup("Fast"), t.lookup("Slow"), t.lookup("Even")) == (10, -2, 0)
    with pytest.raises(rulecraft.RulecraftError, match=r"'\+-2' is not a whole number"):
        rulecraft.compile('rulebook t "T"\ntable bonus "Bonus" by pace -> integer:\n'
                          '  | Pace | Bonus |\n  | Fast | +-2   |\n', "t.rules")


# ---- falls, bashes, knock backs ---------------------------------------------------------------

@pytest.mark.parametrize("dice, outcome, wound", [
    # "A roll of 1 indicates that the combatant has landed well and suffers no damage."
    ([1], "landed_well", None),
    # d20 16 - PDF 13 = 3; short stab d10 1: Head (Standard 8); 20 - 8 = 12, DF round(15/4) = 4,
    # "all other damage factors are reduced by one": 3, Head L Wound.
    ([16, 1], "hurt", "L Wound"),
    # d20 5: "an excess of less than zero is treated as zero"; d10 10 Leg (no armour): 20,
    # DF 5 - 1 = 4: Leg L Wound.
    ([5, 10], "hurt", "L Wound"),
    # "A roll of 20 indicates a critical fall": excess 7 + d10 9 = 16; d10 6 Chest: 12 + 16 = 28,
    # DF 7 - 1 = 6: Chest Wound.
    ([20, 9, 6], "hurt", "Wound"),
])
def test_fall_damage(rb, dice, outcome, wound):
    r = rb.procedures["fall_damage"].run(combatant=knight(rb), blow_strength=20, dice=dice)
    assert r.outcome == outcome
    if wound:
        assert r.outcome["wound"] == wound
        assert r.combatants["combatant"].fatigue > 0


def test_a_damage_factor_of_one_does_not_injure(rb):
    # blow 9 on the Chest (8): 1 + excess 0, DF round(1/4) -> 1: "counted as not injuring"
    r = rb.procedures["fall_damage"].run(combatant=knight(rb), blow_strength=9, dice=[10, 6])
    assert r.outcome == "unhurt" and r.combatants["combatant"].injuries == {}


@pytest.mark.parametrize("score, mounted_attacker, outcome", [
    (-11, False, "attacker_back"),
    (-11, True, "no_effect"),     # "If the attacker is another horseman then the attacker moves
    (0, False, "no_effect"),      #  back result is ignored."
    (11, False, "horse_back"),    # skill sum 5.4 + 5.8 = 11.2
])
def test_rider_bashed(rb, score, mounted_attacker, outcome):
    r = rb.procedures["rider_bashed"].run(rider=knight(rb), horse=steed(rb, gait="Gallop"),
                                         bash_score=score, attacker_mounted=mounted_attacker)
    assert r.outcome == outcome
    if outcome == "horse_back":
        # "if the horse is initially cantering or galloping the effect of being forced to move
        # back is to reduce the speed by one category for each move"
        assert r.combatants["horse"].gait == "Canter" and r.combatants["horse"].at == Hex(0, 0)


def test_rider_knocked_off_falls_with_bash_plus_15_less_the_skill_sum(rb):
    # Bash 12 > 11.2: knocked off; blow strength 12 + 15 - 11.2 -> 15; d20 15 - 13 = 2; short
    # stab d10 6: Chest (8): 7 + 2, DF round(9/4) = 2 - 1 = 1: a Bruise. He lands in hex 2.
    r = rb.procedures["rider_bashed"].run(rider=knight(rb), horse=steed(rb), bash_score=12,
                                         dice=[15, 6])
    assert r.outcome == "knocked_off"
    assert r.outcome["fall"]["effective_blow_strength"] == 7
    assert r.outcome["fall"]["wound"] == "Bruise"
    rider = r.combatants["rider"]
    assert rider.mounted is False and rider.injuries == {"Chest": ("Bruise",)}
    assert rider.at != (0, 0)


def test_knock_back_at_a_walk_moves_the_horse_back(rb):
    # "Once the move rate is down to walk, move backs take place normally."
    p = rb.procedures["horse_knocked_back"]
    r = p.run(horse=steed(rb, gait="Canter"), moves=2)
    assert (r.outcome["slowed"], r.outcome["moved"], r.outcome["gait"]) == (1, 1, "Walk")
    assert r.combatants["horse"].at == Hex(-1, 0)


# ---- mounting, position, horses' attacks, the lance, riderless horses ----------------------

def test_mounting_from_beside_the_horse(rb):
    # A rider in hex "back left" of the horse's front (1 left-ahead of its rear) facing it.
    h = steed(rb)
    beside = rulecraft.runtime.space.Hex(0, 0) + rulecraft.runtime.space.Hex(-1, 1)
    k = knight(rb, mounted=False, at=beside, facing=1)
    r = rb.procedures["mount_horse"].run(rider=k, horse=h)
    if r.outcome != "mounted":  # the pattern's hex 2 may lie on the other side: try facing it
        pytest.fail(f"refused: {r.outcome['reason']}")
    assert r.outcome["time"] == 14     # 20 - 5.4
    assert r.combatants["rider"].mounted is True
    far = knight(rb, mounted=False, at=(3, 3))
    assert rb.procedures["mount_horse"].run(rider=far, horse=h).outcome == "refused"
    # "The horse must be stationary or walking for mounting or dismounting."
    assert rb.procedures["mount_horse"].run(rider=k, horse=steed(rb, gait="Canter")).outcome \
        == "refused"


def test_dismounting_walking_horse_takes_five_tenths_more(rb):
    r = rb.procedures["dismount_horse"].run(rider=knight(rb), horse=steed(rb, gait="Walk"))
    assert r.outcome == "dismounted" and r.outcome["time"] == 19      # 25 - 5.4
    assert r.combatants["rider"].mounted is False


def test_changing_position(rb):
    r = rb.procedures["change_position"].run(rider=knight(rb), seat="Back", looking="Left")
    assert r.outcome["time"] == 4                                        # 10 - 5.4
    assert (r.combatants["rider"].seat, r.combatants["rider"].looking) == ("Back", "Left")


def test_a_horse_attacks_and_slows(rb):
    # Anti-Parry 10 + d20 12 - PDF 13 = 9; long/cut d10 6: R Shoulder (Standard 8); BS 22 - 8
    # = 14, DF round(23/4) = 6: Shoulder Wound. "Its speed will be reduced by one category".
    r = rb.procedures["horse_attack"].run(horse=steed(rb, gait="Canter"), defender=footman(rb),
                                         dice=[12, 6])
    assert r.outcome == "hit" and r.outcome["location"] == "R Shoulder"
    assert r.outcome["wound"] == "Wound"
    assert r.combatants["horse"].gait == "Walk" and r.combatants["horse"].fatigue == 1


def test_lance_attack(rb):
    # Lance skill 12/4 x ln 5 x 1.0 = 4.8 -> Anti-Parry floor(8.64) = 8; mounted table (5.8, 5.4)
    # "0/0/-1"; at a gallop -4: 8 - 4 = 4 against the footman's PDF 13. Blow strength 12 + 4, and
    # galloping at a stationary target +6: 22.
    k, f = knight(rb), footman(rb)
    r = rb.procedures["lance_attack"].run(rider=k, horse=steed(rb, gait="Gallop"), defender=f,
                                         target="Stationary", dice=[15, 6])
    assert r.outcome == "struck"
    assert r.outcome["blow"]["excess"] == 4 + 15 - 13
    assert r.outcome["blow"]["effective_blow_strength"] == 22 - 8
    # "The rider must be sitting forwards"; "only by a rider with Training of three or more"
    assert rb.procedures["lance_attack"].run(rider=knight(rb, seat="Back"), horse=steed(rb, gait="Walk"),
                                             defender=f).outcome == "refused"
    assert rb.procedures["lance_attack"].run(rider=knight(rb, riding=2), horse=steed(rb, gait="Walk"),
                                             defender=f).outcome == "refused"


@pytest.mark.parametrize("training, kw, what", [
    (4, {}, "Stands"),
    (4, {"attacked": True}, "Flees"),
    (6, {"attacked": True}, "Defends"),
    (6, {"rider_down": True}, "Stands over its rider"),
    (6, {"wounded": True}, "Flees"),
])
def test_riderless_horses(rb, training, kw, what):
    r = rb.procedures["riderless_horse"].run(horse=steed(rb, training=training), **kw)
    assert r.outcome["what"] == what


def test_a_fleeing_horse_stops_past_half_its_fatigue_limit(rb):
    # "keep going until it is clear of all combatants or has taken fatigue points over half its
    # Fatigue Limit"
    r = rb.procedures["riderless_horse"].run(horse=steed(rb, gait="Gallop", fatigue=19))
    assert r.outcome["what"] == "Stops fleeing"


# ---- across a sequence: a horse wounded twice, its rider thrown and on foot ----------------

def test_wounds_to_a_horse_accumulate_and_the_second_brings_it_down(rb):
    k, h, f = knight(rb), steed(rb, gait="Walk"), footman(rb)
    p = rb.procedures["blow_at_horseman"]
    # First blow: a Wound to the Chest, the horse keeps steady (save 3d6 = 6 <= 11.8).
    r = p.run(attacker=f, defender=k, horse=h, dice=[8, 5, 6, 2, 2, 2])
    assert r.outcome["shy"] == "steady"
    k, h = r.combatants["defender"], r.combatants["horse"]
    # Second: another Chest Wound makes a Serious Wound: "the horse will shy before passing out,
    # finishing the shy on the ground"; d20 2 does not throw: he stays on until he dismounts.
    r = p.run(attacker=f, defender=k, horse=h, dice=[8, 5, 6, 2, 2, 2, 2])
    h = r.combatants["horse"]
    assert h.injuries["Chest"] == ("S Wound",)
    assert r.outcome["horse_blow"]["wound"] == "Wound"
    shy = r.outcome["shy"]
    assert shy == "shied" and shy["shy"]["thrown"] is False
    assert any(e.kind == "give" and e.value == "Horse down" for e in r.trace)
    assert r.combatants["defender"].mounted is True


# ---- the remaining branches -------------------------------------------------------------------

def test_horse_fatigue_table(rb):
    t = rb.tables["horse_fatigue"]
    assert (t.lookup("Starting to canter").points, t.lookup("Starting to gallop").points) == (1, 1)
    assert t.lookup("Cantering for a spell").tenths == 50     # "Cantering for 50 tenths"
    assert t.lookup("Galloping for a spell").tenths == 25     # "Galloping for 25 tenths"


def test_control_refusals_and_slowing(rb):
    p = rb.procedures["control_horse"]
    # "Cantering and galloping horses cannot actively dodge."
    assert p.run(rider=knight(rb), horse=steed(rb, gait="Canter"), order="Active dodge").outcome \
        == "refused"
    assert p.run(rider=knight(rb), horse=steed(rb, gait="Walk"), order="Active dodge").outcome \
        == "ordered"
    r = rb.procedures["horse_responds"].run(horse=steed(rb, gait="Gallop"), order="Slower")
    assert r.outcome["gait"] == "Canter" and r.combatants["horse"].fatigue == 0
    r = rb.procedures["horse_responds"].run(horse=steed(rb, gait="Canter"), order="Faster")
    assert r.outcome["gait"] == "Gallop" and r.combatants["horse"].fatigue == 1  # "Starting to gallop"


def test_dismount_refusals(rb):
    p = rb.procedures["dismount_horse"]
    assert p.run(rider=knight(rb, mounted=False), horse=steed(rb)).outcome == "refused"
    assert p.run(rider=knight(rb), horse=steed(rb, gait="Gallop")).outcome == "refused"


def test_the_rider_parries_a_blow_at_his_horse_with_his_mounted_defence(rb):
    # Parry by the rider: his Parry-Cut against the axe's cut, 32, plus the mounted table's
    # third figure (5.8, 5.4: "0/0/-1"): 31. d10 9 is at the horse; d20 10: 10 + 10 < 31.
    axe = footman(rb, training={"Hand axe": 5}, weapon="Hand axe")
    r = rb.procedures["blow_at_horseman"].run(attacker=axe, defender=knight(rb), horse=steed(rb),
                                             dice=[9, 10], defence="Parry")
    assert r.outcome == "at_horse" and r.outcome["defence"] == "Parry"
    assert r.outcome["horse_blow"] == "missed"
    assert r.outcome["horse_blow"]["excess"] == 10 + 10 - 31


def test_a_galloping_horse_cannot_dodge_actively_and_a_critical_hit_on_it(rb):
    # The active dodge asked for becomes a passive one; d20 20 hits, d10 10: the attacker
    # chooses the location (default Head), critical excess: Anti-Parry 9 + 20 - 13 = 16, + 10.
    r = rb.procedures["blow_at_horseman"].run(attacker=footman(rb), defender=knight(rb),
                                             horse=steed(rb, gait="Gallop"), dice=[9, 20, 10, 2],
                                             defence="Active Dodge")
    assert r.outcome["defence"] == "Passive Dodge"
    blow = r.outcome["horse_blow"]
    assert blow == "hit" and blow["location"] == "Head" and blow["excess"] == 26


def test_horse_knocked_down_shies_on_the_ground_and_a_rider_who_stays_on(rb):
    # "Knock down results are treated as the horse shying, ending on the ground": d20 2 does
    # not throw him.
    r = rb.procedures["horse_shies"].run(horse=steed(rb), rider=knight(rb), down=True, dice=[2])
    assert r.outcome["thrown"] is False and r.combatants["rider"].mounted is True
    gives = [e.value for e in r.trace if e.kind == "give"]
    assert "Horse down" in gives and "Shying" in gives


def test_lance_refused_from_a_standing_horse(rb):
    # "The attack is then made by moving forwards"
    r = rb.procedures["lance_attack"].run(rider=knight(rb), horse=steed(rb), defender=footman(rb))
    assert r.outcome == "refused"


def test_a_stationary_horse_turns_about_either_end(rb):
    # "when stationary may keep either end fixed when turning. When moving the front end is
    # always the fixed end for turns."
    p = rb.procedures["horse_responds"]
    front = p.run(horse=steed(rb), order="Turn left").combatants["horse"]
    assert front.at == Hex(0, 0) and front.facing == 1
    rear = p.run(horse=steed(rb), order="Turn left", rear_fixed=True).combatants["horse"]
    assert rear.facing == 1 and Hex(-1, 0) in rear.hexes and rear.at != Hex(0, 0)
    walking = p.run(horse=steed(rb, gait="Walk"), order="Turn left", rear_fixed=True)
    assert walking.combatants["horse"].at == Hex(0, 0)


def test_a_horse_that_misses_critically_is_delayed_d10_plus_two(rb):
    r = rb.procedures["horse_attack"].run(horse=steed(rb), defender=footman(rb), dice=[1, 7])
    assert r.outcome == "missed"
    assert [(e.kind, e.value) for e in r.trace if e.kind == "delay"][-1] == ("delay", 9)


def test_a_horse_must_have_training_two_to_be_ridden_in_combat(rb):
    # "a single combat Training, which must be at least 2 for them to be ridden in combat"
    green = steed(rb, training=1)
    assert rb.procedures["control_horse"].run(rider=knight(rb), horse=green,
                                              order="Faster").outcome == "refused"
    assert rb.procedures["mounted_blow"].run(rider=knight(rb), horse=green,
                                             defender=footman(rb)).outcome == "unhorsed"
