"""Topic set size design (Sakai 2014, 2016): how many topics a test collection needs.

Given the smallest difference between systems that an experiment should be able
to detect, and the variance of the measure over topics, each function returns
the smallest number of topics ``n`` that meets the requirement:

- :func:`topic_set_size_t`: a two-sided paired t-test reaches power ``1 - beta``
  at level ``alpha`` against a difference ``min_diff`` (noncentral t, exact).
- :func:`topic_set_size_anova`: a one-way ANOVA over ``m`` systems reaches power
  ``1 - beta`` when the best and worst systems are ``min_range`` apart
  (noncentral F, exact).
- :func:`topic_set_size_ci`: the expected width of the ``1 - alpha`` confidence
  interval of a mean difference is at most ``width``.
- :func:`topic_set_variance`: the variances these need, estimated from a
  per-query frame of existing runs as Sakai does (the residual variance of the
  two-way ANOVA without replication, and the variance of paired differences).

Sakai's Excel tools approximate the noncentral distributions; these functions
compute the exact powers with scipy's ``nct`` and ``ncf`` and increase ``n``
until the requirement holds, so their ``n`` can differ from the tools' by a topic
or two where the approximations are loose (small ``n``). Each requirement is
monotone in ``n``, so the smallest ``n`` is found by doubling then bisection: it
holds at ``n`` and fails at ``n - 1``.

References
----------
- T. Sakai, "Statistical Reform in Information Retrieval?", SIGIR Forum 48(1), 2014.
- T. Sakai, "Topic Set Size Design", Information Retrieval Journal 19(3), 2016.
- T. Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import isfinite

import numpy as np
import polars as pl
from scipy import special, stats  # type: ignore[import-untyped]

from polars_rankmetrics.comparisons.anova import residual_mean_square
from polars_rankmetrics.meta_evaluation.systems import _matrix

_MAX_TOPICS = 2**40


def _probability(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value < 1.0:
        msg = f"`{name}` must be a number in (0, 1), got {value!r}"
        raise ValueError(msg)
    return float(value)


def _positives(value: float | Sequence[float], name: str) -> list[float]:
    values = [value] if isinstance(value, int | float) else list(value)
    if not values:
        msg = f"`{name}` is empty: give at least one positive number"
        raise ValueError(msg)
    for item in values:
        if (
            isinstance(item, bool)
            or not isinstance(item, int | float)
            or not isfinite(item)
            or item <= 0
        ):
            msg = f"`{name}` must be a positive finite number, got {item!r}"
            raise ValueError(msg)
    return [float(item) for item in values]


def _smallest_n(meets: Callable[[int], bool]) -> int:
    """The smallest ``n >= 2`` with ``meets(n)``, for a requirement monotone in ``n``."""
    high = 2
    while not meets(high):
        high *= 2
        if high > _MAX_TOPICS:
            msg = f"no topic set size up to {_MAX_TOPICS} meets the requirement"
            raise ValueError(msg)
    low = high // 2  # meets(low) is False, or low == 1 (below the smallest n)
    while high - low > 1:
        middle = (low + high) // 2
        if meets(middle):
            high = middle
        else:
            low = middle
    return high


def _finite(power: float, n: int) -> float:
    if not isfinite(power):
        msg = f"scipy returned a non-finite power at n={n}: the inputs are too extreme"
        raise ValueError(msg)
    return power


def t_test_power(n: int, effect: float, alpha: float) -> float:
    """Power of the two-sided paired t-test on ``n`` topics at standardised effect ``effect``.

    ``P(|T'| >= t_{alpha/2}(n - 1))`` with ``T'`` noncentral t, ``n - 1`` df and
    noncentrality ``sqrt(n) * effect``.
    """
    df = n - 1
    critical = float(stats.t.isf(alpha / 2, df))
    noncentrality = np.sqrt(n) * effect
    upper = float(stats.nct.sf(critical, df, noncentrality))
    # P(T' <= -c) as P(T'' >= c) with the noncentrality negated: equal where
    # scipy's nct.cdf is finite, and 0 (not NaN) where the tail underflows
    lower = float(stats.nct.sf(critical, df, -noncentrality))
    return _finite(upper + lower, n)


def anova_power(n: int, m: int, noncentrality_per_topic: float, alpha: float) -> float:
    """Power of the one-way ANOVA of ``m`` systems on ``n`` topics each.

    ``P(F' >= F_alpha(m - 1, m (n - 1)))`` with ``F'`` noncentral F of
    noncentrality ``n * noncentrality_per_topic``.
    """
    df_between, df_error = m - 1, m * (n - 1)
    critical = float(stats.f.isf(alpha, df_between, df_error))
    power = float(stats.ncf.sf(critical, df_between, df_error, n * noncentrality_per_topic))
    return _finite(power, n)


def expected_ci_width(n: int, variance: float, alpha: float) -> float:
    """Expected width of the ``1 - alpha`` t interval of a mean over ``n`` topics.

    ``2 t_{alpha/2}(n - 1) E[s] / sqrt(n)`` with ``E[s] = c4(n) sigma`` and
    ``c4(n) = sqrt(2 / (n - 1)) Gamma(n / 2) / Gamma((n - 1) / 2)``.
    """
    c4 = np.sqrt(2.0 / (n - 1)) * np.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
    critical = float(stats.t.isf(alpha / 2, n - 1))
    return float(2.0 * critical * c4 * np.sqrt(variance) / np.sqrt(n))


def topic_set_size_t(
    min_diff: float | Sequence[float],
    variance: float,
    *,
    alpha: float = 0.05,
    beta: float = 0.20,
) -> pl.DataFrame:
    """
    Topics a two-sided paired t-test needs to detect ``min_diff`` (Sakai 2016).

    The smallest ``n >= 2`` whose power is at least ``1 - beta``: with the
    standardised difference ``d = min_diff / sqrt(variance)``, the power is
    ``P(|T'| >= t_{alpha/2}(n - 1))`` for ``T'`` noncentral t with ``n - 1``
    degrees of freedom and noncentrality ``sqrt(n) d``, computed exactly (both
    tails; the same power as ``statsmodels``' ``TTestPower().power(d, n,
    alpha)``), so ``n`` is the ceiling of ``TTestPower().solve_power``.

    Parameters
    ----------
    min_diff
        The minimum detectable difference of the mean measure between two
        systems, positive; a sequence gives one row per value.
    variance
        The variance of the per-topic score differences, positive. Sakai
        estimates it as twice the residual variance of the two-way ANOVA of
        existing runs: ``difference_variance`` of :func:`topic_set_variance`.
    alpha
        The significance level, in (0, 1).
    beta
        The type II error rate, in (0, 1): the power is ``1 - beta``.

    Returns
    -------
    polars.DataFrame
        ``alpha, beta, min_diff, variance, n, power`` (the power at ``n``), one
        row per ``min_diff``.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import topic_set_size_t
    >>> topic_set_size_t([0.05, 0.10], 0.02)
    shape: (2, 6)
    ┌───────┬──────┬──────────┬──────────┬─────┬──────────┐
    │ alpha ┆ beta ┆ min_diff ┆ variance ┆ n   ┆ power    │
    │ ---   ┆ ---  ┆ ---      ┆ ---      ┆ --- ┆ ---      │
    │ f64   ┆ f64  ┆ f64      ┆ f64      ┆ i64 ┆ f64      │
    ╞═══════╪══════╪══════════╪══════════╪═════╪══════════╡
    │ 0.05  ┆ 0.2  ┆ 0.05     ┆ 0.02     ┆ 65  ┆ 0.801632 │
    │ 0.05  ┆ 0.2  ┆ 0.1      ┆ 0.02     ┆ 18  ┆ 0.807046 │
    └───────┴──────┴──────────┴──────────┴─────┴──────────┘
    """
    alpha, beta = _probability(alpha, "alpha"), _probability(beta, "beta")
    (variance,) = _positives(variance, "variance")
    rows = []
    for diff in _positives(min_diff, "min_diff"):
        effect = float(diff / np.sqrt(variance))

        def powerful(n: int, effect: float = effect) -> bool:
            return t_test_power(n, effect, alpha) >= 1 - beta

        n = _smallest_n(powerful)
        rows.append((alpha, beta, diff, variance, n, t_test_power(n, effect, alpha)))
    schema = ["alpha", "beta", "min_diff", "variance", "n", "power"]
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(pl.col("n").cast(pl.Int64))


def topic_set_size_anova(
    min_range: float | Sequence[float],
    variance: float,
    *,
    m: int,
    alpha: float = 0.05,
    beta: float = 0.20,
) -> pl.DataFrame:
    """
    Topics a one-way ANOVA of ``m`` systems needs to detect a range ``min_range``.

    Sakai (2016): the systems' population means differ by at least
    ``min_range`` between the best and the worst; the least favourable such
    configuration (two means ``min_range`` apart, the others at their mean)
    has ``sum_i (mu_i - mu)**2 = min_range**2 / 2``. With ``n`` topics per
    system the test statistic is noncentral F with ``m - 1`` and ``m (n - 1)``
    degrees of freedom and noncentrality

        ``lambda = n * min_range**2 / (2 * variance)``,

    and ``n`` is the smallest ``n >= 2`` whose power ``P(F' >= F_alpha(m - 1,
    m (n - 1)))`` is at least ``1 - beta`` (exact, scipy's ``ncf``). In
    ``statsmodels``' convention (``FTestAnovaPower``: Cohen's f, ``nobs`` the
    total number of observations, noncentrality ``f**2 * nobs``) this is
    ``f = sqrt(min_range**2 / (2 m variance))`` and ``nobs = m n``.

    Parameters
    ----------
    min_range
        The minimum detectable range of the systems' mean measures, positive; a
        sequence gives one row per value.
    variance
        The within-system variance of the measure over topics, positive: Sakai
        uses the residual variance of the two-way ANOVA without replication of
        existing runs (``residual_variance`` of :func:`topic_set_variance`).
    m
        The number of systems to compare, at least 2.
    alpha
        The significance level, in (0, 1).
    beta
        The type II error rate, in (0, 1).

    Returns
    -------
    polars.DataFrame
        ``alpha, beta, m, min_range, variance, n, power``, one row per
        ``min_range``.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import topic_set_size_anova
    >>> topic_set_size_anova(0.10, 0.01, m=10)
    shape: (1, 7)
    ┌───────┬──────┬─────┬───────────┬──────────┬─────┬──────────┐
    │ alpha ┆ beta ┆ m   ┆ min_range ┆ variance ┆ n   ┆ power    │
    │ ---   ┆ ---  ┆ --- ┆ ---       ┆ ---      ┆ --- ┆ ---      │
    │ f64   ┆ f64  ┆ i64 ┆ f64       ┆ f64      ┆ i64 ┆ f64      │
    ╞═══════╪══════╪═════╪═══════════╪══════════╪═════╪══════════╡
    │ 0.05  ┆ 0.2  ┆ 10  ┆ 0.1       ┆ 0.01     ┆ 33  ┆ 0.812776 │
    └───────┴──────┴─────┴───────────┴──────────┴─────┴──────────┘
    """
    alpha, beta = _probability(alpha, "alpha"), _probability(beta, "beta")
    if isinstance(m, bool) or not isinstance(m, int) or m < 2:
        msg = f"`m` (the number of systems) must be an integer >= 2, got {m!r}"
        raise ValueError(msg)
    (variance,) = _positives(variance, "variance")
    rows = []
    for spread in _positives(min_range, "min_range"):
        per_topic = spread**2 / (2.0 * variance)

        def powerful(n: int, per_topic: float = per_topic) -> bool:
            return anova_power(n, m, per_topic, alpha) >= 1 - beta

        n = _smallest_n(powerful)
        rows.append((alpha, beta, m, spread, variance, n, anova_power(n, m, per_topic, alpha)))
    schema = ["alpha", "beta", "m", "min_range", "variance", "n", "power"]
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return frame.with_columns(pl.col("m", "n").cast(pl.Int64))


def topic_set_size_ci(
    width: float | Sequence[float],
    variance: float,
    *,
    alpha: float = 0.05,
) -> pl.DataFrame:
    """
    Topics for the confidence interval of a mean difference to be at most ``width`` wide.

    Sakai (2016): the ``1 - alpha`` interval of the mean of ``n``
    paired differences is ``2 t_{alpha/2}(n - 1) s / sqrt(n)`` wide (full
    width, not the half width), where the sample standard deviation ``s`` has
    expectation ``c4(n) sigma`` with ``c4(n) = sqrt(2 / (n - 1)) Gamma(n / 2) /
    Gamma((n - 1) / 2)``; ``n`` is the smallest ``n >= 2`` whose expected width
    ``2 t_{alpha/2}(n - 1) c4(n) sigma / sqrt(n)`` is at most ``width``.

    Parameters
    ----------
    width
        The largest acceptable expected width of the interval, positive; a
        sequence gives one row per value.
    variance
        ``sigma**2``, the variance of the per-topic score differences, positive
        (``difference_variance`` of :func:`topic_set_variance`).
    alpha
        ``1 - alpha`` is the confidence level, in (0, 1).

    Returns
    -------
    polars.DataFrame
        ``alpha, width, variance, n, expected_width`` (at ``n``), one row per
        ``width``.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import topic_set_size_ci
    >>> topic_set_size_ci(0.10, 0.02)
    shape: (1, 5)
    ┌───────┬───────┬──────────┬─────┬────────────────┐
    │ alpha ┆ width ┆ variance ┆ n   ┆ expected_width │
    │ ---   ┆ ---   ┆ ---      ┆ --- ┆ ---            │
    │ f64   ┆ f64   ┆ f64      ┆ i64 ┆ f64            │
    ╞═══════╪═══════╪══════════╪═════╪════════════════╡
    │ 0.05  ┆ 0.1   ┆ 0.02     ┆ 33  ┆ 0.099511       │
    └───────┴───────┴──────────┴─────┴────────────────┘
    """
    alpha = _probability(alpha, "alpha")
    (variance,) = _positives(variance, "variance")
    rows = []
    for limit in _positives(width, "width"):

        def narrow(n: int, limit: float = limit) -> bool:
            return expected_ci_width(n, variance, alpha) <= limit

        n = _smallest_n(narrow)
        rows.append((alpha, limit, variance, n, expected_ci_width(n, variance, alpha)))
    schema = ["alpha", "width", "variance", "n", "expected_width"]
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(pl.col("n").cast(pl.Int64))


def topic_set_variance(
    per_query: pl.DataFrame,
    *,
    system: str = "system",
    query: str = "query",
    value: str = "value",
) -> pl.DataFrame:
    """
    The variances topic set size design needs, estimated from existing runs.

    From a (system x topic) matrix of one measure (every system needs a value
    for every topic):

    - ``residual_variance``: the residual mean square ``V_E`` of the two-way
      ANOVA without replication, ``sum (x_st - mean_s - mean_t + mean)**2 /
      ((k - 1)(n - 1))`` (Sakai's estimate of the within-system variance, for
      :func:`topic_set_size_anova`), with ``residual_df``;
    - ``one_way_variance``: the one-way residual mean square ``sum (x_st -
      mean_s)**2 / (k (n - 1))``, which keeps the topics' difficulty in the error;
    - ``difference_variance``: the mean over system pairs of the sample
      variance (``n - 1`` denominator) of their per-topic differences, for
      :func:`topic_set_size_t` and :func:`topic_set_size_ci`. It equals
      ``2 * residual_variance`` exactly (the residuals sum to zero over
      systems), Sakai's ``sigma_t**2 = 2 sigma**2``.

    Parameters
    ----------
    per_query
        Long frame: one row per (system, topic) with the measure's value; at
        least two systems and two topics.
    system, query, value
        The column names.

    Returns
    -------
    polars.DataFrame
        One row: ``n_systems, n_topics, residual_variance, residual_df,
        one_way_variance, difference_variance``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.meta_evaluation import topic_set_variance
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...     "query": [1, 2, 3, 4] * 3,
    ...     "value": [0.5, 0.2, 0.9, 0.4, 0.4, 0.3, 0.7, 0.2, 0.6, 0.1, 0.8, 0.3],
    ... })
    >>> topic_set_variance(per_query).select(
    ...     "residual_variance", "one_way_variance", "difference_variance"
    ... )
    shape: (1, 3)
    ┌───────────────────┬──────────────────┬─────────────────────┐
    │ residual_variance ┆ one_way_variance ┆ difference_variance │
    │ ---               ┆ ---              ┆ ---                 │
    │ f64               ┆ f64              ┆ f64                 │
    ╞═══════════════════╪══════════════════╪═════════════════════╡
    │ 0.01              ┆ 0.076667         ┆ 0.02                │
    └───────────────────┴──────────────────┴─────────────────────┘
    """
    _, matrix = _matrix(per_query, system, query, value)
    n_topics, n_systems = matrix.shape
    if n_topics < 2:
        msg = f"estimating a variance needs at least two topics in `{query}`, got {n_topics}"
        raise ValueError(msg)
    values = np.ascontiguousarray(matrix.T)
    residual, residual_df = residual_mean_square(values, "two-way")
    one_way, _ = residual_mean_square(values, "one-way")
    first, second = np.triu_indices(n_systems, k=1)
    differences = matrix[:, first] - matrix[:, second]
    difference = float(differences.var(axis=0, ddof=1).mean())
    row = (n_systems, n_topics, residual, residual_df, one_way, difference)
    schema = {
        "n_systems": pl.Int64,
        "n_topics": pl.Int64,
        "residual_variance": pl.Float64,
        "residual_df": pl.Int64,
        "one_way_variance": pl.Float64,
        "difference_variance": pl.Float64,
    }
    return pl.DataFrame([row], schema=schema, orient="row")
