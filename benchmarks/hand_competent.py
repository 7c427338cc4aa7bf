"""Ringing Steel's duel between two COMPETENT fighters, written by hand: the baseline
`bench_fights.py` measures `rulecraft fight … --runs N --policy competent` against.

It reads the duel as `hand_duel` does (`bench_fights.py`'s docstring says how) and the choices
as the rulebook's `competent` policy makes them (`rulebooks/ringing_steel.rules`, "How a
competent fighter decides"):

- the defender parries when his best parry against this attacker's weapon (weapon or shield,
  stab or cut) is at least his Active Dodge Factor, else he dodges actively, to the back — an
  Active Dodge costs him a fatigue point and the d6 of the Dodge table; two simultaneous attacks
  allow no active dodge (a Passive Dodge then), and a shield still parries;
- the faster (or as fast) to attack closes with an Attack, the slower Waits "On guard" (two more
  defence potential against the first attack) with no action under way until that attack, then
  acts at once;
- after a dodge (the distance opens to two hexes) the fighter with the advantage steps back in,
  unless he has passed out: then they break off and close again.

Same dice source and order as the engine (`random.Random(seed)`, as `rulecraft.SeededDice`):
`tests/test_bench_fights.py` checks fight by fight that the two agree. Like the engine's
`--runs`, it keeps no trace: it works out what the summary needs (who stands, how long, each
fighter's fatigue and injuries), with the fighters' figures remembered per state
(`hand_steel.figures`, as the engine's `derive` memo does) and what a sheet alone decides (the
skills and their floors) worked out once per sheet, as the engine never works a skill out again
on a change of fatigue or injuries.
"""

from __future__ import annotations

import random
from typing import Any

from bench_fights import CAP, HandDuel, saving_throw
from hand_steel import AREA, AREAS, ARMOUR, COLUMN, EFFECTS, HIT, WEAPONS, WOUNDS, _injured, \
    _tired

from decimal import ROUND_HALF_UP, Decimal


def parries(defender: dict[str, Any], attacker: dict[str, Any]) -> tuple[int, int | None]:
    """The defender's weapon and shield parries against the attacker's weapon ("Whether the
    parry is against a stab or a cut depends on the attacker's weapon"); both weapons here
    parry (sword, spear)."""
    if WEAPONS[attacker["weapon"]][0] == "Stab":
        return defender["parry_stab"], defender["shield_parry_stab"] if defender["shield"] \
            else None
    return defender["parry_cut"], defender["shield_parry_cut"] if defender["shield"] else None


def competent_defence(defender: dict[str, Any], attacker: dict[str, Any]) -> str:
    """`defence = if parry_against(…) >= defender.active_dodge_factor then "Parry" else
    "Active Dodge"`."""
    weapon, shield = parries(defender, attacker)
    best = weapon if shield is None else max(weapon, shield)
    return "Parry" if best >= defender["active_dodge_factor"] else "Active Dodge"


def blow(attacker: dict[str, Any], defender: dict[str, Any], rng: random.Random,
         defence: str, simultaneous: bool, defender_out: bool,
         defence_bonus: int) -> tuple[Any, ...]:
    """`melee_attack` and its `after_the_blow` for these two: (outcome, attacker, defender,
    defender_delay, wound or None, attacker_dead_time, dodged, advantage)."""
    weapon_parry, shield_parry = parries(defender, attacker)
    if defender_out:
        defence = "No Action"
    elif simultaneous and (defence == "Active Dodge" or defence == "Parry"
                           and shield_parry is None):
        defence = "Passive Dodge"
    with_shield = defence == "Parry" and shield_parry is not None and (
        simultaneous or shield_parry >= weapon_parry)
    if defence == "Parry":
        potential = (shield_parry if with_shield else weapon_parry) + defence_bonus
        delay = 2 if with_shield else 4
    elif defence == "Active Dodge":
        potential, delay = defender["active_dodge_factor"] + defence_bonus, defender["walk"]
    elif defence == "Passive Dodge":
        potential, delay = defender["passive_dodge_factor"] + defence_bonus, 0
    else:
        potential, delay = 0, 0
    w = WEAPONS[attacker["weapon"]]
    roll = rng.randint(1, 20)
    excess = attacker["anti_parry"] + (2 if simultaneous else 0) + roll - potential
    dead_time = rng.randint(1, 10) + 2 if roll == 1 else 2
    wound = None
    if roll != 1 and (roll == 20 or excess >= 0):
        location = None
        if roll == 20:
            critical_roll = rng.randint(1, 10)
            excess = max(5, excess + critical_roll)
            if critical_roll == 10:
                location = "Head"  # the attacker's choice, by default the head
        if location is None:
            location = HIT[rng.randint(1, 10) - 1][COLUMN[(w[1], w[0])]]
        area = AREA[location]
        effective = attacker["blow_strength"] - ARMOUR[defender["armour"]][4][area]
        total = Decimal(effective + excess) / 4
        factor = max(1, int(total.to_integral_value(ROUND_HALF_UP)))
        wound = WOUNDS[min(factor, 12) - 1][AREAS.index(area)]
        defender = _injured(defender, area, wound)
    attacker = _tired(attacker, 1)  # after the blow: "one point for each ... Making an attack"
    dodged = defence == "Active Dodge"
    if dodged:  # "Dodging": a point, and the Dodge table's d6 (biased to the back)
        defender = _tired(defender, 1)
        rng.randint(1, 6)
    name = "hit" if wound is not None else "critical_miss" if roll == 1 else \
        "parried" if defence == "Parry" else "dodged" if dodged else "missed"
    return (name, attacker, defender, delay, wound, dead_time, dodged,
            "attacker" if wound is not None else "defender")


class CompetentDuel(HandDuel):
    """One duel by hand, both fighters competent; fighters are 0 (first) and 1."""

    __slots__ = ()

    def turn(self, me: int) -> None:
        """The action under way completes; whoever passed out is out; the next one starts."""
        held, foe = self.held[me], 1 - me
        if "Walking" in held:
            held.discard("Walking")
            if self.distance > 2:
                self.distance -= 1
        if "Closing" in held:
            held.discard("Closing")
            if self.distance > 1:
                self.distance -= 1
            if "Waiting" not in held:
                held.add("Attacking")
                self.clock.act(me, 2)
        elif "Attacking" in held:
            held.discard("Attacking")
            if self.distance == 1 and "Dead" not in self.held[foe]:
                self.strike(me, foe)
        now = self.clock.now
        for f in (0, 1):  # a blow due at this very tenth still lands
            if "Passed out" in self.held[f] and self.clock.next_turn(f) != now:
                self.held[f].difference_update(("Walking", "Closing", "Attacking", "Waiting"))
                self.clock.stop(f)
        if "Passed out" not in held and "Waiting" not in held and \
                self.clock.next_turn(me) is None:
            self.start(me)

    def strike(self, me: int, foe: int) -> None:
        """An attack in range: the competent defence, the blow, its effects on time, the
        waiting foe roused, who is felled or spent, and a dodge's step back and in again."""
        mine, theirs, clock = self.held[me], self.held[foe], self.clock
        simultaneous = "Simultaneous" in mine or (
            "Attacking" in theirs and clock.next_turn(foe) == clock.now)
        if simultaneous and "Simultaneous" not in mine:
            theirs.add("Simultaneous")
        mine.discard("Simultaneous")
        bonus = 2 if "On guard" in theirs else 0  # "Add two to defence potential"
        theirs.discard("On guard")
        before = self.fighters[foe]
        defence = competent_defence(before, self.fighters[me])
        (name, self.fighters[me], self.fighters[foe], delay, wound, dead_time, dodged,
         advantage) = blow(self.fighters[me], before, self.rng, defence, simultaneous,
                           "Passed out" in theirs, bonus)
        clock.delay(foe, delay)
        if wound is not None:
            clock.lengthen(foe, EFFECTS[wound][2])
            clock.delay(foe, 2)
        else:
            clock.delay(me, dead_time)
        self.engaged = True
        if "Waiting" in theirs:  # "Let opponent make first attack": then he acts at once
            theirs.discard("Waiting")
            clock.act(foe, 0)
        self.felled(foe, before)
        spent = self.fighters[me]["fatigue_save_modifier"]
        if spent is not None and not saving_throw(self.fighters[me], self.rng, max(-99, spent)):
            mine.add("Passed out")
        spent = self.fighters[foe]["fatigue_save_modifier"]
        if spent is not None and self.fighters[foe]["fatigue"] > before["fatigue"] and \
                "Passed out" not in theirs and \
                not saving_throw(self.fighters[foe], self.rng, max(-99, spent)):
            theirs.add("Passed out")
        if dodged:  # "he moves one hex to the back"; the one with the advantage steps in
            self.distance = 2
            ahead = me if advantage == "attacker" else foe
            if "Passed out" not in self.held[ahead]:
                self.distance = 1
        if self.distance > 1:  # "Combatants break off when both are out of range"
            self.engaged = False

    def start(self, me: int) -> None:
        """The next action: strike while engaged, walk while far, else the faster closes with
        an Attack and the slower Waits on guard."""
        f = self.fighters[me]
        if self.engaged:
            self.held[me].add("Attacking")
            self.clock.act(me, f["base_speed"])  # "SK Strike: Base speed"
        elif self.distance > 2:
            self.held[me].add("Walking")
            self.clock.act(me, f["walk"])  # "WF Walk Front"
        elif f["base_speed"] <= self.fighters[1 - me]["base_speed"]:
            self.held[me].add("Closing")
            self.clock.act(me, max(1, f["base_speed"] + f["walk"] - 3 - 2))
        else:  # "Wait": no action under way until the opponent's first attack
            self.held[me].update(("Waiting", "On guard"))


def competent_duel(first: dict[str, Any], second: dict[str, Any], seed: int, apart: int = 1,
                   until: str = "out") -> tuple[Any, ...]:
    """The competent duel by hand, read as `engine_summary` reads the encounter's result."""
    duel = CompetentDuel(first, second, seed, apart)
    clock = duel.clock
    for _ in range(CAP):
        if not clock.next_turns:
            return duel.summary("idle")
        who = clock.next()
        while who is None:  # ticks of the clock due first, within the pass
            duel.tick()
            who = clock.next()
        duel.turn(who)
        if clock.settled() and duel.over(until):
            return duel.summary("ended")
    return duel.summary("capped")
