"""CondorcetFuse (Montague and Aslam, CIKM 2002): a majority vote between every two documents.

Document ``x`` beats ``y`` when the (weighted) runs that rank ``x`` strictly
above ``y`` weigh at least as much as the others, a run that retrieved neither
voting for ``y``, a run that retrieved only one of them voting for it (ranx's
comparison). Documents are ordered by their number of wins (ties: document id
descending) and scored ``n_candidates - position``, so the best gets
``n_candidates``. Where the majority relation is a strict total order (no
cycles, no tied votes) this is the unique order any comparison sort gives, and
the order ranx gives; ranx sorts with that comparison even when it is not a
total order, and its result then depends on its candidates' set order (the
Python hash seed). This costs one comparison per pair of candidates of a query
(quadratic in the depth).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from polars_rankmetrics.fusion.context import Context

_ABSENT = 1_000_000  # ranx's position of a document a run did not retrieve


def condorcet(frame: pl.LazyFrame, context: Context) -> pl.LazyFrame:
    """Fuse by pairwise majority; ``frame`` has ``system, query, doc, rank``."""
    weights = list(context.weights or [1.0] * context.n_systems)
    positions = frame.group_by("query", "doc").agg(
        pl.col("rank").filter(pl.col("system") == i).first().alias(f"p{i}")
        for i in range(context.n_systems)
    )
    positions = positions.with_columns(
        pl.col(f"p{i}").fill_null(_ABSENT) for i in range(context.n_systems)
    )
    pairs = positions.join(positions, on="query", suffix="_y").filter(
        pl.col("doc") != pl.col("doc_y")
    )
    votes_x = pl.sum_horizontal(
        pl.when(pl.col(f"p{i}") < pl.col(f"p{i}_y")).then(w).otherwise(0.0)
        for i, w in enumerate(weights)
    )
    total = sum(weights)
    wins = (
        pairs.group_by("query", "doc")
        .agg(wins=(votes_x >= total - votes_x).sum())
        .join(positions.select("query", "doc"), on=["query", "doc"], how="right")
        .with_columns(pl.col("wins").fill_null(0))
    )
    place = pl.struct("wins", "doc").rank("ordinal", descending=True).over("query")
    return wins.select("query", "doc", score=(pl.len().over("query") - place + 1).cast(pl.Float64))
