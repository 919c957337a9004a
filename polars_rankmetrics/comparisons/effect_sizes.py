"""How large is each difference: effect sizes and wins/ties/losses per pair of systems.

:func:`effect_sizes` gives, for each metric and pair ``(a, b)`` of systems (the
pairs of :func:`polars_rankmetrics.compare_pairs`), with ``d_q = x_bq - x_aq``
over the ``n`` queries:

- ``delta`` = ``mean(d)`` and its Student's t confidence interval
  ``mean(d) ± t(1 - alpha/2, n - 1) * sd(d) / sqrt(n)``;
- ``cohens_dz`` = ``mean(d) / sd(d)``, Cohen's standardised mean difference of
  paired samples (Cohen 1988, 2.3.5; Lakens 2013, eq. 6); ``sd`` uses ``n - 1``;
- ``hedges_g`` = ``J * (m_b - m_a) / s_pooled`` with ``s_pooled = sqrt((s_a**2 +
  s_b**2) / 2)`` and the small-sample correction ``J = 1 - 3 / (4 (2n - 2) -
  1)`` (Hedges 1981; Lakens 2013, eq. 4), which ignores the pairing;
- ``es_e2`` = ``(m_b - m_a) / sqrt(V_E2)``, Sakai's effect size over the
  residual mean square ``V_E2`` of the two-way (system x topic) ANOVA of all
  the systems compared (Sakai 2014; 2018, 5.2.3);
- ``prob_superiority`` = ``(wins + ties / 2) / n``: the probability that ``b``
  beats ``a`` on a random query, ties split (Grissom and Kim 2012, PS_dep);
- ``wins``, ``ties``, ``losses`` of ``b`` against ``a``: queries where ``d_q >
  tie_tolerance``, ``|d_q| <= tie_tolerance``, ``d_q < -tie_tolerance``.

A standardised size whose denominator is 0 (constant differences, identical
systems) is null, never infinite.

References
----------
- J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988.
- L. V. Hedges, "Distribution Theory for Glass's Estimator of Effect Size", 1981.
- D. Lakens, "Calculating and Reporting Effect Sizes", Frontiers in Psychology 2013.
- R. J. Grissom and J. J. Kim, *Effect Sizes for Research*, 2nd ed., 2012.
- T. Sakai, "Statistical Reform in Information Retrieval?", SIGIR Forum 2014.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_rankmetrics.comparisons.anova import error_is_zero, residual_mean_square
from polars_rankmetrics.comparisons.comparison import Missing, _check_alpha
from polars_rankmetrics.comparisons.grid import grid
from polars_rankmetrics.comparisons.pairs import _pairs

EFFECT_SCHEMA: dict[str, Any] = {
    "metric": pl.String,
    "system_a": pl.String,
    "system_b": pl.String,
    "delta": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "cohens_dz": pl.Float64,
    "hedges_g": pl.Float64,
    "es_e2": pl.Float64,
    "prob_superiority": pl.Float64,
    "wins": pl.Int64,
    "ties": pl.Int64,
    "losses": pl.Int64,
    "n_queries": pl.Int64,
}
"""The columns of :func:`effect_sizes`'s result."""


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0.0 and math.isfinite(denominator) else None


def effect_sizes(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    alpha: float = 0.05,
    tie_tolerance: float = 0.0,
    baselines: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
    system: str = "system",
    query: str = "query",
    metrics: Sequence[str] | None = None,
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
) -> pl.DataFrame:
    """
    Effect sizes and wins/ties/losses of every pair of systems on each metric.

    See the module docstring for each definition. The pairs are those of
    :func:`polars_rankmetrics.compare_pairs` (all pairs, or each baseline with
    the others) and ``d = b - a``; ``es_e2`` uses the two-way ANOVA of all the
    systems compared, so it changes when systems are added.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    alpha
        The confidence interval of ``delta`` covers ``1 - alpha``.
    tie_tolerance
        Differences within this (absolute) tolerance are ties.
    baselines
        Pair only these systems with every other one; ``None``: all pairs.
    systems
        The systems to compare, in this order; ``None``: every system.
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
        One row per (metric, pair): ``metric, system_a, system_b, delta,
        ci_low, ci_high, cohens_dz, hedges_g, es_e2, prob_superiority, wins,
        ties, losses, n_queries``.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["a"] * 4 + ["b"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 2,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.1, 0.6],
    ...     }
    ... )
    >>> rm.effect_sizes(per_query).select(
    ...     "delta", pl.col("cohens_dz").round(3), "prob_superiority", "wins", "ties", "losses"
    ... )
    shape: (1, 6)
    ┌───────┬───────────┬──────────────────┬──────┬──────┬────────┐
    │ delta ┆ cohens_dz ┆ prob_superiority ┆ wins ┆ ties ┆ losses │
    │ ---   ┆ ---       ┆ ---              ┆ ---  ┆ ---  ┆ ---    │
    │ f64   ┆ f64       ┆ f64              ┆ i64  ┆ i64  ┆ i64    │
    ╞═══════╪═══════════╪══════════════════╪══════╪══════╪════════╡
    │ 0.1   ┆ 1.225     ┆ 0.875            ┆ 3    ┆ 1    ┆ 0      │
    └───────┴───────────┴──────────────────┴──────┴──────┴────────┘
    """
    from scipy import stats  # type: ignore[import-untyped]

    alpha = _check_alpha(alpha)
    if (
        isinstance(tie_tolerance, bool)
        or not isinstance(tie_tolerance, int | float)
        or not 0.0 <= tie_tolerance < math.inf
    ):
        msg = f"`tie_tolerance` must be a finite number >= 0, got {tie_tolerance!r}"
        raise ValueError(msg)
    aligned = grid(
        per_query,
        system=system,
        query=query,
        metrics=metrics,
        queries=queries,
        missing=missing,
        systems=systems,
    )
    pairs = _pairs(aligned.systems, baselines)
    rows: list[dict[str, Any]] = []
    for metric, matrix in aligned.metrics.items():
        values = matrix.values
        n = values.shape[1]
        error_ms = None
        if n >= 2:
            error_ms, _ = residual_mean_square(values, "two-way")
            if error_is_zero(values, error_ms):
                error_ms = 0.0
        for i, j in pairs:
            differences = values[j] - values[i]
            wins = int((differences > tie_tolerance).sum())
            losses = int((differences < -tie_tolerance).sum())
            row: dict[str, Any] = {
                "metric": metric,
                "system_a": aligned.systems[i],
                "system_b": aligned.systems[j],
                "wins": wins,
                "ties": n - wins - losses,
                "losses": losses,
                "n_queries": n,
            }
            if n:
                row["delta"] = float(differences.mean())
                row["prob_superiority"] = (wins + (n - wins - losses) / 2.0) / n
            if n >= 2:
                deviation = float(differences.std(ddof=1))
                half = float(stats.t.ppf(1.0 - alpha / 2.0, n - 1)) * deviation / math.sqrt(n)
                row["ci_low"], row["ci_high"] = row["delta"] - half, row["delta"] + half
                row["cohens_dz"] = _ratio(row["delta"], deviation)
                pooled = math.sqrt((values[i].var(ddof=1) + values[j].var(ddof=1)) / 2.0)
                correction = 1.0 - 3.0 / (4.0 * (2 * n - 2) - 1.0)
                standardised = _ratio(row["delta"], pooled)
                row["hedges_g"] = None if standardised is None else correction * standardised
                row["es_e2"] = _ratio(row["delta"], math.sqrt(error_ms or 0.0))
            rows.append(row)
    return pl.DataFrame(rows, schema=EFFECT_SCHEMA)
