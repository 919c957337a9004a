"""Score normalisations, as expressions over one run's scores for one query.

Each function returns a ``pl.Expr`` meant to be evaluated per run and query,
``.over("system", "query")``, exactly as ranx normalises each query's results
of each run. A denominator never falls below ``1e-9`` (ranx's floor), so a
query whose documents all have the same score gets 0 everywhere (``min-max``,
``sum``, ``zmuv``) instead of a division by zero.

``rank`` and ``borda`` depend on each document's position in its run
(:func:`run_rank`): by score descending, equal scores ordered by document id
descending (trec_eval's order; ranx leaves the order of equal scores to its
unstable sort). ``borda`` also needs the number of candidates of the query (the
documents retrieved by any run) and gives the documents a run did not retrieve
a score too; :func:`polars_rankmetrics.fuse` adds those rows.
"""

from __future__ import annotations

from typing import Literal

import polars as pl
from polars._typing import IntoExpr

from polars_rankmetrics._validate import as_expr

Normalization = Literal[
    "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none"
]
"""The normalisation names (ranx's; ``min_max`` and ``min_max_inverted`` are accepted too)."""

FLOOR = 1e-9
"""The smallest denominator (ranx's): a constant query gets 0, not a division by zero."""


def _floor(denominator: pl.Expr) -> pl.Expr:
    return pl.max_horizontal(denominator, pl.lit(FLOOR))


def run_rank(score: IntoExpr = "score", doc: IntoExpr = "doc") -> pl.Expr:
    """
    Each document's 1-based rank in its run: by score descending, then document id descending.

    Use it per run and query, ``.over("system", "query")``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import run_rank
    >>> run = pl.DataFrame({"query": "q1", "doc": ["a", "b", "c"], "score": [0.5, 0.9, 0.5]})
    >>> run.with_columns(rank=run_rank().over("query"))
    shape: (3, 4)
    ┌───────┬─────┬───────┬──────┐
    │ query ┆ doc ┆ score ┆ rank │
    │ ---   ┆ --- ┆ ---   ┆ ---  │
    │ str   ┆ str ┆ f64   ┆ u32  │
    ╞═══════╪═════╪═══════╪══════╡
    │ q1    ┆ a   ┆ 0.5   ┆ 3    │
    │ q1    ┆ b   ┆ 0.9   ┆ 1    │
    │ q1    ┆ c   ┆ 0.5   ┆ 2    │
    └───────┴─────┴───────┴──────┘
    """
    return (
        pl.struct(as_expr(score, "score"), as_expr(doc, "doc"))
        .rank("ordinal", descending=True)
        .cast(pl.UInt32)
    )


def min_max_norm(score: IntoExpr = "score", *, invert: bool = False) -> pl.Expr:
    """
    ``(s - min) / max(max - min, 1e-9)``; with ``invert``, ``(max - s) / max(max - min, 1e-9)``.

    The inverted form (ranx's ``min-max-inverted``) is for distances, where a
    smaller score is better.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import min_max_norm
    >>> run = pl.DataFrame({"query": ["q1", "q1", "q1", "q2"], "score": [1.0, 3.0, 2.0, 5.0]})
    >>> run.with_columns(norm=min_max_norm().over("query"))
    shape: (4, 3)
    ┌───────┬───────┬──────┐
    │ query ┆ score ┆ norm │
    │ ---   ┆ ---   ┆ ---  │
    │ str   ┆ f64   ┆ f64  │
    ╞═══════╪═══════╪══════╡
    │ q1    ┆ 1.0   ┆ 0.0  │
    │ q1    ┆ 3.0   ┆ 1.0  │
    │ q1    ┆ 2.0   ┆ 0.5  │
    │ q2    ┆ 5.0   ┆ 0.0  │
    └───────┴───────┴──────┘
    """
    s = as_expr(score, "score")
    denominator = _floor(s.max() - s.min())
    return ((s.max() - s) if invert else (s - s.min())) / denominator


def max_norm(score: IntoExpr = "score") -> pl.Expr:
    """
    ``s / max(max, 1e-9)``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import max_norm
    >>> pl.DataFrame({"score": [1.0, 4.0]}).with_columns(norm=max_norm())
    shape: (2, 2)
    ┌───────┬──────┐
    │ score ┆ norm │
    │ ---   ┆ ---  │
    │ f64   ┆ f64  │
    ╞═══════╪══════╡
    │ 1.0   ┆ 0.25 │
    │ 4.0   ┆ 1.0  │
    └───────┴──────┘
    """
    s = as_expr(score, "score")
    return s / _floor(s.max())


def sum_norm(score: IntoExpr = "score") -> pl.Expr:
    """
    ``(s - min) / max(sum(s) - n * min, 1e-9)``: the shifted scores sum to 1.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import sum_norm
    >>> pl.DataFrame({"score": [1.0, 2.0, 4.0]}).with_columns(norm=sum_norm())
    shape: (3, 2)
    ┌───────┬──────┐
    │ score ┆ norm │
    │ ---   ┆ ---  │
    │ f64   ┆ f64  │
    ╞═══════╪══════╡
    │ 1.0   ┆ 0.0  │
    │ 2.0   ┆ 0.25 │
    │ 4.0   ┆ 0.75 │
    └───────┴──────┘
    """
    s = as_expr(score, "score")
    return (s - s.min()) / _floor(s.sum() - s.min() * pl.len())


def zmuv_norm(score: IntoExpr = "score") -> pl.Expr:
    """
    Zero mean, unit variance: ``(s - mean) / max(std, 1e-9)``, the population std (ddof 0).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import zmuv_norm
    >>> pl.DataFrame({"score": [1.0, 3.0]}).with_columns(norm=zmuv_norm())
    shape: (2, 2)
    ┌───────┬──────┐
    │ score ┆ norm │
    │ ---   ┆ ---  │
    │ f64   ┆ f64  │
    ╞═══════╪══════╡
    │ 1.0   ┆ -1.0 │
    │ 3.0   ┆ 1.0  │
    └───────┴──────┘
    """
    s = as_expr(score, "score")
    return (s - s.mean()) / _floor(s.std(ddof=0))


def rank_norm(rank: IntoExpr = "rank") -> pl.Expr:
    """
    ``1 - (rank - 1) / n``, with ``n`` the run's number of documents for the query.

    ``rank`` is the 1-based rank in the run (:func:`run_rank`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import rank_norm
    >>> pl.DataFrame({"rank": [1, 2, 3, 4]}).with_columns(norm=rank_norm())
    shape: (4, 2)
    ┌──────┬──────┐
    │ rank ┆ norm │
    │ ---  ┆ ---  │
    │ i64  ┆ f64  │
    ╞══════╪══════╡
    │ 1    ┆ 1.0  │
    │ 2    ┆ 0.75 │
    │ 3    ┆ 0.5  │
    │ 4    ┆ 0.25 │
    └──────┴──────┘
    """
    return 1.0 - (as_expr(rank, "rank").cast(pl.Float64) - 1.0) / pl.len()


def borda_norm(rank: IntoExpr = "rank", n_candidates: IntoExpr = "n_candidates") -> pl.Expr:
    """
    ``1 - (rank - 1) / n_candidates`` for a retrieved document (ranx's ``borda``).

    ``n_candidates`` is the number of documents any run retrieved for the
    query. A document the run did not retrieve gets
    :func:`borda_norm_unretrieved` instead.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import borda_norm
    >>> pl.DataFrame({"rank": [1, 2], "n_candidates": 4}).with_columns(norm=borda_norm())
    shape: (2, 3)
    ┌──────┬──────────────┬──────┐
    │ rank ┆ n_candidates ┆ norm │
    │ ---  ┆ ---          ┆ ---  │
    │ i64  ┆ i32          ┆ f64  │
    ╞══════╪══════════════╪══════╡
    │ 1    ┆ 4            ┆ 1.0  │
    │ 2    ┆ 4            ┆ 0.75 │
    └──────┴──────────────┴──────┘
    """
    n = as_expr(n_candidates, "n_candidates").cast(pl.Float64)
    return 1.0 - (as_expr(rank, "rank").cast(pl.Float64) - 1.0) / n


def borda_norm_unretrieved(
    n_retrieved: IntoExpr = "n_retrieved", n_candidates: IntoExpr = "n_candidates"
) -> pl.Expr:
    """
    ``0.5 - (n_retrieved - 1) / (2 n_candidates)``: the ``borda`` score of a document not retrieved.

    The mean of the scores the run's unused positions would get.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.fusion import borda_norm_unretrieved
    >>> frame = pl.DataFrame({"n_retrieved": [2], "n_candidates": [4]})
    >>> frame.select(norm=borda_norm_unretrieved())
    shape: (1, 1)
    ┌───────┐
    │ norm  │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.375 │
    └───────┘
    """
    n = as_expr(n_candidates, "n_candidates").cast(pl.Float64)
    retrieved = as_expr(n_retrieved, "n_retrieved").cast(pl.Float64)
    return 0.5 - (retrieved - 1.0) / (2.0 * n)
