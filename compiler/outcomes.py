"""Outcome schemas: which outcomes a procedure ends in and the values each carries.

A procedure's `outcomes:` block declares them (`all with …` for the values every outcome
carries); without one the schema is read off its `outcome` steps. Callers read an outcome
through its schema (`save == "made"`, `save.throw`), so caller and callee are checked to agree.
"""

from __future__ import annotations

import attrs

from rulecraft.dsl import syntax as s

from .types import T, join


@attrs.define
class Schema:
    """One procedure's outcomes: each name with its fields' types (filled in as steps are read)."""

    procedure: str
    declared: bool
    fields: dict[str, list[str]] = attrs.field(factory=dict)  # outcome -> field names, in order
    titles: dict[str, str | None] = attrs.field(factory=dict)
    types: dict[tuple[str, str], T] = attrs.field(factory=dict)  # (outcome, field) -> type
    spans: dict[str, s.Span] = attrs.field(factory=dict)

    @classmethod
    def declared_by(cls, decl: s.ProcedureDecl) -> Schema:
        schema = cls(decl.name, bool(decl.outcomes))
        shared = [f for spec in decl.outcomes if spec.name is None for f in spec.fields]
        for spec in decl.outcomes:
            if spec.name is not None:
                schema.fields[spec.name] = list(dict.fromkeys(shared + list(spec.fields)))
                schema.titles[spec.name] = spec.title
                schema.spans[spec.name] = spec.span
        return schema

    def record(self, outcome: str, field: str, t: T) -> None:
        """A value an `outcome` step gives: its type joins those given before."""
        old = self.types.get((outcome, field))
        self.types[(outcome, field)] = t if old is None else (join(old, t) or T("any"))

    def field_type(self, field: str) -> T | None:
        """The type of `.field` read from any outcome: none where an outcome lacks it."""
        found: T | None = None
        missing = False
        for outcome, names in self.fields.items():
            if field not in names:
                missing = True
                continue
            t = self.types.get((outcome, field), T("any"))
            found = t if found is None else (join(found, t) or T("any"))
        if found is None:
            return None
        return found.or_none() if missing else found

    def all_fields(self) -> list[str]:
        return list(dict.fromkeys(f for names in self.fields.values() for f in names))


__all__ = ["Schema"]
