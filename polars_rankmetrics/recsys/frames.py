"""The tables every recommender metric reads: recommendations, test and training interactions.

Every input is normalised here, once, to a :class:`polars.LazyFrame`:

- **recommendations** (``reco``): ``user, item`` and either ``rank`` (1 = top;
  ties allowed, read as RecTools reads them) or ``score`` (higher first; ranked
  1, 2, ... per user, ties broken by item id ascending);
- **interactions** (the test set) and **train** (previous interactions):
  ``user, item``; a (user, item) pair is read once however often it repeats;
- item **features** / **embeddings** for the distance metrics (see
  :mod:`polars_rankmetrics.recsys.diversity`).

Each may be a polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow
Table, or a path to a parquet file. pandas and pyarrow are never imported here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, TypeVar

import polars as pl

from polars_rankmetrics.recsys.columns import (
    ITEM,
    ITEM_COUNT,
    ITEM_USERS,
    LONG_TAIL,
    POP_RANK,
    RANK,
    RELEVANT,
    SCORE,
    TRAIN_ROWS,
    TRAIN_USERS,
    USER,
)
from polars_rankmetrics.recsys.packed import (
    _no_repeats_numpy,
    _packed_pairs,
    _sorted_pairs_numpy,
    train_counts,
)

HeadBy = Literal["items", "interactions"]
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def _is_instance(obj: object, module: str, name: str) -> bool:
    """``isinstance(obj, module.name)``, without importing ``module``."""
    loaded = sys.modules.get(module)
    cls = getattr(loaded, name, None) if loaded is not None else None
    return isinstance(cls, type) and isinstance(obj, cls)


def as_lazy(source: object, argument: str) -> pl.LazyFrame:
    """Any supported table as a LazyFrame, its columns as given."""
    if isinstance(source, pl.LazyFrame):
        return source
    if isinstance(source, pl.DataFrame):
        return source.lazy()
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            msg = f"`{argument}`: no such file: {str(source)!r}"
            raise FileNotFoundError(msg)
        if path.suffix.lower() in (".parquet", ".pq"):
            return pl.scan_parquet(path)
        if path.suffix.lower() in (".csv", ".tsv"):
            return pl.scan_csv(path, separator="\t" if path.suffix.lower() == ".tsv" else ",")
        msg = f"`{argument}`: expected a .parquet, .csv or .tsv file, got {str(source)!r}"
        raise ValueError(msg)
    if _is_instance(source, "pandas", "DataFrame"):
        return pl.from_pandas(source).lazy()
    if _is_instance(source, "pyarrow", "Table") or _is_instance(source, "pyarrow", "RecordBatch"):
        table = pl.from_arrow(source)
        assert isinstance(table, pl.DataFrame)
        return table.lazy()
    if hasattr(source, "__arrow_c_stream__"):
        return pl.DataFrame(source).lazy()
    msg = (
        f"`{argument}` must be a polars DataFrame or LazyFrame, a pandas DataFrame, a "
        f"pyarrow Table or a parquet path; got {type(source).__name__}"
    )
    raise ValueError(msg)


def _require(frame: pl.LazyFrame, argument: str, columns: tuple[str, ...]) -> list[str]:
    names = frame.collect_schema().names()
    missing = [name for name in columns if name not in names]
    if missing:
        msg = f"`{argument}` has no column {missing} (columns: {names})"
        raise ValueError(msg)
    return names


def check_k(k: object, argument: str = "k") -> int:
    """``k`` as an int >= 1, or a ValueError naming it."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        msg = f"`{argument}` must be an integer >= 1, got {k!r}"
        raise ValueError(msg)
    return k


def recommendations(reco: object, argument: str = "reco") -> pl.LazyFrame:
    """``user, item, rank`` from ``reco``; ``rank`` from ``score`` when it has none.

    A ``score`` is ranked per user, highest first, ties broken by item id
    ascending (ordinal ranks 1, 2, ...); a null or NaN score is not a
    recommendation (the row is dropped). A given ``rank`` (an integer column)
    is kept as it is, ties included: RecTools reads a rank as a position, so
    two items at rank 1 both count as rank 1. :func:`check_reco` refuses ranks
    below 1, null ranks and repeated (user, item) pairs.
    """
    frame = as_lazy(reco, argument)
    names = _require(frame, argument, (USER, ITEM))
    if RANK in names:
        rank = frame.collect_schema()[RANK]
        if not rank.is_integer():
            msg = f"`{argument}`: column 'rank' must hold integers (1 = top), got {rank}"
            raise ValueError(msg)
        return frame.select(USER, ITEM, pl.col(RANK).cast(pl.Int64))
    if SCORE not in names:
        msg = f"`{argument}` needs a `rank` or a `score` column (columns: {names})"
        raise ValueError(msg)
    return (
        frame.select(USER, ITEM, SCORE)
        .filter(pl.col(SCORE).is_not_null() & ~pl.col(SCORE).cast(pl.Float64).is_nan())
        .sort(USER, SCORE, ITEM, descending=[False, True, False], nulls_last=True)
        .select(USER, ITEM, (pl.int_range(pl.len()).over(USER) + 1).cast(pl.Int64).alias(RANK))
    )


def interactions_table(source: object, argument: str, *, unique: bool = True) -> pl.LazyFrame:
    """``user, item`` pairs of ``source``, each pair once (as given with ``unique=False``)."""
    frame = as_lazy(source, argument)
    _require(frame, argument, (USER, ITEM))
    pairs = frame.select(USER, ITEM)
    return pairs.unique(maintain_order=False) if unique else pairs


def item_popularity(
    train: object,
    argument: str = "train",
    *,
    head_share: float = 0.2,
    head_by: HeadBy = "items",
    distinct_users: bool = True,
) -> pl.LazyFrame:
    """Per item of ``train``: distinct users, interactions, popularity rank, long tail.

    ``item_users`` counts distinct users (RecTools' ``MeanInvUserFreq``),
    ``item_count`` counts rows, repeats included (RecTools' ``AvgRecPopularity``
    and ``Serendipity``), and ``pop_rank`` ranks the distinct ``item_count``
    values densely, most frequent first (``Serendipity``).

    ``long_tail`` is False for the short head (Abdollahpouri et al.): with
    ``head_by="items"``, the ``ceil(head_share * n)`` most frequent of the ``n``
    training items (the paper's split: the top 20% of items, ``head_share=0.2``);
    with ``head_by="interactions"``, the most frequent items that together hold
    the first ``head_share`` of the training rows (e.g. 0.8 for the Pareto
    split). Ties in count are ordered by item id. An item never seen in training
    is in the tail (:func:`prepare` fills it). ``distinct_users=False`` skips
    counting distinct users (``item_users`` is then null), the costliest part.
    """
    per_item, _ = train_statistics(
        train, argument, head_share=head_share, head_by=head_by, distinct_users=distinct_users
    )
    return per_item


def train_statistics(
    train: object,
    argument: str = "train",
    *,
    head_share: float = 0.2,
    head_by: HeadBy = "items",
    distinct_users: bool = True,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """:func:`item_popularity` and :func:`train_totals` from one read of ``train``.

    Reads ``train``'s two id columns into memory once. With integer ids whose
    ranges fit in 32 and 31 bits, ``(user, item)`` packs into one Int64 key and a
    single sort of it counts the distinct users of every item and of the whole
    table (about half the work of ``n_unique`` per group); numpy sorts it and
    counts per item when it is installed and the item ids are dense enough,
    polars otherwise (the same counts); other ids use ``n_unique``.
    """
    if not 0 <= head_share <= 1:
        msg = f"`head_share` must be in [0, 1], got {head_share!r}"
        raise ValueError(msg)
    if head_by not in ("items", "interactions"):
        msg = f"`head_by` must be 'items' or 'interactions', got {head_by!r}"
        raise ValueError(msg)
    lazy = as_lazy(train, argument)
    _require(lazy, argument, (USER, ITEM))
    packed = None
    if distinct_users:
        packed = train_counts(lazy)
    if packed is None:  # the packed keys hold no null id; here they are looked for
        frame = lazy.select(USER, ITEM).collect()
        refuse_null_ids(frame, argument)
        if distinct_users:
            packed = _sorted_pairs_numpy(frame)
            if packed is None:
                packed = _packed_pairs(frame)
    if packed is not None:
        per_item, totals = packed
    else:
        users = pl.col(USER).n_unique() if distinct_users else pl.lit(None, dtype=pl.UInt32)
        per_item = frame.group_by(ITEM).agg(users.alias(ITEM_USERS), pl.len().alias(ITEM_COUNT))
        totals = frame.select(
            pl.col(USER).n_unique().alias(TRAIN_USERS), pl.len().alias(TRAIN_ROWS)
        )
    ordered = per_item.sort(ITEM_COUNT, ITEM, descending=[True, False])
    if head_by == "items":
        head = pl.int_range(pl.len()) < (pl.len() * head_share).ceil()
    else:
        before = pl.col(ITEM_COUNT).cum_sum() - pl.col(ITEM_COUNT)
        head = before < pl.col(ITEM_COUNT).sum() * head_share
    popularity = ordered.with_columns(
        pl.col(ITEM_COUNT).rank("dense", descending=True).cast(pl.Int64).alias(POP_RANK),
        (~head).alias(LONG_TAIL),
    )
    return popularity.lazy(), totals.lazy()


def train_totals(train: object, argument: str = "train") -> pl.LazyFrame:
    """One row: ``train_users`` (distinct users) and ``train_rows`` (rows) of ``train``."""
    frame = as_lazy(train, argument)
    _require(frame, argument, (USER, ITEM))
    return frame.select(pl.col(USER).n_unique().alias(TRAIN_USERS), pl.len().alias(TRAIN_ROWS))


def check_reco(reco: pl.LazyFrame, argument: str = "reco", *, repeats: bool = True) -> None:
    """Raise on a null id, a rank below 1 or null, and (with ``repeats``) a (user, item) twice.

    Collects the rank's extremes and the id columns in one pass over ``reco``;
    repeats are looked for by one numpy sort of packed integer ids (grouping
    by the pair when that does not apply, and to name the repeats).
    """
    queries = [
        reco.select(
            pl.col(RANK).min().alias("low"),
            pl.col(RANK).null_count().alias("nulls"),
            pl.col(USER).null_count().alias("null_users"),
            pl.col(ITEM).null_count().alias("null_items"),
        )
    ]
    if repeats:
        queries.append(reco.select(USER, ITEM))
    results = pl.collect_all(queries)
    if repeats:
        pairs_frame = results[1]
        if _no_repeats_numpy(pairs_frame) is not True:  # repeats, or no fast answer: look
            grouped = pairs_frame.group_by(USER, ITEM).agg(pl.len())
            results[1] = grouped.filter(pl.col("len") > 1).head(3)
        else:
            results[1] = pairs_frame.head(0)
    low, nulls, null_users, null_items = results[0].row(0)
    for column, count in ((USER, null_users), (ITEM, null_items)):
        if count:
            msg = (
                f"`{argument}`: column {column!r} has {count} null values; every row needs a "
                f"{column} id"
            )
            raise ValueError(msg)
    if nulls:
        msg = f"`{argument}`: column 'rank' has {nulls} null values; ranks start at 1"
        raise ValueError(msg)
    if low is not None and low < 1:
        msg = f"`{argument}`: column 'rank' has a rank {low} < 1; ranks start at 1 (1 = top)"
        raise ValueError(msg)
    if not repeats:
        return
    repeated = results[1]
    if repeated.height:
        pairs = list(zip(repeated[USER].to_list(), repeated[ITEM].to_list(), strict=True))
        msg = (
            f"`{argument}` recommends the same (user, item) more than once, e.g. {pairs}; "
            "measure it with UnrepeatedReco, or drop the repeats (e.g. keep the best rank)"
        )
        raise ValueError(msg)


def refuse_null_ids(frame: pl.DataFrame, argument: str) -> None:
    """Raise when ``frame`` (in memory) has a null ``user`` or ``item``, naming the table."""
    for column in (USER, ITEM):
        nulls = frame.get_column(column).null_count() if column in frame.columns else 0
        if nulls:
            msg = (
                f"`{argument}`: column {column!r} has {nulls} null values; every row needs a "
                f"{column} id"
            )
            raise ValueError(msg)


def key_types(tables: Mapping[str, pl.LazyFrame | pl.DataFrame]) -> dict[str, pl.DataType]:
    """The ``user`` and ``item`` types every table is cast to: the integer supertype of theirs.

    Ids of one type are left as they are. Integer ids of different widths or
    signs are cast to the narrowest integer type that holds them all (Int32 and
    a test user 3_000_000_000 become Int64); ids of different kinds (strings
    against integers) raise, naming both tables. ``tables`` maps each table's
    argument name to it.
    """
    chosen: dict[str, pl.DataType] = {}
    for column in (USER, ITEM):
        types = {
            argument: table.collect_schema()[column]
            for argument, table in tables.items()
            if column in table.collect_schema()
        }
        distinct = list(dict.fromkeys(types.values()))
        if len(distinct) <= 1:
            continue
        if not all(dtype.is_integer() for dtype in distinct):
            first = next(iter(types))
            other = next(a for a, dtype in types.items() if dtype != types[first])
            msg = (
                f"`{other}`: column {column!r} is {types[other]} but `{first}`'s is "
                f"{types[first]}; use the same ids"
            )
            raise ValueError(msg)
        empty = [pl.DataFrame(schema={column: dtype}) for dtype in distinct]
        chosen[column] = pl.concat(empty, how="vertical_relaxed").schema[column]
    return chosen


def cast_keys(frame: FrameT, types: Mapping[str, pl.DataType]) -> FrameT:
    """``frame`` with its ``user`` and ``item`` cast to :func:`key_types`' (those it has)."""
    schema = frame.collect_schema()
    casts = [
        pl.col(column).cast(dtype)
        for column, dtype in types.items()
        if column in schema and schema[column] != dtype
    ]
    return frame.with_columns(casts) if casts else frame


def judged(reco: pl.LazyFrame, interactions: pl.LazyFrame | None) -> pl.LazyFrame:
    """Recommendations outer-joined with the test pairs: ``user, item, rank, relevant``.

    A test pair that was not recommended has a null ``rank``; ``relevant`` says
    whether the pair is in the test set. Without interactions every row is
    irrelevant.
    """
    if interactions is None:
        return reco.with_columns(pl.lit(False).alias(RELEVANT))
    test = interactions.with_columns(pl.lit(True).alias(RELEVANT))
    return reco.join(test, on=[USER, ITEM], how="full", coalesce=True).with_columns(
        pl.col(RELEVANT).fill_null(False)
    )


def prepare(
    reco: object,
    *,
    interactions: object | None = None,
    train: object | None = None,
    check_repeats: bool = True,
    head_share: float = 0.2,
    head_by: HeadBy = "items",
) -> pl.LazyFrame:
    """The one frame the per-user expressions of :mod:`polars_rankmetrics.recsys` read.

    Columns: ``user, item, rank`` (null for test pairs not recommended),
    ``relevant`` (the pair is in ``interactions``), and with ``train`` the item's
    popularity columns of :func:`item_popularity` (null for items never seen in
    training, but ``long_tail`` True; ``train_users`` and ``train_rows`` filled
    on every row). ``head_share`` and ``head_by`` split the short head from the
    long tail, as in :func:`item_popularity`. ``check_repeats`` raises on a
    (user, item) pair recommended twice (leave it on, except to measure
    :func:`~.novelty.unrepeated_reco`).

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1]})
    >>> test = pl.DataFrame({"user": [1, 2], "item": ["b", "c"]})
    >>> train = pl.DataFrame({"user": [3, 3, 4], "item": ["a", "b", "a"]})
    >>> frame = recsys.prepare(reco, interactions=test, train=train)
    >>> frame.select("user", "item", "rank", "relevant", "item_users", "long_tail").sort(
    ...     "user", "item"
    ... ).collect()
    shape: (4, 6)
    ┌──────┬──────┬──────┬──────────┬────────────┬───────────┐
    │ user ┆ item ┆ rank ┆ relevant ┆ item_users ┆ long_tail │
    │ ---  ┆ ---  ┆ ---  ┆ ---      ┆ ---        ┆ ---       │
    │ i64  ┆ str  ┆ i64  ┆ bool     ┆ u32        ┆ bool      │
    ╞══════╪══════╪══════╪══════════╪════════════╪═══════════╡
    │ 1    ┆ a    ┆ 1    ┆ false    ┆ 2          ┆ false     │
    │ 1    ┆ b    ┆ 2    ┆ true     ┆ 1          ┆ true      │
    │ 2    ┆ a    ┆ 1    ┆ false    ┆ 2          ┆ false     │
    │ 2    ┆ c    ┆ null ┆ true     ┆ null       ┆ true      │
    └──────┴──────┴──────┴──────────┴────────────┴───────────┘
    """
    ranked = recommendations(reco)
    check_reco(ranked, repeats=check_repeats)
    tables = {"reco": ranked}
    if interactions is not None:
        pairs = interactions_table(interactions, "interactions")
        refuse_null_ids(
            pairs.filter(pl.col(USER).is_null() | pl.col(ITEM).is_null()).collect(), "interactions"
        )
        tables["interactions"] = pairs
    if train is not None:
        tables["train"] = as_lazy(train, "train")
    types = key_types(tables)
    ranked = cast_keys(ranked, types)
    test = cast_keys(tables["interactions"], types) if interactions is not None else None
    frame = judged(ranked, test)
    if train is None:
        return frame
    popularity, totals = train_statistics(
        cast_keys(tables["train"], types), head_share=head_share, head_by=head_by
    )
    frame = frame.join(popularity, on=ITEM, how="left").with_columns(
        pl.col(LONG_TAIL).fill_null(True)
    )
    return frame.join(totals, how="cross")
