"""Sheets: a compiled procedure as numbered steps in plain words.

The steps are the compiled `Procedure.steps` tree, the one the engine runs; each step's own rule
text is read back only to say it in words ("Roll d20 for the Attack Roll", "Defender chooses
the Defence: Parry, Active Dodge, Passive Dodge or No Action (by default Passive Dodge)"), with
the tables, formulas and procedures it names linked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.comments import strip_comments
from rulecraft.runtime.errors import text_of
from rulecraft.runtime.procedures import Procedure, Step

from .sheet_events import event_words, without_label
from . import sheet_time
from .sheet_math import MathWriter, Piece, Rich, Vocabulary, parse, words


@attrs.frozen
class StepView:
    """One numbered step ("4", "4.2"): what to do, its rule line, the book's words above it,
    and the blocks of steps it holds (an `if`'s branches, a loop's body), each under its head.
    An `if` says its first condition as its own text ("If Hit:")."""

    number: str
    text: Rich
    line: int | None
    notes: tuple[str, ...]
    blocks: tuple[BlockView, ...] = ()
    changed: bool = False  # a house rule's step the base does not have as it is


@attrs.frozen
class BlockView:
    head: Rich  # "If Hit:", "Otherwise:", "" for a loop's body (its step says it)
    steps: tuple[StepView, ...]


_NAME = r"[^\W\d]\w*"
_BOUND = re.compile(rf"^(?:roll|let|choose|call)\s+({_NAME})|^for\s+each\s+({_NAME})")


def steps(procedure: Procedure, vocabulary: Vocabulary,
          options: Mapping[str, tuple[str, ...]], standing: tuple[Any, ...] = ()
          ) -> tuple[StepView, ...]:
    """The procedure's steps in words. `options`: each enum's members (a choice from `defence`
    lists them); `standing`: the rulebook's standing constraints, said under each choice they
    bind."""
    parties = frozenset(p.name for p in procedure.params if p.type.kind == "combatant")
    local = frozenset(p.name for p in procedure.params) | frozenset(_bound(procedure.steps))
    words_ = _Words(MathWriter(vocabulary, local, parties), vocabulary, options,
                    procedure.source or "")
    words_.standing = standing
    return tuple(words_.step(step, str(i)) for i, step in enumerate(procedure.steps, 1))


def _bound(tree: tuple[Step, ...]) -> Iterator[str]:
    """Every name a step binds (a roll, a let, a choice, a call, a loop's item)."""
    for step in tree:
        found = _BOUND.match(step.text)
        if found:
            yield found[1] or found[2]
        for _, block in step.blocks:
            yield from _bound(block)


class _Words:
    def __init__(self, math: MathWriter, vocabulary: Vocabulary,
                 options: Mapping[str, tuple[str, ...]], source: str) -> None:
        self.math = math
        self.vocabulary = vocabulary
        self.options = options
        self.source = source
        self._dispatch: dict[str, Callable[[str], Rich]] = {
            "roll": self.roll, "let": self.let, "choose": self.choose, "set": self.set,
            "add": self.add, "change": self.change, "call": self.call, "outcome": self.outcome, "for": self.each,
            "repeat": self.repeat, "if": lambda text: (), "named": lambda text: (),
            "schedule": self.schedule, "condition": self.condition,
            **event_words(self),  # events on the clock: compiler/sheet_events.py
            "ruling": self.ruling, "reveal": self.reveal,
            "turns": lambda text: sheet_time.turns(text, self.math.text, words),
            "rounddelay": lambda text: sheet_time.round_delay(text, self.math.text, words),
        }

    def step(self, step: Step, number: str) -> StepView:
        text = self._statement(step)
        say = self._dispatch.get(step.kind)
        # A kind of step this sheet does not know yet is shown as written, never dropped.
        said = say(text) if say is not None else (Piece(text),)
        blocks, inner = [], 0  # the steps inside number on across its blocks (4.1 … 4.7)
        for i, (when, block) in enumerate(step.blocks):
            numbers = [f"{number}.{inner + j}" for j in range(1, len(block) + 1)]
            inner += len(block)
            blocks.append(self._block(step, i, when, block, numbers))
        if step.kind == "if" and blocks:  # "If Hit:" is the step itself
            said, blocks[0] = blocks[0].head, attrs.evolve(blocks[0], head=())
        return StepView(number, said, step.span.line if step.span else None, step.comments,
                        tuple(blocks))

    def _block(self, step: Step, i: int, when: str, block: tuple[Step, ...],
               numbers: list[str]) -> BlockView:
        inner = tuple(self.step(x, n) for x, n in zip(block, numbers))
        if step.kind == "if":
            if when == "otherwise":
                return BlockView((Piece("Otherwise:"),), inner)
            head = "If " if i == 0 else "Otherwise, if "
            return BlockView((Piece(head), *self.math.text(when), Piece(":")), inner)
        if when == "at the cap":
            return BlockView((Piece("If the condition never holds:"),), inner)
        if when.startswith("step "):
            return BlockView((Piece(words(when[5:]) + ":"),), inner)
        head = sheet_time.block_head(when, self.math.text)  # `every 1 minute`, `afterwards`
        if head is not None:
            return BlockView(head, inner)
        return BlockView((), inner)

    def _statement(self, step: Step) -> str:
        """A step's rule text, comments cut out, on one line (an `outcome … with (` may run
        over several); a step holding blocks by its first line."""
        if step.blocks or step.span is None:
            return step.text.rstrip(":").strip()
        text = (text_of(self.source, step.span.filename) or "")[step.span.start:step.span.end]
        code, _ = strip_comments(text)
        return " ".join(code.split()) or step.text

    def _name(self, name: str) -> Piece:
        return Piece(self.vocabulary.name(name), "name")

    # -- each kind of step -----------------------------------------------------------------
    def roll(self, text: str) -> Rich:
        name, dice = _assignment(text[len("roll"):])
        return (Piece("Roll "), *self.math.text(dice), Piece(" for the "), self._name(name),
                Piece("."))

    def let(self, text: str) -> Rich:
        name, value = _assignment(text[len("let"):])
        return (self._name(name), Piece(" = ", "op"), *self.math.value(parse(value)),
                Piece("."))

    standing: tuple[Any, ...] = ()

    def choose(self, text: str) -> Rich:
        found = re.match(rf"choose\s+({_NAME})\s+by\s+({_NAME})(\s+in\s+secret)?"
                         rf"(?:\s+seeing\s+(.+?))?\s+from\s+(.+?)\s+default\s+(.+)$", text)
        if found is None:
            return (Piece(text),)
        name, party, secret, seeing, options, default = found.groups()
        who = "The referee" if party == "referee" else words(party)
        how: list[Piece] = []
        if seeing:
            how += [Piece(", seeing "), *_listed([self._name(n.strip()) for n in
                                                  seeing.split(",")])]
        if secret:
            how.append(Piece(", in secret"))
        return (Piece(f"{who} chooses the "), self._name(name), *how, Piece(": "),
                *self._options(options), Piece(" (by default "), *self._plain(default),
                Piece(")."), *self._standing(name))

    def _standing(self, name: str) -> Rich:
        """The standing constraints on a choice: "While Grappling, only Active Dodge or Hand
        parry." """
        out: list[Piece] = []
        for rule in self.standing:
            if rule.choice != name:
                continue
            listed = [Piece(str(o), "lit") for o in rule.options]
            word = "only " if rule.mode == "only" else "never "
            joined: list[Piece] = []
            for i, item in enumerate(listed):
                if i:
                    joined.append(Piece(" or " if i == len(listed) - 1 else ", "))
                joined.append(item)
            out += [Piece(f" While {rule.condition}, {word}"), *joined, Piece(".")]
        return tuple(out)

    def ruling(self, text: str) -> Rich:
        """`ruling "…"`: the referee's call, as the sheet prints it."""
        found = re.match(r'ruling\s+"([^"]*)"$', text)
        return (Piece("The referee's call: "), Piece(found[1] if found else text, "ruling"),
                Piece("."))

    def reveal(self, text: str) -> Rich:
        names = [n.strip() for n in text[len("reveal"):].split(",")]
        return (Piece("Reveal "), *_listed([self._name(n) for n in names]),
                Piece(" (chosen in secret)."))

    def _options(self, text: str) -> Rich:
        node = parse(text)
        items: list[Rich] = []
        if isinstance(node, s.Name) and node.name in self.options:
            items = [(Piece(m, "lit"),) for m in self.options[node.name]]
        elif isinstance(node, s.ListLit):
            items = [self._plain_node(i) for i in node.items]
        if not items:
            return self.math.text(text)
        out: list[Piece] = []
        for i, item in enumerate(items):
            if i:
                out.append(Piece(" or " if i == len(items) - 1 else ", "))
            out += item
        return tuple(out)

    def _plain(self, text: str) -> Rich:
        return self._plain_node(parse(text))

    def _plain_node(self, node: s.Expr) -> Rich:
        """A literal name as the book prints it (Passive Dodge, not “Passive Dodge”)."""
        if isinstance(node, s.String):
            return (Piece(node.value, "lit"),)
        return self.math.expression(node)

    def change(self, text: str) -> Rich:
        """`set …` or `add …` (one kind of compiled step)."""
        if text.startswith("remove"):
            return self.remove(text)
        return self.add(text) if text.startswith("add") else self.set(text)

    def remove(self, text: str) -> Rich:
        """`remove "Arm" from f.wounds`: "Take the “Arm” entry out of F Wounds"."""
        key, _, target = text[len("remove"):].rpartition(" from ")
        return (Piece("Take the "), *self.math.text(key), Piece(" entry out of "),
                *self.math.text(target), Piece("."))

    def set(self, text: str) -> Rich:
        target, value = _split_once(text[len("set"):], "=")
        return (Piece("Set "), *self.math.text(target), Piece(" to "), *self.math.text(value),
                Piece("."))

    def add(self, text: str) -> Rich:
        value, _, target = text[len("add"):].rpartition(" to ")
        return (Piece("Add "), *self.math.text(value), Piece(" to "), *self.math.text(target),
                Piece("."))

    def call(self, text: str) -> Rich:
        name, value = _assignment(text[len("call"):])
        value, choosing = _choosing(value)
        node = parse(value)
        if not isinstance(node, s.Call):
            return (Piece(text),)
        head = self.vocabulary.procedures.get(node.name) or Piece(words(node.name), "name")
        args: list[Piece] = []
        for arg in node.args:
            args += [Piece(", " if args else " with "), *self.math.expression(arg)]
        for field, arg in node.named:
            args += [Piece(", " if args else " with "), self._name(field), Piece(" = ", "op"),
                     *self.math.expression(arg)]
        answers: list[Piece] = []
        for part in _split_top(choosing) if choosing else ():
            field, answer = _split_once(part, "=")
            answers += [Piece(", " if answers else "; its "), self._name(field),
                        Piece(" chosen by this procedure: "), *self._plain(answer)]
        return (Piece("Play "), head, *args, *answers, Piece("; its outcome is "),
                self._name(name), Piece("."))

    def schedule(self, text: str) -> Rich:
        """Time: `act f at/after T`, `delay f by T`, `lengthen f by T`, `stop f`; and a
        target: `aim f at foe`."""
        text, label = without_label(text)
        if label:
            return (*self.schedule(text)[:-1], *label, Piece("."))
        found = re.match(rf"(act|delay|lengthen|stop|aim)\s+({_NAME})(?:\s+(at|after|by)\s+(.+))?$",
                         text)
        if found is None:
            return (Piece(text),)
        verb, party, word, value = found.groups()
        who = words(party)
        if verb == "stop":
            return (Piece(f"{who.capitalize()} takes no more turns."),)
        if verb == "aim":
            return (Piece(f"{who.capitalize()} takes "), *self.math.text(value),
                    Piece(" as his target."))
        time = sheet_time.duration(value, self.math.text)  # `2 seconds`
        if verb == "act":
            return (Piece(f"{who.capitalize()}’s next action completes {word} "), *time,
                    Piece("."))
        if verb == "lengthen":
            return (Piece("Add "), *time, Piece(f" to the action {who} has under way."))
        return (Piece("Add "), *time, Piece(f" to the action {who} has under way, or else to "
                                           "the next one he starts."))

    def condition(self, text: str) -> Rich:
        """Lasting conditions: `give f "Stunned" for T`, `end f "Stunned"`."""
        # A quoted condition is taken whole: "Left for dead" for 1 hour (d20 modern).
        found = re.match(rf'(give|end)\s+({_NAME})\s+("[^"]*"(?:\s+on\s+.+?)?|.+?)'
                         rf'(?:\s+for\s+(.+))?$', text)
        if found is None:
            return (Piece(text),)
        verb, party, condition, duration = found.groups()
        who = words(party).capitalize()
        if verb == "end":
            return (Piece(f"{who} is no longer "), *sheet_time.condition(condition, self._plain),
                    Piece("."))
        lasting = (Piece(" for "), *sheet_time.duration(duration, self.math.text)) \
            if duration else ()
        held = sheet_time.condition(condition, self._plain)  # `"Shock" on "Head"`
        return (Piece(f"{who} is "), *held, *lasting, Piece("."))

    def outcome(self, text: str) -> Rich:
        ruled = re.match(r'outcome\s+by\s+referee\s+"([^"]*)"$', text)
        if ruled is not None:
            return (Piece("Outcome: "), Piece("the referee's call", "outcome"), Piece(" — "),
                    Piece(ruled[1], "ruling"), Piece("."))
        found = re.match(rf'outcome\s+({_NAME})(?:\s+"([^"]*)")?(?:\s+with\s+(.*))?$', text)
        if found is None:
            return (Piece(text),)
        name, title, values = found.groups()
        out: list[Piece] = [Piece("Outcome: "), Piece(title or words(name), "outcome")]
        if values:
            values = values.strip()
            if values.startswith("(") and values.endswith(")"):
                values = values[1:-1]
            out.append(Piece(", with "))
            for i, part in enumerate(_split_top(values)):
                field, value = _split_once(part, "=")
                out += [Piece(", " if i else ""), self._name(field.strip()), Piece(" = ", "op"),
                        *self.math.text(value)]
        return (*out, Piece("."))

    def each(self, text: str) -> Rich:
        found = re.match(rf"for\s+each\s+({_NAME})\s+in\s+(.+)$", text)
        if found is None:
            return (Piece(text),)
        return (Piece("For each "), self._name(found[1]), Piece(" in "),
                *self.math.text(found[2]), Piece(":"))

    def repeat(self, text: str) -> Rich:
        found = re.match(r"repeat\s+until\s+(.+),\s*at\s+most\s+(.+?)\s+times$", text)
        if found is None:
            return (Piece(text),)
        return (Piece("Repeat until "), *self.math.text(found[1]), Piece(" (at most "),
                *self.math.text(found[2]), Piece(" times):"))


def _listed(items: list[Piece]) -> list[Piece]:
    """`a`, `a and b`, `a, b and c`."""
    out: list[Piece] = []
    for i, item in enumerate(items):
        if i:
            out.append(Piece(" and " if i == len(items) - 1 else ", "))
        out.append(item)
    return out


def _choosing(text: str) -> tuple[str, str]:
    """A call's `f(x) choosing a = …, b = …`: the call, and what it answers (outside quotes)."""
    found = re.search(r'\)\s+choosing\s+(?=(?:[^"]*"[^"]*")*[^"]*$)', text)
    if found is None:
        return text, ""
    return text[:found.start() + 1], text[found.end():]


def _assignment(text: str) -> tuple[str, str]:
    name, value = _split_once(text, "=")
    return name.strip(), value


def _split_once(text: str, mark: str) -> tuple[str, str]:
    """`a = b == c` at its first `=` that is not part of `==`, `<=`, `>=` or `!=`."""
    for i, ch in enumerate(text):
        if ch == mark and text[i - 1:i] not in ("=", "<", ">", "!") and \
                text[i + 1:i + 2] != "=":
            return text[:i].strip(), text[i + 1:].strip()
    return text.strip(), ""


def _split_top(text: str) -> list[str]:
    """`a = f(x, y), b = "p, q"` at its commas outside brackets and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


__all__ = ["BlockView", "StepView", "steps"]
