"""The baselines of `bench_core.py`'s rows that are not the engine's best case: a defender who
parries, a choice passed by the caller, and independent dice summed in one procedure.

Each does the work the engine does and no more (issue 19), and `tests/test_benchmarks.py`
checks that it comes to the engine's answers:

- `icepool_blow`: the chance of each outcome, or of each wound, of a blow against a passive
  dodge or a parry: icepool reading the d20, the critical d10 and the location d10 as
  `rulebooks/ringing_steel.rules` does (the figures as `hand_steel.figures` works them out);
- `careful_parried_blow`: `PARRIED_BLOW`'s blow by hand — a caller that has the defender parry
  (`call … choosing defence = "Parry"`), then `hand_steel.careful_melee`'s blow, the call and
  its return traced, the caller's branch and outcome;
- `icepool_sum`: n independent d10 added one by one (`d10 + d10 + …`): icepool's d10 is kept,
  as the engine keeps its dice's counts, and each sum is worked out anew, as the engine works
  out each computation anew (`n @ icepool.d10` would be a lookup in the die's cache of sums).
"""

from __future__ import annotations

import functools
import operator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hand_steel import AREA, AREAS, ARMOUR, COLUMN, HIT, WOUNDS, WEAPONS, careful_melee

# A caller answering the blow's choice of defence: the engine plays it by walking the paths
# (a call answering its callee's choices is not cut into segments), runs trace the call.
PARRIED_BLOW = """rulebook parry_caller "A caller who has the defender parry"
extends ringing_steel
procedure parried_blow "A blow the caller has the defender parry" (attacker: fighter, defender: fighter):
  outcomes:
    hit "Hit" with wound
    parried "Parried"
    critical_miss "Critical miss"
  call blow = melee_attack(attacker, defender) choosing defence = "Parry"
  if blow == "hit":
    outcome hit with (wound = blow.wound)
  if blow == "parried":
    outcome parried
  outcome critical_miss
"""


def summed_d10(n: int) -> str:
    """A procedure rolling n d10, one roll each, and adding them in its outcome."""
    names = [f"r{i}" for i in range(1, n + 1)]
    rolls = "".join(f"  roll {name} = d10\n" for name in names)
    return (f'rulebook summed "{n} d10"\nprocedure summed "{n} d10 in one procedure" ():\n'
            f"{rolls}  outcome done with (total = {' + '.join(names)})\n")


def icepool_sum(n: int) -> Any:
    """n independent d10 summed, each addition a convolution icepool works out now."""
    import icepool

    return functools.reduce(operator.add, [icepool.d10] * n)


def potential(attacker: dict[str, Any], defender: dict[str, Any], defence: str) -> int:
    """The defence potential a blow meets: the passive dodge factor, or the parry (the shield's
    where it gives at least the weapon's), as `melee_attack` works it out."""
    if defence == "Passive Dodge":
        return int(defender["passive_dodge_factor"])
    stab = WEAPONS[attacker["weapon"]][0] == "Stab"
    weapon = defender["parry_stab"] if stab else defender["parry_cut"]
    if defender["shield"]:
        shield = defender["shield_parry_stab"] if stab else defender["shield_parry_cut"]
        return int(max(shield, weapon))
    return int(weapon)


def icepool_blow(attacker: dict[str, Any], defender: dict[str, Any], defence: str,
                 by: str = "outcome") -> Any:
    """The chance of each outcome (`by="outcome"`) or wound (`by="wound"`, "-" for none) of a
    blow against `defence`: the d20, and on a hit the critical d10 and the location d10, each
    mapped by the rules, icepool mixing what each result leads to."""
    import icepool

    weapon = WEAPONS[attacker["weapon"]]
    column = COLUMN[(weapon[1], weapon[0])]
    protection = ARMOUR[defender["armour"]][4]
    ap, against, strength = (attacker["anti_parry"], potential(attacker, defender, defence),
                             attacker["blow_strength"])
    missed = "parried" if defence == "Parry" else "missed"

    def wound(excess: int, location: str) -> str:
        area = AREA[location]
        # `damage_factor`: round((blow strength + excess) / 4), a Decimal as the engine's.
        total = Decimal(strength - protection[area] + excess) / 4
        factor = max(1, int(total.to_integral_value(ROUND_HALF_UP)))
        return WOUNDS[min(factor, 12) - 1][AREAS.index(area)]

    def located(excess: int) -> Any:
        return icepool.d10.map(lambda roll: wound(excess, HIT[roll - 1][column]))

    def critical(excess: int) -> Any:
        return icepool.d10.map(lambda roll: wound(max(5, excess + roll), "Head") if roll == 10
                               else located(max(5, excess + roll)))

    def blow(roll: int) -> Any:
        excess = ap + roll - against
        if roll == 1:
            return "critical_miss" if by == "outcome" else "-"
        if roll != 20 and excess < 0:
            return missed if by == "outcome" else "-"
        if by == "outcome":
            return "hit"
        return critical(excess) if roll == 20 else located(excess)

    return icepool.d20.map(blow)


def careful_parried_blow(attacker: dict[str, Any], defender: dict[str, Any], rng: Any
                         ) -> tuple[Any, ...]:
    """`parried_blow` by hand: the call of the blow with the defender's choice answered
    (Parry), its return, and the caller's branch and outcome, traced as the engine traces
    them; the blow's own work is `careful_melee`'s. Returns (outcome name, wound), the trace
    and both fighters after."""
    trace: list[tuple[Any, ...]] = [("call", "blow", "melee_attack", 8)]
    (name, values), attacker, defender, inner, _ = careful_melee(attacker, defender, rng,
                                                                 "Parry")
    trace += inner
    trace.append(("return", "blow", name, 8))
    if name == "hit":
        trace.append(("branch", 'blow == "hit"', True, 9))
        trace.append(("outcome", "hit", {"wound": values["wound"]}, 10))
        return ("hit", values["wound"]), trace, attacker, defender
    if name == "parried":
        trace.append(("branch", 'blow == "parried"', True, 11))
        trace.append(("outcome", "parried", {}, 12))
        return ("parried", None), trace, attacker, defender
    trace.append(("outcome", "critical_miss", {}, 13))
    return ("critical_miss", None), trace, attacker, defender


def distribution(die: Any) -> dict[Any, Any]:
    """An icepool die as {outcome: Fraction}, as the engine's odds are."""
    from fractions import Fraction

    return {k: Fraction(v, die.denominator()) for k, v in die.items()}


__all__ = ["PARRIED_BLOW", "careful_parried_blow", "distribution", "icepool_blow",
           "icepool_sum", "potential", "summed_d10"]
