"""The damage rules inside a fight on the count clock, as the action rules will call them: each
blow through `damage_blow`, conditions lasting the fight, bleeding every minute (BT: "the
bleeding person loses 1 HTK ever minute unless the wound is bound")."""

from __future__ import annotations

import rulecraft

FIGHT = """rulebook bt_blows "Blows on the count"
extends bt

encounter blows "Blows every ten counts" (a: fighter, b: fighter):
  clock counts "counts": minute = 240
  act a at 10
  act b at 12
  turn f:
    let foe = if f == a then b else a
    call blow = damage_blow(f, foe, sl = 3)
    act f after 10
  every 1 minute:
    for each p in [a, b]:
      call bled = bleed(p)
  ends when a.htk_left <= 0 or b.htk_left <= 0
  at most 400 turns
"""


def test_blows_land_until_one_fighter_has_no_htk_left():
    rb = rulecraft.compile(FIGHT, "bt_blows.rules")
    a = rb.combatant(weapon="Scimitar", htk=60, pab=4, armour={"Haulberk": "Chain"})
    b = rb.combatant(weapon="Battle axe", htk=60, pab=4, armour={"Byrnie": "Studded leather"})
    fight = rb.fight([a, b], encounter="blows", seed=3)
    assert fight.result.outcome == "ended"
    a_left, b_left = (f.htk_left for f in fight.fighters)
    assert min(a_left, b_left) <= 0 < max(a_left, b_left) + 100
    log = fight.log()
    assert "damage_blow" in log
    # the same seed, the same fight
    again = rb.fight([a, b], encounter="blows", seed=3)
    assert [f.htk_left for f in again.fighters] == [a_left, b_left]
