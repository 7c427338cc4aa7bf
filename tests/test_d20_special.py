"""d20 modern (issue 16): the special rules and the initiative order, with scripted dice,
each test quoting the seed's sentence it pins (seed 001_3288d91f938999f6.txt)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

from d20_samples import hero, run


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("d20_modern")


# ---- Knockout -------------------------------------------------------------------------------
# "Those with the HTH Trained skill can potentially knockout an opponent with their fists with
# at least an 18 (roll plus modifiers) on a successful melee attack roll. ... A DC 18 Fort Save
# is required for the opponent to stay standing or they are knocked out for 1 turn."
def test_knockout_by_a_trained_fighter(rb):
    a = hero(rb, hth_trained=True)               # 13 + 3 + 2 = 18
    d = hero(rb)                                 # fort 2 + 1 + 1 = 4
    r = run(rb, "strike", [13, 2, 13], attacker=a, defender=d)   # save 13 + 4 = 17 < 18
    assert (r.outcome, r.outcome["total"]) == ("knockout", 18)
    assert r.combatants["defender"].hp == 20 - 4
    # one short of 18: no knockout roll at all
    r = run(rb, "strike", [12, 2], attacker=a, defender=hero(rb))
    assert r.outcome == "hit"
    # the save made at 18: stays standing
    r = run(rb, "strike", [13, 2, 14], attacker=a, defender=hero(rb))
    assert r.outcome == "hit"


# "For an untrained attacker under the same conditions, they must roll a Natural 18 and hit for a
# possible KO. A DC 12 Fort Save is required for the opponent."
def test_knockout_by_an_untrained_fighter(rb):
    a = hero(rb, level=8)                        # a total of 18 is not enough untrained
    r = run(rb, "strike", [8, 2], attacker=a, defender=hero(rb))
    assert (r.outcome, r.outcome["total"]) == ("hit", 18)
    r = run(rb, "strike", [18, 2, 7], attacker=hero(rb), defender=hero(rb))  # 7 + 4 = 11 < 12
    assert r.outcome == "knockout"
    r = run(rb, "strike", [18, 2, 8], attacker=hero(rb), defender=hero(rb))  # 12 stays up
    assert r.outcome == "hit"


# "With a blunt weapon, it can occur with any max damage hit also."
def test_knockout_on_a_max_damage_blunt_hit(rb):
    a = hero(rb, weapon="Club", hth_trained=True)
    r = run(rb, "strike", [10, 6, 3], attacker=a, defender=hero(rb))
    assert r.outcome == "knockout"
    r = run(rb, "strike", [10, 5], attacker=a, defender=hero(rb))
    assert r.outcome == "hit"


# "Anyone wearing a helmet is immune to being knocked out in melee."
def test_helmet_is_immune(rb):
    r = run(rb, "strike", [18, 2], attacker=hero(rb, hth_trained=True), defender=hero(rb, helmet=True))
    assert r.outcome == "hit"


# "For the Stealth Check figure DC 12 for someone completely unaware, DC 18 for someone
# generally alert. With a successful attack, the victim must make a DC 12 Fort save ... Such an
# attack can be tried on an opponent once per encounter. If the Stealth check is failed, then it
# is just a normal attack."
def test_surprise_knockout(rb):
    a = hero(rb, weapon="Club", stealth=5)
    r = run(rb, "surprise_knockout", [7, 10, 3], attacker=a, defender=hero(rb))   # 12; hit; 7 < 12
    assert r.outcome == "knocked_out"
    r = run(rb, "surprise_knockout", [7, 10, 3, 2], attacker=a, defender=hero(rb), alert=True)
    assert r.outcome == "normal_attack"                       # 12 < 18: a normal attack
    r = run(rb, "surprise_knockout", [10, 2], attacker=a, defender=hero(rb, surprise_ko_tried=True))
    assert r.outcome == "normal_attack"                       # once per encounter


def example(rb, title):
    return next(e for e in rb.examples if e.title == title).run()


# "Assume that a combatant who is bound or otherwise restrained can be knocked out at will."
def test_bound_knocked_out_at_will(rb):
    assert example(rb, "A bound captive knocked out at will").passed


# ---- Coup de grace --------------------------------------------------------------------------
# "Characters and important NPC's are allowed a DC 18 Fort Sv. If successful ..., the victim is
# still alive (at 0 hp), but left for dead." (The rulebook's worked examples: pinned by a
# grapple, then the coup de grace; a save of 14 + 4 = 18 is made, 13 + 4 = 17 is not.)
def test_coup_de_grace_on_a_character_who_makes_the_save(rb):
    made = example(rb, "A coup de grace on a character who makes the save")
    assert made.passed, made
    failed = example(rb, "A coup de grace on a character who fails the save")
    assert failed.passed, failed


# "A Coup de Grace is an attack on an immobile opponent at Close range."
def test_coup_de_grace_needs_an_immobile_foe(rb):
    r = run(rb, "coup_de_grace", [], attacker=hero(rb), defender=hero(rb))
    assert r.outcome == "not_possible"


# ---- Grapple --------------------------------------------------------------------------------
# "The Str check is DC 12 + defender's Str. ... If other attackers, who delayed their action in
# the rd, are assisting (up to three more), add their Str scores to the Str check."
def test_grapple_with_two_helpers(rb):
    d = hero(rb, str=6)                           # DC 18
    helpers = [hero(rb, str=3), hero(rb, str=2)]
    r = run(rb, "grapple", [10, 11], attacker=hero(rb), defender=d, helpers=helpers)  # 11+2+5
    assert r.outcome == "pinned"
    r = run(rb, "grapple", [10, 10], attacker=hero(rb), defender=d, helpers=helpers)  # 17 < 18
    assert r.outcome == "failed"
    r = run(rb, "grapple", [10, 10], attacker=hero(rb), defender=d)                   # alone: 12
    assert r.outcome == "failed"


def test_grapple_counts_three_helpers_at_most(rb):
    d = hero(rb, str=10)                          # DC 22
    helpers = [hero(rb, str=2)] * 4
    r = run(rb, "grapple", [10, 13], attacker=hero(rb), defender=d, helpers=helpers)  # 13+2+6 = 21
    assert r.outcome == "failed"


# "Failing either means the attack has totally failed."
def test_grapple_missed_attack_fails(rb):
    assert run(rb, "grapple", [1], attacker=hero(rb), defender=hero(rb)).outcome == "failed"


# "The DC rating is DC 12 + the attackers' Str. Those with the Escape Artist skill need to make
# a check with the same DC to get free. (Whichever chance is better.)"
def test_escape_with_the_better_of_str_and_escape_artist(rb):
    grapplers = [hero(rb, str=2), hero(rb, str=3)]            # DC 17
    r = run(rb, "escape", [10], defender=hero(rb, escape_artist=7), grapplers=grapplers)
    assert (r.outcome, r.outcome["dc"], r.outcome["check"]) == ("free", 17, 17)
    r = run(rb, "escape", [10], defender=hero(rb), grapplers=grapplers)
    assert r.outcome == "pinned"


# ---- Withdrawal -----------------------------------------------------------------------------
# "If routed, the retreating gives up their attack and their opponent will instead get an
# extra attack on them."
def test_routed_withdrawal_grants_an_extra_attack(rb):
    r = run(rb, "withdraw", [15, 3], retreating=hero(rb), opponent=hero(rb, weapon="Knife"), how="Routed")
    assert r.outcome == "routed"
    assert r.outcome["extra"] == "hit"
    assert r.combatants["retreating"].hp == 20 - 5


# "If orderly, the retreating cannot attack, but their opponent gains no advantage."
def test_orderly_withdrawal(rb):
    r = run(rb, "withdraw", [], retreating=hero(rb), opponent=hero(rb), how="Orderly")
    assert r.outcome == "orderly"


# ---- Non-lethal melee -----------------------------------------------------------------------
# "after the loss of half of a combatant's hp, they must make a DC 12 Will Save each rd to keep
# fighting. If firearms or edged weapons are used or displayed, this doesn't apply."
def test_non_lethal_melee(rb):
    assert run(rb, "keep_fighting", [], fighter=hero(rb, hp=11)).outcome == "fights_on"
    # Will 2 + 1 + 0 = 3: 8 + 3 = 11 gives up, 9 + 3 = 12 fights on
    assert run(rb, "keep_fighting", [8], fighter=hero(rb, hp=10)).outcome == "gives_up"
    assert run(rb, "keep_fighting", [9], fighter=hero(rb, hp=10)).outcome == "fights_on"
    assert run(rb, "keep_fighting", [], fighter=hero(rb, hp=2), lethal_shown=True).outcome == "fights_on"


# ---- Stunts ---------------------------------------------------------------------------------
# "Str to knock down and Dex to grab or disarm"; "disarming them (HTH weapons only)"
def test_stunts(rb):
    a = hero(rb, str=4, dex=0)
    r = run(rb, "stunt", [5], attacker=a, defender=hero(rb), effect="Knock down")   # 5+3+4 = 12
    assert r.outcome == "done"
    r = run(rb, "stunt", [5], attacker=a, defender=hero(rb), effect="Disarm")       # 5+3+0 = 8
    assert r.outcome == "failed"
    r = run(rb, "stunt", [], attacker=a, defender=hero(rb, weapon="Pistol"), effect="Disarm")
    assert r.outcome == "not_possible"


# "This would be a DC 12 or 18 (or something in-between) Appeal. ... It can also be laughed off
# as lame and waved off without a roll."
def test_appeal_stunt(rb):
    a = hero(rb, appeal=4)
    assert run(rb, "appeal_stunt", [8], attacker=a, defender=hero(rb), dc=12).outcome == "stunned"
    assert run(rb, "appeal_stunt", [8], attacker=a, defender=hero(rb), dc=18).outcome == "resisted"
    assert run(rb, "appeal_stunt", [], attacker=a, defender=hero(rb), laughed_off=True).outcome == "laughed_off"


# "This may require a successful Stealth roll ... or a failed Detection roll"; "Blinded
# combatants ... detection of Stealth always fails."
def test_surprise(rb):
    s = hero(rb, stealth=5)
    assert run(rb, "surprise", [10, 12], sneak=s, watcher=hero(rb, detection=2)).outcome == "surprised"
    assert run(rb, "surprise", [10, 13], sneak=s, watcher=hero(rb, detection=2)).outcome == "detected"
    assert run(rb, "surprise", [], sneak=s, watcher=hero(rb), granted=True).outcome == "surprised"


# ---- Initiative -----------------------------------------------------------------------------
def ranked(r, hth=False):
    """The round's order as the melee encounter takes its turns: band, roll, roll-offs."""
    party = [r.combatants[f"party[{i}]"] for i in range(len(r.combatants))]
    band = lambda c: (2 if c.dex >= 3 else 0) + (1 if hth and c.hth_trained else 0)  # noqa: E731
    return sorted(party, key=lambda c: (band(c), c.initiative, c.roll_off), reverse=True)


# "anyone with a +3 or +4 in Dex bonus will act first in every rd." "If there are multiple
# high-speed combatants, have a roll off with a d20 and rank them in order."
def test_high_dex_acts_first(rb):
    party = [hero(rb, dex=1), hero(rb, dex=3), hero(rb, dex=4)]
    r = run(rb, "roll_initiative", [20, 2, 9], party=party)
    order = ranked(r)
    assert [o.dex for o in order] == [4, 3, 1]


# "Have a roll off between any ties. ... No ties."
def test_ties_rolled_off(rb):
    party = [hero(rb, dex=0), hero(rb, dex=1), hero(rb, dex=2)]
    # 12, 12, 5: the first two tie; roll-off 3 vs 17
    r = run(rb, "roll_initiative", [12, 12, 5, 3, 17], party=party)
    assert [o.dex for o in ranked(r)] == [1, 0, 2]
    # a roll-off that ties again is rolled again: 8, 8 then 4, 15
    r = run(rb, "roll_initiative", [12, 12, 5, 8, 8, 4, 15], party=party)
    assert [o.dex for o in ranked(r)] == [1, 0, 2]


# "Similar combatants may share the same roll as a logical grouping."
def test_groups_share_a_roll(rb):
    party = [hero(rb, dex=0, group="thugs"), hero(rb, dex=2), hero(rb, dex=1, group="thugs")]
    r = run(rb, "roll_initiative", [14, 9], party=party)       # the thugs 14, the other 9
    assert [o.initiative for o in ranked(r)] == [14, 14, 9]
    assert [o.dex for o in ranked(r)] == [0, 1, 2]


# "(In HTH combat, those with the HTH Trained skill will go first over untrained.)"
def test_hth_trained_first_in_hand_to_hand(rb):
    party = [hero(rb, dex=0), hero(rb, dex=1, hth_trained=True)]
    r = run(rb, "roll_initiative", [15, 4], party=party, hth=True)
    assert [o.dex for o in ranked(r, hth=True)] == [1, 0]
    r = run(rb, "roll_initiative", [15, 4], party=party, hth=False)
    assert [o.dex for o in ranked(r)] == [0, 1]


# ---- Whole fights ---------------------------------------------------------------------------
def test_a_whole_fight_from_the_command_line():
    out = CliRunner().invoke(cli, ["fight", "d20_modern", "examples/d20_modern/brawler.toml",
                                   "examples/d20_modern/thug.toml", "--policy", "sensible",
                                   "--seed", "3"])
    assert out.exit_code == 0, out.output
    assert "ended:" in out.output and "strike" in out.output


def test_runs_and_a_fight_of_three():
    out = CliRunner().invoke(cli, ["fight", "d20_modern", "examples/d20_modern/agent.toml",
                                   "examples/d20_modern/brawler.toml", "--policy", "sensible",
                                   "--runs", "20", "--seed", "1"])
    assert out.exit_code == 0, out.output
    out = CliRunner().invoke(cli, ["fight", "d20_modern", "examples/d20_modern/thug.toml",
                                   "examples/d20_modern/thug.toml", "vs",
                                   "examples/d20_modern/enforcer.toml", "--policy", "sensible",
                                   "--seed", "2"])
    assert out.exit_code == 0, out.output
    assert "thug 2" in out.output


def test_odds_of_a_strike():
    out = CliRunner().invoke(cli, ["odds", "d20_modern", "strike",
                                   "attacker=@examples/d20_modern/thug.toml",
                                   "defender=@examples/d20_modern/brawler.toml"])
    assert out.exit_code == 0, out.output
    assert "hit" in out.output


# ---- The round, in the melee encounter --------------------------------------------------------
def aims(fight):
    return [line.split()[1] for line in fight.log().splitlines() if " aims at " in line]


# "anyone with a +3 or +4 in Dex bonus will act first in every rd." ... "Have a roll off between
# any ties." ... "ranked from high roll to lowest and attack, in order, each rd."
def test_a_round_in_initiative_order(rb):
    ann, bo, cy = hero(rb, dex=0), hero(rb, dex=4), hero(rb)
    # ann 12, bo 2 (but Dex +4), cy 12: ann and cy roll off, 3 against 17; every blow a 1.
    f = rb.fight({"heroes": [ann, bo], "foes": [cy]}, dice=[12, 2, 12, 3, 17, 1, 1, 1], until=1,
                 names=["ann", "bo", "cy"])
    assert aims(f) == ["bo", "cy", "ann"]


# "The attackers may act without a counterattack from the other side."
def test_surprise_round(rb):
    ann, cy = hero(rb), hero(rb)
    f = rb.fight({"heroes": [ann], "foes": [cy]}, dice=[5, 12, 1], until=1, names=["ann", "cy"],
                 settings={"surprise": True})
    assert aims(f) == ["ann"]


# "A grappler will always go last in the initiative order." "If other attackers, who delayed
# their action in the rd, are assisting (up to three more), add their Str scores".
def test_a_grapple_in_the_round_goes_last_with_its_helper(rb):
    grappler, helper = hero(rb, plan="Grapple", dex=2), hero(rb, plan="Delay", str=4)
    victim = hero(rb, str=5)                             # DC 17
    # initiative: grappler 20, helper 15, victim 10; both wait; the victim attacks (1: miss);
    # the grappler's attack 10 hits, Str check 11 + 2 + 4 = 17; the helper assists right after.
    # Round 2 (18, 12, 6): the grappler knocks the pinned victim out ("pinned, where they can be
    # bound or even knocked out"); a bare-handed fight, so no coup de grace.
    f = rb.fight({"heroes": [grappler, helper], "foes": [victim]},
                 dice=[20, 15, 10, 1, 10, 11, 18, 12, 6], until=2, names=["gus", "hal", "vic"])
    log = f.log()
    assert log.index("vic aims at") < log.index("hold = grapple: pinned")
    assert "vic is Pinned" in log
    assert log.index("hold = grapple: pinned") < log.index("assists the grapple")
    assert "ko = surprise_knockout: knocked_out" in log
    assert f.winner() == "heroes"


# "Combatants who are knocked down have to give up their action for the rd to stand up."
def test_knocked_down_gives_up_the_round_to_stand(rb):
    ann, vic = hero(rb, plan="Stunt: knock down", dex=4), hero(rb)
    # ann first (Dex +4); her stunt 15 + 3 + 2 knocks vic down; vic stands instead of attacking;
    # round 2 (12, 9): ann's stunt fails (1), vic attacks (1).
    f = rb.fight([ann, vic], dice=[10, 5, 15, 12, 9, 1, 1], until=2, names=["ann", "vic"])
    first = f.log().split("round = 2")[0]
    assert "vic is Knocked down" in first and "vic is no longer Knocked down" in first
    assert "vic aims at" not in first
    assert "vic aims at ann" in f.log().split("round = 2")[1]


# "A stunned combatant cannot take any action in that condition, except to defend themselves."
def test_stunned_only_defends(rb):
    ann, vic = hero(rb, plan="Stunt: appeal", dex=4, appeal=5), hero(rb)
    # ann's burn: 10 + 5 against the referee's DC 15 stuns vic for the round after.
    f = rb.fight([ann, vic], dice=[10, 5, 10], until=1, names=["ann", "vic"])
    assert "stunned: defends only" in f.log()
    assert "vic aims at" not in f.log()


# "Blinded combatants cannot make directed attacks. ... detection of Stealth always fails.
# Deafened combatants ... will be unable to detect anyone sneaking up behind them."
def test_blinded_and_deafened(rb):
    for title in ("A blinded combatant cannot attack and cannot detect a sneak",
                  "A deafened guard hears nobody behind him"):
        outcome = example(rb, title)
        assert outcome.passed, outcome
