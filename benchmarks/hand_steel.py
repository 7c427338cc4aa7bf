"""Ringing Steel's melee attack written by hand: the baselines `bench_core.py` measures against.

Two blows, both reading the rules as `rulebooks/ringing_steel.rules` does and drawing the dice
in the same order from the same kind of source (`random.Random`'s `randint`, as
`rulecraft.SeededDice` does), so that one seed gives both sides the same blow — which
`tests/test_benchmarks.py` checks for thousands of seeds:

- `careful_melee`: the same work as the engine — a fighter's figures worked out exactly
  (`Decimal` for the one-decimal figures), remembered per state as the engine remembers them
  (what the sheet alone decides, once per sheet: the engine never works a skill out again),
  the arguments checked, a trace of each roll and value, the fighters' new states returned;
- `plain_melee`: what a programmer in a hurry would write — whole numbers only, figures looked
  up in the same memo, no checks, no trace. The floor under any engine.
"""

from __future__ import annotations

import math
from decimal import ROUND_FLOOR, ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal
from typing import Any

ARMOUR = {  # walk, run, modifier, factor, protection by area
    "Standard": (6, 3, 0, Decimal("1.0"), {"Head": 8, "Shoulder": 8, "Arm": 8, "Chest": 8,
                                            "Abdomen": 8, "Leg": 0}),
    "Light": (6, 3, -1, Decimal("1.1"), {"Head": 5, "Shoulder": 4, "Arm": 3, "Chest": 4,
                                          "Abdomen": 4, "Leg": 0}),
}
WEAPONS = {  # type, range, A, B, DS, DC, modifier
    "Sword": ("Cut", "Medium", Decimal("2.0"), 4, Decimal("2.8"), Decimal("3.0"), 0),
    "Spear": ("Stab", "Long", Decimal("1.8"), 4, Decimal("2.4"), Decimal("3.6"), -1),
    "Shield": ("Stab", "Close quarters", Decimal("1.0"), -4, Decimal("3.4"), Decimal("3.0"), 1),
}
COLUMN = {("Medium", "Cut"): 4, ("Long", "Stab"): 2}  # hit location columns, below
COLUMN_NAME = {("Medium", "Cut"): "med/cut", ("Long", "Stab"): "long/stab"}  # the same, by name
HIT = [  # d10 rows; columns short/stab, med/stab, long/stab, short/cut, med/cut, long/cut
    ["Head"] * 6,
    ["R Arm", "Head", "R Arm", "Head", "Head", "Head"],
    ["L Arm", "R Arm", "L Arm", "R Arm", "Shoulder", "L Shoulder"],
    ["R Shoulder", "L Arm", "R Shoulder", "L Arm", "R Arm", "L Shoulder"],
    ["L Shoulder", "Shoulder", "L Shoulder", "R Shoulder", "L Arm", "R Shoulder"],
    ["Chest", "Chest", "Chest", "L Shoulder", "Chest", "R Shoulder"],
    ["Chest", "Abdomen", "Chest", "Chest", "Chest", "L Arm"],
    ["Abdomen", "Abdomen", "Chest", "Abdomen", "Abdomen", "R Arm"],
    ["Abdomen", "R Leg", "Abdomen", "Abdomen", "Abdomen", "Chest"],
    ["Leg", "L Leg", "Abdomen", "Leg", "Leg", "Abdomen"],
]
AREA = {"Head": "Head", "R Arm": "Arm", "L Arm": "Arm", "R Shoulder": "Shoulder",
        "L Shoulder": "Shoulder", "Shoulder": "Shoulder", "Chest": "Chest", "Abdomen": "Abdomen",
        "Leg": "Leg", "R Leg": "Leg", "L Leg": "Leg"}
AREAS = ["Head", "Arm", "Shoulder", "Chest", "Abdomen", "Leg"]
WOUNDS = [r.split(",") for r in (  # damage factor 1..12 by area (blanks repeat the row above)
    "Bruise,Bruise,Bruise,Bruise,Bruise,Bruise", "Bruise,L Wound,Bruise,Bruise,Bruise,Bruise",
    "L Wound,Wound,Bruise,L Wound,Bruise,L Wound", "L Wound,Wound,L Wound,L Wound,L Wound,L Wound",
    "Wound,S Wound,L Wound,Wound,L Wound,Wound", "Wound,S Wound,Wound,Wound,Wound,Wound",
    "S Wound,Disable,Wound,S Wound,Wound,Wound", "S Wound,Disable,Wound,S Wound,S Wound,S Wound",
    "Disable,Disable,S Wound,Disable,S Wound,S Wound", "Disable,Sever,S Wound,Disable,Disable,Disable",
    "Death,Sever,Disable,Death,Disable,Disable", "Death,Sever,Disable,Death,Death,Sever")]
EFFECTS = {"Bruise": (0, 0, 0, 1), "L Wound": (0, 0, 2, 2), "Wound": (-1, -2, 4, 4),
           "S Wound": (-2, -4, 8, 8), "Disable": (0, 0, 0, 0), "Sever": (0, 0, 0, 0),
           "Death": (0, 0, 0, 0)}  # anti-parry, defence, action time, fatigue
CONSEQUENCE = {"S Wound": "saving throw against Will Power or pass out", "Disable": "passes out",
               "Sever": "passes out", "Death": "dead"}
PAIRS = {("Bruise", "Bruise"): "L Wound", ("L Wound", "L Wound"): "Wound",
         ("Wound", "Wound"): "S Wound", ("S Wound", "Wound"): "Disable",
         ("Wound", "S Wound"): "Disable"}


def _floor(x: Decimal) -> int:
    return int(x.to_integral_value(rounding=ROUND_FLOOR))


def skill(dexterity: int, training: int, armour: str) -> Decimal:
    """"Skill-Factor" = round(dexterity / 4 * ln(training + 1) * armour factor, 1)."""
    value = Decimal(dexterity) / 4 * Decimal(math.log(training + 1)) * ARMOUR[armour][3]
    return value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


_FIGURES: dict[Any, dict[str, Any]] = {}  # a fighter's figures, remembered per state
_SHEET: dict[int, tuple[Any, ...]] = {}  # what a fighter's figures owe to his sheet alone


def _from_sheet(sheet: dict[str, Any]) -> tuple[Any, ...]:
    """The figures a fighter's sheet alone decides (skills, their floors, the fatigue limit),
    worked out once per sheet: the engine works out a derived figure again only when a field it
    reads changed (`CombatantModel._rederive`), and no change of fatigue or injuries reaches a
    skill."""
    found = _SHEET.get(id(sheet))
    if found is not None:
        return found
    w, a = WEAPONS[sheet["weapon"]], ARMOUR[sheet["armour"]]
    sk = skill(sheet["dexterity"], sheet["training"][sheet["weapon"]], sheet["armour"])
    best = max(skill(sheet["dexterity"], t, sheet["armour"]) for t in sheet["training"].values())
    strength = sheet["strength"]
    if w[1] in ("Long", "Medium+Long"):
        strength = int((Decimal(strength) * Decimal("1.5")).to_integral_value(ROUND_HALF_DOWN))
    shield = skill(sheet["dexterity"], sheet["training"]["Shield"], sheet["armour"]) \
        if sheet.get("shield") else None
    guard = WEAPONS["Shield"]
    found = _SHEET[id(sheet)] = (
        sk, sheet["strength"] + sheet["constitution"] + 6,  # the fatigue limit
        None if shield is None else _floor(shield * guard[4] + 12),
        None if shield is None else _floor(shield * guard[5] + 16),
        _floor(sk * w[2]), _floor(sk * w[4] + 12), _floor(sk * w[5] + 16), strength + w[3],
        max(1, _floor(20 - sk + a[2] + w[6])), a[0], a[1], _floor(best * 2 + 16),
        _floor(best + 8))
    return found


def figures(sheet: dict[str, Any], fatigue: int = 0,
            injuries: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> dict[str, Any]:
    """A fighter's figures in a state (fatigue, injuries by area), worked out once per state,
    as the engine's `derive` memo does, from what his sheet alone decides (`_from_sheet`)."""
    key = (id(sheet), fatigue, injuries)
    found = _FIGURES.get(key)
    if found is not None:
        return found
    (sk, limit, shield_stab, shield_cut, anti_parry, parry_stab, parry_cut, blow, speed, walk,
     run, active, passive) = _from_sheet(sheet)
    over = fatigue - limit // 2 if fatigue * 2 > limit else 0
    hurt = [EFFECTS[i] for _, items in injuries for i in items]
    attack = -(-over // 3) - sum(h[0] for h in hurt)
    defence = -(-over // 3) - sum(h[1] for h in hurt)
    slow = -(-over // 2) + sum(h[2] for h in hurt)
    found = dict(sheet, fatigue=fatigue, injuries=injuries, skill=sk,
                 shield=bool(sheet.get("shield")),
                 shield_parry_stab=0 if shield_stab is None else shield_stab - defence,
                 shield_parry_cut=0 if shield_cut is None else shield_cut - defence,
                 anti_parry=anti_parry - attack, parry_stab=parry_stab - defence,
                 parry_cut=parry_cut - defence, blow_strength=blow - over,
                 base_speed=speed + slow, walk=walk + slow, run=run + slow,
                 active_dodge_factor=active - defence, passive_dodge_factor=passive - defence,
                 fatigue_save_modifier=limit - fatigue if fatigue >= limit else None,
                 sheet=sheet)
    if len(_FIGURES) > 4096:
        _FIGURES.clear()
    _FIGURES[key] = found
    return found


def combine(items: list[str], area: str) -> list[str]:
    """"Two Bruises in the same area constitute a Light Wound", and so on up the table."""
    merged = True
    while merged:
        merged = False
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                pair = (items[i], items[j])
                result = PAIRS.get(pair) or PAIRS.get(pair[::-1])
                if result is None and pair == ("S Wound", "S Wound"):
                    result = "Sever" if area in ("Arm", "Leg") else "Death"
                if result is not None:
                    items = items[:i] + [result] + items[i + 1:j] + items[j + 1:]
                    merged = True
                    break
            if merged:
                break
    return items


def _injured(fighter: dict[str, Any], area: str, wound: str) -> dict[str, Any]:
    held = dict(fighter["injuries"])
    held[area] = tuple(combine(list(held.get(area, ())) + [wound], area))
    injuries = tuple((a, held[a]) for a in AREAS if held.get(a))
    return figures(fighter["sheet"], fighter["fatigue"] + EFFECTS[wound][3], injuries)


def _tired(fighter: dict[str, Any], points: int) -> dict[str, Any]:
    return figures(fighter["sheet"], fighter["fatigue"] + points, fighter["injuries"])


def careful_melee(attacker: dict[str, Any], defender: dict[str, Any], rng: Any,
                  defence: str = "Passive Dodge", simultaneous: bool = False,
                  defender_out: bool = False) -> tuple[Any, ...]:
    """One blow as the engine plays it, doing the same work: the arguments checked; every
    value kept by name and every roll, value, branch, change and call traced with its rule
    line, as `Result.values` and `Result.trace` hold them; the outcome with all its values;
    both fighters after. `defence` is "Passive Dodge" or "Parry" (an active dodge rolls the
    dodge table, which this baseline leaves out). A duel's blow may be one of two
    `simultaneous` attacks (two more Anti-Parry, no parry with the attacking weapon) or fall on
    a defender passed out (`defender_out`: no action, a defence potential of zero)."""
    if type(attacker) is not dict or "anti_parry" not in attacker or \
            type(defender) is not dict or "anti_parry" not in defender:
        raise TypeError("attacker and defender are a fighter's figures")
    if defence not in ("Passive Dodge", "Parry"):
        raise ValueError(f"no defence {defence!r} here")
    values: dict[str, Any] = {}
    trace: list[tuple[Any, ...]] = []

    def let(line: int, name: str, value: Any, kind: str = "let", detail: Any = "") -> Any:
        values[name] = value
        trace.append((kind, name, value, line, detail))
        return value

    let(449, "defence", defence, "choose", "by defender")
    weapon = WEAPONS[attacker["weapon"]]
    stab = weapon[0] == "Stab"
    # Part IV: a parry in a grapple is by the hand; the parries the weapons allow (a baseline
    # fighter parries with his weapon, and has a shield or none).
    let(452, "by_hand", False)
    weapon_parry = let(453, "weapon_parry", defender["parry_stab"] if stab
                       else defender["parry_cut"])
    shield_parry = let(454, "shield_parry", (defender["shield_parry_stab"] if stab
                                             else defender["shield_parry_cut"])
                       if defender["shield"] else None)
    if defender_out:
        trace.append(("branch", 'has(defender, "Passed out")', True, 459))
        defence = let(460, "defence", "No Action")
    elif simultaneous and defence == "Parry" and not defender["shield"]:
        trace.append(("branch", 'simultaneous and defence == "Active Dodge" or defence == '
                      '"Parry" and shield_parry == none and (simultaneous or weapon_parry == '
                      'none)', True, 461))
        defence = let(463, "defence", "Passive Dodge")
    attack_type = let(465, "attack_type", weapon[0])
    # Part IV: a diving attack is parried as a stab (a baseline fighter does not dive), and
    # strikes on its own column of hit locations.
    weapon_parry = let(467, "weapon_parry", weapon_parry)
    let(468, "column", COLUMN_NAME[(weapon[1], attack_type)])
    with_shield = let(470, "with_shield", defence == "Parry" and shield_parry is not None
                      and (simultaneous or shield_parry >= weapon_parry))
    if defence == "Parry":
        potential = let(473, "defence_potential", shield_parry if with_shield else weapon_parry)
        delay = let(477, "defender_delay", 2 if with_shield else 4)
    else:
        potential = let(473, "defence_potential", defender["passive_dodge_factor"]
                        if defence == "Passive Dodge" else 0)
        delay = let(477, "defender_delay", 0)
    trace.append(("delay", "defender", delay, 478, "no clock: not applied"))
    anti_parry = let(482, "anti_parry", attacker["anti_parry"] + (2 if simultaneous else 0))
    let(485, "whip_attack", "Strike")  # part IV: a whip's wielder chooses; nobody else
    roll = let(488, "attack_roll", rng.randint(1, 20), "roll", "d20")
    excess = let(489, "excess", anti_parry + roll - potential)
    if roll == 1:
        trace.append(("branch", "attack_roll == 1", True, 494))
        fumble = let(495, "fumble_roll", rng.randint(1, 10), "roll", "d10")
        dead_time = let(496, "attacker_dead_time", fumble + 2)
    else:
        trace.append(("branch", "otherwise", True, 497))
        dead_time = let(498, "attacker_dead_time", 2)
    outcome = {"attack_roll": roll, "defence": defence, "defence_potential": potential,
               "defender_delay": delay}
    hit = let(502, "hit", roll != 1 and (roll == 20 or excess >= 0))
    if hit:
        trace.append(("branch", "hit", True, 503))
        critical = let(517, "critical", roll == 20)
        location = None
        if critical:
            trace.append(("branch", "critical", True, 518))
            critical_roll = let(522, "critical_roll", rng.randint(1, 10), "roll", "d10")
            excess = let(523, "excess", max(5, excess + critical_roll))
            if critical_roll == 10:  # the attacker's choice, by default the head
                trace.append(("branch", "critical_roll == 10", True, 524))
                location = let(525, "location", "Head", "choose", "by attacker")
            else:
                trace.append(("branch", "otherwise", True, 526))
        else:
            trace.append(("branch", "otherwise", True, 529))
        if location is None:
            location_roll = let(527 if critical else 530, "location_roll", rng.randint(1, 10), "roll", "d10")
            location = let(528 if critical else 531, "location", HIT[location_roll - 1][COLUMN[(weapon[1], attack_type)]])
        area = let(532, "area", AREA[location])
        protection = let(547, "protection", ARMOUR[defender["armour"]][4][area])
        effective = let(548, "effective_blow_strength", attacker["blow_strength"] - protection)
        total = Decimal(effective + excess) / 4
        factor = let(549, "damage_factor", max(1, int(total.to_integral_value(ROUND_HALF_UP))))
        wound = let(550, "wound", WOUNDS[min(factor, 12) - 1][AREAS.index(area)])
        defender = _injured(defender, area, wound)
        trace.append(("change", ("defender", "injuries", (area,)),
                      dict(defender["injuries"])[area], 551, "add"))
        trace.append(("change", ("defender", "fatigue", ()), defender["fatigue"], 552, "add"))
        trace.append(("lengthen", "defender", EFFECTS[wound][2], 555, "no clock: not applied"))
        consequence = let(556, "consequence", CONSEQUENCE.get(wound, "none"))
        let(557, "defender_saving_throw", "Willpower" if wound == "S Wound" else None)
        attacker = _after_the_blow(attacker, trace, values, 558)
        trace.append(("delay", "defender", 2, 562, "no clock: not applied"))
        outcome.update(excess=excess, critical=critical, location=location, area=area,
                       protection=protection, effective_blow_strength=effective,
                       damage_factor=factor, wound=wound, consequence=consequence,
                       defender_saving_throw=values["defender_saving_throw"],
                       advantage="attacker", defender_dead_time=2, dodge_direction=None,
                       attacker_fatigue_save_modifier=attacker["fatigue_save_modifier"],
                       defender_fatigue_save_modifier=defender["fatigue_save_modifier"])
        trace.append(("outcome", "hit", outcome, 563))
        return ("hit", outcome), attacker, defender, trace, values
    attacker = _after_the_blow(attacker, trace, values, 569)
    let(570, "dodge_direction", None)
    let(571, "attacker_fatigue_save_modifier", attacker["fatigue_save_modifier"])
    let(572, "defender_fatigue_save_modifier", defender["fatigue_save_modifier"])
    let(573, "advantage", "defender")
    if defence == "Parry" and not with_shield:  # part IV: no hand or foot in this blow
        trace.append(("branch", 'defence == "Parry" and not with_shield', True, 575))
        _unarmed_parry(trace, values, 576)
    trace.append(("delay", "attacker", dead_time, 577, "no clock: not applied"))
    name = "critical_miss" if roll == 1 else "parried" if defence == "Parry" else "missed"
    trace.append(("branch", "attack_roll == 1" if roll == 1 else 'defence == "Parry"'
                  if defence == "Parry" else "otherwise", True, 578 if roll == 1 else 580 if defence == "Parry" else 584))
    extra = {"dodge_direction": None} if roll == 1 else {"excess": excess}
    outcome.update(extra, attacker_dead_time=dead_time, advantage="defender",
                   attacker_fatigue_save_modifier=attacker["fatigue_save_modifier"],
                   defender_fatigue_save_modifier=defender["fatigue_save_modifier"])
    trace.append(("outcome", name, outcome, 579 if roll == 1 else 581 if defence == "Parry" else 585))
    return (name, outcome), attacker, defender, trace, values


def _unarmed_parry(trace: list[tuple[Any, ...]], values: dict[str, Any], line: int) -> None:
    """`call limbs = unarmed_parry(...)` for weapons parrying weapons: no limb is hurt."""
    trace.append(("call", "limbs", "unarmed_parry", line))
    trace.append(("let", "parrying_arm", None, 1077, ""))
    trace.append(("let", "striking_limb", None, 1078, ""))
    trace.append(("outcome", "done", ("done", {"parrying_arm": None, "striking_limb": None}),
                  1084))
    trace.append(("return", "limbs", ("done", {"parrying_arm": None, "striking_limb": None}),
                  line))
    values["limbs"] = ("done", {"parrying_arm": None, "striking_limb": None})


def _after_the_blow(attacker: dict[str, Any], trace: list[tuple[Any, ...]],
                    values: dict[str, Any], line: int) -> dict[str, Any]:
    """"one point for each ... Making an attack", traced as the engine's call of it."""
    trace.append(("call", "after", "after_the_blow", line))
    attacker = _tired(attacker, 1)
    trace.append(("change", ("attacker", "fatigue", ()), attacker["fatigue"], 511, "add"))
    trace.append(("outcome", "done", {"dodge_direction": None}, 520))
    values["after"] = ("done", {"dodge_direction": None})
    trace.append(("return", "after", values["after"], line))
    return attacker


# ---- the plain blow: whole numbers, nothing checked or traced ---------------------------------

def plain_figures(fighter: dict[str, Any]) -> tuple[int, ...]:
    """The whole numbers a plain blow reads: anti-parry, passive dodge, blow strength, the
    hit location column and the armour by area."""
    w = WEAPONS[fighter["weapon"]]
    protection = ARMOUR[fighter["armour"]][4]
    return (fighter["anti_parry"], fighter["passive_dodge_factor"], fighter["blow_strength"],
            COLUMN[(w[1], w[0])], tuple(protection[a] for a in AREAS))


AREA_INDEX = {location: AREAS.index(area) for location, area in AREA.items()}


def plain_melee(attacker: tuple[int, ...], defender: tuple[int, ...], rng: Any) -> tuple[Any, ...]:
    """The same blow against a passive dodge, by a programmer in a hurry: the outcome, the
    wound (or None), and the area hit."""
    roll = rng.randint(1, 20)
    excess = attacker[0] + roll - defender[1]
    if roll == 1:
        rng.randint(1, 10)
        return "critical_miss", None, None
    if roll != 20 and excess < 0:
        return "missed", None, None
    location = None
    if roll == 20:
        critical_roll = rng.randint(1, 10)
        excess = max(5, excess + critical_roll)
        if critical_roll == 10:
            location = "Head"
    if location is None:
        location = HIT[rng.randint(1, 10) - 1][attacker[3]]
    area = AREA_INDEX[location]
    total = attacker[2] - defender[4][area] + excess
    factor = max(1, (total + 2) // 4)  # halves up, whole numbers
    return "hit", WOUNDS[min(factor, 12) - 1][area], area


# ---- the same blow's distribution, by icepool (a benchmark-only dependency) -------------------

def icepool_outcomes(attacker: dict[str, Any], defender: dict[str, Any]) -> Any:
    """The chance of each outcome of a blow against a passive dodge: a d20 read as the rules
    read it."""
    import icepool

    ap, potential = attacker["anti_parry"], defender["passive_dodge_factor"]
    return icepool.d20.map(lambda roll: "critical_miss" if roll == 1 else
                           "hit" if roll == 20 or ap + roll - potential >= 0 else "missed")


def icepool_wounds(attacker: dict[str, Any], defender: dict[str, Any]) -> Any:
    """The chance of each wound ("-" for none): the d20, the critical d10 and the location d10,
    each mapped by the rules, icepool mixing what each result leads to."""
    import icepool

    weapon = WEAPONS[attacker["weapon"]]
    column = COLUMN[(weapon[1], weapon[0])]
    protection = ARMOUR[defender["armour"]][4]
    ap, potential, strength = (attacker["anti_parry"], defender["passive_dodge_factor"],
                               attacker["blow_strength"])

    def wound(excess: int, location: str) -> str:
        area = AREA[location]
        total = Decimal(strength - protection[area] + excess) / 4
        factor = max(1, int(total.to_integral_value(ROUND_HALF_UP)))
        return WOUNDS[min(factor, 12) - 1][AREAS.index(area)]

    def located(excess: int) -> Any:
        return icepool.d10.map(lambda roll: wound(excess, HIT[roll - 1][column]))

    def critical(excess: int) -> Any:
        return icepool.d10.map(lambda roll: wound(max(5, excess + roll), "Head") if roll == 10
                               else located(max(5, excess + roll)))

    def blow(roll: int) -> Any:
        excess = ap + roll - potential
        if roll == 1 or (roll != 20 and excess < 0):
            return "-"
        return critical(excess) if roll == 20 else located(excess)

    return icepool.d20.map(blow)
