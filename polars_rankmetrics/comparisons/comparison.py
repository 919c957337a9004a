"""Compare systems on the same queries: :func:`compare`.

The input is one row per (system, query) with one column per metric, which is
what ``group_by("system", "query").agg(...)`` or ``evaluate(...).per_query``
stacked over runs produce. The query set is explicit (:func:`align`), and every
value that was filled in or dropped is counted in the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np
import polars as pl

from polars_rankmetrics._validate import check_choice, check_seed
from polars_rankmetrics.comparisons.significance import (
    Correction,
    FloatArray,
    adjust_p_values,
    bootstrap_ci,
    bootstrap_test,
    check_correction,
    check_n_resamples,
    paired_t_test,
    randomization_test,
    t_ci,
)

Test: TypeAlias = Literal["t", "randomization", "bootstrap"]
"""A paired significance test: Student's t, Fisher's randomization, or the bootstrap."""

Missing: TypeAlias = Literal["zero", "drop"]
"""What happens to a query that a system has no value for: it scores 0, or is dropped."""

Interval: TypeAlias = Literal["bootstrap", "t"]
"""How the confidence interval of a mean is computed."""

COMPARISON_SCHEMA: dict[str, Any] = {
    "metric": pl.String,
    "system": pl.String,
    "mean": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "delta": pl.Float64,
    "p_value": pl.Float64,
    "p_value_adjusted": pl.Float64,
    "significant": pl.Boolean,
    "is_baseline": pl.Boolean,
    "n_queries": pl.Int64,
    "n_filled": pl.Int64,
    "n_dropped": pl.Int64,
    "n_ignored": pl.Int64,
}
"""The columns of :func:`compare`'s result."""


@dataclass(frozen=True)
class Aligned:
    """One metric's values on the query set, one row per system.

    ``values`` is ``(n_systems, n_queries)`` after filling or dropping;
    ``n_filled[s]`` counts the values of system ``s`` that were filled with 0;
    ``n_dropped`` counts the queries dropped because a system had no value.
    """

    systems: list[str]
    queries: pl.Series
    values: FloatArray
    n_filled: list[int]
    n_dropped: int


def _check_columns(frame: pl.DataFrame, system: str, query: str) -> None:
    for name, role in ((system, "system"), (query, "query")):
        if name not in frame.columns:
            msg = f"`{role}`: column {name!r} not found; the columns are {frame.columns}"
            raise ValueError(msg)
        if frame[name].null_count():
            msg = f"the {role} column {name!r} has null values"
            raise ValueError(msg)
    duplicated = frame.filter(pl.struct(system, query).is_duplicated())
    if duplicated.height:
        pair = duplicated.row(0, named=True)
        msg = (
            f"duplicate (system, query) row: ({pair[system]!r}, {pair[query]!r}); "
            "the input must have one row per system and query"
        )
        raise ValueError(msg)


def _metric_columns(
    frame: pl.DataFrame, metrics: Sequence[str] | None, system: str, query: str
) -> list[str]:
    if metrics is None:
        names = [
            name
            for name, dtype in frame.schema.items()
            if name not in (system, query) and dtype.is_numeric()
        ]
        if not names:
            msg = f"no numeric metric column found besides {system!r} and {query!r}"
            raise ValueError(msg)
        return names
    if isinstance(metrics, str) or not metrics:
        msg = f"`metrics` must be a non-empty list of column names or None, got {metrics!r}"
        raise ValueError(msg)
    for name in metrics:
        if name not in frame.columns or name in (system, query):
            msg = f"`metrics`: {name!r} is not a metric column; the columns are {frame.columns}"
            raise ValueError(msg)
        if not frame.schema[name].is_numeric():
            msg = f"`metrics`: column {name!r} must be numeric, got {frame.schema[name]}"
            raise ValueError(msg)
    if len(set(metrics)) != len(metrics):
        msg = f"`metrics` has duplicate names: {list(metrics)!r}"
        raise ValueError(msg)
    return list(metrics)


def _query_set(
    frame: pl.DataFrame, query: str, queries: Sequence[Any] | pl.Series | None
) -> pl.Series:
    observed = frame[query]
    if queries is None:
        return observed.unique(maintain_order=True)
    wanted = pl.Series(query, queries) if not isinstance(queries, pl.Series) else queries
    try:
        wanted = wanted.cast(observed.dtype).alias(query)
    except pl.exceptions.InvalidOperationError as error:
        msg = f"`queries` cannot be cast to the query column's type {observed.dtype}"
        raise ValueError(msg) from error
    if wanted.null_count() or wanted.is_duplicated().any():
        msg = "`queries` must not contain nulls or duplicates"
        raise ValueError(msg)
    return wanted


def check_finite(frame: pl.DataFrame, column: str, *, system: str, query: str) -> None:
    """Raise ``ValueError`` naming the first (system, query) whose ``column`` is ±inf.

    A null or NaN value is a missing one (see :func:`align`); an infinite one is
    no score any test can use (a mean, a difference, a rank of inf is inf or
    undefined), so every comparison refuses it alike.
    """
    infinite = frame.filter(pl.col(column).cast(pl.Float64).is_infinite())
    if infinite.height:
        row = infinite.row(0, named=True)
        msg = (
            f"column {column!r} of system {row[system]!r}, query {row[query]!r} is infinite "
            f"({row[column]}): per-query values must be finite (null or NaN means missing)"
        )
        raise ValueError(msg)


def align(
    per_query: pl.DataFrame,
    metric: str,
    systems: Sequence[str],
    queries: pl.Series,
    *,
    system: str,
    query: str,
    missing: Missing,
) -> Aligned:
    """One metric as a (system x query) matrix on an explicit query set.

    A (system, query) pair is missing when the row is absent or its value is
    null or NaN. ``missing="zero"`` fills it with 0; ``missing="drop"`` removes
    the query for every system, so the comparison stays paired. A ±inf value
    on the query set raises ``ValueError`` (:func:`check_finite`).
    """
    grid = (
        pl.DataFrame({system: list(systems)})
        .with_row_index("_system_index")
        .join(queries.to_frame(query).with_row_index("_query_index"), how="cross")
        .join(per_query.select(system, query, metric), on=[system, query], how="left")
        .sort("_system_index", "_query_index")
        .with_columns(pl.col(metric).cast(pl.Float64))
    )
    check_finite(grid, metric, system=system, query=query)
    matrix = grid[metric].fill_nan(None).to_numpy().reshape(len(systems), len(queries))
    present = ~np.isnan(matrix)
    if missing == "zero":
        n_filled = (~present).sum(axis=1).tolist()
        return Aligned(list(systems), queries, np.where(present, matrix, 0.0), n_filled, 0)
    complete = present.all(axis=0)
    kept = queries.filter(pl.Series(complete))
    return Aligned(
        list(systems), kept, matrix[:, complete], [0] * len(systems), int((~complete).sum())
    )


def _check_alpha(alpha: object) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 < alpha < 1.0:
        msg = f"`alpha` must be a number in (0, 1), got {alpha!r}"
        raise ValueError(msg)
    return float(alpha)


def _p_value(
    test: Test, treatment: FloatArray, baseline: FloatArray, n_resamples: int, seed: int
) -> float:
    if treatment.size < 2:  # one query is no sample: every test is undefined
        return float("nan")
    if test == "t":
        return paired_t_test(treatment, baseline)
    if test == "randomization":
        return randomization_test(treatment, baseline, n_resamples=n_resamples, seed=seed)
    return bootstrap_test(treatment, baseline, n_resamples=n_resamples, seed=seed)


def _none_if_nan(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def prepare(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str,
    system: str,
    query: str,
) -> tuple[pl.DataFrame, list[str]]:
    """Collect, check the key columns, and list the systems, baseline first."""
    frame = per_query.collect() if isinstance(per_query, pl.LazyFrame) else per_query
    if not isinstance(frame, pl.DataFrame):
        msg = f"`per_query` must be a polars DataFrame or LazyFrame, got {type(per_query).__name__}"
        raise TypeError(msg)
    _check_columns(frame, system, query)
    frame = frame.with_columns(pl.col(system).cast(pl.String))
    systems = frame[system].unique(maintain_order=True).to_list()
    if str(baseline) not in systems:
        msg = f"`baseline`: system {baseline!r} not found; the systems are {systems}"
        raise ValueError(msg)
    return frame, [str(baseline), *(name for name in systems if name != str(baseline))]


def compare(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str,
    system: str = "system",
    query: str = "query",
    metrics: Sequence[str] | None = None,
    test: Test = "t",
    n_resamples: int = 10_000,
    alpha: float = 0.05,
    correction: Correction | None = "holm",
    seed: int = 0,
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
    ci: Interval = "bootstrap",
) -> pl.DataFrame:
    """
    Compare systems with a baseline on paired per-query values.

    For each metric and each system, the result gives the mean over the query
    set, a ``1 - alpha`` confidence interval of that mean, the mean difference
    ``delta`` to the baseline, and a paired significance test of that
    difference, with p-values corrected for the number of systems compared with
    the baseline on that metric. The baseline's own row has ``delta = 0`` and
    null test columns.

    **Query set.** ``queries`` fixes it (e.g. the queries of the qrels); by
    default it is every query that appears in ``per_query``. A system without a
    row for a query, or with a null or NaN value, is *missing* it:
    ``missing="zero"`` scores it 0 (as ``trec_eval -c`` does), and
    ``missing="drop"`` removes that query from the metric's comparison for every
    system. Rows for queries outside ``queries`` are ignored. All three are
    counted in the result (``n_filled``, ``n_dropped``, ``n_ignored``). A ±inf
    value on the query set raises ``ValueError`` naming its system, query and
    column.

    **Tests**, two-sided, paired on queries (see
    :mod:`polars_rankmetrics.significance`):

    - ``"t"``: the paired t-test, equal to ``scipy.stats.ttest_rel``;
    - ``"randomization"``: Fisher's sign-flip test, exact over all ``2**n`` sign
      vectors when ``2**n <= n_resamples``, else ``n_resamples`` random ones;
    - ``"bootstrap"``: the paired bootstrap test of a zero mean difference;
      when no resample can reach the observed mean (two queries that both
      favour one system), its p-value is the floor ``1 / (n_resamples + 1)``,
      which :func:`polars_rankmetrics.compare_pairs` says in its ``note``.

    With fewer than two queries every test is undefined: ``p_value`` and
    ``significant`` are null (``mean`` and ``delta`` are still given).

    Every random draw uses ``numpy.random.default_rng(seed)``, started afresh
    for each (metric, system), so a system's result does not depend on which
    other systems are compared.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    baseline
        The system the others are compared with.
    system
        The column naming the system.
    query
        The column naming the query.
    metrics
        The metric columns; ``None`` means every numeric column besides
        ``system`` and ``query``.
    test : {'t', 'randomization', 'bootstrap'}
        The paired significance test.
    n_resamples
        Resamples of the randomization and bootstrap tests and of the bootstrap
        confidence interval.
    alpha
        The significance level; the confidence interval covers ``1 - alpha``.
    correction : {'holm', 'bonferroni', None}
        Correction for comparing several systems with the baseline, per metric.
    seed
        Seed of every random draw.
    queries
        The query set; ``None`` means every query in ``per_query``.
    missing : {'zero', 'drop'}
        What a missing (system, query) value becomes.
    ci : {'bootstrap', 't'}
        A bootstrap percentile interval, or Student's t interval.

    Returns
    -------
    polars.DataFrame
        One row per (metric, system), metrics in order, the baseline first:
        ``metric, system, mean, ci_low, ci_high, delta, p_value,
        p_value_adjusted, significant`` (``p_value_adjusted <= alpha``), then
        ``is_baseline``, ``n_queries`` (queries compared), ``n_filled`` (this
        system's values filled with 0), ``n_dropped`` (queries dropped from this
        metric) and ``n_ignored`` (this system's rows outside ``queries``).

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 5 + ["dense"] * 5,
    ...         "query": ["q1", "q2", "q3", "q4", "q5"] * 2,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.4, 0.5, 0.3, 0.7, 0.4],
    ...     }
    ... )
    >>> rm.compare(per_query, baseline="bm25", test="randomization").select(
    ...     "metric", "system", "mean", "delta", "p_value", "significant"
    ... )
    shape: (2, 6)
    ┌────────┬────────┬──────┬───────┬─────────┬─────────────┐
    │ metric ┆ system ┆ mean ┆ delta ┆ p_value ┆ significant │
    │ ---    ┆ ---    ┆ ---  ┆ ---   ┆ ---     ┆ ---         │
    │ str    ┆ str    ┆ f64  ┆ f64   ┆ f64     ┆ bool        │
    ╞════════╪════════╪══════╪═══════╪═════════╪═════════════╡
    │ ap     ┆ bm25   ┆ 0.3  ┆ 0.0   ┆ null    ┆ null        │
    │ ap     ┆ dense  ┆ 0.46 ┆ 0.16  ┆ 0.0625  ┆ false       │
    └────────┴────────┴──────┴───────┴─────────┴─────────────┘

    With five queries the randomization test is exact over the 32 sign flips:
    every difference is positive, so only two of them (all signs kept, all
    flipped) are as extreme, and ``p = 2 / 32``.
    """
    check_choice(test, "test", Test)
    check_choice(missing, "missing", Missing)
    check_choice(ci, "ci", Interval)
    check_correction(correction)
    check_n_resamples(n_resamples)
    check_seed(seed)
    alpha = _check_alpha(alpha)
    frame, systems = prepare(per_query, baseline=baseline, system=system, query=query)
    metric_names = _metric_columns(frame, metrics, system, query)
    query_set = _query_set(frame, query, queries)
    n_ignored = dict(
        frame.filter(~pl.col(query).is_in(query_set.implode())).group_by(system).len().iter_rows()
    )

    rows: list[dict[str, Any]] = []
    for metric in metric_names:
        aligned = align(
            frame, metric, systems, query_set, system=system, query=query, missing=missing
        )
        base_values = aligned.values[0]
        n_queries = base_values.size
        p_values = [float("nan")] + [
            _p_value(test, values, base_values, n_resamples, seed) for values in aligned.values[1:]
        ]
        adjusted = adjust_p_values(p_values, correction)
        for index, name in enumerate(systems):
            values = aligned.values[index]
            low, high = (
                bootstrap_ci(values, confidence=1 - alpha, n_resamples=n_resamples, seed=seed)
                if ci == "bootstrap"
                else t_ci(values, confidence=1 - alpha)
            )
            p_value = _none_if_nan(p_values[index])
            p_adjusted = _none_if_nan(adjusted[index])
            rows.append(
                {
                    "metric": metric,
                    "system": name,
                    "mean": float(values.mean()) if n_queries else None,
                    "ci_low": _none_if_nan(low),
                    "ci_high": _none_if_nan(high),
                    "delta": float((values - base_values).mean()) if n_queries else None,
                    "p_value": p_value,
                    "p_value_adjusted": p_adjusted,
                    "significant": None if p_adjusted is None else p_adjusted <= alpha,
                    "is_baseline": index == 0,
                    "n_queries": n_queries,
                    "n_filled": aligned.n_filled[index],
                    "n_dropped": aligned.n_dropped,
                    "n_ignored": n_ignored.get(name, 0),
                }
            )
    return pl.DataFrame(rows, schema=COMPARISON_SCHEMA)
