"""`rulecraft new NAME [--extends RULEBOOK]`: a starter rule file a newcomer can read, change and
run — every kind of rule once, with comments, checking and testing clean from the start."""

from __future__ import annotations

import os
import re
from importlib import resources
from typing import Any

from rulecraft.dsl.formatter import format_file
from rulecraft.dsl.parser import parse
from rulecraft.runtime.errors import RangeError, text_of
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.values import display

NAME = re.compile(r"[^\W\d]\w*")


def rulebook_name(path: str) -> str:
    """The rulebook's name from its file's: `my_game.rules` is `my_game`."""
    stem = os.path.splitext(os.path.basename(path))[0]
    name = re.sub(r"\W+", "_", stem).strip("_").lower() or "my_rules"
    return name if NAME.fullmatch(name) else f"rules_{name}"


def fresh(path: str) -> str:
    """A whole rulebook of every kind of rule (rulecraft/starters/rulebook.rules)."""
    name = rulebook_name(path)
    text = (resources.files("rulecraft") / "starters" / "rulebook.rules").read_text("utf-8")
    title = name.replace("_", " ").capitalize()
    return text.replace("NAME", name).replace("TITLE", title)


def house(path: str, base: Rulebook, written_as: str) -> str:
    """House rules over `base`: the extends line, one of its formulas written again to change,
    and a worked example of it that passes as it stands."""
    name = rulebook_name(path)
    tree = parse(text_of(base.source, base.filename) or "", base.filename)
    formulas = [d for d in tree.declarations if type(d).__name__ == "FormulaDecl"]
    extends = written_as if NAME.fullmatch(written_as) else f'"{written_as}"'
    lines = [
        f"# {name} — house rules over {base.title}. Only what you change is written here; the rest",
        f"# is {base.name}'s. `rulecraft diff {written_as} {os.path.basename(path)}` shows what",
        f"# differs, `rulecraft test {os.path.basename(path)}` plays {base.name}'s worked examples "
        "and yours,",
        "# `rulecraft show --uses NAME` finds every place a rule lives before you change it.",
        f'rulebook {name} "{name.replace("_", " ").capitalize()}"',
        f"extends {extends}",
        "",
    ]
    picked = _example_formula(base, formulas)
    if picked is not None:
        decl, args, value = picked
        source = text_of(base.source, base.filename) or ""
        # The declaration's own lines (its span runs on to the next rule's comments).
        rest = source[decl.span.start:decl.span.end].split("\n")
        written = "\n".join([rest[0]] + [x for x in rest[1:] if x.startswith((" ", "\t"))]
                            ).strip()
        call = f"{decl.name}({', '.join(args)})"
        lines += [
            f"# A rule changed: {decl.name}, written again whole (as {base.name} has it: change it).",
            f"replace {written}",
            "",
            "# A worked example of your change: what it makes of the figures (change the value",
            "# with the rule, so `rulecraft test` says your house rule does what you mean).",
            f'example "{decl.title or decl.name} in our game":',
            f"  expect {call} == {value}",
        ]
    text = "\n".join(lines) + "\n"
    return format_file(parse(text, path))


def _example_formula(base: Rulebook, formulas: list[Any]) -> tuple[Any, list[str], str] | None:
    """The first formula of the base that can be called with the low end of each parameter's
    range (or an enum's first member), with what it gives."""
    for decl in formulas:
        formula = base.formulas.get(decl.name)
        args: list[str] = []
        values: list[Any] = []
        for p in getattr(formula, "params", ()):
            low = _lowest(base, p)
            if low is None:
                break
            args.append(low[0])
            values.append(low[1])
        else:
            try:
                value = formula(*values)
            except Exception:  # noqa: BLE001 - a formula that cannot be called so is skipped
                continue
            if not isinstance(value, bool) and (isinstance(value, (int, float))
                                                or type(value).__name__ == "Decimal"):
                return decl, args, display(value)
    return None


def _lowest(base: Rulebook, param: Any) -> tuple[str, Any] | None:
    """A parameter's lowest value, as written and as given: a range's low end, an enum's
    first member."""
    vt = param.type
    if vt.kind == "integer" and vt.low is not None:
        return str(vt.low), vt.low
    if vt.kind == "enum" and vt.members:
        return f'"{vt.members[0]}"', vt.members[0]
    return None


def refuse_existing(path: str) -> None:
    if os.path.lexists(path):
        raise RangeError(f"{path} already exists: give a new file's name (rulecraft new never "
                         "writes over a file)")
