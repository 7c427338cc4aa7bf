"""`rulecraft show` as text: the data of `rulecraft.show` laid out for a person to read."""

from __future__ import annotations

from typing import Any

from rulecraft.runtime.values import display

WIDTH = 100  # long lists of options or fields wrap here, under their first item


def overview_text(data: dict[str, Any]) -> str:
    """Everything a rulebook holds, a line or a few for each."""
    out = [f"{data['title']} ({data['rulebook']}, {data['file']})"]
    if data.get("calendar"):  # days across fights (issue 15)
        cal = data["calendar"]
        units = ", ".join(f"{k} = {v} {cal['name']}" for k, v in cal["units"].items())
        out += ["", f"calendar {cal['name']}" + (f": {units}" if units else "")]
    if data["tables"]:
        out += ["", "tables:"] + [f"  {_table_line(t)}" for t in data["tables"]]
    if data["formulas"]:
        out += ["", "formulas:"] + [f"  {_signature(f)}{_title(f, '  ')}"
                                    for f in data["formulas"]]
    if data["procedures"]:
        out += ["", "procedures:"]
        for p in data["procedures"]:
            out += [f"  {_signature(p)}{_title(p, '  ')}"] + _procedure_lines(p, "    ")
    for model in data["combatants"]:
        out += [""] + _combatant_lines(model)
    if data["enums"]:
        out += ["", "enums:"] + [f"  {e['name']}: {', '.join(e['members'])}"
                                 for e in data["enums"]]
    if data.get("standing"):
        out += ["", "standing constraints:"] + [
            f"  while {c['condition']}, {c['choice']} may {c['mode']} be {c['options']}"
            f" (line {c['line']})" for c in data["standing"]]
    if data.get("rulings"):
        out += ["", "the referee's calls:"] + [
            f"  {r['procedure']}, line {r['line']}: {r['text']}"
            + (" (ends the procedure)" if r["ends"] else "") for r in data["rulings"]]
    for policy in data.get("policies", ()):
        out += ["", f"policy {policy['name']}{_title(policy)} (--policy {policy['name']}) "
                    "answers:"]
        out += [f"  {a['choice']} = {a['text']}" for a in policy["answers"]]
    if data.get("patterns"):
        out += ["", "patterns (hexes seen from the own hex, facing ahead):"]
        for p in data["patterns"]:
            out += _pattern_lines(p, "  ")
    if data.get("units"):
        out += ["", "units of distance:"] + [f"  {u['name']}{_title(u)}: {u['per_hex']} per hex"
                                             for u in data["units"]]
    return "\n".join(out)


def _pattern_lines(p: dict[str, Any], pad: str) -> list[str]:
    by = f" by {', '.join(p['keys'])}" if p["keys"] else ""
    out = [f"{pad}{p['name']}{_title(p)}{by}:"]
    for row in p["rows"]:
        keys = " / ".join(map(str, row["keys"]))  # a die's result (`by roll: 1..10`) too
        out.append(f"{pad}  {keys + ': ' if keys else ''}{row['words']}")
    return out


def entry_text(data: dict[str, Any], filename: str) -> str:
    """One entry in full, ending with the numbered lines it is written on."""
    kind = data["kind"]
    where = f"{filename}:{data['line']}" if data.get("line") else filename
    out = [f"{kind} {data['name']}{_title(data)} ({where})"]
    out += [f"  # {c}" for c in data["comments"]]
    if kind == "table":
        out += ["", _table_line(data), ""] + _grid(data["header"], data["rows"])
    elif kind == "formula":
        out += ["", f"  {_signature(data)}", f"    = {data['body']}"]
        out += [f"    {'where' if i == 0 else '     '} {w['name']} = {w['value']}"
                for i, w in enumerate(data.get("where", ()))]
    elif kind == "procedure":
        out += ["", f"  {_signature(data)}"] + _procedure_lines(data, "    ", typed=True)
    elif kind == "enum":
        out += ["", "  " + ", ".join(data["members"])]
    elif kind == "pattern":
        out += [""] + _pattern_lines(data, "  ")[1:] + \
            ["", "  as offsets (q, r) for facing 0: " + "; ".join(
                f"{' / '.join(map(str, r['keys'])) or 'all'}: " + ", ".join(f"({q}, {r_})"
                                                               for q, r_ in r["hexes"])
                for r in data["rows"])]
        out += ["", "  as drawn (▶ the fighter, facing 0; ● its hexes; ◆ its own hex among them):"]
        for row in data["rows"]:
            out += ["", f"  {' / '.join(map(str, row['keys'])) or data['name']}:"] + \
                [f"    {line}" for line in row["picture"]]
    elif kind == "policy":
        out += ["", f"  chosen with --policy {data['name']}; it answers:"]
        out += [f"    {a['choice']} = {a['text']}" for a in data["answers"]]
    else:
        out += _combatant_lines(data)[1:]
    width = len(str(data["rule"][-1]["line"])) if data["rule"] else 1
    out += ["", "as written:"] + [f"  {r['line']:>{width}} | {r['text']}" for r in data["rule"]]
    return "\n".join(out)


def _quoted(title: str | None) -> str:
    return f'"{title}"' if title else ""


def _title(item: dict[str, Any], space: str = " ") -> str:
    """An item's printed title after `space`; nothing when it has none but its name."""
    return f"{space}{_quoted(item['title'])}" if item["title"] not in (None, item["name"]) else ""


def _table_line(t: dict[str, Any]) -> str:
    keys = ", ".join(k["name"] if k["name"] == k["type"] else f"{k['name']}: {k['type']}"
                     for k in t["keys"])
    return f"{t['name']}{_title(t)} by {keys} -> {', '.join(t['columns'])}"


def _signature(item: dict[str, Any]) -> str:
    params = ", ".join(f"{p['name']}: {p['type']}"
                       + (f" = {_value(p['default'])}" if p["optional"] and p["type"] != "dice"
                          else f" = {p['default']}" if p["optional"] else "")
                       for p in item["params"])
    return f"{item['name']}({params})"


def _value(value: Any) -> str:
    """A default as a rule writes it: `"Willpower"`, `0`, `true`, `none`."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return display(value)


def _procedure_lines(p: dict[str, Any], pad: str, typed: bool = False) -> list[str]:
    out = []
    if "clock" in p:  # an encounter's clock and its units: `clock counts: minute = 240 counts`
        clock = p["clock"]
        units = ", ".join(f"{k} = {v} {clock['name']}" for k, v in clock["units"].items())
        out.append(f"{pad}clock {clock['name']}" + (f": {units}" if units else ""))
    if len(p.get("sides", ())) > 1:  # an encounter's sides
        out.append(f"{pad}sides: " + " against ".join(
            f"{s['name']}" if " and ".join(s["fighters"]) == s["name"] else
            f"{s['name']} ({', '.join(s['fighters'])})" for s in p["sides"]))
    for c in p["choices"]:
        options = [c["options"]] if isinstance(c["options"], str) else \
            [display(o) for o in c["options"] or []]
        tail = f" (default {display(c['default'])})" if c["default"] is not None else ""
        if c["procedure"] not in (None, p["name"]):
            tail += f", in {c['procedure']}"
        by = f" by {c['by']}" if c["by"] else ""
        out += _packed(f"{pad}choose {c['name']}{by}: ", options, " | ", tail)
    for e in p.get("events", ()):  # events on the clock, triggers, events raised
        out.append(f"{pad}{e['text']} (line {e['line']})")
    for o in p["outcomes"]:
        fields = [f["name"] + (f": {f['type']}" if typed and f["type"] else "")
                  for f in o["fields"]]
        title = f" {_quoted(o['title'])}" if o["title"] else ""
        out += _packed(f"{pad}outcome {o['name']}{title}" + (": " if fields else ""), fields,
                       ", ", "")
    return out


def _packed(head: str, items: list[str], sep: str, tail: str) -> list[str]:
    """`head`, the items joined by `sep` and `tail`, in lines of about WIDTH; an item is never
    split and a continuation starts under the first item."""
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + (sep.rstrip() if i < len(items) - 1 else tail)
        if line != head and len(line) + len(piece) > WIDTH:
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece + (" " if i < len(items) - 1 else "")
    return lines + [line.rstrip() if items else head.rstrip(": ") + tail]


def _combatant_lines(c: dict[str, Any]) -> list[str]:
    out = [f"combatant {c['name']}{_title(c)}:"]
    out += [f"  {f['name']}: {f['type']}" for f in c["characteristics"]]
    for f in c["state"]:
        default = f" = {_value(f['default'])}" if f["default"] not in (None, {}, []) else ""
        if f["type"] == "hex" and isinstance(f["default"], list):  # given as [q, r]
            default = f" = hex({f['default'][0]}, {f['default'][1]})"
        combined = f" combined by {f['combined_by']}" if f["combined_by"] else ""
        out.append(f"  state {f['name']}: {f['type']}{default}{combined}")
    out += [f"  derived {f['name']}{': ' + f['type'] if f['type'] else ''} = {f['formula']}"
            for f in c["derived"]]
    return out


def _grid(header: list[str], rows: list[dict[str, Any]]) -> list[str]:
    """A table as the rule file draws it: bars between aligned columns."""
    lines = [header] + [row["keys"] + row["cells"] for row in rows]
    count = max(map(len, lines))
    widths = [max(len(r[i]) for r in lines if i < len(r)) for i in range(count)]
    return ["  | " + " | ".join(cell.ljust(w) for cell, w in zip(r + [""] * count, widths))
            + " |" for r in lines]


__all__ = ["entry_text", "overview_text"]
