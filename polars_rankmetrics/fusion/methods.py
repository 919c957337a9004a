"""The untrained fusion methods: ranx's names, each a group-by over ``(query, doc)``.

Every method takes the long frame ``system, query, doc, score`` (scores already
normalised; ``rank``, a document's 1-based rank in its run, where the method
needs it) and returns ``query, doc, score``: one row per document retrieved by
at least one run. ``n`` below is the number of runs that retrieved the document,
``N`` the number of runs, ``w_i`` run ``i``'s weight, ``r_i`` the document's
rank in run ``i`` and ``s_i`` its (normalised) score there.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_rankmetrics.fusion.context import Context
from polars_rankmetrics.fusion.rank_weights import (
    borda_points,
    borda_points_unretrieved,
    isr_weight,
    rbc_weight,
    rrf_weight,
)

Combine = Callable[[pl.LazyFrame, Context], pl.LazyFrame]

N_RETRIEVED = pl.len().cast(pl.Float64)


# Floating-point sums depend on the order of their terms, and polars' streaming
# group-by adds a group's rows in an order that depends on the threads. Every sum
# over a document's runs is Context.sum: its terms added in run order, whatever
# the thread count, so that equal fused scores stay equal (then ordered by
# document id) and every fused score is the same at any thread count.
S = pl.col("score")
W = pl.col("weight")  # added by _by_doc for the weighted methods


def _by_doc(expr: Callable[[Context], pl.Expr]) -> Combine:
    def combine(frame: pl.LazyFrame, context: Context) -> pl.LazyFrame:
        if context.weights is not None:
            frame = frame.with_columns(weight=context.weight())
        aggregates = {"score": expr(context)}
        if context.flag_duplicates:  # one run holds the document twice
            aggregates["_duplicate"] = context.duplicate()
        return frame.group_by("query", "doc").agg(**aggregates)

    return combine


def _missing_pad(context: Context, aggregate: pl.Expr, pad: float, keep: str) -> pl.Expr:
    """min/max with ranx's stand-in score (1e9 / -1e9) for the runs that missed the document."""
    padded = (
        pl.min_horizontal(aggregate, pad) if keep == "min" else pl.max_horizontal(aggregate, pad)
    )
    return pl.when(pl.len() < context.n_systems).then(padded).otherwise(aggregate)


def _weighted_borda(frame: pl.LazyFrame, context: Context) -> pl.LazyFrame:
    """Σ_i w_i·points_i, a run's unretrieved candidates sharing its leftover points."""
    candidates = frame.group_by("query").agg(n_candidates=pl.col("doc").n_unique())
    per_run = frame.group_by("system", "query").agg(n_retrieved=pl.len())
    weights = pl.DataFrame(
        {
            "system": pl.Series(range(context.n_systems), dtype=pl.UInt32),
            "w": list(context.weights or [1.0] * context.n_systems),
        }
    ).lazy()
    # Every run's unretrieved points for each query (a run without the query: all candidates).
    base = (
        weights.join(candidates, how="cross", maintain_order="left_right")
        .join(per_run, on=["system", "query"], how="left", maintain_order="left")
        .with_columns(pl.col("n_retrieved").fill_null(0))
        .with_columns(unranked=borda_points_unretrieved())
    )
    baseline = base.group_by("query").agg(baseline=(pl.col("w") * pl.col("unranked")).sum())
    scored = frame.join(base, on=["system", "query"], maintain_order="left").with_columns(
        gain=pl.col("w") * (borda_points() - pl.col("unranked"))
    )
    return (
        scored.group_by("query", "doc")
        .agg(gain=context.sum(pl.col("gain")))
        .join(baseline, on="query")
        .select("query", "doc", score=pl.col("baseline") + pl.col("gain"))
    )


def _condorcet(frame: pl.LazyFrame, context: Context) -> pl.LazyFrame:
    from polars_rankmetrics.fusion.condorcet import condorcet

    return condorcet(frame, context)


METHODS: dict[str, Combine] = {
    # score-based (Fox and Shaw, TREC 1993; Lee, SIGIR 1997)
    "min": _by_doc(lambda c: _missing_pad(c, S.min(), 1e9, "min")),
    "max": _by_doc(lambda c: _missing_pad(c, S.max(), -1e9, "max")),
    "med": _by_doc(lambda c: S.median()),
    "sum": _by_doc(lambda c: c.sum(S)),
    "anz": _by_doc(lambda c: c.sum(S) / N_RETRIEVED),
    "mnz": _by_doc(lambda c: c.sum(S) * N_RETRIEVED),
    "gmnz": _by_doc(lambda c: c.sum(S) * N_RETRIEVED.pow(c.params["gamma"])),
    "wsum": _by_doc(lambda c: c.sum(S * W)),
    "wmnz": _by_doc(lambda c: c.sum(S) * c.sum(W)),
    "mixed": _by_doc(lambda c: c.sum(S * W) * N_RETRIEVED.sqrt()),
    # rank-based
    "isr": _by_doc(lambda c: c.sum(isr_weight()) * N_RETRIEVED),
    "log_isr": _by_doc(lambda c: c.sum(isr_weight()) * N_RETRIEVED.log()),
    "logn_isr": _by_doc(lambda c: c.sum(isr_weight()) * (N_RETRIEVED + c.params["sigma"]).log()),
    "rrf": _by_doc(lambda c: c.sum(rrf_weight(k=c.params["k"]))),
    "rbc": _by_doc(lambda c: c.sum(rbc_weight(phi=c.params["phi"]))),
    "bordafuse": _weighted_borda,
    "w_bordafuse": _weighted_borda,
    "condorcet": _condorcet,
    "w_condorcet": _condorcet,
}
"""Method name -> its combination over the normalised long frame."""

BY_DOC = frozenset(set(METHODS) - {"bordafuse", "w_bordafuse", "condorcet", "w_condorcet"})
"""The methods that are one group-by over ``(query, doc)`` of the long frame."""
