"""The per-rank scores of the rank-based fusion methods, as expressions over a rank.

``rank`` is a document's 1-based rank in one run (:func:`run_rank`, per run and
query). Summing one of these over the runs that retrieved a document gives the
method's fused score (ISR also multiplies by that number of runs).
"""

from __future__ import annotations

import math

import polars as pl
from polars._typing import IntoExpr

from polars_rankmetrics._validate import as_expr


def _check_finite(value: object, name: str, *, low: float, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        msg = f"`{name}` must be a finite number, got {value!r}"
        raise ValueError(msg)
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        msg = f"`{name}` must be {bounds}, got {value!r}"
        raise ValueError(msg)
    return float(value)


def rrf_weight(rank: IntoExpr = "rank", *, k: float = 60) -> pl.Expr:
    """
    Reciprocal rank fusion's ``1 / (k + rank)`` (Cormack et al., SIGIR 2009).

    ``k`` must be >= 0 (60 in the paper and in ranx).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import rrf_weight
    >>> pl.DataFrame({"rank": [1, 2]}).with_columns(w=rrf_weight(k=0))
    shape: (2, 2)
    ┌──────┬─────┐
    │ rank ┆ w   │
    │ ---  ┆ --- │
    │ i64  ┆ f64 │
    ╞══════╪═════╡
    │ 1    ┆ 1.0 │
    │ 2    ┆ 0.5 │
    └──────┴─────┘
    """
    k = _check_finite(k, "k", low=0.0)
    return 1.0 / (k + as_expr(rank, "rank").cast(pl.Float64))


def isr_weight(rank: IntoExpr = "rank") -> pl.Expr:
    """
    Inverse square rank's ``1 / rank ** 2`` (Mourão et al., 2014).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import isr_weight
    >>> pl.DataFrame({"rank": [1, 2]}).with_columns(w=isr_weight())
    shape: (2, 2)
    ┌──────┬──────┐
    │ rank ┆ w    │
    │ ---  ┆ ---  │
    │ i64  ┆ f64  │
    ╞══════╪══════╡
    │ 1    ┆ 1.0  │
    │ 2    ┆ 0.25 │
    └──────┴──────┘
    """
    return 1.0 / as_expr(rank, "rank").cast(pl.Float64).pow(2)


def rbc_weight(rank: IntoExpr = "rank", *, phi: float) -> pl.Expr:
    """
    Rank-biased centroid's ``(1 - phi) * phi ** (rank - 1)`` (Bailey et al., SIGIR 2017).

    ``phi`` (the persistence) must be in [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import rbc_weight
    >>> pl.DataFrame({"rank": [1, 2]}).with_columns(w=rbc_weight(phi=0.5))
    shape: (2, 2)
    ┌──────┬──────┐
    │ rank ┆ w    │
    │ ---  ┆ ---  │
    │ i64  ┆ f64  │
    ╞══════╪══════╡
    │ 1    ┆ 0.5  │
    │ 2    ┆ 0.25 │
    └──────┴──────┘
    """
    phi = _check_finite(phi, "phi", low=0.0, high=1.0)
    return (1.0 - phi) * pl.lit(phi).pow(as_expr(rank, "rank").cast(pl.Float64) - 1.0)


def borda_points(rank: IntoExpr = "rank", n_candidates: IntoExpr = "n_candidates") -> pl.Expr:
    """
    BordaFuse's points, ``n_candidates - rank + 1`` (Aslam and Montague, SIGIR 2001).

    ``n_candidates`` is the number of documents any run retrieved for the
    query. A document the run did not retrieve gets
    :func:`borda_points_unretrieved`.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import borda_points
    >>> pl.DataFrame({"rank": [1, 2], "n_candidates": 5}).with_columns(w=borda_points())
    shape: (2, 3)
    ┌──────┬──────────────┬─────┐
    │ rank ┆ n_candidates ┆ w   │
    │ ---  ┆ ---          ┆ --- │
    │ i64  ┆ i32          ┆ f64 │
    ╞══════╪══════════════╪═════╡
    │ 1    ┆ 5            ┆ 5.0 │
    │ 2    ┆ 5            ┆ 4.0 │
    └──────┴──────────────┴─────┘
    """
    n = as_expr(n_candidates, "n_candidates").cast(pl.Float64)
    return n - as_expr(rank, "rank").cast(pl.Float64) + 1.0


def borda_points_unretrieved(
    n_retrieved: IntoExpr = "n_retrieved", n_candidates: IntoExpr = "n_candidates"
) -> pl.Expr:
    """
    BordaFuse's points for an unretrieved document: ``(n_candidates - n_retrieved + 1) / 2``.

    The points left over, shared equally among the unranked candidates.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import borda_points_unretrieved
    >>> pl.DataFrame({"n_retrieved": [2], "n_candidates": [5]}).select(w=borda_points_unretrieved())
    shape: (1, 1)
    ┌─────┐
    │ w   │
    │ --- │
    │ f64 │
    ╞═════╡
    │ 2.0 │
    └─────┘
    """
    n = as_expr(n_candidates, "n_candidates").cast(pl.Float64)
    retrieved = as_expr(n_retrieved, "n_retrieved").cast(pl.Float64)
    return (n - retrieved + 1.0) / 2.0
