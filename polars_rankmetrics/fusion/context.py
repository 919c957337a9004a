"""What a fusion method needs besides the long frame: the number of runs, weights, parameters.

Its own module, below :mod:`.methods` and the modules of the methods it lists
(:mod:`.condorcet`), so that they can all name it without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import polars as pl


@dataclass(frozen=True)
class Context:
    """What a method needs besides the frame: the number of runs, weights, parameters."""

    n_systems: int
    weights: tuple[float, ...] | None = None
    params: Mapping[str, float] = field(default_factory=dict)

    def weight(self) -> pl.Expr:
        """Each row's run weight (1 without weights), outside an aggregation."""
        if self.weights is None:
            return pl.lit(1.0)
        return pl.lit(pl.Series(self.weights, dtype=pl.Float64)).gather(pl.col("system"))
