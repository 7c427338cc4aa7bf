"""A whole fight under two rulebooks side by side (`rulecraft compare BASE HOUSE ENCOUNTER …`):
how much a house rule moves each side's chance of winning, from a sweep of one axis, the
rulebook, whose two cells meet the same dice (rulecraft/fight_sweep.py)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import attrs

from rulecraft.runtime.results import jsonable
from rulecraft.runtime.sampling import Estimate
from rulecraft.runtime.values import display

from .fight_sweep import WINNER, Cell, FightSweep
from .heatmap import cell_text


@attrs.frozen
class FightComparison:
    """Each group (a side's winning, an outcome, a value) with its chance under each rulebook
    and the change; exact where the chain gave both, else estimates with their intervals."""

    encounter: str
    by: str
    base: str
    other: str
    rows: tuple[tuple[Any, Fraction | Estimate, Fraction | Estimate], ...]
    cells: tuple[Cell, Cell]
    seed: int

    @classmethod
    def from_sweep(cls, found: FightSweep) -> FightComparison:
        (_, (base, other)), = found.axes
        cells = (found.cells[(base,)], found.cells[(other,)])
        groups = found.groups()
        rows = tuple((g, cells[0].chance(g), cells[1].chance(g)) for g in groups)
        return cls(found.encounter, found.by, display(base), display(other), rows, cells,
                   found.seed)

    @staticmethod
    def change(before: Fraction | Estimate, after: Fraction | Estimate) -> Fraction | float:
        """Exact where both are, else the difference of the two shares."""
        if isinstance(before, Fraction) and isinstance(after, Fraction):
            return after - before
        return float(after) - float(before)

    @staticmethod
    def clear(before: Fraction | Estimate, after: Fraction | Estimate) -> bool:
        """Whether the change is more than the intervals allow by chance (no overlap)."""
        low = [x if isinstance(x, Fraction) else x.low for x in (before, after)]
        high = [x if isinstance(x, Fraction) else x.high for x in (before, after)]
        return high[0] < low[1] or high[1] < low[0]

    def text(self) -> str:
        label = "winner" if self.by == WINNER else self.by
        width = max(len(label), *(len(display(g)) for g, _, _ in self.rows))
        lines = [f"{self.encounter}: {self.base} → {self.other}",
                 f"{label:<{width}}  {'base':>14}  {'other':>14}  {'change':>9}"]
        for group, before, after in self.rows:
            change = self.change(before, after)
            note = "" if self.clear(before, after) or not change else "  (within the intervals)"
            lines.append(f"{display(group):<{width}}  {cell_text(before):>14}  "
                         f"{cell_text(after):>14}  {float(change) * 100:+8.2f}%{note}")
        sampled = [c.runs for c in self.cells if c.exact is None]
        if sampled:
            lines.append(f"sampled: {' and '.join(map(str, sampled))} fights, the same dice "
                         f"under both (seed {self.seed}); = exact, ± half the 95% interval")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        def shown(x: Fraction | Estimate) -> Any:
            return {"probability": str(x), "percent": float(x) * 100} if \
                isinstance(x, Fraction) else {"percent": float(x) * 100, "low": x.low * 100,
                                              "high": x.high * 100, "runs": x.samples}
        return {"encounter": self.encounter, "by": self.by, "base": self.base,
                "other": self.other, "seed": self.seed,
                "rows": [{self.by: jsonable(g), "base": shown(b), "other": shown(o),
                          "change_percent": float(c := self.change(b, o)) * 100,
                          "change": str(c) if isinstance(c, Fraction) else None,
                          "clear": self.clear(b, o)}
                         for g, b, o in self.rows]}


__all__ = ["FightComparison"]
