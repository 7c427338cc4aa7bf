"""What `run` and `odds` are given on the command line: values, combatant files, choices.

A combatant's values are checked here, all of them, before one is made, so that a person sees
every problem at once, each named by party and field (`defender.training.Spear`) and by where it
was given (a JSON file, or an argument as typed) — never as a caret under the rulebook's
declaration, which is not what is wrong.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import attrs

from rulecraft.runtime.combatants import CombatantModel, Field, ValueType, check_value
from rulecraft.runtime.errors import RangeError, RulecraftError, RulecraftErrors
from rulecraft.runtime.limits import Limits

from . import api

# A number as a person types one: digits, a point, an exponent. `inf`, `nan` and `1_000` are
# not numbers here (float() would take them); they stay text for the rule's type check.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# `run`'s and `odds`' own keywords: a name=value using one goes in as a choice (and is refused
# there unless the procedure has such a choice), never as a clashing keyword argument.
_RESERVED = frozenset({"dice", "seed", "choices", "by", "limits"})


def dice_list(text: str) -> list[int]:
    """`--dice 17,4` as the list of results it scripts."""
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise RangeError(f"--dice takes whole numbers separated by commas, like 17,4; got {text!r}")


def value_of(name: str, text: str, limits: Limits) -> Any:
    """A value typed on the command line: a finite number, true or false, or else text."""
    word = text.strip()
    if word.lower() in ("true", "false"):
        return word.lower() == "true"
    if _NUMBER.fullmatch(word):
        mantissa = re.split("[eE]", word)[0]
        if sum(c.isdigit() for c in mantissa) > limits.number_digits:
            raise RangeError(f"{name}={text}: a number of more than {limits.number_digits} "
                             f"digits {Limits.hint('number_digits')}")
        if re.fullmatch(r"[+-]?[0-9]+", word):
            return int(word)
        number = float(word)
        if not math.isfinite(number):
            raise RangeError(f"{name}={text}: the number is too large to be a value")
        return number
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def read_sheet(party: str, filename: str, limits: Limits) -> dict[str, Any]:
    """One combatant from a JSON file (or a TOML fighter file, by its name's ending)."""
    try:
        sheet = read_values(filename, limits, toml=filename.lower().endswith(".toml"))
    except ValueError as err:
        raise RangeError(f"cannot read combatant {party} from {api.shown(filename)}: "
                         f"{err}") from None
    if not isinstance(sheet, dict):
        raise RangeError(f"{api.shown(filename)} must hold one combatant as a JSON object "
                         '({"strength": 12, ...})')
    return sheet


def read_values(filename: str, limits: Limits, toml: bool) -> Any:
    """The values of a JSON or TOML file a caller hands in (a combatant, a fighter): a bounded
    read of a regular file, nested at most `input_depth` deep, finite numbers of at most
    `number_digits` digits; ValueError saying why not."""
    def whole(literal: str) -> int:
        if len(literal.lstrip("-")) > limits.number_digits:
            raise ValueError(f"a number of more than {limits.number_digits} digits "
                             f"{Limits.hint('number_digits')}")
        return int(literal)

    def finite(literal: str) -> float:
        number = float(literal)
        if not math.isfinite(number):
            raise ValueError(f"{literal} is too large a number")
        return number

    def constant(word: str) -> None:
        raise ValueError(f"{word} is not a number; give a finite number")

    too_deep = (f"its values are nested more than {limits.input_depth} deep "
                f"{Limits.hint('input_depth')}")
    try:
        text = api.read_bounded(filename, limits.input_bytes, "input_bytes").decode("utf-8-sig")
        if toml:
            import tomllib  # only for a TOML file

            _toml_shape(text, limits.input_depth, too_deep)  # before tomllib recurses
            values = tomllib.loads(text, parse_float=finite)
            _whole_numbers(values, whole)
        else:
            values = json.loads(text, parse_int=whole, parse_float=finite,
                                parse_constant=constant)
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8 text") from None
    except RecursionError:  # nested past what Python's own stack takes
        raise ValueError(too_deep) from None
    if _depth(values, limits.input_depth) > limits.input_depth:
        raise ValueError(too_deep)
    return values


# tomllib reads nested arrays and inline tables by recursion, and a dotted key costs it memory
# in the square of its length (269 KB of `a.a.a… = 1` took 4 GB): a TOML file's shape is measured
# from its text first, in one pass. Strings and comments are skipped as TOML writes them; where
# one does not end, tomllib stops reading too. A header under an array of tables (`[[a]]` then
# `[a.b]`) is deeper than it reads, at most twice: the check on the values read catches it.
_TOML_TOKEN = re.compile(r"""["'#\[\]{}=,.\n]""")
_TOML_STRINGS = {'"""': re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"{3,5}', re.DOTALL),
                 "'''": re.compile(r"'''(?:[^']|'(?!''))*'{3,5}"),
                 '"': re.compile(r'"(?:[^"\\\n]|\\.)*"'),
                 "'": re.compile(r"'[^'\n]*'")}
# Tables, arrays and dotted-key parts a TOML file may open: each costs tomllib about a
# kilobyte (a megabyte of table headers 19 deep took 437 MB); a fighter file opens a few.
TOML_TABLES = 50_000


@attrs.define
class _TomlShape:
    """Where a pass over TOML text is: the table its keys go into, the arrays and inline tables
    open around it, the key or table header being read; depths counted as `_depth` counts."""

    deepest: int
    why: str
    table: int = 1  # the depth of the table keys go into: the root, or a [header]'s
    open: list[tuple[str, int, int]] = attrs.field(factory=list)  # (bracket, depth, base before)
    base: int = 1  # the depth of the table the key being read goes into
    key: bool = True  # reading a key (else a value)
    parts: int = 1  # the parts of that key, or of the header, so far
    header: str = ""  # "[" or "[[" while a table header is read
    tables: int = 0

    def deeper(self, depth: int, tables: int = 1) -> None:
        """A table or array at `depth`, `tables` more opened: refused past the limits."""
        self.tables += tables
        if depth > self.deepest:
            raise ValueError(self.why)
        if self.tables > TOML_TABLES:
            raise ValueError(f"it opens more than {TOML_TABLES} tables, arrays and dotted "
                             "keys (a fighter file needs a few)")

    def bracket(self, text: str, at: int) -> int:
        """`[` or `{`: a table header, an array or an inline table; where reading goes on."""
        if not self.open and self.key and text[at] == "[":
            self.header = "[[" if text.startswith("[[", at) else "["
            self.parts = 1
            return at + len(self.header)
        inside = self.open[-1] if self.open else None
        depth = 1 + (inside[1] if inside and inside[0] == "[" else self.base + self.parts - 1)
        self.deeper(depth)
        self.open.append((text[at], depth, self.base))
        self.key, self.base, self.parts = text[at] == "{", depth, 1
        return at + 1

    def close(self, at: int) -> int:
        """`]` or `}`: a header read, or an array or inline table closed."""
        if self.header:
            double = self.header == "[["  # an array of tables: a list, then the table
            self.table = 1 + self.parts + double
            self.deeper(self.table, 1 + double)
            self.header = ""
            return at + 1 + double
        if self.open:
            self.base = self.open.pop()[2]
            self.key = False
        return at + 1

    def mark(self, mark: str) -> None:
        """`.`, `=`, `,` or a line's end."""
        if mark == "." and self.header:
            self.parts += 1
            self.deeper(1 + self.parts + (self.header == "[["))
        elif mark == "." and self.key:
            self.parts += 1
            self.deeper(self.base + self.parts - 1)
        elif mark == "=":
            self.key = False
        elif mark == "," and self.open and self.open[-1][0] == "{":
            self.key, self.parts = True, 1
        elif mark == "\n" and not self.open:
            self.key, self.parts, self.base = True, 1, self.table


def _toml_shape(text: str, deepest: int, why: str) -> None:
    """ValueError(`why`) if TOML text nests tables, arrays or dotted keys more than `deepest`
    deep (counted as `_depth` counts the values read), or opens more than TOML_TABLES."""
    shape = _TomlShape(deepest, why)
    at = 0
    while (found := _TOML_TOKEN.search(text, at)) is not None:
        mark, at = found.group(), found.start()
        if mark in "\"'":
            string = _TOML_STRINGS[mark * 3 if text.startswith(mark * 3, at) else mark].match(
                text, at)
            if string is None:
                return  # a string that does not end: tomllib refuses the file here
            at = string.end()
        elif mark == "#":
            at = text.find("\n", at)
            if at < 0:
                return
        elif mark in "[{":
            at = shape.bracket(text, at)
        elif mark in "]}":
            at = shape.close(at)
        else:
            shape.mark(mark)
            at += 1


def _whole_numbers(value: Any, whole: Any) -> None:
    """Every whole number of a TOML sheet held to the digits a number may have."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            whole(str(item))


def _depth(value: Any, enough: int) -> int:
    """How deeply lists and objects nest in a JSON value (without recursion), up to enough + 1."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= enough:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1)
                         for child in (item.values() if isinstance(item, dict) else item))
    return deepest


@attrs.define
class Party:
    """A combatant's values as given, and where each was given: a file or an argument."""

    name: str
    values: dict[str, Any] = attrs.field(factory=dict)
    origins: dict[tuple[str, ...], str] = attrs.field(factory=dict)  # field path -> where
    file_model: tuple[str, str] | None = None  # `model = "horse"` in a file, and the file

    def read(self, filename: str, limits: Limits) -> None:
        """`party=@file.json`: its fields replace those given before."""
        sheet = read_sheet(self.name, filename, limits)
        # A fighter file of a model other than the first names it (`model = "horse"`, as
        # `rulecraft fight` reads it): checked against the parameter's model, not a field.
        if "model" in sheet:
            self.file_model = (str(sheet.pop("model")), filename)
        self.values.update(sheet)
        replaced = [path for path in self.origins if path[0] in sheet]
        for path in replaced:
            del self.origins[path]
        self.origins.update({(field,): f"in {api.shown(filename)}" for field in sheet})

    def set(self, argument: str, path: list[str], value: Any) -> None:
        """`party.field.key=value`: one value, at any depth."""
        target = self.values
        for depth, key in enumerate(path[:-1], start=1):
            target = target.setdefault(key, {})
            if not isinstance(target, dict):
                raise RangeError(f"{argument}: {'.'.join([self.name, *path[:depth]])} is a "
                                 "value, not a set of fields")
        target[path[-1]] = value
        self.origins[tuple(path)] = f"given as {argument}"

    def origin(self, path: tuple[str, ...]) -> str:
        """Where the value at `path` was given: the deepest part of it given on its own."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.origins:
                return f" ({self.origins[path[:end]]})"
        return ""

    def problems(self, model: CombatantModel) -> list[RangeError]:
        """Every way these values do not make a combatant of `model`, each as its own error."""
        fields = {f.name: f for f in model.fields}
        given = [f.name for f in model.fields if f.role != "derived"]
        found: list[RangeError] = []
        if self.file_model is not None and self.file_model[0] != model.name:
            found.append(RangeError(f"{self.name}: {api.shown(self.file_model[1])} is a "
                                    f"{self.file_model[0]}, and {self.name} must be a "
                                    f"{model.name}"))
        for name, value in self.values.items():
            where, field = self.origin((name,)), fields.get(name)
            if field is None:
                close = difflib.get_close_matches(name, given, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                found.append(RangeError(f"{self.name}.{name}: a {model.name} has no "
                                        f"characteristic or state called {name!r}{hint}{where}"))
            elif field.role == "derived":
                found.append(RangeError(f"{self.name}.{name}: a {model.name} works {name} out "
                                        f"from its other figures; it cannot be given{where}"))
            else:
                found += [RangeError(message + self.origin(path))
                          for message, path in _misfits(field, (name,), value, self.name)]
        for f in model.fields:
            if f.role != "derived" and not f.has_default and f.name not in self.values:
                described = f" ({f.type.describe()})" if f.type is not None else ""
                found.append(RangeError(f"{self.name}.{f.name}: not given; a {model.name} needs "
                                        f"it{described}"))
        return found


def _misfits(field: Field, path: tuple[str, ...], value: Any,
             party: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each part of a given value that its declared type refuses, with its path: the keys and
    entries of a map and the items of a list are checked one by one, so each is named."""
    assert field.type is not None
    out: list[tuple[str, tuple[str, ...]]] = []
    stack: list[tuple[ValueType, tuple[str, ...], Any, str | None]] = [
        (field.type, path, value, None)]
    while stack:
        vt, at, item, label = stack.pop()
        if vt.kind == "map" and isinstance(item, Mapping) and vt.key and vt.item:
            for key, entry in reversed(list(item.items())):
                stack.append((vt.item, (*at, str(key)), entry, None))
                stack.append((vt.key, (*at, str(key)), key, f"a key of {'.'.join((party, *at))}"))
            continue
        if vt.kind == "list" and isinstance(item, list) and vt.item:
            stack.extend((vt.item, (*at, str(i + 1)), x, None)
                         for i, x in reversed(list(enumerate(item))))
            continue
        try:
            check_value(label or ".".join((party, *at)), vt, item, None, None)
        except RangeError as err:
            out.append((err.message, at))
    return out


def procedure_arguments(rb: Any, proc: Any, arguments: tuple[str, ...],
                        limits: Limits) -> tuple[dict[str, Any], dict[str, Any]]:
    """Keyword arguments (combatants, parameters) and choices for `run` and `odds`."""
    parties: dict[str, Party] = {}
    plain: dict[str, Any] = {}
    lists = {p.name for p in proc.params
             if p.type.kind == "list" and p.type.item is not None
             and p.type.item.kind == "combatant"}
    listed: dict[str, int] = {}  # a list of fighters: how many were given
    for arg in arguments:
        if "=" not in arg:
            raise RangeError(f"arguments are name=value or party.field=value; got {arg!r}")
        name, value = arg.split("=", 1)
        if name in lists:  # heroes=@a.toml+@b.toml (given again: more of them)
            for path in _joined_files(arg, value):
                listed[name] = listed.get(name, 0) + 1
                party = f"{name} {listed[name]}"
                parties[party] = Party(party)
                parties[party].read(path, limits)
            continue
        if value.startswith("@"):
            parties.setdefault(name, Party(name)).read(value[1:], limits)
            continue
        path = name.split(".")
        if path[0] in lists:  # heroes.2.dexterity=12: a field of the second of them
            path = _listed_field(arg, path, listed.get(path[0], 0))
        if len(path) == 1:
            plain[name] = value_of(name, value, limits)
            continue
        if len(path) > limits.input_depth:
            raise RangeError(f"{name}: fields nested more than {limits.input_depth} deep "
                             f"{Limits.hint('input_depth')}")
        party = parties.setdefault(path[0], Party(path[0]))
        party.set(arg, path[1:], value_of(name, value, limits))
    made = _combatants(rb, proc, parties)
    for name, count in listed.items():
        plain[name] = [made.pop(f"{name} {n}") for n in range(1, count + 1)]
    plain.update(made)
    choices = {k: plain.pop(k) for k in list(plain)
               if k in proc.choice_names or k in _RESERVED}
    return plain, choices


def _joined_files(arg: str, value: str) -> list[str]:
    """`heroes=@a.toml+@b.toml`: the files of a side of several fighters, in order."""
    parts = value.split("+")
    if not all(part.startswith("@") and len(part) > 1 for part in parts):
        raise RangeError(f"{arg}: a list of fighters is their files, each starting with @, "
                         "joined by + (heroes=@a.toml+@b.toml)")
    return [part[1:] for part in parts]


def _listed_field(arg: str, path: list[str], count: int) -> list[str]:
    """`heroes.2.dexterity=12` as the path of the party `heroes 2`, one of those given."""
    if len(path) < 3 or not path[1].isdigit() or not 1 <= int(path[1]) <= count:
        given = f"1 to {count}" if count else "none given yet"
        raise RangeError(f"{arg}: {path[0]} is a list of fighters (heroes=@a.toml+@b.toml); a "
                         f"field of one of them is {path[0]}.N.field=value, N counting from 1 "
                         f"({given})")
    return [f"{path[0]} {int(path[1])}", *path[2:]]


def _combatants(rb: Any, proc: Any, parties: dict[str, Party]) -> dict[str, Any]:
    """The parties made into combatants, once every value of every party has been checked
    (the fighters of a list as `heroes 1`, `heroes 2`, …)."""
    models = {p.name: _model(rb, p.type.text) for p in proc.params if p.type.kind == "combatant"}
    for p in proc.params:
        if p.type.kind == "list" and p.type.item is not None and p.type.item.kind == "combatant":
            models.update({name: _model(rb, p.type.item.text) for name in parties
                           if name.rsplit(" ", 1)[0] == p.name})
    unknown = [name for name in parties if name not in models]
    if unknown:
        raise RangeError(f"procedure {proc.name} has no combatant {', '.join(unknown)} "
                         f"(its combatants: {', '.join(models) or 'none'})")
    problems = [err for name, party in parties.items() if models[name] is not None
                for err in party.problems(models[name])]
    if problems:
        raise problems[0] if len(problems) == 1 else RulecraftErrors(problems)
    made = {}
    for name, party in parties.items():
        try:
            made[name] = models[name].build(**party.values)
        except RulecraftError as err:  # a figure worked out from the values: say whose
            err.message = f"{name}: {err.message}"
            raise
    return made


def _model(rb: Any, name: str) -> CombatantModel | None:
    """The combatant model a parameter's type names (a rider, a horse)."""
    models = getattr(rb, "combatant_models", None) or {}
    return models.get(name) or rb.combatant_model


__all__ = ["Party", "dice_list", "procedure_arguments", "read_sheet", "read_values",
           "value_of"]
