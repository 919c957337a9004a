"""Multiple-comparison corrections of a vector of p-values: :func:`correct`.

One table of names, :data:`CORRECTIONS`, maps each method to its function. The
names and the adjusted p-values are those of
``statsmodels.stats.multitest.multipletests`` (``bonferroni``, ``holm``,
``sidak``, ``holm-sidak``, ``fdr_bh``, ``fdr_by``).

References
----------
- S. Holm, "A Simple Sequentially Rejective Multiple Test Procedure", 1979.
- Z. Šidák, "Rectangular Confidence Regions for the Means of Multivariate
  Normal Distributions", JASA 1967.
- Y. Benjamini and Y. Hochberg, "Controlling the False Discovery Rate", JRSS B 1995.
- Y. Benjamini and D. Yekutieli, "The Control of the False Discovery Rate in
  Multiple Testing under Dependency", Annals of Statistics 2001.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias, get_args

import numpy as np
import numpy.typing as npt

FloatArray: TypeAlias = npt.NDArray[np.float64]

Method: TypeAlias = Literal["bonferroni", "holm", "sidak", "holm-sidak", "fdr_bh", "fdr_by"]
"""A correction, named as in statsmodels' ``multipletests``."""


def _bonferroni(sorted_p: FloatArray) -> FloatArray:
    return sorted_p * sorted_p.size


def _sidak(sorted_p: FloatArray) -> FloatArray:
    adjusted: FloatArray = -np.expm1(sorted_p.size * np.log1p(-sorted_p))
    return adjusted


def _holm(sorted_p: FloatArray) -> FloatArray:
    return np.maximum.accumulate(sorted_p * np.arange(sorted_p.size, 0, -1))


def _holm_sidak(sorted_p: FloatArray) -> FloatArray:
    raw = -np.expm1(np.arange(sorted_p.size, 0, -1) * np.log1p(-sorted_p))
    return np.maximum.accumulate(raw)


def _step_up(sorted_p: FloatArray, factor: float) -> FloatArray:
    ranks = np.arange(1, sorted_p.size + 1) / sorted_p.size
    raw = sorted_p / (ranks / factor)
    return np.minimum.accumulate(raw[::-1])[::-1]


def _fdr_bh(sorted_p: FloatArray) -> FloatArray:
    return _step_up(sorted_p, 1.0)


def _fdr_by(sorted_p: FloatArray) -> FloatArray:
    return _step_up(sorted_p, float(np.sum(1.0 / np.arange(1, sorted_p.size + 1))))


CORRECTIONS: dict[str, Callable[[FloatArray], FloatArray]] = {
    "bonferroni": _bonferroni,
    "holm": _holm,
    "sidak": _sidak,
    "holm-sidak": _holm_sidak,
    "fdr_bh": _fdr_bh,
    "fdr_by": _fdr_by,
}
"""Each correction's function over the ascending p-values of one family."""

FAMILY_WISE = ("bonferroni", "holm", "sidak", "holm-sidak")
"""The corrections that control the family-wise error rate (the others control the FDR)."""


def check_method(method: object, *, name: str = "correction") -> None:
    """Raise ``ValueError`` unless ``method`` is a name of :data:`CORRECTIONS` or None."""
    if method is not None and method not in CORRECTIONS:
        allowed = ", ".join(repr(choice) for choice in get_args(Method))
        msg = f"`{name}` must be one of {allowed} or None, got {method!r}"
        raise ValueError(msg)


def correct(p_values: npt.ArrayLike, method: Method | None) -> FloatArray:
    """
    Adjust one family of p-values for multiple comparisons.

    With the ``m`` p-values sorted ascending, ``p_(1) <= ... <= p_(m)``:

    - ``"bonferroni"``: ``m * p``;
    - ``"sidak"``: ``1 - (1 - p)**m``;
    - ``"holm"``: ``max_{j <= i} (m - j + 1) * p_(j)`` (step-down);
    - ``"holm-sidak"``: ``max_{j <= i} 1 - (1 - p_(j))**(m - j + 1)``;
    - ``"fdr_bh"`` (Benjamini-Hochberg): ``min_{j >= i} m * p_(j) / j`` (step-up);
    - ``"fdr_by"`` (Benjamini-Yekutieli): as ``fdr_bh`` times ``sum_{k=1}^m 1/k``;
    - ``None``: the p-values unchanged.

    Every adjusted value is capped at 1. The first four control the
    family-wise error rate, the last two the false discovery rate. These are
    the values of ``statsmodels.stats.multitest.multipletests(p, method=...)[1]``.
    NaN p-values (untestable comparisons) stay NaN and do not count in ``m``.

    Parameters
    ----------
    p_values
        The p-values of one family of comparisons.
    method : {'bonferroni', 'holm', 'sidak', 'holm-sidak', 'fdr_bh', 'fdr_by', None}
        The correction.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the input's order.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.corrections import correct
    >>> correct([0.01, 0.04, 0.03, 0.20], "holm").round(4).tolist()
    [0.04, 0.09, 0.09, 0.2]
    >>> correct([0.01, 0.04, 0.03, 0.20], "fdr_bh").round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    """
    check_method(method, name="method")
    raw = np.asarray(p_values, dtype=np.float64)
    if raw.ndim != 1:
        msg = f"`p_values` must be 1-d, got shape {raw.shape}"
        raise ValueError(msg)
    adjusted = raw.copy()
    testable = ~np.isnan(raw)
    tested = raw[testable]
    if method is None or tested.size == 0:
        return adjusted
    if ((tested < 0.0) | (tested > 1.0)).any():
        msg = "`p_values` must lie in [0, 1]"
        raise ValueError(msg)
    order = np.argsort(tested, kind="stable")
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf gives the right limit, 1
        sorted_adjusted = np.minimum(CORRECTIONS[method](tested[order]), 1.0)
    back = np.empty_like(sorted_adjusted)
    back[order] = sorted_adjusted
    adjusted[testable] = back
    return adjusted
