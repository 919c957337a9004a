"""An Altair chart of each system's mean with its confidence interval: :func:`means_chart`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankmetrics.comparisons.comparison import Missing, _check_alpha
from polars_rankmetrics.comparisons.grid import grid
from polars_rankmetrics.comparisons.plot import _altair

if TYPE_CHECKING:  # pragma: no cover
    import altair


def means_table(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    metric: str,
    alpha: float = 0.05,
    system: str = "system",
    query: str = "query",
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
) -> pl.DataFrame:
    """Each system's mean of ``metric`` and its Student's t interval (``1 - alpha``).

    ``ci_low, ci_high = mean ∓ t(1 - alpha / 2, n - 1) * sd / sqrt(n)``, ``sd``
    with ``n - 1``; null with fewer than two queries. The systems are sorted by
    descending mean.
    """
    from scipy import stats  # type: ignore[import-untyped]

    alpha = _check_alpha(alpha)
    aligned = grid(
        per_query, system=system, query=query, metrics=[metric], queries=queries, missing=missing
    )
    values = aligned.metrics[metric].values
    n = values.shape[1]
    rows = []
    for name, row in zip(aligned.systems, values, strict=True):
        mean = float(row.mean()) if n else None
        half = None
        if n >= 2:
            half = (
                float(stats.t.ppf(1.0 - alpha / 2.0, n - 1)) * float(row.std(ddof=1)) / math.sqrt(n)
            )
        rows.append(
            {
                "system": name,
                "mean": mean,
                "ci_low": None if half is None or mean is None else mean - half,
                "ci_high": None if half is None or mean is None else mean + half,
                "n_queries": n,
            }
        )
    schema = {
        "system": pl.String,
        "mean": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "n_queries": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema).sort("mean", descending=True, nulls_last=True)


def means_chart(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    metric: str,
    alpha: float = 0.05,
    system: str = "system",
    query: str = "query",
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
    title: str | None = None,
) -> altair.LayerChart:
    """
    Each system's mean of a metric with its confidence interval, best first.

    One row per system, sorted by descending mean: a point at the mean and a
    bar over the Student's t interval of :func:`means_table` (``1 - alpha``).
    The query set and missing values follow :func:`polars_rankmetrics.compare`.
    Needs altair (the ``plot`` extra); save it with
    :func:`polars_rankmetrics.save_chart`.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    metric
        The metric column to show.
    alpha
        The intervals cover ``1 - alpha``.
    system
        The column naming the system.
    query
        The column naming the query.
    queries
        The query set; ``None`` means every query in ``per_query``.
    missing : {'zero', 'drop'}
        What a missing (system, query) value becomes.
    title
        The chart's title; ``None`` names the metric and the coverage.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 4 + ["dense"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 2,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.6],
    ...     }
    ... )
    >>> chart = rm.means_chart(per_query, metric="ap")
    >>> [row["system"] for row in chart.to_dict()["data"]["values"]]
    ['dense', 'bm25']
    """
    alt = _altair()
    table = means_table(
        per_query,
        metric=metric,
        alpha=alpha,
        system=system,
        query=query,
        queries=queries,
        missing=missing,
    )
    coverage = f"{100 * (1 - alpha):g}%"
    order = table["system"].to_list()
    base = alt.Chart(alt.Data(values=table.to_dicts())).encode(
        y=alt.Y("system:N", sort=order, title="System")
    )
    bars = base.mark_rule().encode(
        x=alt.X("ci_low:Q", title=f"{metric} (mean, {coverage} CI)"),
        x2="ci_high:Q",
    )
    points = base.mark_point(filled=True, size=60).encode(
        x="mean:Q",
        tooltip=["system:N", "mean:Q", "ci_low:Q", "ci_high:Q", "n_queries:Q"],
    )
    chart: altair.LayerChart = (bars + points).properties(
        title=title or f"Mean {metric} per system with {coverage} confidence intervals",
        width=420,
    )
    return chart
