"""The files around a fuzzed rule file (tests/fuzz_field.py): a house file that `extends` a
base written beside it and `replace`s, `amend`s and `remove`s its rules; fighter files (TOML),
well-formed or hostile (a huge number, a wrong type, deep nesting, terminal escapes, broken
TOML, bytes); and whole cases, a folder of them and what to do with it
(tests/test_fuzz_field.py plays them).
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs
from hypothesis import strategies as st

import fuzz_strategies as fs
from fuzz_field import (ESCAPES, _plain, _title, encounter_decls, field_program, hostile,
                        mutated, policy_decls, reference_decls, schedule_step)
from fuzz_strategies import _int, _one

# -- house files over a base in the same folder ---------------------------------------------

RULE = re.compile(r"^(table|formula|procedure|enum|combatant|reference|encounter|policy) "
                  r"(\w+)", re.M)
STEP_PLACE = re.compile(r"^\s+(?:(let|roll|choose|call) (\w+)|step (\w+):)", re.M)


def _blocks(text: str) -> dict[tuple[str, str], str]:
    """Each rule of a rule file by (kind, name): its lines, as written."""
    found: dict[tuple[str, str], str] = {}
    starts = list(RULE.finditer(text))
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        body = text[m.start():end]
        cut = re.search(r"\n(?=\S)", body)  # the block ends at the next unindented line
        found.setdefault((m[1], m[2]), body[:cut.start() + 1] if cut else body)
    return found


def _renamed(text: str, kind: str, name: str) -> str:
    """A generated declaration given the name of the rule it replaces."""
    return re.sub(rf"^{kind} \w+", f"{kind} {name}", text, count=1)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


CELL_TEXTS = ("0", "5", "-3", "2.5", "Bruise", "d6", "2d6+1", "", "3/-4/-5", "= 1/0", "N/A",
              "99-00", ">75", "1–3")


def _table_edit(draw: Any, block: str) -> str:
    """One line of `amend table T:`: a cell, a row added or replaced, a row or column removed,
    a column added (rows and labels read from the base's table as printed)."""
    rows = [_cells(line) for line in block.splitlines() if line.strip().startswith("|")
            and not set(line) <= set("|-: \n")]
    header, body = (rows[0], rows[1:]) if rows else (["Name", "A"], [["X", "1"]])
    row = _one(draw, body) if body else header
    label = _one(draw, header[1:] or ["A"])
    text = _one(draw, CELL_TEXTS + tuple(c for r in body for c in r[1:3]))
    how = _one(draw, ["cell", "cell", "row", "row", "remove row", "add column",
                      "remove column"])
    if how == "cell":
        return f"  cell | {row[0]} | {label} | {text} |\n"
    if how == "row":
        key = _one(draw, [row[0], *fs.ROWS])
        cells = [key] + [text if _int(draw, 0, 2) == 1 else c for c in row[1:]]
        return "  row | " + " | ".join(cells) + " |\n"
    if how == "remove row":
        return f"  remove row | {row[0]} |\n"
    if how == "add column":
        return f"  add column | {_one(draw, ['Extra', label, 'Two Words'])} |\n"
    return f"  remove column | {label} |\n"


def _step_edit(draw: Any, declared: fs.Declared, block: str) -> str:
    """One edit of `amend procedure P:`: a place (`let x`, `roll r`, `choose c`, `call c`,
    `step NAME`) replaced, removed, or with steps inserted before or after it."""
    places = STEP_PLACE.findall(block)
    if not places:
        return f"  remove let {_one(draw, ['nothing', 'x'])}\n"
    verb, name, group = _one(draw, places)
    place = f"step {group}" if group else f"{verb} {name}"
    how = _one(draw, ["replace", "insert before", "insert after", "insert after", "remove"])
    if how == "remove":
        return f"  remove {place}\n"
    original = re.search(rf"^\s+{re.escape(place)}\b.*$", block, re.M)
    steps = ""
    if how == "replace" and original is not None and not group:
        steps = "    " + fs._number_edit(draw, original.group().strip()) + "\n"
    parties = re.findall(r"(\w+): (" + "|".join(map(re.escape, declared.models)) + r")\b",
                         block.split("\n", 1)[0]) if declared.models else []
    if parties and _int(draw, 0, 1):
        env = {p: f"party:{model}" for p, model in parties}
        steps += schedule_step(draw, declared, env, "    ", False)
    if not steps:
        steps = f"    let {_plain(declared, 'new')} = {_int(draw, -3, 9)}\n"
    return f"  {how} {place}:\n{steps}"


def _change(draw: Any, declared: fs.Declared, blocks: dict[tuple[str, str], str]) -> str:
    """One change a house file makes to its base: `replace`, `amend` or `remove` a rule the
    base has (now and then one it has not), or a new rule."""
    kind, name = _one(draw, sorted(blocks)) if blocks else ("formula", "nothing")
    if _int(draw, 0, 15) == 4:
        name = name + "x"  # a rule the base lacks: an error with a "did you mean"
    block = blocks.get((kind, name), "")
    how = _one(draw, ["replace", "amend", "amend", "remove"])
    removable = kind in ("table", "formula", "procedure", "enum", "combatant", "reference")
    if how == "remove" and removable:
        return f"remove {kind} {name}\n"
    if kind == "table" and how == "amend":
        edits = "".join(_table_edit(draw, block) for _ in range(_int(draw, 1, 3)))
        return f"amend table {name}:\n{edits}"
    if kind in ("procedure", "encounter") and how == "amend":
        edits = "".join(_step_edit(draw, declared, block) for _ in range(_int(draw, 1, 2)))
        return f"amend procedure {name}:\n{edits}"
    if kind == "enum":
        if how == "replace":
            members = ", ".join(fs._quoted(draw, m) for m in fs.MEMBERS[:3])
            return f"replace enum {name}: {members}\n"
        return f"amend enum {name}: {fs._quoted(draw, _one(draw, fs.MEMBERS))}, Extra\n"
    if kind == "combatant":
        fields = re.findall(r"^  (?:state )?(\w+):", block, re.M) or ["x"]
        edits = _one(draw, [f"  {_plain(declared, 'extra')}: 1..10\n",
                            f"  state {_plain(declared, 'extra')}: integer = 0\n",
                            f"  replace {_one(draw, fields)}: integer\n",
                            f"  remove {_one(draw, fields)}\n"])
        return f"amend combatant {name}:\n{edits}"
    made = {"formula": lambda: draw(fs.formula_decls(declared)),
            "table": lambda: draw(fs.record_tables(declared)),
            "procedure": lambda: draw(fs.procedure_decls(declared)),
            "reference": lambda: draw(reference_decls(declared))}.get(kind)
    if made is None:  # an encounter or a policy: write a new one beside the base's
        return draw(encounter_decls(declared)) if kind == "encounter" else \
            draw(policy_decls(declared, "".join(blocks.values())))
    return "replace " + _renamed(made(), kind, name)


def _extends(draw: Any) -> str:
    """Where the base is: beside the house file, spelled one way or another; rarely (items 1
    and 2) outside the folder, through a link, or the house file itself."""
    if hostile("1") and _int(draw, 0, 11) == 5:
        return _one(draw, ['"../secret.txt"', '"/etc/hostname"', '"link.rules"',
                           '"/proc/self/environ"', '"folder"'])
    if hostile("2") and _int(draw, 0, 11) == 6:
        return _one(draw, ['"./house.rules"', '"house.rules"', '".//house.rules"'])
    if _int(draw, 0, 11) == 3:  # a base that is not there
        return _one(draw, ["base", '"missing.rules"', '"Base.rules"', '""'])
    return _one(draw, ['"base.rules"', '"base.rules"', '"./base.rules"'])


@st.composite
def house_files(draw: Any) -> tuple[str, str, fs.Declared]:
    """(base, house file, what the base declared): a generated base, and a house file that
    `extends` it and makes one to four changes."""
    base, declared = field_program(draw)
    blocks = _blocks(base)
    lines = [f"rulebook {_plain(declared, 'house')}{_title(draw)}\n",
             f"extends {_extends(draw)}\n"]
    lines += ["\n" + _change(draw, declared, blocks) for _ in range(_int(draw, 1, 4))]
    return base, "".join(lines), declared


# -- fighter files ----------------------------------------------------------------------------

FIELD = re.compile(r"^  (state )?(\w+): (.+?)(?: = [^=]*?)?(?: clamped)?(?: combined by \w+)?$")


def _fields(text: str, declared: fs.Declared) -> list[tuple[str, str, bool]]:
    """(name, type as written, whether it may be left out) of the first combatant model's
    characteristics and state, read from the rule file."""
    model = next(iter(declared.models), None)
    block = _blocks(text).get(("combatant", model or ""), "")
    fields = []
    for line in block.splitlines()[1:]:
        line = re.sub(r"\s+#.*$", "", line)
        m = FIELD.match(line)
        if m and not line.lstrip().startswith(("derived", "#")):
            fields.append((m[2], m[3].strip(), bool(m[1]) or " = " in line))
    return fields


def _value(draw: Any, declared: fs.Declared, written: str, depth: int = 0) -> Any:
    """A value of a type as written (`1..20`, `integer`, `map e2 -> list e2`, an enum, a
    record table's rows), as a fighter file gives it; None when a file cannot give one."""
    if depth > 3:
        return None
    if written.startswith("list "):
        item = _value(draw, declared, written[5:], depth + 1)
        return [] if item is None else [item] * _int(draw, 0, 3)
    if written.startswith("map "):
        key, _, item = written[4:].partition(" -> ")
        k, v = _value(draw, declared, key, depth + 1), _value(draw, declared, item, depth + 1)
        return {} if k is None or v is None else {str(k): v}
    found = re.fullmatch(r"(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)", written)
    if found and "." not in written.replace("..", ""):
        return _int(draw, int(found[1]), max(int(found[1]), int(found[2])))
    if found:
        return float(found[1])
    simple = {"integer": lambda: _int(draw, -3, 20), "number": lambda: 2.5,
              "bool": lambda: bool(_int(draw, 0, 1)), "dice": lambda: _int(draw, 1, 6),
              "name": lambda: _one(draw, fs.WORDS)}
    if written in simple:
        return simple[written]()
    if written in declared.enums:
        return _one(draw, declared.enums[written])
    rows = [info["rows"] for info in declared.records.values() if info["key"] == written]
    return _one(draw, rows[0]) if rows else None


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def toml_value(value: Any) -> str:
    """A value written as TOML (an inline table for a map)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(repr(value), repr(value))
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's basic string escapes
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"


HOSTILE_TOML = ("huge", "wrong type", "unknown key", "model", "long text", "broken", "bytes",
                "empty", "bom", "crlf", "not finite", "mutated", "deep", "dotted", "escapes")
WRONG = ('"12"', "[1, 2]", "{ a = 1 }", "true", "1979-05-27T07:32:00Z", "07:32:00", "-0.0",
         "0x10", "1e400", '"""many\nlines"""', "'Sword'")


def _deep(draw: Any) -> str:
    """Brackets or tables nested deep: a few levels, or (item 7) thousands."""
    depth = _one(draw, [5, 30, 3_000, 20_000]) if hostile("7") else _int(draw, 2, 30)
    if _int(draw, 0, 1):
        return f"deep = {'[' * depth}{']' * depth}\n"
    return f"deep = {'{ a = ' * depth}1{' }' * depth}\n"


def _dotted(draw: Any) -> str:
    """A dotted key of many parts, or many dotted keys."""
    size = _one(draw, [5, 40, 5_000, 40_000]) if hostile("7") else _int(draw, 2, 40)
    if _int(draw, 0, 1):
        return ".".join(["a"] * size) + " = 1\n"
    return "".join(f"a.k{i} = {i}\n" for i in range(size))


@st.composite
def fighter_files(draw: Any, declared: fs.Declared, text: str) -> str | bytes:
    """A fighter file for the first combatant model of `text`: its characteristics (and some
    of its state) with values of their types; or hostile: a huge number, a value of the wrong
    type, a key the model lacks, another model, a long text, broken TOML, bytes, deep nesting,
    terminal escapes."""
    values = {}
    for name, written, optional in _fields(text, declared):
        if optional and _int(draw, 0, 1):
            continue
        value = _value(draw, declared, written)
        if value is not None:
            values[name] = value
    lines = [f"{_key(k)} = {toml_value(v)}\n" for k, v in values.items()]
    how = _one(draw, ("none",) * 10 + HOSTILE_TOML)
    field = _key(_one(draw, list(values) or ["strength"]))
    if how == "huge":
        lines.append(f"{field} = {_one(draw, [str(10**30), str(-10**30), '1e308', str(2**63)])}\n")
    elif how == "wrong type":
        lines.append(f"{field} = {_one(draw, WRONG)}\n")
    elif how == "unknown key":
        lines.append(f"{_one(draw, ['no_such_field', 'derived', 'model2', 'é'])} = 1\n")
    elif how == "model":
        models = ['"nope"', "3", *map(json.dumps, declared.models)]
        lines.insert(0, f"model = {_one(draw, models)}\n")
    elif how == "long text":
        lines.append(f'{field} = "{"x" * _one(draw, [1_000, 200_000])}"\n')
    elif how == "not finite":
        lines.append(f"{field} = {_one(draw, ['inf', '-inf', 'nan'])}\n")
    elif how == "deep":
        lines.append(_deep(draw))
    elif how == "dotted":
        lines.append(_dotted(draw))
    elif how == "escapes" and hostile("13"):
        lines.append(f"{field} = {json.dumps(_one(draw, ESCAPES))}\n")
    out = "".join(lines)
    if how == "broken":
        return out + _one(draw, ["= = =\n", "[unclosed\n", f"{field} = 1\n{field} = 2\n", '"\n'])
    if how == "bytes":
        return out.encode() + draw(st.binary(min_size=1, max_size=12))
    if how == "empty":
        return ""
    if how == "bom":
        return "\ufeff" + out
    if how == "crlf":
        return out.replace("\n", "\r\n")
    if how == "mutated":
        return draw(fs.mutations(out, long_line=200))
    return out


# -- cases ------------------------------------------------------------------------------------

# What a case is made of. `files` are written into a folder of their own (the house file's
# base beside it); `main` is the rule file played; `actions` which of the façade's calls and
# the commands to make (API_ACTIONS, CLI_ACTIONS, as "api fight", "cli sheet").
@attrs.frozen
class Case:
    """One case: the files of a folder, the rule file to play, its fighters, what to do."""

    files: tuple[tuple[str, str | bytes], ...]
    main: str
    base: str | None
    fighters: tuple[str, ...]
    seed: int
    actions: frozenset[str]

    def text(self, name: str) -> str | bytes:
        return dict(self.files)[name]


# What a case may do, through the façade and through the commands (tests/fuzz_play.py).
API_ACTIONS = ("fight", "run", "odds", "references", "sheet", "format", "diff")
CLI_ACTIONS = ("check", "fmt", "show", "run", "odds", "fight", "sheet", "diff", "eval")
SECRET = "CANARY-not-a-rule-file-7f3a"  # in ../secret.txt: no output may ever show it


@st.composite
def field_cases(draw: Any, every_action: bool = False) -> Case:
    """A folder for one case: a rule file with encounters, policies and references (or a
    house file and its base), two fighter files, each maybe mutated; and what to do with them
    (all of it when `every_action`, else one to four things)."""
    house = _int(draw, 0, 2) == 0
    if house:
        base_text, main_text, declared = draw(house_files())
        files = [("base.rules", mutated(draw, base_text, 8)),
                 ("house.rules", mutated(draw, main_text, 6))]
        main, base = "house.rules", "base.rules"
    else:
        main_text, declared = field_program(draw)
        files, main, base = [("rules.rules", mutated(draw, main_text))], "rules.rules", None
        base_text = main_text
    fighters = ("a.toml", "b.toml")
    files += [(name, draw(fighter_files(declared, base_text))) for name in fighters]
    api = set(API_ACTIONS) if every_action else set(draw(st.lists(
        st.sampled_from(API_ACTIONS), min_size=1, max_size=3)))
    cli = set(CLI_ACTIONS) if every_action else set(draw(st.lists(
        st.sampled_from(CLI_ACTIONS), max_size=2)))
    actions = frozenset({f"api {a}" for a in api} | {f"cli {c}" for c in cli})
    return Case(tuple(files), main, base, fighters, draw(st.integers(0, 2**32 - 1)), actions)
