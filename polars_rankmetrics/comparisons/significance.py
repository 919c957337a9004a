"""Paired significance tests, confidence intervals and p-value corrections.

These work on plain numpy arrays: one value per query for a treatment system
and, aligned with it, one for the baseline. :func:`polars_rankmetrics.compare`
runs them over a per-query frame. Every resampling test is vectorised (one
matrix product or gather per block of resamples, never a Python loop per
resample) and deterministic for a given ``seed``.

Needs numpy, and scipy for the t distribution (the ``stats`` extra).

References
----------
- R. A. Fisher, *The Design of Experiments*, 1935 (the randomization test).
- B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, 1993,
  sections 13.3 (percentile interval) and 16.4 (paired bootstrap test).
- M. D. Smucker, J. Allan and B. Carterette, "A Comparison of Statistical
  Significance Tests for Information Retrieval Evaluation", CIKM 2007.
- S. Holm, "A Simple Sequentially Rejective Multiple Test Procedure", 1979.
- B. Phipson and G. K. Smyth, "Permutation P-values Should Never Be Zero", 2010.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from polars_rankmetrics._validate import check_k

FloatArray: TypeAlias = npt.NDArray[np.float64]
ArrayLike: TypeAlias = npt.ArrayLike

Correction: TypeAlias = Literal["holm", "bonferroni"]
"""A correction for multiple comparisons; ``None`` means no correction."""

# Each block of resamples holds at most this many (resample, query) cells, so
# that 10,000 resamples over 100,000 queries stay within a few tens of MB.
_BLOCK_CELLS = 1 << 21

# Two resampled statistics that are equal in exact arithmetic can differ in the
# last bits after summing in another order; the slack counts them as equal.
_RELATIVE_SLACK = 1e-10


def _differences(treatment: ArrayLike, baseline: ArrayLike) -> FloatArray:
    treated = np.asarray(treatment, dtype=np.float64)
    base = np.asarray(baseline, dtype=np.float64)
    if treated.ndim != 1 or treated.shape != base.shape:
        msg = (
            "`treatment` and `baseline` must be 1-d arrays of equal length, "
            f"got shapes {treated.shape} and {base.shape}"
        )
        raise ValueError(msg)
    if np.isnan(treated).any() or np.isnan(base).any():
        msg = "`treatment` and `baseline` must not contain NaN: align or drop missing queries first"
        raise ValueError(msg)
    return treated - base


def check_n_resamples(n_resamples: object) -> int:
    """Return ``n_resamples`` if it is a positive int, else raise ``ValueError``."""
    return check_k(n_resamples, "n_resamples")


def _blocks(n_resamples: int, n_values: int) -> Iterator[int]:
    """Sizes of the blocks of resamples; they depend only on the two counts."""
    block = max(1, _BLOCK_CELLS // max(n_values, 1))
    for start in range(0, n_resamples, block):
        yield min(block, n_resamples - start)


def _slack(differences: FloatArray) -> float:
    return _RELATIVE_SLACK * float(np.abs(differences).sum())


def paired_t_test(treatment: ArrayLike, baseline: ArrayLike) -> float:
    """
    Two-sided p-value of the paired t-test: Student's t on the differences.

    With ``d = treatment - baseline`` over ``n`` queries,
    ``t = mean(d) / (std(d, ddof=1) / sqrt(n))`` and the p-value is
    ``2 * P(T > |t|)`` for ``T`` with ``n - 1`` degrees of freedom, exactly what
    ``scipy.stats.ttest_rel(treatment, baseline)`` returns. Where scipy returns
    NaN this differs on purpose: when every difference is 0 the p-value is 1
    (no evidence of a difference); with fewer than two queries it is NaN.

    Parameters
    ----------
    treatment
        One value per query for the system under test.
    baseline
        The baseline's values for the same queries, in the same order.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.significance import paired_t_test
    >>> round(paired_t_test([0.5, 0.6, 0.9, 0.7], [0.4, 0.6, 0.5, 0.5]), 6)
    0.132842
    """
    from scipy import stats  # type: ignore[import-untyped]

    differences = _differences(treatment, baseline)
    n = differences.size
    if n < 2:
        return float("nan")
    mean = differences.mean()
    deviation = differences.std(ddof=1)
    if deviation == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    t = mean / (deviation / np.sqrt(n))
    return float(2.0 * stats.t.sf(abs(t), n - 1))


def randomization_test(
    treatment: ArrayLike, baseline: ArrayLike, *, n_resamples: int = 10_000, seed: int = 0
) -> float:
    """
    Two-sided p-value of Fisher's paired randomization (sign-flip) test.

    Under the null hypothesis the two systems are exchangeable on each query, so
    each difference ``d_i = treatment_i - baseline_i`` is as likely to have the
    opposite sign. The statistic is ``|sum(d)|`` (equivalently ``|mean(d)|``).

    - When ``2**n <= n_resamples`` the test is exact: the p-value is the share
      of all ``2**n`` sign assignments (the observed one included) whose
      statistic is at least the observed one.
    - Otherwise it draws ``n_resamples`` random sign vectors from
      ``numpy.random.default_rng(seed)`` and returns ``(b + 1) /
      (n_resamples + 1)``, where ``b`` counts the draws at least as extreme
      (Phipson and Smyth, 2010): a valid p-value that is never 0.

    Statistics within ``1e-10 * sum(|d|)`` of the observed one count as equal.

    Parameters
    ----------
    treatment
        One value per query for the system under test.
    baseline
        The baseline's values for the same queries, in the same order.
    n_resamples
        The number of random sign vectors (and the threshold for the exact test).
    seed
        Seed of the random generator; the same seed gives the same p-value.

    Examples
    --------
    Four queries, so the 16 sign flips are enumerated: 2 of them reach the
    observed ``|sum(d)| = 0.8`` (the identity and the flip of every sign).

    >>> from polars_rankmetrics.comparisons.significance import randomization_test
    >>> randomization_test([0.5, 0.6, 0.9, 0.7], [0.4, 0.5, 0.5, 0.5])
    0.125
    """
    n_resamples = check_n_resamples(n_resamples)
    differences = _differences(treatment, baseline)
    n = differences.size
    if n == 0:
        return float("nan")
    observed = abs(differences.sum()) - _slack(differences)
    if n < 63 and (1 << n) <= n_resamples:
        return _exact_randomization(differences, observed)
    rng = np.random.default_rng(seed)
    extreme = 0
    for block in _blocks(n_resamples, n):
        flips = rng.integers(0, 2, size=(block, n), dtype=np.int8)
        sums = differences.sum() - 2.0 * (flips @ differences)
        extreme += int(np.count_nonzero(np.abs(sums) >= observed))
    return (extreme + 1) / (n_resamples + 1)


def _exact_randomization(differences: FloatArray, observed: float) -> float:
    """The share of all ``2**n`` sign assignments at least as extreme, enumerated in blocks.

    Each block of assignments is at most :data:`_BLOCK_CELLS` signs, so memory stays
    bounded whatever ``n`` (24 queries: 16.8M assignments, a few MB at a time).
    """
    n = differences.size
    bits = np.arange(n, dtype=np.int64)
    extreme = 0
    start = 0
    for block in _blocks(1 << n, n):
        assignments = np.arange(start, start + block, dtype=np.int64)[:, None] >> bits
        signs = 1.0 - 2.0 * (assignments & 1)
        extreme += int(np.count_nonzero(np.abs(signs @ differences) >= observed))
        start += block
    return extreme / (1 << n)


def bootstrap_test(
    treatment: ArrayLike, baseline: ArrayLike, *, n_resamples: int = 10_000, seed: int = 0
) -> float:
    """
    Two-sided p-value of the paired bootstrap test of a zero mean difference.

    The differences ``d`` are shifted to mean 0 (which makes the null
    hypothesis true), resampled with replacement ``n_resamples`` times, and the
    p-value is ``(b + 1) / (n_resamples + 1)``, where ``b`` counts resamples
    whose ``|mean|`` is at least the observed ``|mean(d)|`` (Efron and
    Tibshirani 1993, 16.4, with the mean as the statistic).

    Fewer than two queries give NaN: the centred differences are all 0 and
    the test is undefined. A resampled mean is never further from 0 than the
    largest centred difference, so when ``|mean(d)|`` exceeds every ``|d_i -
    mean(d)|`` no resample reaches it and the p-value is its floor ``1 /
    (n_resamples + 1)`` (with two queries, whenever both favour one system):
    the test has no resolution there, and
    :func:`polars_rankmetrics.compare_pairs` says so in its ``note``.

    Parameters
    ----------
    treatment
        One value per query for the system under test.
    baseline
        The baseline's values for the same queries, in the same order.
    n_resamples
        The number of bootstrap resamples.
    seed
        Seed of ``numpy.random.default_rng``; the same seed gives the same p-value.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.significance import bootstrap_test
    >>> treatment = [0.5, 0.6, 0.9, 0.7, 0.4, 0.8]
    >>> bootstrap_test(treatment, [0.5, 0.6, 0.9, 0.7, 0.4, 0.8])
    1.0
    >>> bootstrap_test(treatment, [0.3, 0.5, 0.6, 0.5, 0.4, 0.6], n_resamples=999) < 0.05
    True
    """
    n_resamples = check_n_resamples(n_resamples)
    differences = _differences(treatment, baseline)
    if differences.size < 2:
        return float("nan")
    observed = abs(differences.mean()) - _slack(differences) / differences.size
    centred = differences - differences.mean()
    means = _bootstrap_means(centred, n_resamples, seed)
    extreme = int(np.count_nonzero(np.abs(means) >= observed))
    return (extreme + 1) / (n_resamples + 1)


def _bootstrap_means(values: FloatArray, n_resamples: int, seed: int) -> FloatArray:
    """Return the means of ``n_resamples`` resamples of ``values`` with replacement."""
    rng = np.random.default_rng(seed)
    n = values.size
    means = [
        values[rng.integers(0, n, size=(block, n))].mean(axis=1)
        for block in _blocks(n_resamples, n)
    ]
    return np.concatenate(means)


def _check_confidence(confidence: object) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        confidence = float("nan")
    if not 0.0 < float(confidence) < 1.0:
        msg = f"`confidence` must be a number in (0, 1), got {confidence!r}"
        raise ValueError(msg)
    return float(confidence)


def bootstrap_ci(
    values: ArrayLike, *, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """
    Bootstrap percentile confidence interval of the mean.

    Resamples the values with replacement ``n_resamples`` times and returns the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles (numpy's
    default linear interpolation) of the resampled means (Efron and Tibshirani
    1993, 13.3). One value gives the interval ``(value, value)``; none gives NaN.

    Parameters
    ----------
    values
        One value per query.
    confidence
        The coverage of the interval, in (0, 1).
    n_resamples
        The number of bootstrap resamples.
    seed
        Seed of ``numpy.random.default_rng``; the same seed gives the same interval.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.significance import bootstrap_ci
    >>> low, high = bootstrap_ci([0.2, 0.4, 0.6, 0.8, 1.0], n_resamples=2000)
    >>> bool(0.2 < low < 0.6 < high < 1.0)
    True
    """
    confidence = _check_confidence(confidence)
    n_resamples = check_n_resamples(n_resamples)
    sample = np.asarray(values, dtype=np.float64)
    if sample.size == 0:
        return float("nan"), float("nan")
    means = _bootstrap_means(sample, n_resamples, seed)
    low, high = np.quantile(means, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0])
    return float(low), float(high)


def t_ci(values: ArrayLike, *, confidence: float = 0.95) -> tuple[float, float]:
    """
    Student's t confidence interval of the mean: ``mean ± t * std / sqrt(n)``.

    ``t`` is the ``(1 + confidence) / 2`` quantile of Student's t with ``n - 1``
    degrees of freedom, as in ``scipy.stats.t.interval``. Fewer than two values
    give NaN bounds.

    Parameters
    ----------
    values
        One value per query.
    confidence
        The coverage of the interval, in (0, 1).

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.significance import t_ci
    >>> [round(bound, 4) for bound in t_ci([0.2, 0.4, 0.6, 0.8, 1.0])]
    [0.2074, 0.9926]
    """
    from scipy import stats

    confidence = _check_confidence(confidence)
    sample = np.asarray(values, dtype=np.float64)
    n = sample.size
    if n < 2:
        return float("nan"), float("nan")
    half_width = stats.t.ppf((1.0 + confidence) / 2.0, n - 1) * sample.std(ddof=1) / np.sqrt(n)
    mean = sample.mean()
    return float(mean - half_width), float(mean + half_width)


def check_correction(correction: object) -> None:
    """Raise ``ValueError`` unless ``correction`` is 'holm', 'bonferroni' or None."""
    if correction not in ("holm", "bonferroni", None):
        msg = f"`correction` must be one of 'holm', 'bonferroni', None, got {correction!r}"
        raise ValueError(msg)


def adjust_p_values(p_values: ArrayLike, correction: Correction | None) -> FloatArray:
    """
    Adjust p-values for multiple comparisons (family-wise error rate).

    - ``"bonferroni"``: ``min(1, m * p)``.
    - ``"holm"``: Holm's step-down procedure. With the ``m`` p-values sorted
      ascending, the ``i``-th (1-based) becomes ``min(1, max_{j <= i} (m - j + 1)
      * p_(j))``. It rejects everything Bonferroni rejects, and possibly more.
    - ``None``: the p-values unchanged.

    A hypothesis is rejected at level ``alpha`` when its adjusted p-value is at
    most ``alpha``. NaN p-values (untestable comparisons) stay NaN and do not
    count in ``m``.

    Parameters
    ----------
    p_values
        The p-values of one family of comparisons.
    correction : {'holm', 'bonferroni', None}
        The correction.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.significance import adjust_p_values
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bonferroni").round(4).tolist()
    [0.03, 0.12, 0.09]
    """
    check_correction(correction)
    raw = np.asarray(p_values, dtype=np.float64)
    adjusted = raw.copy()
    testable = ~np.isnan(raw)
    tested = raw[testable]
    m = tested.size
    if correction is None or m == 0:
        return adjusted
    if correction == "bonferroni":
        adjusted[testable] = np.minimum(1.0, m * tested)
        return adjusted
    order = np.argsort(tested, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * tested[order])
    holm = np.empty(m)
    holm[order] = np.minimum(1.0, stepped)
    adjusted[testable] = holm
    return adjusted
