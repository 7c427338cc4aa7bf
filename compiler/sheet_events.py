"""Sheets, events on the clock in words: events, cancelling, raising, rules firing on events,
and the label of an action (compiler/sheet_steps.py asks here for these kinds of step)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import sheet_time
from .sheet_math import Piece, Rich, words

_NAME = r"[^\W\d]\w*"


def event_words(say: Any) -> dict[str, Callable[[str], Rich]]:
    """The sayings of each kind of step, for `_Words` (`say`: its math and plain writers)."""

    def event(text: str) -> Rich:
        found = re.match(rf"after\s+(.+?)\s+as\s+({_NAME})(?:\s+for\s+({_NAME}))?$", text)
        if found is None:
            return (Piece(text),)
        after, name, party = found.groups()
        part = f", part of the action {words(party)} has under way" if party else ""
        return (Piece(f"Event {words(name)}{part}: after "),
                *sheet_time.duration(after, say.math.text),  # `after 1 second as arrow`
                Piece(", with the values as they are now:"))

    def cancel(text: str) -> Rich:
        return (Piece(f"{words(text.split()[-1]).capitalize()} is cancelled (what is under way, "
                      "or every such event still to come)."),)

    def raised(text: str) -> Rich:
        found = re.match(rf'raise\s+"([^"]*)"\s+for\s+({_NAME})$', text)
        if found is None:
            return (Piece(text),)
        return (Piece(f"“{found[1]}” happens to {words(found[2])}."),)

    def trigger(text: str) -> Rich:
        found = re.match(rf"on\s+(.+?)\s+by\s+({_NAME})$", text)
        if found is None:
            return (Piece(text),)
        event, party = found.groups()
        who = words(party)
        if event == "entered":
            what = f"{who} enters a hex"
        elif event.startswith("changed "):
            what = f"{who}’s {words(event[8:])} changes"
        elif event.startswith("given "):
            what = f"{who} is given {event[6:]}"
        else:
            what = f"{event} happens to {who}"
        return (Piece(f"Whenever {what}, at once (out of turn):"),)

    return {"event": event, "cancel": cancel, "raise": raised, "trigger": trigger}


def without_label(text: str) -> tuple[str, Rich]:
    """`act f after T as "Walk" on lane move`: the step without its label, and the label in
    words."""
    found = re.match(rf'(.+?)\s+as\s+(.+?)(?:\s+on\s+lane\s+({_NAME}))?$', text)
    if found is None or not text.startswith("act "):
        return text, ()
    rest, label, lane = found.groups()
    on = f" on lane {words(lane)}" if lane else ""
    return rest, (Piece(f" (the action: {label.strip(chr(34))}{on})"),)


__all__ = ["event_words", "without_label"]
