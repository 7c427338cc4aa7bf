"""Odds estimated by sampling: seeded runs counted, each share with a confidence interval.

For a procedure whose exact odds are too large to work out (`odds_states`), or a quick look:
`Procedure.sample(100_000, seed=1)` plays it that many times from one seeded dice source,
without building a trace, and says for each outcome how often it came up, with the 95% Wilson
score interval around that share.
"""

from __future__ import annotations

import math
from fractions import Fraction

import attrs

Z_95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@attrs.frozen(order=True)
class Estimate:
    """How often an outcome came up in `samples` seeded runs, and the 95% interval (Wilson
    score) its probability lies in: `low <= probability <= high` at 95% confidence."""

    count: int
    samples: int

    @property
    def probability(self) -> Fraction:
        """The share of the runs, exactly."""
        return Fraction(self.count, self.samples)

    @property
    def low(self) -> float:
        return self._interval()[0]

    @property
    def high(self) -> float:
        return self._interval()[1]

    def _interval(self) -> tuple[float, float]:
        n, z = self.samples, Z_95
        share = self.count / n
        middle = (share + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, middle - half), min(1.0, middle + half)

    def __float__(self) -> float:
        return self.count / self.samples

    def __str__(self) -> str:
        return f"{float(self):.4f} (95%: {self.low:.4f}–{self.high:.4f})"

    def as_json(self) -> dict[str, object]:
        return {"count": self.count, "samples": self.samples,
                "probability": str(self.probability), "low": self.low, "high": self.high}


__all__ = ["Estimate"]
