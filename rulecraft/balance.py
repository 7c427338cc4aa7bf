"""Odds laid out for reading: sampled estimates, and (balance.py's views) compare and sweep."""

from __future__ import annotations

from typing import Any

from rulecraft.runtime.results import jsonable
from rulecraft.runtime.sampling import Estimate
from rulecraft.runtime.values import display


def sampled_rows(rows: list[tuple[Any, Estimate]], by: str, as_json: bool
                 ) -> tuple[Any, bool, str]:
    """What `odds --samples` prints: each value, its share of the runs and the 95% interval."""
    data = [{by: jsonable(k), **e.as_json()} for k, e in rows]
    samples = rows[0][1].samples if rows else 0
    text = "\n".join(f"{display(k) or '(none)':<24} {e.count:>9}/{e.samples:<9} "
                     f"{float(e) * 100:6.2f}%  (95%: {e.low * 100:.2f}–{e.high * 100:.2f}%)"
                     for k, e in rows)
    text += f"\nestimated from {samples} seeded runs; exact odds: leave out --samples"
    return data, as_json, text
