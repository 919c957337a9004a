"""Rank correlations between two orderings of the same items (systems, queries).

Each function takes two aligned 1-d arrays of scores (one value per item, the
same item at the same position) and orders the items by score, descending.

- :func:`kendall_tau`: Kendall's tau-a, ``(C - D) / (n (n - 1) / 2)``, or
  tau-b, ``(C - D) / sqrt((n0 - n1)(n0 - n2))`` with ``n1``, ``n2`` the tied
  pairs of each side (``scipy.stats.kendalltau``'s default).
- :func:`spearman`: Pearson's r of the average ranks (``scipy.stats.spearmanr``).
- :func:`pearson`: Pearson's r of the values (``scipy.stats.pearsonr``).
- :func:`tau_ap`: the AP rank correlation of Yilmaz, Aslam and Robertson
  (2008), which weighs swaps near the top of ``estimate`` more:
  ``tau_AP = 2 / (n - 1) * sum_{i=2}^{n} C(i) / (i - 1) - 1``, where ``i`` runs
  over the ranks of ``estimate`` and ``C(i)`` counts the items above rank ``i``
  in ``estimate`` that are also above that item in ``reference``. It is not
  symmetric; ``symmetric=True`` returns the mean of both directions.
- :func:`smare`: the scaled mean absolute rank error of a query performance
  predictor (Faggioli et al. 2021): ``mean_q |r_pred(q) - r_true(q)| / n``
  with average ranks.

Undefined values are refused rather than returned as NaN: fewer than two
items, NaN values, a constant array (no ordering to compare: every
correlation is undefined), ±inf for ``pearson`` (the rank correlations order
it as scipy does), and ties in either ordering for ``tau_ap`` (which the paper
defines on rankings without ties).

References
----------
- M. G. Kendall, "The treatment of ties in ranking problems", Biometrika, 1945.
- E. Yilmaz, J. A. Aslam and S. Robertson, "A New Rank Correlation
  Coefficient for Information Retrieval", SIGIR 2008.
- G. Faggioli, O. Zendel, J. S. Culpepper, N. Ferro and F. Scholer, "sMARE: a
  new paradigm to evaluate and understand query performance prediction
  methods", Information Retrieval Journal, 2022 (ICTIR 2021).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

FloatArray: TypeAlias = npt.NDArray[np.float64]

TauVariant: TypeAlias = Literal["a", "b"]
"""Kendall's tau-a (ties count as neither concordant nor discordant, over all
pairs) or tau-b (adjusted for ties on each side)."""

_BLOCK = 2048


def paired_scores(
    x: npt.ArrayLike, y: npt.ArrayLike, names: tuple[str, str]
) -> tuple[FloatArray, FloatArray]:
    """Both score arrays as floats, or ``ValueError`` naming the argument that is unusable.

    They must be 1-d, of one length, at least two items long, without NaN, and
    not constant.
    """
    first = np.asarray(x, dtype=np.float64)
    second = np.asarray(y, dtype=np.float64)
    if first.ndim != 1 or first.shape != second.shape:
        msg = (
            f"`{names[0]}` and `{names[1]}` must be 1-d and of equal length, "
            f"got shapes {first.shape} and {second.shape}"
        )
        raise ValueError(msg)
    if first.size < 2:
        msg = f"a correlation needs at least two items (systems or queries), got {first.size}"
        raise ValueError(msg)
    for values, name in ((first, names[0]), (second, names[1])):
        if np.isnan(values).any():
            msg = f"`{name}` holds NaN: align the two sides and drop missing items first"
            raise ValueError(msg)
        if (values == values[0]).all():
            msg = f"`{name}` is constant: the correlation is undefined (no ordering to compare)"
            raise ValueError(msg)
    return first, second


def check_finite_scores(values: FloatArray, name: str) -> None:
    """Raise ``ValueError`` if ``values`` holds ±inf: Pearson's r is undefined there."""
    if np.isinf(values).any():
        msg = f"`{name}` holds ±inf: Pearson's r of an infinite value is undefined"
        raise ValueError(msg)


def _order(left: FloatArray, right: FloatArray) -> npt.NDArray[np.int8]:
    """The sign of ``left - right`` (-1, 0, 1), exact for ±inf."""
    return (left > right).astype(np.int8) - (left < right).astype(np.int8)


def _pair_counts(x: FloatArray, y: FloatArray) -> tuple[int, int, int]:
    """``(C - D, pairs tied in x, pairs tied in y)`` over all pairs, in blocks."""
    n = x.size
    difference = tied_x = tied_y = 0
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        # Comparisons, not differences: inf - inf would be NaN, inf > inf is False.
        dx = _order(x[start:stop, None], x[None, :])
        dy = _order(y[start:stop, None], y[None, :])
        difference += int((dx * dy).sum())
        tied_x += int((dx == 0).sum())
        tied_y += int((dy == 0).sum())
    # Each unordered pair was seen twice; the diagonal added n to each tie count.
    return difference // 2, (tied_x - n) // 2, (tied_y - n) // 2


def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike, *, variant: TauVariant = "b") -> float:
    """
    Kendall's tau between two aligned score arrays: tau-a or tau-b.

    Over the ``n0 = n (n - 1) / 2`` pairs of items, ``C`` pairs are ordered
    alike by both arrays and ``D`` oppositely; pairs tied in either count in
    neither. tau-a is ``(C - D) / n0``; tau-b (scipy's default) is ``(C - D) /
    sqrt((n0 - n1)(n0 - n2))``, where ``n1`` and ``n2`` count the pairs tied in
    ``x`` and in ``y``. Without ties the two are equal.

    Parameters
    ----------
    x, y
        One score per item, aligned.
    variant : {'b', 'a'}
        Which tau.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import kendall_tau
    >>> kendall_tau([0.3, 0.5, 0.5, 0.9], [0.2, 0.4, 0.6, 0.8])
    0.9128709291752769
    >>> kendall_tau([0.3, 0.5, 0.5, 0.9], [0.2, 0.4, 0.6, 0.8], variant="a")
    0.8333333333333334
    """
    if variant not in ("a", "b"):
        msg = f"`variant` must be 'a' or 'b', got {variant!r}"
        raise ValueError(msg)
    first, second = paired_scores(x, y, ("x", "y"))
    difference, tied_x, tied_y = _pair_counts(first, second)
    pairs = first.size * (first.size - 1) // 2
    if variant == "a":
        return difference / pairs
    return float(difference / np.sqrt(float(pairs - tied_x) * float(pairs - tied_y)))


def average_ranks(values: npt.ArrayLike) -> FloatArray:
    """Ranks 1..n of ``values`` ascending, ties given the mean of their ranks."""
    array = np.asarray(values, dtype=np.float64)
    order = np.argsort(array, kind="stable")
    ordered = array[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], ordered.size]
    group_rank = (starts + ends + 1) / 2.0  # mean of the 1-based positions start+1..end
    ranks = np.empty(array.size)
    ranks[order] = np.repeat(group_rank, ends - starts)
    return ranks


def pearson(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """
    Pearson's correlation coefficient of two aligned arrays.

    A ±inf value raises ``ValueError`` (scipy returns NaN): the mean and the
    deviations are undefined. The rank correlations read ±inf as the highest or
    lowest score, as scipy does.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import pearson
    >>> round(pearson([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 5.0]), 6)
    0.831522
    """
    first, second = paired_scores(x, y, ("x", "y"))
    check_finite_scores(first, "x")
    check_finite_scores(second, "y")
    first = first - first.mean()
    second = second - second.mean()
    value = (first @ second) / np.sqrt((first @ first) * (second @ second))
    return float(np.clip(value, -1.0, 1.0))


def spearman(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """
    Spearman's rho: Pearson's r of the average ranks (``scipy.stats.spearmanr``).

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import spearman
    >>> spearman([0.3, 0.5, 0.5, 0.9], [0.2, 0.4, 0.6, 0.8])
    0.9486832980505138
    """
    first, second = paired_scores(x, y, ("x", "y"))
    return pearson(average_ranks(first), average_ranks(second))


def _tau_ap_direction(reference: FloatArray, estimate: FloatArray) -> float:
    n = estimate.size
    order = np.argsort(-estimate, kind="stable")
    reference_rank = np.argsort(np.argsort(-reference[order], kind="stable"), kind="stable")
    # C(i): the items above position i (in estimate) that reference also puts above it.
    above = reference_rank[None, :] < reference_rank[:, None]
    above &= np.tri(n, k=-1, dtype=bool)
    correct = above.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * (correct / np.arange(1, n)).sum() - 1.0)


def check_no_ties(
    values: FloatArray, name: str, items: list[str] | None = None, *, what: str = "items"
) -> None:
    """Raise ``ValueError`` naming the first two tied items of ``values``: tau_AP is undefined.

    ``items`` names the items; without it they are named by position. ``what``
    says what they are ("items", "systems").
    """
    order = np.argsort(values, kind="stable")
    tied = np.flatnonzero(values[order][1:] == values[order][:-1])
    if tied.size:
        first, second = sorted(int(k) for k in order[tied[0] : tied[0] + 2])
        pair = f"{items[first]!r} and {items[second]!r}" if items else f"{first} and {second}"
        msg = (
            f"`{name}` has tied scores ({what} {pair} both score {float(values[first])!r}): "
            "tau_AP is defined for rankings without ties"
        )
        raise ValueError(msg)


def tau_ap(reference: npt.ArrayLike, estimate: npt.ArrayLike, *, symmetric: bool = False) -> float:
    """
    The AP rank correlation of Yilmaz, Aslam and Robertson (2008).

    ``tau_AP = 2 / (n - 1) * sum_{i=2}^{n} C(i) / (i - 1) - 1``: ``i`` runs
    over the ranks of ``estimate`` (items ordered by score, descending) and
    ``C(i)`` counts the items above rank ``i`` that ``reference`` also ranks
    above that item. A swap near the top of ``estimate`` costs more than one
    below. With ``symmetric=True``, the mean of ``tau_ap(reference, estimate)``
    and ``tau_ap(estimate, reference)``.

    Ties in either array are refused: the paper defines tau_AP on rankings
    without ties.

    Parameters
    ----------
    reference
        One score per item: the ordering taken as the truth.
    estimate
        The scores of the ordering whose top is weighted, aligned.
    symmetric
        Average both directions.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import tau_ap
    >>> reference = [0.9, 0.8, 0.7, 0.6]
    >>> round(tau_ap(reference, [0.8, 0.9, 0.7, 0.6]), 6)
    0.333333
    >>> round(tau_ap(reference, [0.9, 0.8, 0.6, 0.7]), 6)
    0.777778
    """
    first, second = paired_scores(reference, estimate, ("reference", "estimate"))
    check_no_ties(first, "reference")
    check_no_ties(second, "estimate")
    forward = _tau_ap_direction(first, second)
    if not symmetric:
        return forward
    return (forward + _tau_ap_direction(second, first)) / 2.0


def smare(predicted: npt.ArrayLike, actual: npt.ArrayLike) -> float:
    """
    The scaled mean absolute rank error of a query performance predictor.

    Both arrays are ranked (average ranks for ties); each query's scaled
    absolute rank error is ``|r_pred(q) - r_true(q)| / n``, and sMARE is their
    mean over the ``n`` queries: 0 when the predictor orders the queries as
    the metric does, lower is better (Faggioli et al. 2021).

    Parameters
    ----------
    predicted
        The predictor's value per query.
    actual
        The metric's value per query (e.g. AP), aligned.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import smare
    >>> smare([0.1, 0.4, 0.2, 0.9], [0.2, 0.3, 0.5, 0.8])
    0.125
    """
    first, second = paired_scores(predicted, actual, ("predicted", "actual"))
    return float(np.abs(average_ranks(first) - average_ranks(second)).mean() / first.size)
