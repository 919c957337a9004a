"""Cutoff metrics: precision, recall, F-beta, hit rate and hits at k, R-precision.

Also trec_eval's ``relative_P`` (hits in the top k over min(k, R)) and
``Rprec_mult`` (precision at a multiple of R).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._validate import (
    MAX_LIST,
    IntoExpr,
    NoRelevant,
    Ties,
    check_k,
    check_number,
    check_positive,
)
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ties import expected_hit, expected_hit_rate


def _hits(ranked: Ranked, k: int) -> pl.Expr:
    """Count the relevant retrieved rows in the top ``k`` (expected, for tied scores)."""
    return ranked.aggregate(expected_hit(ranked, k).sum())


@statistic(exact_average=True, top_k="k", k=check_k)
def precision_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """P@k over a ranked list: the hits divided by k (a true division, as trec_eval's)."""
    return ranked.divide(_hits(ranked, k), k)


@statistic(exact_average=True, top_k="k", k=check_k)
def recall_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """R@k over a ranked list."""
    return ranked.if_relevant(_hits(ranked, k) / ranked.n_relevant, no_relevant)


@statistic(exact_average=True, top_k="k", k=check_k, beta=check_positive)
def f_beta_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int, beta: float) -> pl.Expr:
    """F-beta@k over a ranked list: 0 when there is no hit."""
    hits = _hits(ranked, k)
    # With h hits, P = h/k and R = h/R, so F = (1 + b²)·h / (b²·R + k).
    weight = beta * beta
    if weight <= 1e200:
        value = (1.0 + weight) * hits / (weight * ranked.n_relevant + k)
    else:  # (1 + b²)·h would overflow: the same over b², which tends to recall
        inverse = 1.0 / weight
        value = (1.0 + inverse) * hits / (ranked.n_relevant + k * inverse)
    return ranked.if_relevant(value, no_relevant)


@statistic(exact_average=True, top_k="k", k=check_k)
def hit_rate_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """1.0 if a relevant row is in the top ``k``, else 0.0 (a probability, for tied scores)."""
    if ranked.ties == "average":
        return ranked.aggregate(expected_hit_rate(ranked, k))
    return (_hits(ranked, k) > 0).cast(pl.Float64)


@statistic(exact_average=True, top_k="k", k=check_k)
def hits_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """The number of relevant retrieved rows in the top ``k`` (expected, for tied scores)."""
    return _hits(ranked, k).cast(pl.Float64)


@statistic(exact_average=True)
def r_precision_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Precision at rank R over a ranked list."""
    # The cutoff R is read inside the aggregate, so as a plain sum, not an aggregate.
    hits = ranked.aggregate(expected_hit(ranked, ranked.relevant.sum()).sum())
    value = hits / ranked.n_relevant
    return ranked.if_relevant(value, no_relevant)


def _safe_ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator``, or 0 where the denominator is 0."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)


@statistic(k=check_k)
def relative_precision_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """Relevant rows in the top k over min(k, R) (trec_eval's ``relative_P``)."""
    smaller = pl.min_horizontal(pl.lit(float(k)), ranked.n_relevant.cast(pl.Float64))
    # An aggregate, as P@k's hits: staged, and shared with P@k at the same k.
    hits = ranked.aggregate(ranked.top_hit(k).sum())
    return ranked.if_relevant(hits / smaller, no_relevant)


def _multiple(value: object, name: str) -> float:
    """Any real number: a multiple whose rank is not a positive whole number gives 0."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return check_number(value, name)
    return float(value)


_LONG_RANGE = 2.0**63
"""trec_eval truncates the rank to a C ``long``; outside its range (or NaN) it matches nothing."""


@statistic(multiple=_multiple)
def r_precision_multiple_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, multiple: float
) -> pl.Expr:
    """Precision at rank ``c = trunc(multiple·R + 0.9)``, 0 when c < 1 (``Rprec_mult``).

    As in trec_eval, a multiple that gives no rank a C ``long`` can hold
    (NaN, an infinity, a rank of 2**63 or more) gives 0.
    """
    rank = multiple * ranked.n_relevant.cast(pl.Float64) + 0.9
    valid = rank.is_finite() & (rank >= 1.0) & (rank < _LONG_RANGE)
    # The hits in the top c are the running count of hits at position min(c, n):
    # one list per ranking (an aggregate), which every multiple reads, so the
    # statistic is staged and the ten columns of trec_eval's default share it.
    running = ranked.aggregate(ranked.top_hit(None).cum_sum().implode())
    n = running.list.len().cast(pl.Float64)
    length = pl.when(valid).then(rank).otherwise(1.0).clip(1.0, float(MAX_LIST)).floor()
    index = (pl.min_horizontal(length, n) - 1.0).cast(pl.Int64)
    hits = pl.when(n > 0.0).then(running.list.get(index, null_on_oob=True)).otherwise(0)
    value = pl.when(valid).then(hits / rank.floor()).otherwise(0.0)
    return ranked.if_relevant(value, no_relevant)


def precision_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Precision at k: the fraction of the top ``k`` ranks that hold a relevant row.

    ``P@k = (relevant rows in the top k) / k``. The denominator is always ``k``: when
    fewer than ``k`` rows are retrieved, the missing ranks count as not relevant.
    P@k is defined, and 0, for a query with no relevant row.

    Parameters
    ----------
    relevance
    k
    by, descending, threshold, ties

    Returns
    -------
    Expr
        A Float64 scalar per group (or per frame in ``select``).

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": [1, 1, 1, 2, 2, 2],
    ...         "score": [0.9, 0.8, 0.1, 0.7, 0.6, 0.5],
    ...         "relevance": [0, 1, 1, 1, 0, 0],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(
    ...     rm.precision_at_k("relevance", 2, by="score")
    ... )
    shape: (2, 2)
    ┌───────┬───────────┐
    │ query ┆ relevance │
    │ ---   ┆ ---       │
    │ i64   ┆ f64       │
    ╞═══════╪═══════════╡
    │ 1     ┆ 0.5       │
    │ 2     ┆ 0.5       │
    └───────┴───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, precision_statistic.bind("precision_at_k", k=k))


def recall_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Recall at k: the fraction of the relevant rows that are in the top ``k``.

    ``R@k = (relevant rows in the top k) / R``, where R counts every relevant row
    of the group, including rows with a null score (judged, not retrieved).

    Parameters
    ----------
    relevance
    k
    by, descending, threshold, ties
    no_relevant : {'null', 'zero'}
        The value for a query with no relevant row, where recall is undefined:
        null (skipped by ``mean``), or 0 as trec_eval, ranx and torchmetrics do.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [0.9, 0.8, 0.7, None], "relevance": [1, 0, 0, 1]}
    ... )
    >>> df.select(rm.recall_at_k("relevance", 3, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.5       │
    └───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, recall_statistic.bind("recall_at_k", no_relevant, k=k))


def f_beta_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    beta: float = 1.0,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    F-beta at k: the weighted harmonic mean of P@k and R@k.

    ``F = (1 + beta²)·P·R / (beta²·P + R)``; recall counts ``beta`` times as much as
    precision. It is 0 when the top ``k`` holds no relevant row, and undefined
    (see ``no_relevant``) when the query has no relevant row.

    Parameters
    ----------
    relevance
    k
    beta
        The weight of recall, > 0.
    by, descending, threshold, ties
    no_relevant

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [0.9, 0.8, 0.7, 0.6], "relevance": [1, 0, 1, 1]}
    ... )
    >>> df.select(
    ...     f1=rm.f_beta_at_k("relevance", 2, by="score"),
    ...     f2=rm.f_beta_at_k("relevance", 2, beta=2.0, by="score"),
    ... )
    shape: (1, 2)
    ┌─────┬──────────┐
    │ f1  ┆ f2       │
    │ --- ┆ ---      │
    │ f64 ┆ f64      │
    ╞═════╪══════════╡
    │ 0.4 ┆ 0.357143 │
    └─────┴──────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, f_beta_statistic.bind("f_beta_at_k", no_relevant, k=k, beta=beta))


def hit_rate_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Hit rate at k: 1.0 if the top ``k`` holds a relevant row, else 0.0.

    Also called success@k (trec_eval's ``success_k``). Like P@k it is defined, and
    0, for a query with no relevant row. Averaged over queries it is the fraction
    of queries with a hit.

    Parameters
    ----------
    relevance
    k
    by, descending, threshold, ties

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [0.9, 0.8, 0.7], "relevance": [0, 0, 1]}
    ... )
    >>> df.select(
    ...     at2=rm.hit_rate_at_k("relevance", 2, by="score"),
    ...     at3=rm.hit_rate_at_k("relevance", 3, by="score"),
    ... )
    shape: (1, 2)
    ┌─────┬─────┐
    │ at2 ┆ at3 │
    │ --- ┆ --- │
    │ f64 ┆ f64 │
    ╞═════╪═════╡
    │ 0.0 ┆ 1.0 │
    └─────┴─────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, hit_rate_statistic.bind("hit_rate_at_k", k=k))


def r_precision(
    relevance: IntoExpr,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    R-precision: precision at rank R, where R is the number of relevant rows.

    At rank R precision equals recall, so this is also the recall at R. It is
    trec_eval's ``Rprec``; R counts relevant rows that were not retrieved.

    Parameters
    ----------
    relevance
    by, descending, threshold, ties
    no_relevant

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [0.9, 0.8, 0.7, 0.6], "relevance": [1, 0, 1, 0]}
    ... )
    >>> df.select(rm.r_precision("relevance", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.5       │
    └───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, r_precision_statistic.bind("r_precision", no_relevant))


def hits_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Hits at k: the number of relevant rows in the top ``k`` ranks.

    ``hits@k = (relevant rows in the top k)``, as a Float64 (an expected count
    under ``ties='average'``): ranx's ``hits@k``. It is ``k`` times
    :func:`precision_at_k`, and defined, as 0, for a query with no relevant row.

    Parameters
    ----------
    relevance
    k
    by, descending, threshold, ties

    Examples
    --------
    Three of the top four are relevant, so hits@4 is 3 where P@4 is 0.75:

    >>> df = pl.DataFrame(
    ...     {"score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], "relevance": [1, 0, 1, 1, 0, 1]}
    ... )
    >>> df.select(
    ...     hits=rm.hits_at_k("relevance", 4, by="score"),
    ...     precision=rm.precision_at_k("relevance", 4, by="score"),
    ... )
    shape: (1, 2)
    ┌──────┬───────────┐
    │ hits ┆ precision │
    │ ---  ┆ ---       │
    │ f64  ┆ f64       │
    ╞══════╪═══════════╡
    │ 3.0  ┆ 0.75      │
    └──────┴───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, hits_statistic.bind("hits_at_k", k=k))
