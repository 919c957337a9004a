"""Intra-list diversity and similarity over item features, in numpy blocks of users.

A user's list of ``L <= k`` items is a row of indices into the item feature
matrix; the ``L x L`` distances of a block of users are one numpy
broadcast, so no Python loop runs per user or per pair, and no
``users x k x k`` array is held beyond one block (about 16M numbers).

Features (``features``): a frame with an ``item`` column and either numeric
feature columns (RecTools' ``item_features_df``, one column per feature) or
one list/array column (an embedding). A null or NaN feature value, or an item
missing from ``features``, makes that item's distances NaN (RecTools), and
NaN pairs are left out of a user's mean. Needs numpy (the ``recsys`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_rankmetrics.recsys.columns import ITEM, RANK, USER
from polars_rankmetrics.recsys.frames import as_lazy, check_k, recommendations

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int64]

Distance = Literal["hamming", "cosine", "jaccard"]
_BLOCK_NUMBERS = 1 << 24


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as error:  # pragma: no cover - depends on the environment
        msg = 'item distances need numpy: pip install "polars_rankmetrics[recsys]"'
        raise ImportError(msg) from error
    return numpy


def feature_matrix(features: object) -> tuple[pl.DataFrame, FloatArray]:
    """``(items, matrix)``: the items with their row index, and one float64 row per item.

    The last row of ``matrix`` is all NaN: the row of items missing from ``features``.
    """
    np = _numpy()

    frame = as_lazy(features, "features").collect()
    if ITEM not in frame.columns or frame.width < 2:
        msg = f"`features` needs an 'item' column and feature columns (columns: {frame.columns})"
        raise ValueError(msg)
    if frame[ITEM].is_duplicated().any():
        msg = "`features` has an item more than once in column 'item'"
        raise ValueError(msg)
    values = frame.drop(ITEM)
    if values.width == 1 and isinstance(values.dtypes[0], pl.List | pl.Array):
        column = values.to_series()
        lengths = column.list.len() if isinstance(column.dtype, pl.List) else None
        if lengths is not None and lengths.n_unique() > 1:
            msg = "`features`: the embeddings in the list column differ in length"
            raise ValueError(msg)
        matrix = np.asarray(column.cast(pl.List(pl.Float64)).to_list(), dtype=np.float64)
    else:
        non_numeric = [name for name, dtype in values.schema.items() if not dtype.is_numeric()]
        if non_numeric:
            msg = f"`features`: columns {non_numeric} are not numeric"
            raise ValueError(msg)
        matrix = values.cast(pl.Float64).to_numpy()
    matrix = np.vstack([matrix.reshape(frame.height, -1), np.full((1, matrix.shape[-1]), np.nan)])
    items = frame.select(ITEM, pl.int_range(pl.len(), dtype=pl.Int64).alias("row"))
    return items, matrix


def _padded_lists(reco: object, k: int, items: pl.DataFrame) -> tuple[pl.Series, IntArray]:
    """The users, and their lists as rows of feature indices padded with -1."""
    import numpy as np

    missing = items.height  # the NaN row
    top = (
        recommendations(reco)
        .filter(pl.col(RANK) <= k)
        .join(items.lazy(), on=ITEM, how="left")
        .select(USER, pl.col("row").fill_null(missing))
        .sort(USER, maintain_order=True)
        .collect()
    )
    users, starts, lengths = (
        top.lazy()
        .with_row_index("position")
        .group_by(USER, maintain_order=True)
        .agg(pl.col("position").first().alias("start"), pl.len().alias("length"))
        .collect()
        .get_columns()
    )
    width = int(lengths.max() or 0)  # type: ignore[arg-type]
    lists = np.full((users.len(), max(width, 1)), -1, dtype=np.int64)
    owner = np.repeat(np.arange(users.len()), lengths.to_numpy())
    column = np.arange(top.height) - np.repeat(starts.to_numpy(), lengths.to_numpy())
    lists[owner, column] = top["row"].to_numpy()
    return users, lists


def _pair_distances(block: FloatArray, distance: Distance) -> FloatArray:
    """``(B, L, L)`` distances of the ``(B, L, d)`` feature block; NaN where a row has NaN."""
    import numpy as np

    absent = np.asarray(np.isnan(block).any(axis=2), dtype=bool)
    if distance == "hamming":
        result = (block[:, :, None, :] != block[:, None, :, :]).sum(axis=3).astype(np.float64)
    elif distance == "cosine":
        norms = np.linalg.norm(block, axis=2, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = block / norms
        result = 1.0 - np.einsum("bid,bjd->bij", unit, unit)
    else:
        present = (block != 0) & ~np.isnan(block)
        ones = present.astype(np.float64)
        shared = np.einsum("bid,bjd->bij", ones, ones)
        sizes = ones.sum(axis=2)
        union = sizes[:, :, None] + sizes[:, None, :] - shared
        with np.errstate(invalid="ignore", divide="ignore"):
            result = np.where(union > 0, 1.0 - shared / union, 0.0)
    result[absent[:, :, None] | absent[:, None, :]] = np.nan
    return np.asarray(result, dtype=np.float64)


def _mean_pair_values(
    lists: IntArray,
    matrix: FloatArray,
    distance: Distance,
    *,
    similarity: bool,
    fill: float | None,
    single: float,
) -> FloatArray:
    """Per list: the mean over its pairs ``i < j`` (of distance, or 1 - distance).

    A NaN pair is ``fill``, or left out when ``fill`` is None; a list without
    pairs gets ``single``.
    """
    import numpy as np

    n_users, width = lists.shape
    out = np.zeros(n_users, dtype=np.float64)
    dims = matrix.shape[1]
    step = max(1, _BLOCK_NUMBERS // max(1, width * width * dims))
    upper = np.triu(np.ones((width, width), dtype=bool), k=1)
    for start in range(0, n_users, step):
        rows = lists[start : start + step]
        valid = rows >= 0
        values = _pair_distances(matrix[np.where(valid, rows, -1)], distance)
        if similarity:
            values = 1.0 - values
        if fill is not None:
            values = np.where(np.isnan(values), fill, values)
        pairs = upper[None] & valid[:, :, None] & valid[:, None, :]
        counted = pairs & ~np.isnan(values)
        total = np.where(counted, values, 0.0).sum(axis=(1, 2))
        n_pairs = counted.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / n_pairs
        mean[pairs.sum(axis=(1, 2)) == 0] = single
        out[start : start + step] = mean
    return out


def intra_list_diversity(
    reco: object, features: object, *, k: int, distance: Distance = "hamming"
) -> pl.DataFrame:
    """
    Intra-list diversity: the mean distance between the items ranked ``<= k``, per user.

    ``distance="hamming"`` is RecTools' ``IntraListDiversity`` with
    ``PairwiseHammingDistanceCalculator`` (the number of differing feature
    values); ``"cosine"`` is ``1 - cos``; ``"jaccard"`` is ``1 - |a & b| / |a | b|``
    over the non-zero features (0 between two all-zero items). Every pair of
    rows counts (a repeated item gives a pair at distance 0). A list of one
    item has diversity 0 (RecTools); a list whose every pair is NaN (items
    without features) gets null (RecTools: NaN). Returns ``user, ild``.

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 3, 1], "rank": [1, 2, 3, 1]})
    >>> features = pl.DataFrame({"item": [1, 2, 3], "drama": [1, 0, 1], "comedy": [0, 1, 1]})
    >>> recsys.intra_list_diversity(reco, features, k=3)
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ ild      │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 1.333333 │
    │ 2    ┆ 0.0      │
    └──────┴──────────┘
    """
    k = check_k(k)
    _check_distance(distance)
    items, matrix = feature_matrix(features)
    users, lists = _padded_lists(reco, k, items)
    values = _mean_pair_values(lists, matrix, distance, similarity=False, fill=None, single=0.0)
    return pl.DataFrame({USER: users, "ild": values}).with_columns(pl.col("ild").fill_nan(None))


def intra_list_similarity(
    reco: object, features: object, *, k: int, distance: Literal["cosine", "jaccard"] = "cosine"
) -> pl.DataFrame:
    """
    Intra-list similarity (Ziegler et al. 2005): the mean of ``1 - distance`` over a list's pairs.

    As :func:`intra_list_diversity`, with a similarity (cosine or Jaccard)
    instead of a distance; null for a list of one item. Microsoft Recommenders'
    ``user_diversity`` with
    ``item_feature_vector`` is ``1 -`` this value with missing pairs counted as
    similarity 0: :func:`~.history.recommenders_diversity`. Returns ``user, ils``.
    """
    k = check_k(k)
    _check_distance(distance)
    items, matrix = feature_matrix(features)
    users, lists = _padded_lists(reco, k, items)
    values = _mean_pair_values(
        lists, matrix, distance, similarity=True, fill=None, single=float("nan")
    )
    return pl.DataFrame({USER: users, "ils": values}).with_columns(pl.col("ils").fill_nan(None))


def feature_vector_diversity(reco: object, features: object) -> pl.DataFrame:
    """
    Microsoft Recommenders' ``user_diversity`` with ``item_sim_measure="item_feature_vector"``.

    ``1 -`` the mean cosine similarity over the pairs of distinct items of a
    user's list (every row of ``reco``; cut it at ``k`` first), a pair with an
    item missing from ``features`` counting as similarity 0. A user with one
    item has no pair and gets null. Returns ``user, diversity``.
    """
    items, matrix = feature_matrix(features)
    users, lists = _padded_lists(reco, 1 << 62, items)
    values = _mean_pair_values(
        lists, matrix, "cosine", similarity=True, fill=0.0, single=float("nan")
    )
    return pl.DataFrame({USER: users, "diversity": 1.0 - values}).with_columns(
        pl.col("diversity").fill_nan(None)
    )


def _check_distance(distance: str) -> None:
    if distance not in ("hamming", "cosine", "jaccard"):
        msg = f"`distance` must be 'hamming', 'cosine' or 'jaccard', got {distance!r}"
        raise ValueError(msg)
