"""Fast paths of :func:`~.evaluate.evaluate` for integer ids, by numpy.

Each function gives what a polars step of ``evaluate`` gives (a join, a
``group_by`` of the pairs, a ``value_counts``), with the same values, or None
when it does not apply: numpy missing, ids that are not integers or have
nulls, or ranges that do not fit one Int64 key or a dense count. The caller
then takes the polars step. numpy is imported only when called.

- :func:`ranked_pairs` packs each ``(user, item, rank)`` of a model's lists
  into one Int64 key and sorts it once (a stable sort when the lists come
  grouped by user, which is then nearly linear): the sorted pairs answer the
  repeat check (:func:`has_repeats`) and the rank of every test pair
  (:func:`ranks_of`, a binary search instead of a join of the test pairs to
  every list row);
- :func:`popularity_gather` looks the training popularity of each row's item
  up by position in a dense table (a gather instead of a join);
- :func:`sorted_item_counts` counts the recommendations of each item by
  ``bincount`` (CatalogCoverage and Gini read these counts);
- :func:`distinct_pairs` deduplicates the test pairs only when a pair repeats;
- :func:`train_counts` packs the training ids into one key while the table
  is read and counts the distinct users of each item over the sorted keys;
- :func:`unflagged` drops polars' sorted flag on ``user`` before a
  ``group_by`` (which it would otherwise make far slower).

Measured in ``benchmarks/RESULTS.md`` (section 9c).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankmetrics.recsys.columns import (
    ITEM,
    ITEM_COUNT,
    ITEM_USERS,
    RANK,
    TRAIN_ROWS,
    TRAIN_USERS,
    USER,
)

if TYPE_CHECKING:
    import numpy as np
    from polars._typing import PolarsDataType

_KEY_BITS = 63
"""An Int64 key holds the packed offsets in its 63 non-sign bits."""


def _numpy() -> Any:
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is in the recsys extra
        return None
    return np


def _bounds(series: pl.Series) -> tuple[int, int] | None:
    """``(min, max)`` of an integer column without nulls; None otherwise or when empty."""
    if not series.dtype.is_integer() or series.len() == 0 or series.null_count():
        return None
    low, high = series.min(), series.max()
    assert isinstance(low, int) and isinstance(high, int)
    return low, high


def _dense(low: int, high: int, rows: int) -> bool:
    """Whether ids in ``[low, high]`` are few enough to count in an array."""
    return high - low < 4 * rows + (1 << 20)


def _as_int64(np: Any, series: pl.Series) -> np.ndarray:
    return series.cast(pl.Int64).to_numpy()


def _fits(*bounds: tuple[int, int]) -> bool:
    """Whether every id is an Int64 well inside its range (offsets then cannot overflow)."""
    return all(-(1 << 62) <= low and high < 1 << 62 for low, high in bounds)


def _offset(column: str, low: int) -> pl.Expr:
    return pl.col(column).cast(pl.Int64) - low


@dataclass(frozen=True)
class RankedPairs:
    """A model's lists as sorted packed keys: ``(user - user_low, item - item_low, rank)``."""

    keys: np.ndarray
    """Sorted Int64 keys: the user offset, ``item_bits`` of item offset, ``rank_bits`` of rank."""
    pairs: np.ndarray
    """``keys >> rank_bits``: the sorted (user, item) part."""
    user_low: int
    user_high: int
    item_low: int
    item_high: int
    item_bits: int
    rank_bits: int


def ranked_pairs(reco: pl.DataFrame) -> RankedPairs | None:
    """The sorted packed keys of ``reco`` (``user, item, rank``, ranks >= 1 and not null).

    None when :mod:`numpy` is missing, when the ids are not integers or have
    nulls, or when the offsets and the largest rank need more than 63 bits.
    """
    np = _numpy()
    if np is None or reco.height == 0:
        return None
    users, items, ranks = _bounds(reco[USER]), _bounds(reco[ITEM]), _bounds(reco[RANK])
    if users is None or items is None or ranks is None or ranks[0] < 1:
        return None
    user_bits = (users[1] - users[0]).bit_length()
    item_bits = (items[1] - items[0]).bit_length()
    rank_bits = ranks[1].bit_length()
    if user_bits + item_bits + rank_bits > _KEY_BITS or not _fits(users, items, ranks):
        return None
    packed = (_offset(USER, users[0]) * (1 << item_bits) + _offset(ITEM, items[0])) * (
        1 << rank_bits
    ) + pl.col(RANK).cast(pl.Int64)
    # one polars pass builds the keys; numpy sorts a copy (polars' memory is read-only): a
    # stable (merge) sort of keys already in user order, each list a short run, is nearly
    # linear, numpy's quicksort is faster on keys in no order
    grouped = reco[USER].is_sorted()
    keys = np.sort(reco.select(packed).to_series().to_numpy(), kind="stable" if grouped else None)
    return RankedPairs(
        keys, keys >> rank_bits, users[0], users[1], items[0], items[1], item_bits, rank_bits
    )


def has_repeats(index: RankedPairs) -> bool:
    """Whether some (user, item) pair appears twice in the lists."""
    np = _numpy()
    return bool(np.any(index.pairs[1:] == index.pairs[:-1]))


def ranks_of(index: RankedPairs, pairs: pl.DataFrame) -> pl.DataFrame | None:
    """``pairs`` (``user, item``, each pair once) with the rank the lists give each; null if none.

    What ``pairs.join(reco, on=["user", "item"], how="left")`` gives for lists
    without repeated pairs, the rows ordered by user then item (a user's rows
    next to each other: the ``group_by`` that reads them runs faster). None for
    ids that are not integers or have nulls.
    """
    np = _numpy()
    if pairs.height == 0 or _bounds(pairs[USER]) is None or _bounds(pairs[ITEM]) is None:
        return None
    user = _as_int64(np, pairs[USER])
    item = _as_int64(np, pairs[ITEM])
    inside = (user >= index.user_low) & (user <= index.user_high)
    inside &= (item >= index.item_low) & (item <= index.item_high)
    wanted = ((user - index.user_low) << index.item_bits) + (item - index.item_low)
    wanted[~inside] = -1  # below every packed pair: never found
    if not bool(np.all(wanted[1:] >= wanted[:-1])):
        order = np.argsort(wanted)  # a binary search of sorted keys walks the memory in order
        wanted = wanted[order]
        pairs = pairs.select(pl.all().gather(pl.Series(order)))
    else:
        pairs = unflagged(pairs)
    position = np.searchsorted(index.pairs, wanted)
    np.minimum(position, index.pairs.shape[0] - 1, out=position)
    found = index.pairs[position] == wanted
    rank = index.keys[position] & ((1 << index.rank_bits) - 1)
    return pairs.with_columns(
        pl.when(pl.Series(found)).then(pl.Series(rank, dtype=pl.Int64)).alias(RANK)
    )


def unflagged(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` without polars' sorted flag on ``user`` (a copy only when it has one).

    ``group_by("user")`` over a column flagged sorted groups by slices, and
    then evaluates expressions such as MAP's per-position sums many times more
    slowly (about 20x at a million users).
    """
    flags = frame[USER].flags
    if not (flags["SORTED_ASC"] or flags["SORTED_DESC"]):
        return frame
    return frame.select(pl.all().gather(pl.int_range(pl.len())))


def popularity_gather(
    popularity: pl.DataFrame, columns: Sequence[str], item_dtype: PolarsDataType
) -> list[pl.Expr] | None:
    """Expressions that read ``columns`` of ``popularity`` for each row's item, by position.

    What a left join of the rows to ``popularity`` on ``item`` gives those
    columns (null for an item not in ``popularity``, or a null item). None
    when the items (of the rows or of ``popularity``) are not integers, when
    ``popularity`` has a null item, or when its item ids are too sparse for a
    dense table.
    """
    bounds = _bounds(popularity[ITEM])
    if not item_dtype.is_integer() or bounds is None:
        return None
    low, high = bounds
    if not _dense(low, high, popularity.height):
        return None
    span = high - low + 1
    positions = popularity[ITEM].cast(pl.Int64) - low
    offset = pl.col(ITEM).cast(pl.Int64, strict=False) - low  # beyond Int64: not in the table
    index = pl.when((offset >= 0) & (offset < span)).then(offset)
    gathered = []
    for column in columns:
        values = popularity[column]
        table = pl.repeat(None, span, dtype=values.dtype, eager=True).scatter(positions, values)
        gathered.append(pl.lit(table).gather(index).alias(column))
    return gathered


def sorted_item_counts(reco: pl.DataFrame, k: int | None) -> pl.Series | None:
    """The recommendation counts of the items ranked ``<= k`` (all with None), ascending, Float64.

    What ``item.filter(rank <= k).value_counts()``'s counts give, sorted. None
    for items that are not integers, have nulls or are too sparse to count.
    """
    np = _numpy()
    bounds = _bounds(reco[ITEM])
    if np is None or bounds is None or not _dense(bounds[0], bounds[1], reco.height):
        return None
    item = _as_int64(np, reco[ITEM])
    if k is not None:
        item = item[_as_int64(np, reco[RANK]) <= k]
    counts = np.bincount(item - bounds[0])
    counts = counts[counts > 0]
    counts.sort()
    return pl.Series(counts.astype(np.float64))


def distinct_pairs(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame``'s ``user, item`` pairs, each once: ``frame`` itself when no pair repeats.

    The check is one numpy sort of the packed pairs; ``unique()`` when some
    pair repeats or the check does not apply.
    """
    if _no_repeats_numpy(frame) is True:
        return frame
    return frame.unique(maintain_order=False)


_CHUNK = 1 << 22
"""Rows per step of the counts over the sorted training keys (reused buffers)."""


def train_counts(train: pl.LazyFrame) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """Per item (distinct users, rows) and the totals of ``train``, read straight into one key.

    What :func:`_sorted_pairs_numpy` gives, with less memory: the
    ``(user, item)`` ids are packed into ``user * 2**31 + item`` while the
    table is read (polars' streaming engine, so the two id columns are never
    held whole), numpy sorts the keys, and the counts are taken over the
    sorted keys a block at a time. None (the caller reads the table and takes
    the other paths) without numpy, for ids that are not integers, null,
    negative, with users from ``2**32`` or items too large to count densely
    (from ``4 * rows + 2**20``), or an empty table.
    """
    np = _numpy()
    schema = train.collect_schema()
    if np is None or not (schema[USER].is_integer() and schema[ITEM].is_integer()):
        return None
    user = pl.col(USER).cast(pl.Int64, strict=False)  # UInt64 beyond Int64: null, refused below
    item = pl.col(ITEM).cast(pl.Int64, strict=False)
    inside = user.is_between(0, (1 << 32) - 1) & item.is_between(0, (1 << 31) - 1)
    packed = pl.when(inside).then(user * (1 << 31) + item).otherwise(-1).alias("key")
    keys = train.select(packed).collect(engine="streaming").to_series().to_numpy(writable=True)
    rows = keys.shape[0]
    if rows == 0 or keys.min() < 0:
        return None
    keys.sort()
    limit, mask = 4 * rows + (1 << 20), (1 << 31) - 1
    items_buffer = np.empty(_CHUNK, dtype=np.int64)
    users_buffer = np.empty(_CHUNK + 1, dtype=np.int64)
    same = np.empty(_CHUNK, dtype=bool)
    per_item = np.zeros(0, dtype=np.int64)
    repeated = np.zeros(0, dtype=np.int64)
    train_users = 1
    for start in range(0, rows, _CHUNK):
        stop = min(start + _CHUNK, rows)
        items = np.bitwise_and(keys[start:stop], mask, out=items_buffer[: stop - start])
        if int(items.max()) >= limit:
            return None
        per_item = _add_counts(np, per_item, np.bincount(items))
        first = max(start, 1)  # rows compared with the row before them
        equal = np.equal(keys[first:stop], keys[first - 1 : stop - 1], out=same[: stop - first])
        repeated = _add_counts(np, repeated, np.bincount(items[first - start :][equal]))
        users = np.right_shift(keys[first - 1 : stop], 31, out=users_buffer[: stop - first + 1])
        equal = np.equal(users[1:], users[:-1], out=same[: stop - first])
        train_users += int(equal.shape[0] - np.count_nonzero(equal))
    distinct = per_item - _add_counts(np, repeated, np.zeros(per_item.shape[0], dtype=np.int64))
    seen = np.flatnonzero(per_item)
    return (
        pl.DataFrame(
            {
                ITEM: pl.Series(ITEM, seen).cast(schema[ITEM]),
                ITEM_USERS: pl.Series(ITEM_USERS, distinct[seen]).cast(pl.UInt32),
                ITEM_COUNT: pl.Series(ITEM_COUNT, per_item[seen]).cast(pl.UInt32),
            }
        ),
        pl.DataFrame(
            {
                TRAIN_USERS: pl.Series(TRAIN_USERS, [train_users], dtype=pl.UInt32),
                TRAIN_ROWS: pl.Series(TRAIN_ROWS, [rows], dtype=pl.UInt32),
            }
        ),
    )


def _add_counts(np: Any, total: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``total + counts``, the shorter padded with zeros."""
    if counts.shape[0] > total.shape[0]:
        total, counts = counts, total
    total[: counts.shape[0]] += counts
    return total


def _sorted_pairs_numpy(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """:func:`_packed_pairs` by numpy: one ``np.sort`` of the packed keys, counts by bincount.

    None (the caller falls back to polars) without numpy, for ids that are not
    integers, have nulls, or whose ranges do not fit the packing, and for item
    ids too sparse for a dense count (range above ``4 * rows + 2**20``). numpy's
    sort of one int64 array is several times faster than polars' at one thread.
    """
    np = _numpy()
    user_bounds, item_bounds = _bounds(frame[USER]), _bounds(frame[ITEM])
    if np is None or user_bounds is None or item_bounds is None:
        return None
    (user_min, user_max), (item_min, item_max) = user_bounds, item_bounds
    schema = frame.schema
    if max(user_max, item_max) >= 1 << 62:
        return None
    span = item_max - item_min + 1
    if user_max - user_min >= 1 << 32 or span > min(1 << 31, 4 * frame.height + (1 << 20)):
        return None
    users = frame[USER].cast(pl.Int64).to_numpy()  # a copy (writeable) unless zero-copy
    key = np.left_shift(users, 31, out=users if users.flags.writeable else None)
    items = frame[ITEM].to_numpy()  # Int32/Int64: added without an Int64 copy
    if items.dtype not in (np.int32, np.int64):  # item - item_min must fit its own dtype
        items = frame[ITEM].cast(pl.Int64).to_numpy()
    np.add(key, items, out=key, casting="unsafe")  # ids < 2**62: see above
    offset = ((user_min << 31) + item_min + (1 << 63)) % (1 << 64) - (1 << 63)
    key -= offset  # modulo 2**64 (numpy's int64 arrays wrap): the packed key, in [0, 2**63)
    rows = np.bincount(items - item_min if item_min else items, minlength=span)
    key.sort()
    same = np.empty(key.shape[0] - 1, dtype=bool)  # reused: repeated pairs, then same users
    np.equal(key[1:], key[:-1], out=same)
    repeated = np.flatnonzero(same) + 1  # where a pair repeats the one before it
    distinct = rows - np.bincount(np.bitwise_and(key[repeated], (1 << 31) - 1), minlength=span)
    key >>= 31  # in place: the user of each sorted pair
    np.equal(key[1:], key[:-1], out=same)
    train_users = key.shape[0] - int(np.count_nonzero(same))
    seen = np.flatnonzero(rows)
    per_item = pl.DataFrame(
        {
            ITEM: pl.Series(ITEM, seen + item_min).cast(schema[ITEM]),
            ITEM_USERS: pl.Series(ITEM_USERS, distinct[seen]).cast(pl.UInt32),
            ITEM_COUNT: pl.Series(ITEM_COUNT, rows[seen]).cast(pl.UInt32),
        }
    )
    totals = pl.DataFrame(
        {
            TRAIN_USERS: pl.Series(TRAIN_USERS, [train_users], dtype=pl.UInt32),
            TRAIN_ROWS: pl.Series(TRAIN_ROWS, [frame.height], dtype=pl.UInt32),
        }
    )
    return per_item, totals


def _no_repeats_numpy(frame: pl.DataFrame) -> bool | None:
    """Whether no (user, item) pair repeats, by one numpy sort of packed keys; None: not decided.

    None without numpy, for ids that are not integers or have nulls, or whose
    ranges do not fit one Int64 key (the caller then groups by the pair).
    """
    np = _numpy()
    if np is None:
        return None
    if frame.height < 2:
        return True
    user_bounds, item_bounds = _bounds(frame[USER]), _bounds(frame[ITEM])
    if user_bounds is None or item_bounds is None:
        return None
    (user_min, user_max), (item_min, item_max) = user_bounds, item_bounds
    fits = user_max - user_min < 1 << 32 and item_max - item_min < 1 << 31
    if not fits or max(user_max, item_max) >= 1 << 62:
        return None
    user = frame[USER].cast(pl.Int64).to_numpy()
    grouped = bool(np.all(user[1:] >= user[:-1]))  # rows one user after another
    key = user - user_min
    key <<= 31
    key += frame[ITEM].cast(pl.Int64).to_numpy() - item_min
    key.sort(kind="stable" if grouped else "quicksort")  # a merge sort of the runs: near linear
    return not bool(np.any(key[1:] == key[:-1]))


def _packed_pairs(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """Per item (distinct users, rows) and totals from one sorted key; None if ids do not fit."""
    schema = frame.schema
    if frame.height == 0 or not (schema[USER].is_integer() and schema[ITEM].is_integer()):
        return None
    user_min, user_max = frame[USER].min(), frame[USER].max()
    item_min, item_max = frame[ITEM].min(), frame[ITEM].max()
    assert isinstance(user_min, int) and isinstance(user_max, int)
    assert isinstance(item_min, int) and isinstance(item_max, int)
    if user_max - user_min >= 1 << 32 or item_max - item_min >= 1 << 31:
        return None
    shift = 1 << 31
    key = (pl.col(USER).cast(pl.Int64) - user_min) * shift + (
        pl.col(ITEM).cast(pl.Int64) - item_min
    )
    ordered = frame.select(key.sort().alias("key"))
    previous = pl.col("key").shift(1)
    flags = ordered.select(
        (pl.col("key") != previous).fill_null(True).alias("new_pair"),
        (pl.col("key") // shift != previous // shift).fill_null(True).alias("new_user"),
        (pl.col("key") % shift + item_min).cast(schema[ITEM]).alias(ITEM),
    )
    per_item = flags.group_by(ITEM).agg(
        pl.col("new_pair").sum().cast(pl.UInt32).alias(ITEM_USERS), pl.len().alias(ITEM_COUNT)
    )
    totals = flags.select(
        pl.col("new_user").sum().cast(pl.UInt32).alias(TRAIN_USERS), pl.len().alias(TRAIN_ROWS)
    )
    return per_item, totals
