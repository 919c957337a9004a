"""Catalogue-wide metrics: coverage, exposure concentration and groups, Recommenders' novelty.

Each is a function over whole frames (any input of :func:`~.frames.as_lazy`)
that returns a float or a small DataFrame: the value is over the catalogue,
not per user.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rankmetrics.recsys.columns import ITEM, ITEM_COUNT, RANK, TRAIN_ROWS, USER
from polars_rankmetrics.recsys.frames import as_lazy, check_k, interactions_table, recommendations
from polars_rankmetrics.recsys.packed import sorted_item_counts

if TYPE_CHECKING:
    from polars_rankmetrics.recsys.names import Spec

Catalog = int | Collection[object] | pl.Series
PositionDiscount = Literal["none", "log", "reciprocal"]


def _catalog_size(catalog: Catalog) -> int:
    size = catalog if isinstance(catalog, int) else len(catalog)
    if isinstance(size, bool) or size < 1:
        msg = f"`catalog` must hold at least one item (or be a size >= 1), got {catalog!r}"
        raise ValueError(msg)
    return size


def _top(reco: object, k: int | None) -> pl.LazyFrame:
    frame = recommendations(reco)
    return frame if k is None else frame.filter(pl.col(RANK) <= check_k(k))


def catalog_coverage(
    reco: object, k: int, *, catalog: Catalog | None = None, normalize: bool = False
) -> float:
    """
    RecTools' ``CatalogCoverage``: the distinct items ranked ``<= k`` in any list.

    ``normalize=True`` divides by the catalogue size (``catalog``: the items,
    or their number), which is then required. Items ranked ``<= k`` but
    outside ``catalog`` still count, as in RecTools.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 1, 3], "rank": [1, 2, 1, 2]})
    >>> recsys.catalog_coverage(reco, 1)
    1.0
    >>> recsys.catalog_coverage(reco, 2, catalog=10, normalize=True)
    0.3
    """
    count = int(_top(reco, k).select(pl.col(ITEM).n_unique()).collect().item())
    if normalize:
        if catalog is None:
            msg = "`catalog` is required with `normalize=True`"
            raise ValueError(msg)
        return count / _catalog_size(catalog)
    return float(count)


def prediction_coverage(reco: object, *, catalog: Catalog) -> float:
    """Prediction coverage (Ge et al. 2010): the share of the catalogue in any list, at any rank."""
    count = int(recommendations(reco).select(pl.col(ITEM).n_unique()).collect().item())
    return count / _catalog_size(catalog)


def user_coverage(reco: object, users: object, *, k: int, min_items: int = 1) -> float:
    """
    The share of ``users`` (a frame with a ``user`` column) with ``min_items`` items ``<= k``.

    ``min_items=1`` is RecTools' ``CoveredUsers`` mean over the test users;
    ``min_items=k`` asks for full lists (``SufficientReco`` over those users).
    """
    check_k(min_items, "min_items")
    wanted = as_lazy(users, "users").select(USER).unique()
    counts = _top(reco, k).group_by(USER).agg(pl.len().alias("n"))
    joined = wanted.join(counts, on=USER, how="left").select(
        (pl.col("n").fill_null(0) >= min_items).mean()
    )
    value = joined.collect().item()
    return math.nan if value is None else float(value)


def recommenders_catalog_coverage(reco: object, train: object) -> float:
    """Microsoft Recommenders' ``catalog_coverage``: distinct items recommended over trained.

    Every row of ``reco`` counts (no cut-off; cut it first), as in Recommenders.
    """
    recommended = recommendations(reco).select(pl.col(ITEM).n_unique()).collect().item()
    trained = as_lazy(train, "train").select(pl.col(ITEM).n_unique()).collect().item()
    return float(recommended / trained)


def _exposure_counts(reco: object, k: int | None, catalog: Catalog | None) -> list[int]:
    counts = _top(reco, k).group_by(ITEM).agg(pl.len()).collect()["len"].to_list()
    if catalog is not None:
        missing = _catalog_size(catalog) - len(counts)
        if missing < 0:
            msg = f"`catalog` has {_catalog_size(catalog)} items but {len(counts)} are recommended"
            raise ValueError(msg)
        counts.extend([0] * missing)
    return counts


def gini_index(reco: object, *, k: int | None = None, catalog: Catalog | None = None) -> float:
    r"""
    The Gini index of item exposure: 0 when all items are recommended equally, near 1 if one is.

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_j}

    over the ``n`` items' recommendation counts ``c`` in ascending order, the
    rows ranked ``<= k`` (every row without ``k``). With ``catalog`` the items
    never recommended count with 0; without it only recommended items count.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame(
    ...     {"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 4], "rank": [1, 2, 3, 1, 2]}
    ... )
    >>> round(recsys.gini_index(reco, k=2), 6), recsys.gini_index(reco, k=2, catalog=5)
    (0.166667, 0.5)
    >>> recsys.shannon_entropy(reco, k=2)
    1.5
    """
    counts = sorted(_exposure_counts(reco, k, catalog))
    n = len(counts)
    total = sum(counts)
    if n == 0 or total == 0:
        return math.nan
    weighted = sum((2 * j - n - 1) * count for j, count in enumerate(counts, start=1))
    return weighted / (n * total)


def shannon_entropy(reco: object, *, k: int | None = None, base: float = 2) -> float:
    r"""
    The Shannon entropy of item exposure, :math:`-\sum_i p_i \log p_i`, ``p_i`` an item's share.

    Over the rows ranked ``<= k`` (every row without ``k``). With ``base=2``
    and no ``k`` this is Microsoft Recommenders' ``distributional_coverage``.
    """
    if not base > 1:
        msg = f"`base` must be > 1, got {base!r}"
        raise ValueError(msg)
    counts = _top(reco, k).group_by(ITEM).agg(pl.len().cast(pl.Float64))
    share = pl.col("len") / pl.col("len").sum()
    value = counts.select(-(share * share.log(base)).sum()).collect().item()
    return float(value)


def distributional_coverage(reco: object) -> float:
    """Microsoft Recommenders' ``distributional_coverage``: :func:`shannon_entropy` in bits."""
    return shannon_entropy(reco, base=2)


def recommenders_novelty(reco: object, train: object) -> float:
    r"""
    Microsoft Recommenders' ``novelty``: the mean self-information of every recommendation.

    .. math:: novelty = \frac{1}{|R|} \sum_{(u, i) \in R} -\log_2 \frac{count(i)}{|train|}

    ``count(i)`` counts the item's training rows and ``|train|`` all of them;
    an item never seen in training adds 0 but still counts in ``|R|`` (every
    row of ``reco``; cut it at ``k`` first). RecTools' ``MeanInvUserFreq``
    counts distinct users instead and averages per user:
    :func:`~.novelty.mean_inv_user_freq`.
    """
    rows = as_lazy(train, "train")
    per_item = rows.group_by(ITEM).agg(pl.len().alias("count"))
    total = rows.select(pl.len().alias("total"))
    information = per_item.join(total, how="cross").select(
        ITEM, (-(pl.col("count") / pl.col("total")).log(2)).alias("information")
    )
    frame = recommendations(reco).join(information, on=ITEM, how="left")
    value = frame.select(pl.col("information").fill_null(0).sum() / pl.len()).collect().item()
    return float(value)


def _discount(discount: PositionDiscount) -> pl.Expr:
    rank = pl.col(RANK).cast(pl.Float64)
    if discount == "none":
        return pl.lit(1.0)
    if discount == "log":
        return 1.0 / (rank + 1).log(2)
    if discount == "reciprocal":
        return 1.0 / rank
    msg = f"`discount` must be 'none', 'log' or 'reciprocal', got {discount!r}"
    raise ValueError(msg)


def group_exposure(
    reco: object,
    groups: object,
    *,
    k: int,
    discount: PositionDiscount = "log",
    group: str = "group",
) -> pl.DataFrame:
    r"""
    The exposure each item group gets from the lists: per group, total, share and per item.

    An item at rank ``r <= k`` gets exposure ``disc(r)``: ``1 / log2(r + 1)``
    (``"log"``, the DCG browsing model), ``1 / r`` or 1. ``groups`` maps items
    to groups (columns ``item`` and ``group``, one row per item); a recommended
    item without a group goes to the null group. ``per_item`` divides a group's
    exposure by its number of items in ``groups`` (null for the null group).
    :func:`exposure_disparity` compares two groups.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1]})
    >>> groups = pl.DataFrame({"item": ["a", "b", "c"], "group": ["head", "tail", "tail"]})
    >>> recsys.group_exposure(reco, groups, k=2, discount="reciprocal")
    shape: (2, 5)
    ┌───────┬──────────┬───────┬───────┬──────────┐
    │ group ┆ exposure ┆ share ┆ items ┆ per_item │
    │ ---   ┆ ---      ┆ ---   ┆ ---   ┆ ---      │
    │ str   ┆ f64      ┆ f64   ┆ u32   ┆ f64      │
    ╞═══════╪══════════╪═══════╪═══════╪══════════╡
    │ head  ┆ 2.0      ┆ 0.8   ┆ 1     ┆ 2.0      │
    │ tail  ┆ 0.5      ┆ 0.2   ┆ 2     ┆ 0.25     │
    └───────┴──────────┴───────┴───────┴──────────┘
    """
    mapping = as_lazy(groups, "groups")
    names = mapping.collect_schema().names()
    if ITEM not in names or group not in names:
        msg = f"`groups` needs columns 'item' and {group!r} (columns: {names})"
        raise ValueError(msg)
    mapping = mapping.select(ITEM, pl.col(group).alias("group"))
    sizes = mapping.group_by("group").agg(pl.len().alias("items"))
    exposure = (
        _top(reco, k)
        .with_columns(_discount(discount).alias("exposure"))
        .join(mapping, on=ITEM, how="left")
        .group_by("group")
        .agg(pl.col("exposure").sum())
    )
    result = (
        exposure.join(sizes, on="group", how="full", coalesce=True)
        .with_columns(pl.col("exposure").fill_null(0.0))
        .with_columns(
            (pl.col("exposure") / pl.col("exposure").sum()).alias("share"),
            (pl.col("exposure") / pl.col("items")).alias("per_item"),
        )
        .select("group", "exposure", "share", "items", "per_item")
        .sort("group", nulls_last=True)
    )
    return result.collect().rename({"group": group})


def exposure_disparity(
    exposure: pl.DataFrame, first: object, second: object, *, group: str = "group"
) -> dict[str, float]:
    """The difference and ratio of two groups' per-item exposure in :func:`group_exposure`'s table.

    Returns ``{"difference": a - b, "ratio": a / b}`` for ``a``, ``b`` the
    per-item exposure of ``first`` and ``second`` (ratio NaN when ``b`` is 0).
    """
    values = dict(zip(exposure[group].to_list(), exposure["per_item"].to_list(), strict=True))
    for name in (first, second):
        if name not in values:
            msg = f"no group {name!r} in the exposure table (groups: {list(values)})"
            raise ValueError(msg)
    a, b = float(values[first]), float(values[second])
    return {"difference": a - b, "ratio": a / b if b else math.nan}


def intersection(
    reco: object, ref_reco: object, *, k: int, ref_k: int | None = None
) -> pl.DataFrame:
    """
    RecTools' ``Intersection``: the share of a user's top ``k`` in ``ref_reco``'s top ``ref_k``.

    Per user with an item ranked ``<= k`` in ``reco``: the items ranked
    ``<= ref_k`` (default ``k``) in ``ref_reco`` among them, over their number.
    Returns ``user, intersection``. (RecTools returns 1 for every user when
    ``ref_reco`` is the very same object as ``reco``, even one with no item
    ranked ``<= k``; here such a user has no row.)

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 1, 4], "rank": [1, 2, 1, 2]})
    >>> other = pl.DataFrame({"user": [1, 1, 2], "item": [3, 1, 7], "rank": [1, 2, 1]})
    >>> recsys.intersection(reco, other, k=2)
    shape: (2, 2)
    ┌──────┬──────────────┐
    │ user ┆ intersection │
    │ ---  ┆ ---          │
    │ i64  ┆ f64          │
    ╞══════╪══════════════╡
    │ 1    ┆ 0.5          │
    │ 2    ┆ 0.0          │
    └──────┴──────────────┘
    """
    ref_k = k if ref_k is None else check_k(ref_k, "ref_k")
    top = _top(reco, k).select(USER, ITEM)
    reference = interactions_table(_top(ref_reco, ref_k), "ref_reco").with_columns(
        pl.lit(True).alias("shared")
    )
    joined = top.join(reference, on=[USER, ITEM], how="left")
    per_user = joined.group_by(USER).agg(
        (pl.col("shared").fill_null(False).sum() / pl.len()).alias("intersection")
    )
    return per_user.sort(USER).collect()


def model_rbo(
    reco: object,
    ref_reco: object,
    *,
    k: int,
    p: float = 0.9,
    kind: Literal["ext", "min", "res", "truncated"] = "ext",
) -> pl.DataFrame:
    """
    Rank-biased overlap (Webber et al. 2010) between two models' top ``k``, per user.

    Each user's items ranked ``<= k`` are listed by rank, then item id (for
    tied ranks), and compared with
    :func:`polars_rankmetrics.meta_evaluation.rbo` (``p``, ``kind``). A user
    in one model only is compared with an empty list. Returns ``user, rbo``.
    Unlike :func:`intersection`, the order inside the lists counts.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "rank": [1, 2, 3]})
    >>> other = pl.DataFrame({"user": [1, 1, 1], "item": [2, 1, 3], "rank": [1, 2, 3]})
    >>> recsys.model_rbo(reco, other, k=3, p=0.9)
    shape: (1, 2)
    ┌──────┬─────┐
    │ user ┆ rbo │
    │ ---  ┆ --- │
    │ i64  ┆ f64 │
    ╞══════╪═════╡
    │ 1    ┆ 0.9 │
    └──────┴─────┘
    """
    from polars_rankmetrics.meta_evaluation.rbo import rbo

    k = check_k(k)

    def lists(frame: object, name: str) -> pl.LazyFrame:
        top = _top(frame, k).sort(USER, RANK, ITEM)
        return top.group_by(USER, maintain_order=True).agg(pl.col(ITEM).alias(name))

    first, second = lists(reco, "first"), lists(ref_reco, "second")
    joined = first.join(second, on=USER, how="full", coalesce=True)
    dtype = joined.collect_schema()["first"]
    empty = pl.lit([], dtype=dtype)
    filled = joined.with_columns(pl.col("first", "second").fill_null(empty))
    return filled.select(USER, rbo("first", "second", p=p, kind=kind)).sort(USER).collect()


def _catalog_expr(spec: Spec, catalog: Catalog | None) -> tuple[pl.Expr | None, pl.Expr]:
    """One value over the whole prepared frame of a model, as ``(counts, value)``.

    ``counts`` (None: ``value`` reads the frame itself) is the sorted recommendation
    counts of the items in the top ``k``, and ``value`` is written over
    ``pl.element()``, those counts: :func:`_catalog_plan` computes the counts of
    each ``k`` once for every metric that reads them.
    """
    top = pl.col(RANK) <= (spec.k or 0) if spec.k is not None else pl.col(RANK).is_not_null()
    counts = (
        pl.col(ITEM).filter(top).value_counts(sort=False).struct.field("count").cast(pl.Float64)
    ).sort()
    count = pl.element()
    if spec.name == "CatalogCoverage":
        value = count.len().cast(pl.Float64)  # the distinct items, null included as n_unique
        if spec.options.get("normalize"):
            if catalog is None:
                msg = f"{spec.label!r} with normalize=true needs `catalog`"
                raise ValueError(msg)
            value = value / _catalog_size(catalog)
        return counts, value
    if spec.name == "PredictionCoverage":
        assert catalog is not None
        items = pl.col(ITEM).filter(pl.col(RANK).is_not_null())
        return None, items.n_unique() / _catalog_size(catalog)
    if spec.name == "Entropy":  # as before: over the shared counts, a sum 1 ulp apart
        share = counts / counts.sum()
        return None, -(share * share.log(2)).sum()
    if spec.name == "Novelty":
        information = -(pl.col(ITEM_COUNT).cast(pl.Float64) / pl.col(TRAIN_ROWS)).log(2)
        return None, information.filter(top).fill_null(0.0).sum() / top.sum()
    # Gini over ascending counts, the never-recommended catalogue items as zeros first
    recommended = count.len().cast(pl.Float64)
    zeros = pl.lit(0.0) if catalog is None else float(_catalog_size(catalog)) - recommended
    n = recommended + zeros
    position = count.cum_count().cast(pl.Float64) + zeros
    return counts, ((2 * position - n - 1) * count).sum() / (n * count.sum())


def _catalog_plan(
    frame: pl.LazyFrame,
    exprs: Sequence[tuple[str, int | None, pl.Expr | None, pl.Expr]],
    lists: pl.DataFrame | None = None,
) -> pl.LazyFrame:
    """The catalogue metrics in two selects: the counts of each ``k`` once, then the values.

    An expression that names the same counts several times (or several expressions
    naming them) would compute them once per mention. With ``lists`` (the model's
    ``user, item, rank`` in memory), the counts come from
    :func:`~.packed.sorted_item_counts` where it applies (the same counts).
    """
    first: dict[str, pl.Expr] = {}
    counted: dict[str, pl.Series] = {}
    second = []
    for label, k, counts, value in exprs:
        if counts is None:
            first[label] = value
            second.append(pl.col(label))
            continue
        key = f"__counts{k}"
        if key not in first and key not in counted:
            fast = None if lists is None else sorted_item_counts(lists, k)
            if fast is None:
                first[key] = counts.implode()
            else:
                counted[key] = fast
        second.append(pl.col(key).list.eval(value).list.first().alias(label))
    if not counted:
        return frame.select(**first).select(second)
    known = pl.DataFrame({key: [series] for key, series in counted.items()}).lazy()
    if first:
        known = pl.concat([frame.select(**first), known], how="horizontal")
    return known.select(second)
