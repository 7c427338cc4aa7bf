"""Ringing Steel duels per second: the rulebook's `duel` encounter against a hand-written duel
loop doing the same work, in one run.

Run: `python benchmarks/bench_fights.py [--quick] [--runs N]` (after `pip install .`). The fighters are the example
sheets (`examples/ringing_steel/`: a swordsman with a shield, a spearman, both in Standard
armour), and nobody chooses, so every choice keeps its default: each closes with an Attack and
defends with a Passive Dodge. Both sides read the duel as `rulebooks/ringing_steel.rules` writes
it (section "a whole fight"):

- each fighter's current action is labelled (`act … as "Closing"`): he closes (the Timings
  Table's AT less two tenths), attacks two tenths later, then strikes every Base Speed ("SK")
  while engaged;
- two attacks due at the same tenth are simultaneous: two more Anti-Parry each, and the
  second lands after the first, even when the first fells its striker;
- a miss adds the attacker's dead time (two tenths, d10 + 2 on a 1) to his next action; a hit
  lengthens the defender's action under way by the wound's tenths and delays it by two more
  (or, when it completes at that very tenth, adds the two to his next one);
- injuries combine in their area; a Disable, Sever or Death fells, and a new Serious Wound
  calls a Saving Throw (3d6) against Will Power; fatigue at the Fatigue Limit or over calls
  one against Will Power less the points over (the attacker after each attack, the defender
  when the blow tired him further); a fighter who fails passes out, his action is cancelled,
  and a blow that still reaches him meets a defence of zero;
- fatigue is recovered at every twentieth tenth by a fighter with no attack under way (a tick
  of the clock, before any turn at that tenth);
- the fight ends when a fighter is out (or, `until = "dead"`, dead) and no other turn is due
  at that tenth, or after 2000 turns (ticks of the clock are not turns).

The benchmark plays the duel's defaults (one hex apart, until a fighter is out); `hand_duel`
takes `apart` and `until` too, walking in from afar as the encounter does.

Both draw the dice in the same order from `random.Random(seed)` (what `rulecraft.SeededDice`
is for a seed of 0 or more), so one seed gives both the same fight: `tests/test_bench_fights.py`
checks that they agree, fight by fight. The blow itself is `hand_steel.careful_melee` (same
caching of figures and checks as the engine's); the hand loop keeps no trace of its own.
Timings are medians of interleaved repeats (CPU time of the process); the ratio is what to
read.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rulecraft  # noqa: E402
from hand_steel import EFFECTS, careful_melee, figures  # noqa: E402
import script_options  # noqa: E402

SHEETS = Path(__file__).resolve().parent.parent / "examples" / "ringing_steel"


def sheet(name: str) -> dict[str, Any]:
    """An example fighter's sheet, as `rb.combatant(**sheet)` and `figures(sheet)` take it."""
    return tomllib.loads((SHEETS / f"{name}.toml").read_text(encoding="utf-8"))


SWORDSMAN, SPEARMAN = sheet("swordsman"), sheet("spearman")
CAP = 2000  # the duel's "at most 2000 turns" (ticks of the clock are not turns)
RECOVERY = 20  # "fatigue points are recovered at a rate of one per twenty tenths"
UNDER_WAY = ("Walking", "Closing", "Attacking", "Set", "Waiting")  # cancelled on passing out
BUSY = frozenset(("Attacking", "Closing", "Dead"))  # no fatigue recovered under these


class Clock:
    """The duel's turns as `runtime.encounters.Schedule` keeps them: each fighter's next turn
    (time, order scheduled), delays carried to a next action, and the ticks of the clock."""

    __slots__ = ("now", "order", "next_turns", "carried", "stopped", "turns", "last_tick")

    def __init__(self) -> None:
        self.now = self.order = self.turns = self.last_tick = 0
        self.next_turns: dict[int, tuple[int, int]] = {}
        self.carried: dict[int, int] = {}
        self.stopped: set[int] = set()

    def act(self, who: int, after: int) -> None:
        """`act f after T`, plus any delay carried to this action."""
        self.order += 1
        self.stopped.discard(who)
        self.next_turns[who] = (self.now + after + self.carried.pop(who, 0), self.order)

    def delay(self, who: int, by: int) -> None:
        """`delay f by T`: on the action under way, else carried to the next one."""
        found = self.next_turns.get(who)
        if found is None or found[0] <= self.now:
            self.carried[who] = self.carried.get(who, 0) + by
        else:
            self.next_turns[who] = (found[0] + by, found[1])

    def lengthen(self, who: int, by: int) -> None:
        """`lengthen f by T`: only the action under way."""
        found = self.next_turns.get(who)
        if found is not None and found[0] > self.now:
            self.next_turns[who] = (found[0] + by, found[1])

    def next_turn(self, who: int) -> int | None:
        found = self.next_turns.get(who)
        return None if found is None else found[0]

    def stop(self, who: int) -> None:
        self.next_turns.pop(who, None)
        self.carried.pop(who, None)
        self.stopped.add(who)

    def next(self) -> int | None:
        """Whose turn comes (the earliest; ties in the order scheduled), or None for a tick of
        the clock due first or at the same time."""
        who = min(self.next_turns, key=self.next_turns.__getitem__)
        when = self.next_turns[who][0]
        if self.last_tick + RECOVERY <= when:
            self.last_tick += RECOVERY
            self.now = self.last_tick
            return None
        del self.next_turns[who]
        self.now = when
        self.turns += 1
        return who

    def settled(self) -> bool:
        return all(when > self.now for when, _ in self.next_turns.values())


def saving_throw(fighter: dict[str, Any], rng: random.Random, modifier: int = 0) -> bool:
    """"Three d6 are rolled ... if it is less than or equal to the characteristic the Saving
    Throw is successful": made or not, against Will Power."""
    throw = rng.randint(1, 6) + rng.randint(1, 6) + rng.randint(1, 6)
    return throw <= fighter["willpower"] + modifier


class HandDuel:
    """One duel by hand, with every choice at its default; fighters are 0 (first) and 1."""

    __slots__ = ("rng", "fighters", "held", "recovered", "clock", "distance", "engaged")

    def __init__(self, first: dict[str, Any], second: dict[str, Any], seed: int,
                 apart: int) -> None:
        self.rng = random.Random(seed)
        self.fighters = [figures(first), figures(second)]
        self.held: list[set[str]] = [set(), set()]  # conditions, all "until ended"
        self.recovered = [0, 0]  # fatigue points recovered so far
        self.clock = Clock()
        self.distance, self.engaged = apart, False
        self.clock.act(0, 0)
        self.clock.act(1, 0)

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
            held.add("Attacking")  # no Defend closes here: the attack follows
            self.clock.act(me, 2)
        elif "Attacking" in held:
            held.discard("Attacking")
            if self.distance == 1 and "Dead" not in self.held[foe]:
                self.strike(me, foe)
        for f in (0, 1):  # a blow due at this very tenth still lands
            if "Passed out" in self.held[f] and self.clock.next_turn(f) != self.clock.now:
                self.held[f].difference_update(UNDER_WAY)
                self.clock.stop(f)
        if "Passed out" not in held and self.clock.next_turn(me) is None:
            self.start(me)

    def strike(self, me: int, foe: int) -> None:
        """An attack in range: the blow, its effects on time, then who is felled or spent."""
        mine, theirs, clock = self.held[me], self.held[foe], self.clock
        simultaneous = "Simultaneous" in mine or (
            "Attacking" in theirs and clock.next_turn(foe) == clock.now)
        if simultaneous and "Simultaneous" not in mine:
            theirs.add("Simultaneous")
        mine.discard("Simultaneous")
        before = self.fighters[foe]
        blow = careful_melee(self.fighters[me], before, self.rng, "Passive Dodge",
                             simultaneous, "Passed out" in theirs)
        (name, values), self.fighters[me], self.fighters[foe] = blow[0], blow[1], blow[2]
        clock.delay(foe, values["defender_delay"])
        if name == "hit":
            clock.lengthen(foe, EFFECTS[values["wound"]][2])
            clock.delay(foe, 2)
        else:
            clock.delay(me, values["attacker_dead_time"])
        self.engaged = True
        self.felled(foe, before)
        spent = values["attacker_fatigue_save_modifier"]
        if spent is not None and not saving_throw(self.fighters[me], self.rng, max(-99, spent)):
            mine.add("Passed out")
        spent = values["defender_fatigue_save_modifier"]
        if spent is not None and self.fighters[foe]["fatigue"] > before["fatigue"] and \
                "Passed out" not in theirs and \
                not saving_throw(self.fighters[foe], self.rng, max(-99, spent)):
            theirs.add("Passed out")
        # No dodge moves anyone (a passive dodge stays put): the distance stays 1, engaged.

    def felled(self, foe: int, before: dict[str, Any]) -> None:
        """Injuries as combined: Death is dead, Disable or Sever passes out, a new Serious
        Wound calls a Saving Throw against Will Power."""
        theirs = self.held[foe]
        injuries = [i for _, items in self.fighters[foe]["injuries"] for i in items]
        if "Death" in injuries:
            theirs.add("Dead")
        if "Dead" in theirs or "Disable" in injuries or "Sever" in injuries:
            theirs.add("Passed out")
        elif "Passed out" not in theirs:
            serious = sum(i == "S Wound" for _, items in before["injuries"] for i in items)
            if injuries.count("S Wound") > serious and \
                    not saving_throw(self.fighters[foe], self.rng):
                theirs.add("Passed out")

    def start(self, me: int) -> None:
        """The next action: strike while engaged, walk while far, else close with an Attack."""
        f = self.fighters[me]
        if self.engaged:
            self.held[me].add("Attacking")
            self.clock.act(me, f["base_speed"])  # "SK Strike: Base speed"
        elif self.distance > 2:
            self.held[me].add("Walking")
            self.clock.act(me, f["walk"])  # "WF Walk Front"
        else:  # "The move is made two tenths before the full time" of "AT Attack"
            self.held[me].add("Closing")
            self.clock.act(me, max(1, f["base_speed"] + f["walk"] - 3 - 2))

    def tick(self) -> None:
        """A twentieth tenth: a point of fatigue back for each fighter with no attack under way,
        up to his Constitution in all."""
        for n, f in enumerate(self.fighters):
            if f["fatigue"] > 0 and self.recovered[n] < f["constitution"] and \
                    not BUSY & self.held[n]:
                self.fighters[n] = figures(f["sheet"], f["fatigue"] - 1, f["injuries"])
                self.recovered[n] += 1

    def over(self, until: str) -> bool:
        """`ends when`: a fighter dead, or (fighting until "out") passed out."""
        dead = "Dead" in self.held[0] or "Dead" in self.held[1]
        return dead or until == "out" and ("Passed out" in self.held[0]
                                           or "Passed out" in self.held[1])

    def summary(self, ending: str) -> tuple[Any, ...]:
        """How it ended (name, time, turns), who is still standing, each one's fatigue and
        injuries by area."""
        return (ending, self.clock.now, self.clock.turns,
                tuple(n not in self.clock.stopped for n in (0, 1)),
                tuple(f["fatigue"] for f in self.fighters),
                tuple(dict(f["injuries"]) for f in self.fighters))


def hand_duel(first: dict[str, Any], second: dict[str, Any], seed: int, apart: int = 1,
              until: str = "out") -> tuple[Any, ...]:
    """The duel by hand, read as `engine_summary` reads the encounter's result."""
    duel = HandDuel(first, second, seed, apart)
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


def engine_duel(rb: Any, a: Any, b: Any, seed: int, **settings: Any) -> Any:
    """The rulebook's `duel`, played as any run is (with its trace); `settings`: its other
    parameters (`apart`, `until`)."""
    return rb.procedures["duel"].run(first=a, second=b, seed=seed, **settings)


def engine_summary(result: Any) -> tuple[Any, ...]:
    """An encounter's result read as `hand_duel` returns it: standing is "not stopped"."""
    fighters = (result.combatants["first"], result.combatants["second"])
    stopped = {id(e.value) for e in result.trace if e.kind == "stop"}
    return (result.outcome.name, result.outcome["time"], result.outcome["turns"],
            tuple(id(f) not in stopped for f in fighters),
            tuple(f.fatigue for f in fighters),
            tuple(dict(f.injuries) for f in fighters))


def _row(name: str, engine: float, hand: float, count: int) -> None:
    print(f"{name:<52} {count / engine:>10.0f}/s {count / hand:>10.0f}/s {engine / hand:>6.2f}x")


def _interleaved(sides: list[Any], repeats: int) -> list[float]:
    """Each side's median time over `repeats` rounds, the sides taking turns in each round
    (so that the machine's noise falls on all of them). The time is this process's CPU time:
    on a shared machine, wall time also counts the turns other programs take."""
    times: list[list[float]] = [[] for _ in sides]
    for repeat in range(repeats):
        for n, side in enumerate(sides):
            start = time.process_time()
            side(repeat)
            times[n].append(time.process_time() - start)
    return [statistics.median(t) for t in times]


def arguments() -> argparse.ArgumentParser:
    """The options (`--help` prints them and runs nothing)."""
    parser = script_options.parser("bench_fights.py", __doc__)
    parser.add_argument("--quick", action="store_true", help="fewer fights and repeats")
    parser.add_argument("--runs", type=int, metavar="N",
                        help="the competent study's size (200 with --quick, else 2000)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The rows: the default duel played as a run and as a fight (with its log's events);
    the competent duel as `rulecraft fight … --runs N --policy competent` plays it on one
    worker (untraced, summed up), and one traced competent fight; each against the hand loop
    of the same duel. `--quick`: fewer fights and repeats; `--runs N`: the study's size."""
    from hand_competent import competent_duel
    from rulecraft.fight import study

    options = arguments().parse_args(argv)
    quick = options.quick
    runs = options.runs if options.runs is not None else 200 if quick else 2000
    duels, repeats = (40, 3) if quick else (200, 7)
    rb = rulecraft.load("ringing_steel")
    a, b = rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)
    print(f"{'benchmark':<52} {'engine':>12} {'by hand':>12} {'ratio':>7}")

    def seeds(repeat: int, count: int = duels) -> range:
        return range(repeat * count, (repeat + 1) * count)

    run, by_hand, fought = _interleaved([
        lambda r: [engine_duel(rb, a, b, s) for s in seeds(r)],
        lambda r: [hand_duel(SWORDSMAN, SPEARMAN, s) for s in seeds(r)],
        lambda r: [rb.fight([a, b], seed=s).events for s in seeds(r)],
    ], repeats)
    _row("Ringing Steel duel: run (traced)", run, by_hand, duels)
    _row("Ringing Steel duel: fight() with its events", fought, by_hand, duels)
    # The study's fight i is seeded (seed * 1,000,003 + i): the hand loop plays those seeds.
    engine, hand = _interleaved([
        lambda r: study(rb, [a, b], runs, seed=r + 1, policy="competent", workers=1),
        lambda r: [competent_duel(SWORDSMAN, SPEARMAN, (r + 1) * 1_000_003 + i)
                   for i in range(runs)],
    ], max(3, repeats // 2))
    _row(f"competent duels: --runs {runs}, one worker", engine, hand, runs)
    one, hand_one = _interleaved([
        lambda r: [rb.fight([a, b], seed=s, policy="competent").events for s in seeds(r)],
        lambda r: [competent_duel(SWORDSMAN, SPEARMAN, s) for s in seeds(r)],
    ], repeats)
    _row("competent duel: one traced fight() with its events", one, hand_one, duels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
