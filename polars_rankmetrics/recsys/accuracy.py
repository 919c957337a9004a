"""RecTools' accuracy metrics as per-user expressions over :func:`~.frames.prepare`'s frame.

Use them in ``prepare(reco, interactions=test).group_by("user").agg(...)``.
Each reads ``rank`` (null: a test item not recommended) and ``relevant``
(the pair is in the test set) of one user's rows and follows RecTools 0.19
(``rectools.metrics``) exactly, ties included: a rank is read as a position,
so two items at rank 2 are both "at rank 2" (``rank <= k`` may hold more
than ``k`` items). A user with no test item gets null, so the mean over users
is RecTools' mean over the test users; a test user without recommendations
gets 0.

Where a name means something else in the rest of this library (the trec_eval
and ir_measures names of :func:`polars_rankmetrics.metrics`):

- ``map_at_k``: RecTools divides by R (all test items), or by ``k`` with
  ``divide_by_k=True``; trec_eval's ``map_cut_k`` divides by R too, but counts
  a tied rank once per item at its own position.
- ``ndcg_at_k``: RecTools' ideal DCG is that of ``k`` relevant items
  (``divide_by_achievable=False``, the default), not of the user's
  ``min(R, k)`` test items as in trec_eval's ``ndcg_cut_k``; binary gains.
- ``precision_at_k`` divides by ``k`` (``r_precision=True``: by ``min(k, R)``)
  even when the list is shorter, as trec_eval's ``P_k``.
"""

from __future__ import annotations

import math
from typing import Literal

import polars as pl

from polars_rankmetrics.recsys.columns import ITEM, RANK, RELEVANT
from polars_rankmetrics.recsys.frames import check_k

Insufficient = Literal["ignore", "exclude"]

_POSITIONS_SUMMED = 32
"""Up to this k, MAP sums hits per position instead of sorting each list's hits."""

_rank = pl.col(RANK)
_relevant = pl.col(RELEVANT)


def _n_relevant() -> pl.Expr:
    return _relevant.sum()


def _per_test_user(value: pl.Expr) -> pl.Expr:
    """``value`` for a user with test items, null for one without."""
    return pl.when(_n_relevant() > 0).then(value).otherwise(None)


def _hits(k: int) -> pl.Expr:
    return (_relevant & (_rank <= k)).sum()


def precision_at_k(k: int, *, r_precision: bool = False) -> pl.Expr:
    """
    RecTools' ``Precision``: test items among the items ranked ``<= k``, over ``k``.

    ``r_precision=True`` divides by ``min(k, R)``, R the user's test items.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 1, 3], "rank": [1, 2, 1, 2]})
    >>> test = pl.DataFrame({"user": [1, 2, 2], "item": [2, 3, 4]})
    >>> frame = recsys.prepare(reco, interactions=test)
    >>> frame.group_by("user").agg(recsys.precision_at_k(2)).sort("user").collect()
    shape: (2, 2)
    ┌──────┬───────────┐
    │ user ┆ precision │
    │ ---  ┆ ---       │
    │ i64  ┆ f64       │
    ╞══════╪═══════════╡
    │ 1    ┆ 0.5       │
    │ 2    ┆ 0.5       │
    └──────┴───────────┘
    """
    k = check_k(k)
    denominator = pl.min_horizontal(pl.lit(k), _n_relevant()) if r_precision else pl.lit(k)
    return _per_test_user(_hits(k) / denominator.cast(pl.Float64)).alias("precision")


def recall_at_k(k: int) -> pl.Expr:
    """RecTools' ``Recall``: test items ranked ``<= k`` over the user's test items R."""
    k = check_k(k)
    return _per_test_user(_hits(k) / _n_relevant().cast(pl.Float64)).alias("recall")


def f1_beta_at_k(k: int, *, beta: float = 1.0) -> pl.Expr:
    """RecTools' ``F1Beta``: ``(1 + b^2) P R / (b^2 P + R)``, 0 when P = R = 0."""
    k = check_k(k)
    if not beta > 0:
        msg = f"`beta` must be > 0, got {beta!r}"
        raise ValueError(msg)
    weight = beta * beta
    precision = _hits(k) / float(k)
    recall = _hits(k) / _n_relevant().cast(pl.Float64)
    value = (1 + weight) * precision * recall / (weight * precision + recall)
    return _per_test_user(pl.when(_hits(k) == 0).then(0.0).otherwise(value)).alias("f1_beta")


def hit_rate_at_k(k: int) -> pl.Expr:
    """RecTools' ``HitRate``: 1.0 when a test item is ranked ``<= k``, else 0.0."""
    k = check_k(k)
    return _per_test_user((_hits(k) > 0).cast(pl.Float64)).alias("hit_rate")


def map_at_k(k: int, *, divide_by_k: bool = False) -> pl.Expr:
    r"""
    RecTools' ``MAP``: the sum of precisions at the ranks of the hits, over R or ``k``.

    .. math:: AP@k = \frac{1}{R \text{ or } k} \sum_{r \le k,\ r \in ranks} \frac{hits(\le r)}{r}

    The sum runs over the *distinct* ranks of hits (RecTools' sparse matrix
    adds tied hits into one cell): two hits tied at rank 2 add ``hits(<= 2) / 2``
    once. With no ties this is the usual AP@k (trec_eval's ``map_cut_k``).

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame(
    ...     {"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 4], "rank": [1, 2, 3, 1, 2]}
    ... )
    >>> test = pl.DataFrame({"user": [1, 1, 2], "item": [2, 3, 9]})
    >>> frame = recsys.prepare(reco, interactions=test)
    >>> frame.group_by("user").agg(
    ...     recsys.map_at_k(3),
    ...     recsys.map_at_k(3, divide_by_k=True).alias("map_by_k"),
    ...     recsys.ndcg_at_k(3),
    ...     recsys.mrr_at_k(3),
    ... ).sort("user").collect()
    shape: (2, 5)
    ┌──────┬──────────┬──────────┬──────────┬─────┐
    │ user ┆ map      ┆ map_by_k ┆ ndcg     ┆ mrr │
    │ ---  ┆ ---      ┆ ---      ┆ ---      ┆ --- │
    │ i64  ┆ f64      ┆ f64      ┆ f64      ┆ f64 │
    ╞══════╪══════════╪══════════╪══════════╪═════╡
    │ 1    ┆ 0.583333 ┆ 0.388889 ┆ 0.530721 ┆ 0.5 │
    │ 2    ┆ 0.0      ┆ 0.0      ┆ 0.0      ┆ 0.0 │
    └──────┴──────────┴──────────┴──────────┴─────┘
    """
    k = check_k(k)
    if k <= _POSITIONS_SUMMED:
        # one plain sum per position: cheaper in group_by than a sort within each list
        hits_at = [(_relevant & (_rank == position)).sum() for position in range(1, k + 1)]
        terms, so_far = [], pl.lit(0, dtype=pl.UInt32)
        for position, hits in enumerate(hits_at, start=1):
            so_far = so_far + hits
            terms.append(pl.when(hits > 0).then(so_far / position).otherwise(0.0))
        total = pl.sum_horizontal(terms)
    else:
        hit_ranks = _rank.filter(_relevant & (_rank <= k)).sort().cast(pl.Float64)
        hits_so_far = hit_ranks.cum_count()
        last_of_rank = (hit_ranks != hit_ranks.shift(-1)).fill_null(True)
        total = (hits_so_far / hit_ranks).filter(last_of_rank).sum()
    denominator = pl.lit(float(k)) if divide_by_k else _n_relevant().cast(pl.Float64)
    return _per_test_user(total / denominator).alias("map")


def _log(value: pl.Expr, base: float) -> pl.Expr:
    return value.log() / math.log(base)


def ndcg_at_k(k: int, *, log_base: float = 2, divide_by_achievable: bool = False) -> pl.Expr:
    r"""
    RecTools' ``NDCG``: binary DCG@k over the ideal DCG of ``k`` (or ``min(R, k)``) hits.

    .. math:: DCG@k = \sum_{hits,\ rank \le k} 1 / \log_{b}(rank + 1)

    ``divide_by_achievable=False`` (RecTools' default) divides by the DCG of
    ``k`` hits for every user; ``True`` by that of ``min(R, k)`` hits, as
    trec_eval's ``ndcg_cut_k`` with binary labels.
    """
    k = check_k(k)
    if not log_base > 1:
        msg = f"`log_base` must be > 1, got {log_base!r}"
        raise ValueError(msg)
    gains = [math.log(log_base) / math.log(rank + 1) for rank in range(1, k + 1)]
    cumulative = [0.0]
    for gain in gains:
        cumulative.append(cumulative[-1] + gain)
    discounted = 1.0 / _log(_rank.cast(pl.Float64) + 1, log_base)
    dcg = pl.when(_relevant & (_rank <= k)).then(discounted).otherwise(0.0).sum()
    if divide_by_achievable:
        ideal = pl.min_horizontal(_n_relevant(), pl.lit(k)).replace_strict(
            dict(enumerate(cumulative)), return_dtype=pl.Float64
        )
    else:
        ideal = pl.lit(cumulative[-1])
    return _per_test_user(dcg / ideal).alias("ndcg")


def mrr_at_k(k: int) -> pl.Expr:
    """RecTools' ``MRR``: 1 / the rank of the first hit ranked ``<= k``, else 0."""
    k = check_k(k)
    first = pl.when(_relevant & (_rank <= k)).then(_rank).min().cast(pl.Float64)
    return _per_test_user((1.0 / first).fill_null(0.0)).alias("mrr")


class _AUCParts:
    """The running counts of RecTools' ``PartialAUC`` and ``PAP`` in one user's list.

    RecTools orders a user's rows by rank, then item, fills every missing rank
    between 1 and the user's largest one with an irrelevant placeholder (a
    false positive), and puts the test items not recommended last. The
    placeholders are counted here rather than made: before a row at rank r
    there are ``r - (distinct ranks <= r)`` of them.
    """

    def __init__(self) -> None:
        order = (RANK, ITEM)
        rank = _rank.sort_by(*order, nulls_last=True)
        relevant = _relevant.sort_by(*order, nulls_last=True)
        recommended = rank.is_not_null()
        self.hit = relevant & recommended
        false_positive = ~relevant & recommended
        distinct_so_far = (rank != rank.shift(1)).fill_null(True).cast(pl.Int64).cum_sum()
        self.false_so_far = false_positive.cast(pl.Int64).cum_sum() + rank - distinct_so_far
        self.hits_so_far = self.hit.cast(pl.Int64).cum_sum()
        placeholders = _rank.max() - _rank.drop_nulls().n_unique()
        self.n_false = false_positive.sum() + placeholders.fill_null(0)
        self.missed = (_relevant & _rank.is_null()).any()

    def insufficient(self, k: int) -> pl.Expr:
        """Fewer than ``k`` negatives recommended while a test item is missing."""
        return self.missed & (self.n_false < k)


def _auc(
    k: int, insufficient: Insufficient, *, capped: bool, name: str
) -> pl.Expr:  # the shared body of partial_auc_at_k and pap_at_k
    k = check_k(k)
    if insufficient not in ("ignore", "exclude"):
        msg = f"`insufficient` must be 'ignore' or 'exclude', got {insufficient!r}"
        raise ValueError(msg)
    parts = _AUCParts()
    counted = parts.hit & (parts.false_so_far < k)
    n_positive = _n_relevant()
    if capped:
        counted = counted & (parts.hits_so_far <= k)
        n_positive = pl.min_horizontal(n_positive, pl.lit(k))
    numerator = (k - parts.false_so_far).filter(counted).sum().cast(pl.Float64)
    value = _per_test_user(numerator / (n_positive * k).cast(pl.Float64))
    if insufficient == "exclude":
        value = pl.when(parts.insufficient(k)).then(None).otherwise(value)
    return value.alias(name)


def partial_auc_at_k(k: int, *, insufficient: Insufficient = "ignore") -> pl.Expr:
    r"""
    RecTools' ``PartialAUC``: ROC AUC up to the k-th false positive.

    .. math:: pAUC@k = \frac{\sum_{hits,\ fp_{before} < k} (k - fp_{before})}{R \cdot k}

    ``fp_before`` counts the negatives ranked before the hit (a missing rank
    counts as one). ``insufficient="exclude"`` gives null to a user with fewer
    than ``k`` negatives recommended and a test item left out (RecTools'
    ``insufficient_handling="exclude"``); :func:`auc_insufficient` flags them,
    and :func:`polars_rankmetrics.recsys.evaluate` can raise on them.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame(
    ...     {"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 4], "rank": [1, 2, 3, 1, 2]}
    ... )
    >>> test = pl.DataFrame({"user": [1, 1, 2], "item": [2, 3, 9]})
    >>> frame = recsys.prepare(reco, interactions=test)
    >>> frame.group_by("user").agg(
    ...     recsys.partial_auc_at_k(2), recsys.pap_at_k(2), recsys.auc_insufficient(2)
    ... ).sort("user").collect()
    shape: (2, 4)
    ┌──────┬─────────────┬─────┬──────────────────┐
    │ user ┆ partial_auc ┆ pap ┆ auc_insufficient │
    │ ---  ┆ ---         ┆ --- ┆ ---              │
    │ i64  ┆ f64         ┆ f64 ┆ bool             │
    ╞══════╪═════════════╪═════╪══════════════════╡
    │ 1    ┆ 0.5         ┆ 0.5 ┆ false            │
    │ 2    ┆ 0.0         ┆ 0.0 ┆ false            │
    └──────┴─────────────┴─────┴──────────────────┘
    """
    return _auc(k, insufficient, capped=False, name="partial_auc")


def pap_at_k(k: int, *, insufficient: Insufficient = "ignore") -> pl.Expr:
    """RecTools' ``PAP``: :func:`partial_auc_at_k` over the first ``k`` hits, by ``min(R, k) k``."""
    return _auc(k, insufficient, capped=True, name="pap")


def auc_insufficient(k: int) -> pl.Expr:
    """True for a test user with fewer than ``k`` negatives and a test item not recommended."""
    k = check_k(k)
    return _per_test_user(_AUCParts().insufficient(k)).alias("auc_insufficient")
