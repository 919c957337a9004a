"""Per-user popularity, novelty and data-quality expressions over :func:`~.frames.prepare`'s frame.

Use them in ``prepare(reco, interactions=..., train=...).group_by("user").agg(...)``.
The popularity columns come from the training interactions (``train``):
``item_users`` (distinct users), ``item_count`` (rows), ``pop_rank`` and,
for the long tail, ``long_tail``. Only recommended rows (``rank <= k``) are
read, so a user known only from the test set gets null.
"""

from __future__ import annotations

import math
from typing import Literal

import polars as pl

from polars_rankmetrics.recsys.columns import (
    ITEM,
    ITEM_COUNT,
    ITEM_USERS,
    LONG_TAIL,
    POP_RANK,
    RANK,
    RELEVANT,
    TRAIN_ROWS,
    TRAIN_USERS,
)
from polars_rankmetrics.recsys.frames import check_k

Discount = Literal["none", "log", "exponential"]

_rank = pl.col(RANK)


def _top(k: int) -> pl.Expr:
    return _rank <= k


def _recommended() -> pl.Expr:
    return _rank.is_not_null().any()


def mean_inv_user_freq(k: int) -> pl.Expr:
    r"""
    RecTools' ``MeanInvUserFreq``: the mean self-information of the items ranked ``<= k``.

    .. math:: MIUF@k = \frac{1}{|L_k|} \sum_{i \in L_k} -\log_2 \frac{users(i)}{|U_{train}|}

    ``users(i)`` counts the distinct training users of item i, 1 for an item
    never seen in training (as RecTools); ``|U_train|`` the distinct training
    users. Null for a user with no item ranked ``<= k``.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"], "rank": [1, 2, 1]})
    >>> train = pl.DataFrame({"user": [7, 8, 8, 9], "item": ["a", "a", "b", "a"]})
    >>> frame = recsys.prepare(reco, train=train)
    >>> frame.group_by("user").agg(recsys.mean_inv_user_freq(2)).sort("user").collect()
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ miuf     │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.792481 │
    │ 2    ┆ 1.584963 │
    └──────┴──────────┘
    """
    k = check_k(k)
    users = pl.col(ITEM_USERS).fill_null(1).cast(pl.Float64)
    total = pl.col(TRAIN_USERS).cast(pl.Float64)
    information = -(users / total).log(2)
    return pl.when(_top(k)).then(information).mean().alias("miuf")


def avg_rec_popularity(k: int, *, normalize: bool = False) -> pl.Expr:
    r"""
    RecTools' ``AvgRecPopularity`` (ARP): the mean training count of the items ranked ``<= k``.

    .. math:: ARP@k = \frac{1}{|L_k|} \sum_{i \in L_k} count(i)

    ``count(i)`` counts the item's training rows (repeats included), 0 for an
    unseen item; ``normalize=True`` divides it by the training rows. Null for a
    user with no item ranked ``<= k``.
    """
    k = check_k(k)
    count = pl.col(ITEM_COUNT).fill_null(0).cast(pl.Float64)
    if normalize:
        count = count / pl.col(TRAIN_ROWS).cast(pl.Float64)
    return pl.when(_top(k)).then(count).mean().alias("arp")


def _discounts(discount: Discount) -> pl.Expr:
    rank = _rank.cast(pl.Float64)
    if discount == "none":
        return pl.lit(1.0) + rank * 0
    if discount == "log":
        return math.log(2) / (rank + 1).log()
    if discount == "exponential":
        return pl.lit(0.85).pow(rank - 1)
    msg = f"`discount` must be 'none', 'log' or 'exponential', got {discount!r}"
    raise ValueError(msg)


def expected_popularity_complement(
    k: int, *, discount: Discount = "none", relevance: bool = False
) -> pl.Expr:
    r"""
    Expected popularity complement (EPC; Vargas & Castells 2011).

    .. math:: EPC@k = \frac{\sum_{i \in L_k} disc(r_i)\, [rel(i)]\, (1 - p(seen \mid i))}
                           {\sum_{i \in L_k} disc(r_i)}

    ``p(seen | i)`` is the share of training users who interacted with i (0
    for an unseen item). ``discount``: ``"none"`` (1), ``"log"``
    (``1 / log2(r + 1)``) or ``"exponential"`` (``0.85^(r-1)``, the paper's
    rank discount). ``relevance=True`` counts only the test items (the paper's
    relevance-aware variant, ``rel(i)`` binary). Null for a user with no item
    ranked ``<= k``.

    References
    ----------
    S. Vargas and P. Castells, "Rank and relevance in novelty and diversity
    metrics for recommender systems", RecSys 2011.
    """
    k = check_k(k)
    weight = _discounts(discount)
    seen = pl.col(ITEM_USERS).fill_null(0).cast(pl.Float64) / pl.col(TRAIN_USERS).cast(pl.Float64)
    gain = 1.0 - seen
    if relevance:
        gain = gain * pl.col(RELEVANT).cast(pl.Float64)
    top = _top(k)
    total = weight.filter(top).sum()
    value = (weight * gain).filter(top).sum() / total
    return pl.when(top.any()).then(value).otherwise(None).alias("epc")


def aplt(k: int) -> pl.Expr:
    r"""
    Average percentage of long-tail items (APLT; Abdollahpouri et al. 2017, 2019), per user.

    The share of the items ranked ``<= k`` that are in the long tail (the
    ``long_tail`` column of :func:`~.frames.prepare`; an item unseen in
    training is in the tail). The mean over users is the paper's APLT. Null
    for a user with no item ranked ``<= k``.

    References
    ----------
    H. Abdollahpouri, R. Burke and B. Mobasher, "Managing popularity bias in
    recommender systems with personalized re-ranking", FLAIRS 2019.
    """
    k = check_k(k)
    return pl.when(_top(k)).then(pl.col(LONG_TAIL).cast(pl.Float64)).mean().alias("aplt")


def aclt(k: int) -> pl.Expr:
    """Average coverage of long-tail items (ACLT), per user: the long-tail items ranked ``<= k``.

    The count behind :func:`aplt`; the mean over users is the paper's ACLT.
    Null for a user without recommendations.
    """
    k = check_k(k)
    count = (pl.col(LONG_TAIL) & _top(k)).sum().cast(pl.Float64)
    return pl.when(_recommended()).then(count).otherwise(None).alias("aclt")


def popularity_stratified_recall(k: int, *, beta: float = 0.5) -> pl.Expr:
    r"""
    Popularity-stratified recall (Steck 2011): recall, each test item weighted ``count^-beta``.

    .. math:: R_{strat}@k = \frac{\sum_{i \in T,\ r_i \le k} count(i)^{-\beta}}
                                 {\sum_{i \in T} count(i)^{-\beta}}

    ``count(i)`` counts the item's training rows (1 for an unseen item);
    ``beta = 0`` is plain recall. Null for a user without test items.

    References
    ----------
    H. Steck, "Item popularity and recommendation accuracy", RecSys 2011.
    """
    k = check_k(k)
    if not beta >= 0:
        msg = f"`beta` must be >= 0, got {beta!r}"
        raise ValueError(msg)
    relevant = pl.col(RELEVANT)
    weight = pl.col(ITEM_COUNT).fill_null(1).cast(pl.Float64).pow(-beta)
    total = weight.filter(relevant).sum()
    value = weight.filter(relevant & _top(k)).sum() / total
    return pl.when(relevant.any()).then(value).otherwise(None).alias("pop_recall")


def serendipity(k: int, *, n_items: int) -> pl.Expr:
    r"""
    RecTools' ``Serendipity``: relevant items ranked above their popularity rank, per user.

    .. math:: S@k = \frac{1}{|L_k|} \sum_{i \in L_k} rel(i)\,
              \max\Big(\frac{N + 1 - r_i}{N} - \frac{N + 1 - pop(i)}{N}, 0\Big)

    ``N = n_items`` (the catalogue size), ``r_i`` the item's rank, ``pop(i)``
    its dense rank by training count (most frequent 1; the second term is 0 for
    an unseen item), ``rel(i)`` whether it is a test item. Microsoft
    Recommenders' ``serendipity`` is another metric:
    :func:`polars_rankmetrics.recsys.recommenders_serendipity`. Null for a user
    with no item ranked ``<= k``.
    """
    k = check_k(k)
    check_k(n_items, "n_items")
    size = float(n_items)
    for_user = (size + 1 - _rank.cast(pl.Float64)) / size
    for_anyone = ((size + 1 - pl.col(POP_RANK).cast(pl.Float64)) / size).fill_null(0.0)
    gain = (for_user - for_anyone).clip(lower_bound=0.0) * pl.col(RELEVANT).cast(pl.Float64)
    return pl.when(_top(k)).then(gain).mean().alias("serendipity")


def covered_users(k: int) -> pl.Expr:
    """RecTools' ``CoveredUsers``: 1.0 for a test user with an item ranked ``<= k``, else 0.0.

    Null for a user without test items (RecTools counts the test users only).
    """
    k = check_k(k)
    value = _top(k).fill_null(False).any().cast(pl.Float64)
    return pl.when(pl.col(RELEVANT).any()).then(value).otherwise(None).alias("covered_users")


def sufficient_reco(k: int, *, deep: bool = False) -> pl.Expr:
    """RecTools' ``SufficientReco``: 1.0 when ``k`` items are ranked ``<= k``, else 0.0.

    ``deep=True`` gives ``min(n / k, 1)`` for ``n`` items ranked ``<= k``.
    Null for a user without recommendations.
    """
    k = check_k(k)
    count = _top(k).fill_null(False).sum().cast(pl.Float64)
    value = (count / k).clip(upper_bound=1.0) if deep else (count >= k).cast(pl.Float64)
    return pl.when(_recommended()).then(value).otherwise(None).alias("sufficient_reco")


def unrepeated_reco(k: int, *, deep: bool = False) -> pl.Expr:
    """RecTools' ``UnrepeatedReco``: 1.0 when no item is repeated among those ranked ``<= k``.

    ``deep=True`` gives the share of distinct items among them. Needs
    ``prepare(..., check_repeats=False)`` to see repeats at all. Null for a user
    with no item ranked ``<= k``.
    """
    k = check_k(k)
    items = pl.col(ITEM).filter(_top(k))
    count = items.len()
    distinct = items.n_unique()
    value = distinct / count if deep else (distinct == count).cast(pl.Float64)
    return pl.when(count > 0).then(value.cast(pl.Float64)).otherwise(None).alias("unrepeated_reco")
