"""Heat maps of a sweep of fights: text for a terminal (a shade and the chance in each cell) and
one self-contained HTML file (inline style, no scripts, nothing fetched) for a browser."""

from __future__ import annotations

import html
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rulecraft.runtime.sampling import Estimate
from rulecraft.runtime.values import display

if TYPE_CHECKING:
    from .fight_sweep import FightSweep

SHADES = " ░▒▓█"
LEGEND = ("= exact; ± half the 95% interval of the fights sampled "
          "(each sampled cell played until its intervals were narrower than {precision:g})")


def cell_text(found: Fraction | Estimate) -> str:
    """A cell's chance: `48.21% =` worked out exactly, `48.2% ±2.3` sampled."""
    if isinstance(found, Fraction):
        return f"{float(found) * 100:.2f}% ="
    half = (found.high - found.low) * 50
    return f"{float(found) * 100:.1f}% ±{half:.1f}"


def _shade(found: Fraction | Estimate) -> str:
    return SHADES[round(float(found) * (len(SHADES) - 1))]


def _labels(sweep: FightSweep, point: tuple[Any, ...]) -> str:
    return ", ".join(f"{name}={display(v)}" for (name, _), v in zip(sweep.axes, point))


def text_map(sweep: FightSweep) -> str:
    """Two axes: a grid, rows down and columns across; one or more than two: a line a point."""
    lines = [sweep.title(), LEGEND.format(precision=sweep.precision)]
    if len(sweep.axes) == 2:
        (rows_name, rows), (columns_name, columns) = sweep.axes
        head = max(len(rows_name) + 2, *(len(display(r)) for r in rows))
        width = max(15, *(len(display(c)) + 2 for c in columns))
        lines.append(f"{rows_name} ↓  {columns_name} →")
        lines.append(" " * head + "".join(f"{display(c):>{width}}" for c in columns))
        for r in rows:
            cells = [sweep.chance((r, c)) for c in columns]
            lines.append(f"{display(r):<{head}}" + "".join(
                f"{_shade(f)} {cell_text(f)}".rjust(width) for f in cells))
    else:
        where = {point: _labels(sweep, point) for point in sweep.cells}
        width = max(len(w) for w in where.values())
        for point, label in where.items():
            found = sweep.chance(point)
            bar = "█" * round(float(found) * 24)
            lines.append(f"{label:<{width}}  {bar:<24} {cell_text(found)}")
    sampled = [c.runs for c in sweep.cells.values() if c.exact is None]
    exact = len(sweep.cells) - len(sampled)
    lines.append(f"{exact} cell{'s' * (exact != 1)} exact, {len(sampled)} sampled"
                 + (f" ({sum(sampled)} fights, seed {sweep.seed})" if sampled else ""))
    return "\n".join(lines)


def _colour(p: float) -> str:
    """Red (0) through white (one half) to blue (1): who the grid favours, at a glance."""
    if p < 0.5:
        t = p / 0.5
        rgb = (214 + (255 - 214) * t, 64 + (255 - 64) * t, 69 + (255 - 69) * t)
    else:
        t = (p - 0.5) / 0.5
        rgb = (255 - (255 - 33) * t, 255 - (255 - 102) * t, 255 - (255 - 172) * t)
    return "#%02x%02x%02x" % tuple(round(c) for c in rgb)


def _td(found: Fraction | Estimate, title: str) -> str:
    p = float(found)
    ink = "#fff" if abs(p - 0.5) > 0.35 else "#111"
    return (f'<td style="background:{_colour(p)};color:{ink}" title="{html.escape(title)}">'
            f"{html.escape(cell_text(found))}</td>")


def html_map(sweep: FightSweep) -> str:
    """The grid as one HTML page: each cell coloured by its chance, its figure and (on
    hover) how it was found."""
    def how(point: tuple[Any, ...]) -> str:
        cell = sweep.cells[point]
        where = _labels(sweep, point)
        return f"{where}: exact" if cell.exact is not None else \
            f"{where}: sampled from {cell.runs} fights ({cell.why_sampled})"

    esc = html.escape
    if len(sweep.axes) == 2:
        (rows_name, rows), (columns_name, columns) = sweep.axes
        head = (f"<tr><th>{esc(rows_name)} ↓ {esc(columns_name)} →</th>"
                + "".join(f"<th>{esc(display(c))}</th>" for c in columns) + "</tr>")
        body = "".join(f"<tr><th>{esc(display(r))}</th>"
                       + "".join(_td(sweep.chance((r, c)), how((r, c))) for c in columns)
                       + "</tr>" for r in rows)
    else:
        head = ("<tr>" + "".join(f"<th>{esc(name)}</th>" for name, _ in sweep.axes)
                + "<th>chance</th></tr>")
        body = "".join("<tr>" + "".join(f"<th>{esc(display(v))}</th>" for v in point)
                       + _td(sweep.chance(point), how(point)) + "</tr>" for point in sweep.cells)
    legend = esc(LEGEND.format(precision=sweep.precision))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(sweep.title())}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #111; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 1px solid #ccc; padding: .4em .7em; text-align: right;
  font-variant-numeric: tabular-nums; white-space: nowrap; }}
th {{ background: #f4f4f4; }}
</style></head><body>
<h1>{esc(sweep.title())}</h1>
<table>{head}{body}</table>
<p>{legend}. Seed {sweep.seed}. Red: rarely; white: half the time; blue: nearly always.</p>
</body></html>
"""


__all__ = ["cell_text", "html_map", "text_map"]
