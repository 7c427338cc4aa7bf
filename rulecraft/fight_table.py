"""`rulecraft odds` on an encounter: a whole fight's exact odds as decimals (fractions with
--exact), with how many states of the fight were visited to work them out."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .runtime.values import display


def decimal(p: Fraction) -> str:
    """A probability as a decimal: six places, or three figures for one smaller than that."""
    if p == 0 or p >= Fraction(1, 10**6):
        return f"{float(p):.6f}"
    return f"{float(p):.3g}"


def fight_odds_text(by: str, rows: list[tuple[Any, Fraction]], data: list[dict[str, Any]],
                    states: int | None, exact: bool) -> tuple[dict[str, Any], str]:
    """The JSON (each row's fraction and decimal; the states visited) and the text."""
    for row, (_, p) in zip(data, rows):
        row["decimal"] = float(p)
    shown = [(display(k) or "(none)", str(p) if exact else decimal(p), float(p * 100))
             for k, p in rows]
    width = max([12] + [len(s) for _, s, _ in shown])
    lines = [f"{name:<24} {figure:>{width}}  {percent:6.2f}%" for name, figure, percent in shown]
    if states is None:  # a fight whose states cannot be keyed: its paths were walked
        lines.append("exact odds, every path of the dice walked")
    else:
        lines.append(f"exact odds, {states:,} state{'s' if states != 1 else ''} of the fight "
                     "visited" + ("" if exact else " (--exact prints fractions)"))
    note = winner_note(by, [k for k, _ in rows])
    if note:
        lines.append(note)
    return {"odds": data, "states_visited": states, "exact": True}, "\n".join(lines)


def winner_note(by: str, keys: list[Any]) -> str:
    """What "(none)" means in odds by winner: no side left standing alone (a draw), and, when
    it is every ending, that this encounter stops nobody (its outcomes name the winner)."""
    if by != "winner" or None not in keys:
        return ""
    if keys == [None]:
        return ("(none): no fighter is stopped in any ending, so no side is ever left standing "
                "alone; the encounter's outcomes may say who won (--by outcome)")
    return "(none): a draw — no side, or more than one, left standing alone"


__all__ = ["decimal", "fight_odds_text", "winner_note"]
