"""What a fusion method needs besides the long frame: the number of runs, weights, parameters.

Its own module, below :mod:`.methods` and the modules of the methods it lists
(:mod:`.condorcet`), so that they can all name it without importing each other.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field

import polars as pl


@dataclass(frozen=True)
class Context:
    """What a method needs besides the frame: the number of runs, weights, parameters."""

    n_systems: int
    weights: tuple[float, ...] | None = None
    params: Mapping[str, float] = field(default_factory=dict)
    flag_duplicates: bool = False
    """Add ``_duplicate`` to the group-by (a run holds the document twice): the check of
    duplicate rows done inside the fusion, instead of a pass of its own over every run."""

    def duplicate(self) -> pl.Expr:
        """Whether a run holds the document twice, as an aggregation over its ``(query, doc)``.

        With up to 64 runs, each row sets its run's bit: the document has a duplicate
        row exactly when it has more rows than bits set (an OR and a popcount, several
        times cheaper in a group-by than ``system.n_unique()``, used beyond 64 runs).
        """
        if self.n_systems > 64:
            return pl.len() > pl.col("system").n_unique()
        bit = pl.lit(2, pl.UInt64).pow(pl.col("system"))
        return pl.len() > bit.bitwise_or().bitwise_count_ones()

    def sum(self, term: pl.Expr) -> pl.Expr:
        """``term`` summed over a document's runs in run order, as an aggregation.

        A float sum depends on the order of its terms, and polars' streaming
        group-by adds a group's rows in an order that varies with the threads
        (partial sums per thread, merged), which the rounding of :func:`.fuse.finish`
        does not always hide (a sum on a rounding boundary). With three runs or
        more, each run's term is summed alone (one term per document, plus zeros:
        exact in any order; runs 0 and 1 together, as two terms add up the same in
        either order), then these sums are added left to right: the sum of a
        document's terms in run order, at any thread count. With one or two runs,
        any order gives that sum (``a + b == b + a``).
        """
        if self.n_systems <= 2:
            return term.sum()
        system = pl.col("system")
        # Runs 0 and 1 share one sum: two terms add up the same in either order.
        sums = [pl.when(system <= 1).then(term).otherwise(0.0).sum()] + [
            pl.when(system == index).then(term).otherwise(0.0).sum()
            for index in range(2, self.n_systems)
        ]
        # ((s0 + s1) + s2) + ...: pl.sum_horizontal does not add strictly left to right.
        return functools.reduce(operator.add, sums)

    def weight(self) -> pl.Expr:
        """Each row's run weight (1 without weights), outside an aggregation."""
        if self.weights is None:
            return pl.lit(1.0)
        return pl.lit(pl.Series(self.weights, dtype=pl.Float64)).gather(pl.col("system"))
