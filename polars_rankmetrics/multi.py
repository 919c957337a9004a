"""Many metrics from one ranking: :func:`metrics`."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._ranking import IntoExpr, NoRelevant, Ranked, Ranking, check_choice
from polars_rankmetrics._shared import aggregate_shared
from polars_rankmetrics.measures import parse_measure


def metrics(
    relevance: IntoExpr,
    measures: Sequence[str],
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
) -> pl.Expr:
    """
    Several measures from a single sort per group, as a struct with one field each.

    Each group is ranked once and every measure is read from that ranking, so
    ten measures cost little more than one. Names follow trec_eval (``map``,
    ``P_10``, ``ndcg_cut_10``, ...) or ir_measures (``AP``, ``P@10``,
    ``nDCG@10``, ...); see :mod:`polars_rankmetrics.measures` for the table and
    where the names differ from the functions' defaults (``AP@10`` divides by R).

    Parameters
    ----------
    relevance
        Relevance labels; see :func:`polars_rankmetrics.precision_at_k`.
    measures
        Measure names; each becomes a Float64 field of that name.
    by
        The score and tie-breakers; see :func:`polars_rankmetrics.precision_at_k`.
    descending
        Sort direction; see :func:`polars_rankmetrics.precision_at_k`.
    threshold
        Labels above this value are relevant.
    no_relevant : {'null', 'zero'}
        The value of undefined measures for a query with no relevant row.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankmetrics as rm
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": ["a", "a", "a", "b", "b"],
    ...         "score": [0.9, 0.8, 0.1, 0.7, 0.6],
    ...         "relevance": [0, 1, 1, 1, 0],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(
    ...     rm.metrics("relevance", ["AP", "P@2", "RR"], by="score").alias("m")
    ... ).unnest("m")
    shape: (2, 4)
    ┌───────┬──────────┬─────┬─────┐
    │ query ┆ AP       ┆ P@2 ┆ RR  │
    │ ---   ┆ ---      ┆ --- ┆ --- │
    │ str   ┆ f64      ┆ f64 ┆ f64 │
    ╞═══════╪══════════╪═════╪═════╡
    │ a     ┆ 0.583333 ┆ 0.5 ┆ 0.5 │
    │ b     ┆ 1.0      ┆ 0.5 ┆ 1.0 │
    └───────┴──────────┴─────┴─────┘
    """
    if isinstance(measures, str) or not measures:
        msg = f"`measures` must be a non-empty list of measure names, got {measures!r}"
        raise ValueError(msg)
    if len(set(measures)) != len(measures):
        msg = f"`measures` has duplicate names: {list(measures)!r}"
        raise ValueError(msg)
    check_choice(no_relevant, "no_relevant", NoRelevant)
    parsed = [parse_measure(name) for name in measures]
    ranking = Ranking.build(relevance, by, descending, threshold)

    def statistic(ranked: Ranked) -> pl.Expr:
        return pl.struct(
            [m.statistic(ranked, no_relevant).cast(pl.Float64).alias(m.name) for m in parsed]
        )

    return aggregate_shared(ranking, statistic)
