"""Risk-sensitive evaluation: does a system hurt some queries? :func:`risk`, :func:`georisk`.

- **URisk** and **TRisk** (Wang et al. 2012; Dinçer, Macdonald and Ounis 2014)
  compare each system with one baseline. With ``delta_q = x_q - b_q`` over the
  ``c`` queries and ``z_q = delta_q`` if ``delta_q >= 0`` else ``(1 + alpha) *
  delta_q``, ``URisk = mean(z)`` (losses weigh ``1 + alpha`` times as much as
  wins) and ``TRisk = URisk / (sd(z) / sqrt(c))``, its Student's t statistic
  (``sd`` with ``c - 1``); ``|TRisk| > 2`` is the usual threshold of a
  significant gain (positive) or loss (negative).
- **GeoRisk** (Dinçer, Macdonald and Ounis 2016) compares every system with all
  the others at once. With ``x_iq >= 0`` the (system, query) matrix, ``S_i`` a
  system's total, ``T_q`` a query's total and ``N`` the grand total, the
  expected value is ``e_iq = S_i T_q / N`` and ``z_iq = (x_iq - e_iq) /
  sqrt(e_iq)`` (0 where ``e_iq = 0``); ``ZRisk_i = sum_q z_iq`` with negative
  ``z_iq`` weighted by ``1 + alpha``; and ``GeoRisk_i = sqrt(S_i / c *
  Phi(ZRisk_i / c))``, ``Phi`` the standard normal CDF: the geometric mean of
  effectiveness and of consistency across queries.

References
----------
- L. Wang, P. N. Bennett and K. Collins-Thompson, "Robust Ranking Models via
  Risk-Sensitive Optimization", SIGIR 2012.
- B. T. Dinçer, C. Macdonald and I. Ounis, "Hypothesis Testing for the
  Risk-Sensitive Evaluation of Retrieval Systems", SIGIR 2014.
- B. T. Dinçer, C. Macdonald and I. Ounis, "Risk-Sensitive Evaluation and
  Learning to Rank using Multiple Baselines", SIGIR 2016.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_rankmetrics.comparisons.comparison import Missing
from polars_rankmetrics.comparisons.grid import grid
from polars_rankmetrics.comparisons.significance import FloatArray

RISK_SCHEMA: dict[str, Any] = {
    "metric": pl.String,
    "system": pl.String,
    "baseline": pl.String,
    "urisk": pl.Float64,
    "trisk": pl.Float64,
    "wins": pl.Int64,
    "losses": pl.Int64,
    "n_queries": pl.Int64,
}
"""The columns of :func:`risk`'s result."""

GEORISK_SCHEMA: dict[str, Any] = {
    "metric": pl.String,
    "system": pl.String,
    "mean": pl.Float64,
    "zrisk": pl.Float64,
    "georisk": pl.Float64,
}
"""The columns of :func:`georisk`'s result."""


def _check_risk_alpha(alpha: object) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 <= alpha < math.inf:
        msg = f"`alpha` must be a finite number >= 0 (the extra weight of losses), got {alpha!r}"
        raise ValueError(msg)
    return float(alpha)


def urisk_trisk(values: FloatArray, baseline: FloatArray, alpha: float) -> tuple[float, float]:
    """URisk and TRisk of one system's values against the baseline's (see the module)."""
    deltas = values - baseline
    weighted = np.where(deltas >= 0.0, deltas, (1.0 + alpha) * deltas)
    urisk = float(weighted.mean())
    if weighted.size < 2:
        return urisk, float("nan")
    error = float(weighted.std(ddof=1)) / math.sqrt(weighted.size)
    return urisk, (urisk / error if error > 0.0 else float("nan"))


def risk(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str,
    alpha: float = 1.0,
    system: str = "system",
    query: str = "query",
    metrics: Sequence[str] | None = None,
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
) -> pl.DataFrame:
    """
    URisk and TRisk of every system against a baseline, on each metric.

    See the module docstring for the formulas. ``alpha = 0`` makes URisk the
    mean difference and TRisk the paired t statistic; TREC's risk-sensitive
    tasks used ``alpha`` in {1, 5, 10}. ``wins`` and ``losses`` count the queries
    where the system is above or below the baseline. TRisk is null when every
    weighted difference is the same (zero standard error) or with one query.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    baseline
        The system the others are compared with.
    alpha
        The extra weight of a loss (``>= 0``).
    system
        The column naming the system.
    query
        The column naming the query.
    metrics
        The metric columns; ``None`` means every numeric column besides the keys.
    queries
        The query set; ``None`` means every query in ``per_query``.
    missing : {'zero', 'drop'}
        What a missing (system, query) value becomes.

    Returns
    -------
    polars.DataFrame
        One row per (metric, system other than the baseline): ``metric, system,
        baseline, urisk, trisk, wins, losses, n_queries``.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 4 + ["dense"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 2,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.4, 0.6, 0.0, 0.7],
    ...     }
    ... )
    >>> rm.risk(per_query, baseline="bm25", alpha=1.0).select(
    ...     "system", pl.col("urisk").round(4), pl.col("trisk").round(4), "wins", "losses"
    ... )
    shape: (1, 5)
    ┌────────┬───────┬───────┬──────┬────────┐
    │ system ┆ urisk ┆ trisk ┆ wins ┆ losses │
    │ ---    ┆ ---   ┆ ---   ┆ ---  ┆ ---    │
    │ str    ┆ f64   ┆ f64   ┆ i64  ┆ i64    │
    ╞════════╪═══════╪═══════╪══════╪════════╡
    │ dense  ┆ 0.1   ┆ 1.0   ┆ 3    ┆ 1      │
    └────────┴───────┴───────┴──────┴────────┘

    By hand: the differences are ``0.2, 0.2, -0.1, 0.2``; the loss counts
    twice (``alpha = 1``), so ``z = 0.2, 0.2, -0.2, 0.2``, ``URisk = 0.1`` and
    ``sd(z) = 0.2``, ``TRisk = 0.1 / (0.2 / 2) = 1``.
    """
    alpha = _check_risk_alpha(alpha)
    aligned = grid(
        per_query, system=system, query=query, metrics=metrics, queries=queries, missing=missing
    )
    if str(baseline) not in aligned.systems:
        msg = f"`baseline`: system {baseline!r} not found; the systems are {aligned.systems}"
        raise ValueError(msg)
    base_index = aligned.systems.index(str(baseline))
    rows: list[dict[str, Any]] = []
    for metric, matrix in aligned.metrics.items():
        base = matrix.values[base_index]
        for index, name in enumerate(aligned.systems):
            if index == base_index:
                continue
            values = matrix.values[index]
            urisk = trisk = None
            if values.size:
                urisk_value, trisk_value = urisk_trisk(values, base, alpha)
                urisk = urisk_value
                trisk = None if math.isnan(trisk_value) else trisk_value
            rows.append(
                {
                    "metric": metric,
                    "system": name,
                    "baseline": str(baseline),
                    "urisk": urisk,
                    "trisk": trisk,
                    "wins": int((values > base).sum()),
                    "losses": int((values < base).sum()),
                    "n_queries": int(values.size),
                }
            )
    return pl.DataFrame(rows, schema=RISK_SCHEMA)


def zrisk_georisk(values: FloatArray, alpha: float) -> tuple[FloatArray, FloatArray]:
    """ZRisk and GeoRisk of every system (rows) of a non-negative (system x query) matrix."""
    from scipy import stats  # type: ignore[import-untyped]

    n_queries = values.shape[1]
    system_totals = values.sum(axis=1, keepdims=True)
    query_totals = values.sum(axis=0, keepdims=True)
    total = float(values.sum())
    expected = system_totals * query_totals / total if total > 0.0 else np.zeros_like(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(expected > 0.0, (values - expected) / np.sqrt(expected), 0.0)
    zrisk = np.where(z >= 0.0, z, (1.0 + alpha) * z).sum(axis=1)
    georisk = np.sqrt(system_totals[:, 0] / n_queries * stats.norm.cdf(zrisk / n_queries))
    return zrisk, georisk


def georisk(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    alpha: float = 1.0,
    system: str = "system",
    query: str = "query",
    metrics: Sequence[str] | None = None,
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
) -> pl.DataFrame:
    """
    ZRisk and GeoRisk of every system against all the others, on each metric.

    See the module docstring for the formulas; the values must be ``>= 0``
    (GeoRisk is a chi-square-like comparison with the expected values). Higher
    GeoRisk is better: effective on average and not below expectation on many
    queries.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    alpha
        The extra weight of a query below expectation (``>= 0``).
    system
        The column naming the system.
    query
        The column naming the query.
    metrics
        The metric columns; ``None`` means every numeric column besides the keys.
    queries
        The query set; ``None`` means every query in ``per_query``.
    missing : {'zero', 'drop'}
        What a missing (system, query) value becomes.

    Returns
    -------
    polars.DataFrame
        One row per (metric, system): ``metric, system, mean, zrisk, georisk``.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["a"] * 3 + ["b"] * 3,
    ...         "query": ["q1", "q2", "q3"] * 2,
    ...         "ap": [0.2, 0.4, 0.6, 0.4, 0.4, 0.4],
    ...     }
    ... )
    >>> rm.georisk(per_query, alpha=0.0).with_columns(pl.col(pl.Float64).round(4))
    shape: (2, 5)
    ┌────────┬────────┬──────┬─────────┬─────────┐
    │ metric ┆ system ┆ mean ┆ zrisk   ┆ georisk │
    │ ---    ┆ ---    ┆ ---  ┆ ---     ┆ ---     │
    │ str    ┆ str    ┆ f64  ┆ f64     ┆ f64     │
    ╞════════╪════════╪══════╪═════════╪═════════╡
    │ ap     ┆ a      ┆ 0.4  ┆ -0.0412 ┆ 0.4448  │
    │ ap     ┆ b      ┆ 0.4  ┆ 0.0412  ┆ 0.4497  │
    └────────┴────────┴──────┴─────────┴─────────┘

    Both have the same mean; the steady system ``b`` gets the higher GeoRisk.
    """
    alpha = _check_risk_alpha(alpha)
    aligned = grid(
        per_query, system=system, query=query, metrics=metrics, queries=queries, missing=missing
    )
    rows: list[dict[str, Any]] = []
    for metric, matrix in aligned.metrics.items():
        values = matrix.values
        if (values < 0.0).any():
            msg = f"GeoRisk needs values >= 0; metric {metric!r} has negative values"
            raise ValueError(msg)
        if values.shape[1] == 0:
            msg = f"metric {metric!r}: GeoRisk needs at least one query"
            raise ValueError(msg)
        zrisk, geo = zrisk_georisk(values, alpha)
        for index, name in enumerate(aligned.systems):
            rows.append(
                {
                    "metric": metric,
                    "system": name,
                    "mean": float(values[index].mean()),
                    "zrisk": float(zrisk[index]),
                    "georisk": float(geo[index]),
                }
            )
    return pl.DataFrame(rows, schema=GEORISK_SCHEMA)
