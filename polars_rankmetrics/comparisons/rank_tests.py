"""Paired tests on signs and ranks: Wilcoxon's signed-rank test and the sign test.

Both work on the per-query differences ``d = treatment - baseline`` of two
systems and return a two-sided p-value. They reproduce
``scipy.stats.wilcoxon`` and ``scipy.stats.binomtest`` (written out here so that
the choice of method, the treatment of zeros and ties, and the tie correction
are visible; the tests compare both with scipy).

References
----------
- F. Wilcoxon, "Individual Comparisons by Ranking Methods", Biometrics Bulletin 1945.
- J. W. Pratt, "Remarks on Zeros and Ties in the Wilcoxon Signed Rank
  Procedures", JASA 1959.
- W. J. Conover, *Practical Nonparametric Statistics*, 3rd ed., 1999 (the sign
  test, section 3.4).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from polars_rankmetrics._validate import check_choice

FloatArray: TypeAlias = npt.NDArray[np.float64]

ZeroMethod: TypeAlias = Literal["wilcox", "pratt", "zsplit"]
"""What a zero difference does in Wilcoxon's test (scipy's ``zero_method``)."""

WilcoxonMethod: TypeAlias = Literal["auto", "exact", "asymptotic"]
"""How Wilcoxon's p-value is computed (scipy's ``method``)."""

# scipy switches from the exact distribution to the normal approximation above
# 50 queries, and enumerates sign flips (its permutation test) up to 13.
_EXACT_MAX = 50
_FLIPS_MAX = 13


def _differences(treatment: npt.ArrayLike, baseline: npt.ArrayLike) -> FloatArray:
    treated = np.asarray(treatment, dtype=np.float64)
    base = np.asarray(baseline, dtype=np.float64)
    if treated.ndim != 1 or treated.shape != base.shape:
        msg = (
            "`treatment` and `baseline` must be 1-d arrays of equal length, "
            f"got shapes {treated.shape} and {base.shape}"
        )
        raise ValueError(msg)
    differences = treated - base
    if np.isnan(differences).any():
        msg = "`treatment` and `baseline` must not contain NaN: align or drop missing queries first"
        raise ValueError(msg)
    return differences


def _average_ranks(values: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Average ranks (1-based) of ``values`` and the size of each group of ties."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(starts, values.size))
    mid = starts + 1 + (counts - 1) / 2.0
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(mid, counts)
    return ranks, counts.astype(np.float64)


def _exact_signed_rank_pmf(n: int) -> FloatArray:
    """P(R+ = r), r = 0..n(n+1)/2, for n untied non-zero differences under the null."""
    pmf = np.ones(1)
    for k in range(1, n + 1):
        previous = pmf
        pmf = np.zeros(k * (k + 1) // 2 + 1)
        pmf[: previous.size] = previous * 0.5
        pmf[-previous.size :] += previous * 0.5
    return pmf


def wilcoxon_test(
    treatment: npt.ArrayLike,
    baseline: npt.ArrayLike,
    *,
    zero_method: ZeroMethod = "wilcox",
    correction: bool = False,
    method: WilcoxonMethod = "auto",
) -> float:
    """
    Two-sided p-value of Wilcoxon's signed-rank test on paired values.

    The differences ``d = treatment - baseline`` are ranked by ``|d|`` (average
    ranks for ties) and ``R+`` sums the ranks of the positive ones. Zeros
    (``zero_method``): ``"wilcox"`` drops them before ranking; ``"pratt"`` ranks
    them and then leaves them out of ``R+`` (and out of the normal
    approximation's mean and variance, Cureton's adjustment); ``"zsplit"``
    ranks them and adds half of their ranks to ``R+``.

    The p-value (``method``), as ``scipy.stats.wilcoxon`` chooses it:

    - ``"exact"``: from the exact null distribution of ``R+`` over the ``n``
      ranks (non-integral ``R+`` rounded conservatively, as scipy does);
    - ``"asymptotic"``: ``z = (R+ - mean) / se`` with the tie correction
      ``se**2 = (n(n+1)(2n+1) - sum(t**3 - t) / 2) / 24``, and ``correction``
      moves ``|z|`` half a unit towards 0 (continuity);
    - ``"auto"``: over 50 queries asymptotic; otherwise exact when there are
      no ties and no zeros; otherwise, up to 13 queries, the share of the
      ``2**n`` sign flips of ``d`` whose ``R+`` is as extreme (two-sided:
      twice the smaller tail, at most 1); otherwise asymptotic.

    Every difference being 0 gives a NaN p-value, as in scipy, for
    ``zero_method="wilcox"``; :func:`polars_rankmetrics.compare_pairs` says so
    in its ``note`` column.

    Parameters
    ----------
    treatment
        One value per query for one system.
    baseline
        The other system's values on the same queries, in the same order.
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        What zero differences do.
    correction
        Apply the continuity correction to the normal approximation.
    method : {'auto', 'exact', 'asymptotic'}
        How the p-value is computed.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.rank_tests import wilcoxon_test
    >>> round(wilcoxon_test([0.5, 0.6, 0.9, 0.7, 0.8], [0.4, 0.5, 0.5, 0.2, 0.6]), 6)
    0.0625
    """
    check_choice(zero_method, "zero_method", ZeroMethod)
    check_choice(method, "method", WilcoxonMethod)
    if not isinstance(correction, bool):
        msg = f"`correction` must be a bool, got {correction!r}"
        raise ValueError(msg)
    from scipy import stats  # type: ignore[import-untyped]

    differences = _differences(treatment, baseline)
    n_total = differences.size
    if n_total == 0:
        return float("nan")
    zeros = differences == 0.0
    n_zero = int(zeros.sum())
    ranked = differences[~zeros] if zero_method == "wilcox" else differences
    count = ranked.size
    ranks, ties = _average_ranks(np.abs(ranked))
    positive = ranked > 0.0
    r_plus = float(ranks[positive].sum())
    if zero_method == "zsplit":
        r_plus += float(ranks[ranked == 0.0].sum()) / 2.0
    mean = count * (count + 1.0) / 4.0
    variance_sum = count * (count + 1.0) * (2.0 * count + 1.0)
    tie_groups = ties
    if zero_method == "pratt" and n_zero:
        mean -= n_zero * (n_zero + 1.0) / 4.0
        variance_sum -= n_zero * (n_zero + 1.0) * (2.0 * n_zero + 1.0)
        tie_groups = ties[1:]  # the zeros, the smallest |d|, are not ties to correct
    has_ties = bool((ties > 1).any())
    chosen = method
    if method == "auto":
        if n_total > _EXACT_MAX:
            chosen = "asymptotic"
        elif not (has_ties or n_zero):
            chosen = "exact"
        elif n_total > _FLIPS_MAX:
            chosen = "asymptotic"
        else:
            return _sign_flip_p(ranks, positive, ranked, r_plus)
    if chosen == "asymptotic":
        se = np.sqrt((variance_sum - float((tie_groups**3 - tie_groups).sum()) / 2.0) / 24.0)
        if not se > 0.0:
            return float("nan")
        z = (r_plus - mean) / se
        if correction:
            z -= np.sign(z) * 0.5 / se
        return float(2.0 * stats.norm.sf(abs(z)))
    pmf = _exact_signed_rank_pmf(count)
    upper = pmf[int(np.floor(r_plus)) :].sum()
    lower = pmf[: int(np.ceil(r_plus)) + 1].sum()
    return float(np.clip(2.0 * min(upper, lower), 0.0, 1.0))


def _sign_flip_p(
    ranks: FloatArray,
    positive: npt.NDArray[np.bool_],
    ranked: FloatArray,
    observed: float,
) -> float:
    """Twice the smaller tail of R+ over the 2**n sign flips (scipy's permutation test).

    Zeros dropped by ``zero_method="wilcox"`` flip too in scipy, which doubles
    every count and leaves the shares unchanged; flipping the non-zero values
    gives the same shares. A zero kept by ``pratt`` or ``zsplit`` contributes the
    same to R+ under every flip.
    """
    nonzero = ranked != 0.0
    constant = observed - float(ranks[positive].sum())
    moving = ranks[nonzero]
    bits = np.arange(moving.size, dtype=np.int64)
    flips = (np.arange(1 << moving.size, dtype=np.int64)[:, None] >> bits) & 1
    null = constant + flips @ moving
    slack = 1e-12 * max(abs(observed), 1.0)
    less = np.count_nonzero(null <= observed + slack) / null.size
    greater = np.count_nonzero(null >= observed - slack) / null.size
    return float(min(1.0, 2.0 * min(less, greater)))


def sign_test(treatment: npt.ArrayLike, baseline: npt.ArrayLike) -> float:
    """
    Two-sided p-value of the sign test on paired values.

    Counts the queries where ``treatment`` is higher (``k``) among those where
    the two differ (``n``; ties are dropped) and tests ``k ~ Binomial(n, 1/2)``:
    the p-value is ``scipy.stats.binomtest(k, n).pvalue``, which for ``p = 1/2``
    is ``min(1, 2 * P(X <= min(k, n - k)))``. When every difference is 0
    (``n = 0``) the p-value is 1: no query gives evidence of a difference.

    Parameters
    ----------
    treatment
        One value per query for one system.
    baseline
        The other system's values on the same queries, in the same order.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.rank_tests import sign_test
    >>> sign_test([0.5, 0.6, 0.9, 0.7, 0.8], [0.4, 0.5, 0.5, 0.2, 0.6])
    0.0625
    """
    from scipy import stats

    differences = _differences(treatment, baseline)
    k = int((differences > 0.0).sum())
    n = k + int((differences < 0.0).sum())
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * stats.binom.cdf(min(k, n - k), n, 0.5)))
