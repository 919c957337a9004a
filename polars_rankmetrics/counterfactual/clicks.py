r"""A new ranking's DCG, precision and recall from an old ranking's clicks, unbiased by IPS.

Joachims, Swaminathan and Schnabel, "Unbiased Learning-to-Rank with Biased
Feedback", WSDM 2017: a click on document :math:`d` shown at rank
:math:`\bar r(d)` says that :math:`d` is relevant and was examined, which
happened with the examination propensity :math:`p_{\bar r(d)}`
(:func:`~.position_bias.fit_pbm`, :func:`~.position_bias.harvest_propensities`).
Weighting each click by :math:`1 / p` makes the sum over clicks an unbiased
estimate of the sum over relevant documents, for any additive metric of a
new ranking that puts :math:`d` at rank :math:`r(d)`:

.. math:: \hat\Delta(r) = \sum_{d:\ c_d = 1} \frac{\lambda(r(d))}{\max(p_{\bar r(d)}, \tau)}

with :math:`\lambda(r) = 1 / \log_2(1 + r)` for DCG@k (0 beyond rank
:math:`k`) and :math:`\lambda(r) = [r \le k] / k` for precision@k.
Recall@k is the ratio of two such estimates, the relevant documents in the
top :math:`k` over all relevant ones (null for a group without clicks).

Each function is one value per group of rows, ``group_by(query).agg(...)``
over the logged impressions of each query (a session or the query's pooled
sessions); the mean over groups is the estimate over queries.

- **Clipping** (``clip`` :math:`= \tau`): propensities below ``clip`` count
  as ``clip``, bounding the weights at ``1 / clip``; biased (towards lower
  values) where the true propensity is below it, less variance.
- **Self-normalisation** (``self_normalized=True``): each weight is divided
  by the mean weight of the group's clicks, so the weights of the clicks
  average to 1: the estimate is the clicks' count times their weighted mean
  :math:`\lambda`; biased, consistent only when the propensities are equal,
  and lower in variance.

The new ranking's ``rank`` of a row (1 for the top) is null for a document
it does not rank: the row adds 0. A propensity that is null, NaN or outside
(0, 1], a click that is not 0/1, a rank below 1 or of a non-integer type
raise ``ValueError`` at collect naming the column.
"""

from __future__ import annotations

import polars as pl

from polars_rankmetrics._validate import check_bool, check_k, check_number
from polars_rankmetrics.counterfactual._checks import (
    Check,
    checked,
    column,
    finite_checks,
    numeric,
    propensity_checks,
)


def _weighted(
    click: object, propensity: object, rank: object, clip: float | None, self_normalized: bool
) -> tuple[pl.Expr, pl.Expr, list[Check]]:
    """The clicks' weights and the new ranks, with the checks of the columns."""
    if clip is not None:
        clip = check_number(clip, "clip", low=0.0, high=1.0, low_open=True)
    self_normalized = check_bool(self_normalized, "self_normalized")
    clicks_col, propensity_col, rank_col = (
        column(click, "click"),
        column(propensity, "propensity"),
        column(rank, "rank"),
    )
    clicks, propensities = numeric(clicks_col), numeric(propensity_col)
    ranks = numeric(rank_col, integer=True)
    checks = [
        *finite_checks(clicks, clicks_col.label),
        Check(
            ((clicks != 0) & (clicks != 1)).sum(),
            f"{clicks_col.label} must hold 0 or 1 ({{n}} rows do not)",
        ),
        *propensity_checks(propensities, propensity_col.label, zero=False),
        Check((ranks < 1).sum(), f"{rank_col.label} must hold ranks >= 1 ({{n}} rows below 1)"),
    ]
    floor = propensities if clip is None else pl.max_horizontal(propensities, pl.lit(clip))
    weight = clicks / floor
    if self_normalized:
        weight = weight / weight.filter(clicks == 1).mean()
    return weight, ranks, checks


def ips_dcg_at_k(
    click: str | pl.Expr,
    propensity: str | pl.Expr,
    rank: str | pl.Expr,
    k: int | None = None,
    *,
    clip: float | None = None,
    self_normalized: bool = False,
) -> pl.Expr:
    r"""
    The IPS estimate of a new ranking's DCG@k from clicks, named ``ips_dcg``.

    .. math:: \widehat{DCG@k} = \sum_{d:\ c_d = 1,\ r(d) \le k}
        \frac{1}{\max(p_{\bar r(d)}, \tau) \log_2(1 + r(d))}

    Binary relevance (a click is one relevant document); the module
    documentation gives the estimator and its options.

    Parameters
    ----------
    click
        The click on each logged impression (0/1 or boolean).
    propensity
        The examination propensity of the rank the document was *shown* at.
    rank
        The rank the *new* ranking gives the document (1 = top; null: not ranked).
    k
        The cutoff (None: every rank).
    clip
        Propensities below it count as it, in (0, 1] (None: no clipping).
    self_normalized
        Divide each weight by the mean weight of the group's clicks.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import counterfactual as cf
    >>> log = pl.DataFrame(
    ...     {
    ...         "query": [1, 1, 1, 2, 2],
    ...         "click": [1, 0, 1, 0, 1],
    ...         "propensity": [1.0, 0.5, 0.25, 1.0, 0.5],
    ...         "new_rank": [2, 1, 1, 2, 1],
    ...     }
    ... )
    >>> log.group_by("query").agg(
    ...     cf.ips_dcg_at_k("click", "propensity", "new_rank"),
    ...     cf.ips_precision_at_k("click", "propensity", "new_rank", 1, clip=0.5),
    ... ).sort("query")
    shape: (2, 3)
    ┌───────┬─────────┬───────────────┐
    │ query ┆ ips_dcg ┆ ips_precision │
    │ ---   ┆ ---     ┆ ---           │
    │ i64   ┆ f64     ┆ f64           │
    ╞═══════╪═════════╪═══════════════╡
    │ 1     ┆ 4.63093 ┆ 2.0           │
    │ 2     ┆ 2.0     ┆ 2.0           │
    └───────┴─────────┴───────────────┘
    """
    cutoff = None if k is None else check_k(k)
    weight, ranks, checks = _weighted(click, propensity, rank, clip, self_normalized)
    gain = 1.0 / (ranks.cast(pl.Float64) + 1.0).log(2)
    if cutoff is not None:
        gain = pl.when(ranks <= cutoff).then(gain).otherwise(0.0)
    return checked((weight * gain.fill_null(0.0)).sum(), checks, "ips_dcg")


def ips_precision_at_k(
    click: str | pl.Expr,
    propensity: str | pl.Expr,
    rank: str | pl.Expr,
    k: int,
    *,
    clip: float | None = None,
    self_normalized: bool = False,
) -> pl.Expr:
    r"""
    The IPS estimate of a new ranking's precision@k from clicks, named ``ips_precision``.

    .. math:: \widehat{P@k} = \frac{1}{k} \sum_{d:\ c_d = 1,\ r(d) \le k}
        \frac{1}{\max(p_{\bar r(d)}, \tau)}

    Parameters as :func:`ips_dcg_at_k`.
    """
    cutoff = check_k(k)
    weight, ranks, checks = _weighted(click, propensity, rank, clip, self_normalized)
    inside = (ranks <= cutoff).fill_null(False)
    return checked(weight.filter(inside).sum() / cutoff, checks, "ips_precision")


def ips_recall_at_k(
    click: str | pl.Expr,
    propensity: str | pl.Expr,
    rank: str | pl.Expr,
    k: int,
    *,
    clip: float | None = None,
) -> pl.Expr:
    r"""
    The IPS estimate of a new ranking's recall@k from clicks, named ``ips_recall``.

    .. math:: \widehat{R@k} = \frac{\sum_{d:\ c_d = 1,\ r(d) \le k} w_d}
        {\sum_{d:\ c_d = 1} w_d}, \quad w_d = \frac{1}{\max(p_{\bar r(d)}, \tau)}

    A ratio of two IPS estimates (so self-normalised by construction), null
    for a group without clicks. Parameters as :func:`ips_dcg_at_k`.
    """
    cutoff = check_k(k)
    weight, ranks, checks = _weighted(click, propensity, rank, clip, False)
    inside = (ranks <= cutoff).fill_null(False)
    total = weight.sum()
    recall = pl.when(total > 0).then(weight.filter(inside).sum() / total)
    return checked(recall, checks, "ips_recall")
