"""Lists held against the user's history: Recommenders' serendipity, Steck's calibration.

Both are functions over whole frames returning one row per user, computed
with polars joins (no Python loop per user).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from polars_rankmetrics.recsys.columns import ITEM, RANK, RELEVANT, USER
from polars_rankmetrics.recsys.frames import as_lazy, check_k, interactions_table, recommendations

if TYPE_CHECKING:
    from collections.abc import Callable


def cooccurrence_similarity(pairs: pl.LazyFrame, train: pl.LazyFrame) -> pl.LazyFrame:
    r"""Recommenders' item co-occurrence cosine for the ``(a, b)`` pairs: ``both / sqrt(n_a n_b)``.

    ``both`` counts the training rows of users with both items (Recommenders
    assumes no repeated rows), ``n_a`` the rows with item a. Pairs that never
    co-occur are missing (similarity 0 to the caller).
    """
    counts = train.group_by(ITEM).agg(pl.len().alias("n"))
    left = train.rename({ITEM: "a"}).join(pairs.select("a").unique(), on="a", how="semi")
    both = (
        left.join(train.rename({ITEM: "b"}), on=USER)
        .join(pairs, on=["a", "b"], how="semi")
        .group_by("a", "b")
        .agg(pl.len().alias("both"))
    )
    return (
        both.join(counts.rename({ITEM: "a", "n": "n_a"}), on="a")
        .join(counts.rename({ITEM: "b", "n": "n_b"}), on="b")
        .select("a", "b", (pl.col("both") / (pl.col("n_a") * pl.col("n_b")).sqrt()).alias("sim"))
    )


def _feature_similarity(features: object) -> Callable[[pl.LazyFrame], pl.LazyFrame]:
    """Cosine similarity of item feature vectors, for a frame of ``(a, b)`` pairs."""
    import numpy as np

    from polars_rankmetrics.recsys.diversity import feature_matrix

    items, matrix = feature_matrix(features)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    missing = items.height

    def similarity(pairs: pl.LazyFrame) -> pl.LazyFrame:
        frame = (
            pairs.join(items.lazy().rename({ITEM: "a", "row": "row_a"}), on="a", how="left")
            .join(items.lazy().rename({ITEM: "b", "row": "row_b"}), on="b", how="left")
            .collect()
        )
        rows_a = frame["row_a"].fill_null(missing).to_numpy()
        rows_b = frame["row_b"].fill_null(missing).to_numpy()
        values = np.einsum("id,id->i", unit[rows_a], unit[rows_b])
        return frame.select("a", "b").with_columns(pl.Series("sim", values).fill_nan(None)).lazy()

    return similarity


def recommenders_serendipity(
    reco: object,
    train: object,
    *,
    features: object | None = None,
    interactions: object | None = None,
) -> pl.DataFrame:
    r"""
    Microsoft Recommenders' ``user_serendipity``: unexpectedness against the history, per user.

    .. math:: S(u) = \frac{1}{|L|} \sum_{i \in L} rel(i)
              \Big(1 - \frac{1}{|H_u|} \sum_{j \in H_u} sim(i, j)\Big)

    over every row of ``reco`` (cut it at ``k`` first) and the user's training
    items ``H_u``. ``sim`` is the item co-occurrence cosine in ``train``
    (Recommenders' default ``item_cooccurrence_count``) or, with ``features``,
    the cosine of the feature vectors (``item_feature_vector``); a pair without
    a value is 0. ``rel`` is 1 (Recommenders' default) or, with
    ``interactions``, whether the pair is a test pair (``col_relevance``). A
    user without history has no row. Like Recommenders, it assumes ``train``
    holds each (user, item) once (a repeat counts once in the history, but
    twice in the co-occurrence counts). RecTools' ``Serendipity`` is another
    metric: :func:`~.novelty.serendipity`. Returns ``user, serendipity``.
    """
    listed = recommendations(reco).select(USER, ITEM)
    history = interactions_table(train, "train")
    if interactions is None:
        listed = listed.with_columns(pl.lit(1.0).alias(RELEVANT))
    else:
        test = interactions_table(interactions, "interactions").with_columns(
            pl.lit(1.0).alias(RELEVANT)
        )
        listed = listed.join(test, on=[USER, ITEM], how="left").with_columns(
            pl.col(RELEVANT).fill_null(0.0)
        )
    pairs = listed.rename({ITEM: "a"}).join(history.rename({ITEM: "b"}), on=USER)
    distinct = pairs.select("a", "b").unique()
    if features is None:
        similarity = cooccurrence_similarity(distinct, as_lazy(train, "train").select(USER, ITEM))
    else:
        similarity = _feature_similarity(features)(distinct)
    per_item = (
        pairs.join(similarity, on=["a", "b"], how="left")
        .group_by(USER, "a")
        .agg(pl.col("sim").fill_null(0.0).mean(), pl.col(RELEVANT).first())
        .select(USER, ((1.0 - pl.col("sim")) * pl.col(RELEVANT)).alias("serendipity"))
    )
    return per_item.group_by(USER).agg(pl.col("serendipity").mean()).sort(USER).collect()


def recommenders_diversity(
    reco: object, *, features: object | None = None, train: object | None = None
) -> pl.DataFrame:
    """
    Microsoft Recommenders' ``user_diversity``: 1 - the mean similarity of a list's item pairs.

    Over the pairs of distinct items of each user's list (every row of
    ``reco``; cut it at ``k`` first). The similarity is, with ``features``, the
    cosine of the feature vectors (``item_sim_measure="item_feature_vector"``),
    else the item co-occurrence cosine in ``train`` (the default
    ``"item_cooccurrence_count"``, :func:`cooccurrence_similarity`); a pair
    without a value counts 0. A user with one item has no pair: null. Returns
    ``user, diversity``.
    """
    if features is not None:
        from polars_rankmetrics.recsys.diversity import feature_vector_diversity

        return feature_vector_diversity(reco, features)
    if train is None:
        msg = "give `features` (item_feature_vector) or `train` (item_cooccurrence_count)"
        raise ValueError(msg)
    listed = recommendations(reco).select(USER, ITEM)
    pairs = (
        listed.rename({ITEM: "a"})
        .join(listed.rename({ITEM: "b"}), on=USER)
        .filter(pl.col("a") < pl.col("b"))
    )
    similarity = cooccurrence_similarity(
        pairs.select("a", "b").unique(), as_lazy(train, "train").select(USER, ITEM)
    )
    per_user = (
        pairs.join(similarity, on=["a", "b"], how="left")
        .group_by(USER)
        .agg((1.0 - pl.col("sim").fill_null(0.0).mean()).alias("diversity"))
    )
    users = listed.select(USER).unique()
    return users.join(per_user, on=USER, how="left").sort(USER).collect()


def miscalibration(
    reco: object, train: object, genres: object, *, k: int, alpha: float = 0.01
) -> pl.DataFrame:
    r"""
    Steck's miscalibration: the KL divergence of the list's genre mix from the history's.

    .. math:: C_{KL}(p, q) = \sum_g p(g \mid u) \log \frac{p(g \mid u)}{\tilde q(g \mid u)},
              \quad \tilde q = (1 - \alpha) q + \alpha p

    ``p(g|u)`` averages ``p(g|i) = 1 / |genres(i)|`` over the user's distinct
    training items, ``q(g|u)`` over the items ranked ``<= k`` (uniform
    weights); items without a genre are left out of both. ``genres`` has one
    row per (item, genre) (columns ``item``, ``genre``). Natural log; 0 is
    perfectly calibrated. A user without a history with genres gets null; one
    whose list has none gets ``-log(alpha)`` (q is 0). Returns ``user, miscalibration``.

    References
    ----------
    H. Steck, "Calibrated recommendations", RecSys 2018.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 1, 4], "rank": [1, 2, 1, 2]})
    >>> train = pl.DataFrame({"user": [1, 1, 2], "item": [5, 3, 2]})
    >>> genres = pl.DataFrame(
    ...     {"item": [1, 2, 3, 4, 5], "genre": ["drama", "comedy", "drama", "comedy", "drama"]}
    ... )
    >>> recsys.miscalibration(reco, train, genres, k=2)  # history all drama, list half drama
    shape: (2, 2)
    ┌──────┬────────────────┐
    │ user ┆ miscalibration │
    │ ---  ┆ ---            │
    │ i64  ┆ f64            │
    ╞══════╪════════════════╡
    │ 1    ┆ 0.683197       │
    │ 2    ┆ 0.683197       │
    └──────┴────────────────┘
    """
    k = check_k(k)
    if not 0 < alpha < 1:
        msg = f"`alpha` must be in (0, 1), got {alpha!r}"
        raise ValueError(msg)
    labels = as_lazy(genres, "genres")
    names = labels.collect_schema().names()
    if ITEM not in names or "genre" not in names:
        msg = f"`genres` needs columns 'item' and 'genre' (columns: {names})"
        raise ValueError(msg)
    labels = labels.select(ITEM, "genre").unique()
    per_item = labels.with_columns((1.0 / pl.len().over(ITEM)).alias("weight"))

    def mix(frame: pl.LazyFrame, name: str) -> pl.LazyFrame:
        labelled = frame.join(per_item, on=ITEM)
        return (
            labelled.with_columns(pl.col(ITEM).n_unique().over(USER).alias("n"))
            .group_by(USER, "genre")
            .agg((pl.col("weight").sum() / pl.col("n").first()).alias(name))
        )

    listed = recommendations(reco).filter(pl.col(RANK) <= k).select(USER, ITEM)
    users = recommendations(reco).select(USER).unique()
    history = mix(interactions_table(train, "train").join(users, on=USER, how="semi"), "p")
    target = mix(listed, "q")
    joined = history.join(target, on=[USER, "genre"], how="left").with_columns(
        pl.col("q").fill_null(0.0)
    )
    smoothed = (1 - alpha) * pl.col("q") + alpha * pl.col("p")
    divergence = joined.group_by(USER).agg(
        (pl.col("p") * (pl.col("p") / smoothed).log()).sum().alias("miscalibration")
    )
    result = users.join(divergence, on=USER, how="left").sort(USER).collect()
    assert math.isfinite(alpha)
    return result
