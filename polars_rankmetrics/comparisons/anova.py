"""Analysis of variance of many systems on the same queries: :func:`anova`.

``design="one-way"`` treats each system's per-query values as an independent
sample (the model ``y = system + error``, what ``scipy.stats.tukey_hsd`` and
ranx assume); ``design="two-way"`` is the system x topic model without
replication (``y = system + topic + error``, the repeated-measures ANOVA of the
IR literature, Sakai 2014 and 2018), which removes the topics' difficulty from
the error. The tables equal ``statsmodels``' ``anova_lm(ols("y ~ C(system)"))``
and ``anova_lm(ols("y ~ C(system) + C(topic)"))`` (type I = type II here: the
design is balanced), and the two-way F of systems equals ``AnovaRM``'s.

References
----------
- T. Sakai, "Statistical Reform in Information Retrieval?", SIGIR Forum 2014.
- T. Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 3-5.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankmetrics._validate import check_choice
from polars_rankmetrics.comparisons.comparison import Missing
from polars_rankmetrics.comparisons.grid import grid

FloatArray: TypeAlias = npt.NDArray[np.float64]

Design: TypeAlias = Literal["one-way", "two-way"]
"""The ANOVA model: systems only, or systems and topics (queries)."""

ANOVA_SCHEMA: dict[str, Any] = {
    "metric": pl.String,
    "source": pl.String,
    "df": pl.Int64,
    "sum_sq": pl.Float64,
    "mean_sq": pl.Float64,
    "F": pl.Float64,
    "p_value": pl.Float64,
}
"""The columns of :func:`anova`'s result."""


def residual_mean_square(values: FloatArray, design: Design) -> tuple[float, int]:
    """The error mean square and its degrees of freedom of a (system x query) matrix.

    One-way: ``sum_s sum_q (x_sq - mean_s)**2 / (k n - k)``. Two-way:
    ``sum (x_sq - mean_s - mean_q + mean)**2 / ((k - 1)(n - 1))``.
    """
    k, n = values.shape
    system_means = values.mean(axis=1, keepdims=True)
    if design == "one-way":
        return float(((values - system_means) ** 2).sum()) / (k * n - k), k * n - k
    residuals = values - system_means - values.mean(axis=0, keepdims=True) + values.mean()
    df = (k - 1) * (n - 1)
    return float((residuals**2).sum()) / df, df


def error_is_zero(values: FloatArray, error_ms: float) -> bool:
    """Whether an error mean square is 0 up to round-off (1e-12 of the total mean square)."""
    total_ms = float(((values - values.mean()) ** 2).sum()) / max(values.size - 1, 1)
    return error_ms <= 1e-12 * total_ms


def anova_table(values: FloatArray, design: Design) -> list[tuple[str, int, float]]:
    """(source, df, sum of squares) rows of one metric's (system x query) matrix."""
    k, n = values.shape
    grand = values.mean()
    system_ss = n * float(((values.mean(axis=1) - grand) ** 2).sum())
    if design == "one-way":
        within = float(((values - values.mean(axis=1, keepdims=True)) ** 2).sum())
        return [("system", k - 1, system_ss), ("residual", k * n - k, within)]
    topic_ss = k * float(((values.mean(axis=0) - grand) ** 2).sum())
    residual_ms, df = residual_mean_square(values, design)
    return [
        ("system", k - 1, system_ss),
        ("query", n - 1, topic_ss),
        ("residual", df, residual_ms * df),
    ]


def anova(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    design: Design = "two-way",
    system: str = "system",
    query: str = "query",
    metrics: Sequence[str] | None = None,
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
) -> pl.DataFrame:
    """
    ANOVA table of each metric: do the systems' means differ.

    With ``k`` systems, ``n`` queries, ``x_sq`` the value of system ``s`` on
    query ``q``, ``m_s`` and ``m_q`` the system and query means and ``m`` the
    grand mean:

    - ``system``: ``SS = n * sum_s (m_s - m)**2`` with ``k - 1`` df;
    - ``query`` (two-way only): ``SS = k * sum_q (m_q - m)**2`` with ``n - 1`` df;
    - ``residual``: one-way ``sum (x_sq - m_s)**2`` with ``k n - k`` df, two-way
      ``sum (x_sq - m_s - m_q + m)**2`` with ``(k - 1)(n - 1)`` df.

    ``mean_sq = SS / df``; each effect's ``F`` is its mean square over the
    residual one and ``p_value`` is ``P(F(df, df_residual) > F)``. When the
    residual mean square is 0 up to round-off (1e-12 of the total mean square;
    e.g. every system is a constant shift of another), ``F`` and ``p_value``
    are null: the test is undefined.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    design : {'two-way', 'one-way'}
        System x topic without replication, or systems only.
    system
        The column naming the system.
    query
        The column naming the query.
    metrics
        The metric columns; ``None`` means every numeric column besides the keys.
    queries
        The query set; ``None`` means every query in ``per_query``.
    missing : {'zero', 'drop'}
        What a missing (system, query) value becomes, as in
        :func:`polars_rankmetrics.compare`.

    Returns
    -------
    polars.DataFrame
        One row per (metric, source): ``metric, source, df, sum_sq, mean_sq, F,
        p_value``; ``F`` and ``p_value`` are null on the residual row.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 3,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.6, 0.5, 0.7, 0.4, 0.9],
    ...     }
    ... )
    >>> rm.anova(per_query).with_columns(pl.col(pl.Float64).round(4))
    shape: (3, 7)
    ┌────────┬──────────┬─────┬────────┬─────────┬─────────┬─────────┐
    │ metric ┆ source   ┆ df  ┆ sum_sq ┆ mean_sq ┆ F       ┆ p_value │
    │ ---    ┆ ---      ┆ --- ┆ ---    ┆ ---     ┆ ---     ┆ ---     │
    │ str    ┆ str      ┆ i64 ┆ f64    ┆ f64     ┆ f64     ┆ f64     │
    ╞════════╪══════════╪═════╪════════╪═════════╪═════════╪═════════╡
    │ ap     ┆ system   ┆ 2   ┆ 0.215  ┆ 0.1075  ┆ 55.2857 ┆ 0.0001  │
    │ ap     ┆ query    ┆ 3   ┆ 0.3633 ┆ 0.1211  ┆ 62.2857 ┆ 0.0001  │
    │ ap     ┆ residual ┆ 6   ┆ 0.0117 ┆ 0.0019  ┆ null    ┆ null    │
    └────────┴──────────┴─────┴────────┴─────────┴─────────┴─────────┘
    """
    from scipy import stats  # type: ignore[import-untyped]

    check_choice(design, "design", Design)
    aligned = grid(
        per_query, system=system, query=query, metrics=metrics, queries=queries, missing=missing
    )
    rows: list[dict[str, Any]] = []
    for metric, matrix in aligned.metrics.items():
        values = matrix.values
        if values.shape[1] < 2:
            msg = f"metric {metric!r}: an ANOVA needs at least two queries, got {values.shape[1]}"
            raise ValueError(msg)
        table = anova_table(values, design)
        residual_df, residual_ss = table[-1][1], table[-1][2]
        residual_ms = residual_ss / residual_df
        for source, df, ss in table:
            f_value = p_value = None
            if source != "residual" and not error_is_zero(values, residual_ms):
                f_value = (ss / df) / residual_ms
                p_value = float(stats.f.sf(f_value, df, residual_df))
            rows.append(
                {
                    "metric": metric,
                    "source": source,
                    "df": df,
                    "sum_sq": ss,
                    "mean_sq": ss / df,
                    "F": f_value,
                    "p_value": p_value,
                }
            )
    return pl.DataFrame(rows, schema=ANOVA_SCHEMA)
