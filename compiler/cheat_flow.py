"""Cheat sheets: a procedure condensed to its decision points — which dice are rolled, against
what, who chooses what, and what each result leads to — as a short flow rather than every step.

The flow is the compiled `Procedure.steps` tree pruned: rolls and choices stay, with the `let`s
that read a roll straight after it (what the roll is measured against); `if`s stay when a
branch holds something kept; calls stay as "→ see the procedure called", outcomes as
"→ Outcome".
Everything else (bookkeeping: lets, sets, time) is the reference sheet's to show. The words are
the reference sheet's own (compiler/sheet_steps.py), so the two never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

from rulecraft.runtime.procedures import Procedure, Step

from .sheet_math import Piece, Vocabulary, words
from .sheet_steps import BlockView, StepView, steps

_NAME = r"[^\W\d]\w*"
_BINDS = re.compile(rf"^(?:roll|let|choose)\s+({_NAME})\s*(?:=|by)")
_OUTCOME = re.compile(rf"^outcome\s+(?:by\s+referee\b|({_NAME})(?:\s+\"([^\"]*)\")?)")
_CALL = re.compile(rf"^call\s+{_NAME}\s*=\s*({_NAME})\s*\(")


def flow(procedure: Procedure, vocabulary: Vocabulary,
         options: Mapping[str, tuple[str, ...]]) -> tuple[StepView, ...]:
    """The procedure's decision points as numbered steps in words; () when it has none (no
    roll, no choice, no call: a procedure of bookkeeping)."""
    kept = _decisions(procedure.steps)
    if not any(step.kind in ("roll", "choose", "call") for step in _every(kept)):
        return ()
    made = steps(attrs.evolve(procedure, steps=kept), vocabulary, options)
    return _short(made, kept, vocabulary)


def _decisions(tree: tuple[Step, ...]) -> tuple[Step, ...]:
    """The steps that decide: rolls, choices, calls, outcomes, the lets reading a roll of this
    block, and the `if`s and loops holding any of them."""
    out: list[Step] = []
    rolled: set[str] = set()
    for step in tree:
        bound = _BINDS.match(step.text)
        if step.kind in ("roll", "choose"):
            out.append(step)
            if step.kind == "roll":
                rolled.add(bound[1] if bound else "")
        elif step.kind == "let" and bound and _reads(step.text.split("=", 1)[-1], rolled):
            out.append(step)
        elif step.kind == "call" and _CALL.match(step.text):
            out.append(Step("call", step.text, None))  # said short below
        elif step.kind == "named":  # `step parry:` names a place for house rules, no decision
            out += [x for _, block in step.blocks for x in _decisions(block)]
        elif step.kind == "outcome":
            out.append(Step("outcome", step.text.split(" with ", 1)[0].strip(), None))
        elif step.blocks:
            blocks = tuple((when, _decisions(block)) for when, block in step.blocks)
            if any(block for _, block in blocks):
                out.append(attrs.evolve(step, blocks=blocks))
    return tuple(out)


def _reads(text: str, names: set[str]) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", text) for n in names if n)


def _every(tree: tuple[Step, ...]) -> list[Step]:
    return [x for step in tree for x in (step, *(y for _, b in step.blocks for y in _every(b)))]


def _short(made: tuple[StepView, ...], kept: tuple[Step, ...],
           vocabulary: Vocabulary) -> tuple[StepView, ...]:
    """Calls said as "→ see Procedure", outcomes as "→ Outcome", branches left empty dropped."""
    out = []
    for view, step in zip(made, kept):
        text = view.text
        if step.kind == "call":
            found = _CALL.match(step.text)
            assert found is not None  # kept only when it matches
            name = found[1]
            head = vocabulary.procedures.get(name)
            # "see": the procedure called is played there (and may be on the sheet); the
            # outcome a branch ends in reads "→ Outcome", so the two never read alike.
            text = (Piece("→ see "), Piece(head.text if head else words(name), "name"))
        elif step.kind == "outcome":
            found = _OUTCOME.match(step.text)
            said = "the referee's call" if found is None or found[1] is None else \
                (found[2] or words(found[1]))
            text = (Piece("→ "), Piece(said, "outcome"))
        blocks = tuple(BlockView(block.head, _short(block.steps, sub, vocabulary))
                       for block, (_, sub) in zip(view.blocks, step.blocks) if block.steps)
        out.append(attrs.evolve(view, text=text, blocks=blocks, notes=()))
    return tuple(out)


def lines(made: tuple[StepView, ...]) -> int:
    """How many lines a flow prints: for the default sheet's measure of what fits."""
    return sum(1 + sum(1 + lines(b.steps) if b.head else lines(b.steps) for b in st.blocks)
               for st in made)

__all__ = ["flow", "lines"]
