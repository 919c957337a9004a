"""Reciprocal rank: one over the rank of the first relevant row."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._validate import IntoExpr, NoRelevant, Ties, check_k, optional
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ties import expected_reciprocal_rank


@statistic(exact_average=True, k=optional(check_k))
def reciprocal_rank_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int | None = None
) -> pl.Expr:
    """RR over a ranked list: 0 when no relevant row is retrieved (within ``k``)."""
    if ranked.ties == "average":
        expected = ranked.aggregate(expected_reciprocal_rank(ranked, k))
        return ranked.if_relevant(expected, no_relevant)
    hit = ranked.top_hit(k)
    found, first = ranked.aggregate(hit.any()), ranked.aggregate(hit.arg_max())
    value = pl.when(found).then(1.0 / (first + 1)).otherwise(0.0)
    return ranked.if_relevant(value, no_relevant)


def reciprocal_rank(
    relevance: IntoExpr,
    *,
    k: int | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Reciprocal rank: ``1 / rank`` of the first relevant row, 0 if none is retrieved.

    With ``k``, a first relevant row below rank ``k`` also gives 0 (RR@k, as in
    ranx's ``mrr@k``). Averaged over queries it is MRR (trec_eval's
    ``recip_rank``). A query with no relevant row at all is undefined; see
    ``no_relevant``.

    Parameters
    ----------
    relevance
    k
        An optional cutoff, a positive int.
    by, descending, threshold, ties
    no_relevant

    Examples
    --------
    >>> df = pl.DataFrame({"score": [4, 3, 2, 1], "relevance": [0, 0, 1, 1]})
    >>> df.select(
    ...     rr=rm.reciprocal_rank("relevance", by="score"),
    ...     rr_at_2=rm.reciprocal_rank("relevance", k=2, by="score"),
    ... )
    shape: (1, 2)
    ┌──────────┬─────────┐
    │ rr       ┆ rr_at_2 │
    │ ---      ┆ ---     │
    │ f64      ┆ f64     │
    ╞══════════╪═════════╡
    │ 0.333333 ┆ 0.0     │
    └──────────┴─────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(
        ranking, reciprocal_rank_statistic.bind("reciprocal_rank", no_relevant, k=k)
    )
