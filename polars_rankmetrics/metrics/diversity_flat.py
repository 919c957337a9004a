"""A column of ranked lists of subtopic structs as flat numpy arrays, for all queries at once.

The batched diversity measures (:mod:`.diversity_batched`) and the batched
greedy ideal (:mod:`.diversity_greedy`) read every list of a column together:
one entry per row and one per (row, subtopic) pair, an integer id per distinct
(list, subtopic), and for each pair the pairs of its subtopic above it in its
list. :func:`sequential_sums` adds values per segment in the orders Python and
polars add them, so that the batched values keep the bits of the expressions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]
    Floats = npt.NDArray[np.float64]


MASK_BITS = 52
"""Up to this many distinct subtopics in a column, a set of them is a bit mask (summed exactly
as float64)."""


@dataclass(frozen=True)
class Flat:
    """The rows of a column of lists, and their (row, subtopic) pairs in list order.

    ``gid`` indexes a table of ``n_gid`` slots with one slot per (list,
    subtopic) of each list (and, in the dense layout, unused ones); ``local``
    tells the subtopics of one list apart (a bit number while the column has
    at most :data:`MASK_BITS` distinct subtopics); ``row_mask``, in that case
    and without repeats in a row, is each row's set of subtopics as a bit mask.
    ``value_rank`` ranks the subtopic values (as Python compares them) and
    ``text_rank`` their text (as ``str``), over the whole column.
    ``earlier_all``: see :func:`earlier`.
    """

    n_lists: int
    rows: pl.Series
    row_list: Ints
    row_start: Ints
    pair_start: Ints
    pair_row: Ints
    pair_list: Ints
    gid: Ints
    n_gid: int
    n_subtopics: Ints
    local: Ints
    row_mask: Ints | None
    value_rank: Ints
    text_rank: Ints
    earlier_all: Ints | None


def flatten(lists: pl.Series, field: str = "subtopics", *, clean: bool = False) -> Flat | None:
    """The :class:`Flat` arrays of a column of lists of structs with subtopic lists in ``field``.

    None when the subtopics are neither integers nor strings, or a subtopic is
    null and not ``clean``. ``clean``: a row's subtopic list loses its nulls and
    repeats (the first of each value stays), as
    :func:`.diversity_input.subtopic_columns` cleans them.
    """
    import numpy as np

    if not subtopics_typed(lists.dtype, field):
        return None
    n_lists = len(lists)
    row_counts = lists.list.len().fill_null(0).to_numpy().astype(np.int64)
    rows = lists.list.explode(empty_as_null=False, keep_nulls=False)
    subtopics = rows.struct.field(field)
    values = subtopics.list.explode(empty_as_null=False, keep_nulls=False)
    if values.null_count():
        return flatten(cleaned(lists, field), field) if clean else None
    pair_counts = subtopics.list.len().fill_null(0).to_numpy().astype(np.int64)
    row_list = np.repeat(np.arange(n_lists, dtype=np.int64), row_counts)
    pair_start = offsets(pair_counts)
    # The row of each pair: the rows (after the first) starting at or before it.
    starting = np.bincount(pair_start[1:-1], minlength=len(values) + 1)[: len(values)]
    pair_row = np.cumsum(starting)
    value_rank, text_rank, n_values = _value_ranks(values)
    pair_list = row_list[pair_row]
    common: dict[str, Any] = {
        "n_lists": n_lists,
        "rows": rows,
        "row_list": row_list,
        "row_start": offsets(row_counts),
        "pair_start": pair_start,
        "pair_row": pair_row,
        "pair_list": pair_list,
        "value_rank": value_rank,
        "text_rank": text_rank,
    }
    if n_values <= MASK_BITS and n_lists * n_values <= 4 * len(values) + 4096:
        # Dense: slot (list, value), the value's bit, each row's set of values as a mask:
        # the sum of its bits (exact in float64 below 2**53), with fewer bits set than
        # values where a value repeats.
        bits = np.left_shift(np.int64(1), value_rank).astype(np.float64)
        row_mask = np.bincount(pair_row, weights=bits, minlength=len(pair_counts))
        row_mask = row_mask.astype(np.int64)
        repeats = bool(np.any(np.bitwise_count(row_mask) < pair_counts))
        if repeats and clean:
            return flatten(cleaned(lists, field), field)  # a value repeated in a row's list
        present = np.zeros(n_lists * n_values, dtype=bool)
        present[pair_list * n_values + value_rank] = True
        return Flat(
            gid=pair_list * n_values + value_rank,
            n_gid=n_lists * n_values,
            n_subtopics=present.reshape(n_lists, n_values).sum(axis=1, dtype=np.int64),
            local=value_rank,
            row_mask=None if repeats else row_mask,
            earlier_all=None,
            **common,
        )
    # A stable sort by value keeps each value's pairs by list and position: runs of one
    # (value, list) count the earlier pairs.
    order, new = _runs(value_rank, pair_list, n_values)
    if clean and len(order) and np.any(~new[1:] & (pair_row[order[1:]] == pair_row[order[:-1]])):
        return flatten(cleaned(lists, field), field)  # a value repeated in a row's list
    index = np.arange(len(order), dtype=np.int64)
    earlier_all = np.empty(len(order), dtype=np.int64)
    earlier_all[order] = index - np.maximum.accumulate(np.where(new, index, 0))
    # The runs, numbered by (list, value): few, sorted apart.
    run_list = pair_list[order][new]
    renumber = np.empty(len(run_list), dtype=np.int64)
    renumber[np.lexsort((value_rank[order][new], run_list))] = np.arange(len(run_list))
    gid = np.empty(len(order), dtype=np.int64)
    gid[order] = renumber[np.cumsum(new) - 1]
    n_subtopics = np.bincount(run_list, minlength=n_lists)
    return Flat(
        gid=gid,
        n_gid=len(run_list),
        n_subtopics=n_subtopics,
        local=gid - offsets(n_subtopics)[pair_list],
        row_mask=None,
        earlier_all=earlier_all,
        **common,
    )


def _runs(value_rank: Ints, pair_list: Ints, n_values: int) -> tuple[Ints, Ints]:
    """A stable order by value (so by list and position within one), and where runs start.

    A run is the pairs of one (value, list). Radix sort while values fit 16 bits.
    """
    import numpy as np

    small = np.uint16 if n_values <= 1 << 16 else np.int64
    order = np.argsort(value_rank.astype(small), kind="stable")
    by_value, by_list = value_rank[order], pair_list[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (by_value[1:] != by_value[:-1]) | (by_list[1:] != by_list[:-1])
    return order, new


def earlier(flat: Flat, chosen: Ints) -> Ints:
    """For each pair of ``chosen`` (ascending), the chosen pairs before it of its list and subtopic.

    Every pair where ``chosen`` is a prefix of each list's pairs.
    """
    import numpy as np

    if flat.earlier_all is not None:
        return flat.earlier_all[chosen]
    order, new = _runs(flat.value_rank[chosen], flat.pair_list[chosen], MASK_BITS)
    index = np.arange(len(order), dtype=np.int64)
    counted = np.empty(len(order), dtype=np.int64)
    counted[order] = index - np.maximum.accumulate(np.where(new, index, 0))
    return counted


def cleaned(lists: pl.Series, field: str) -> pl.Series:
    """The lists with each row's ``field`` list without nulls and repeats (first kept, in place).

    As :func:`.diversity_input.subtopic_columns` cleans the subtopic lists.
    """
    clean = pl.field(field).list.set_difference(pl.lit([None]))
    frame = lists.to_frame("lists")
    return (
        frame.select(pl.col("lists").list.eval(pl.element().struct.with_fields(clean)))
        .to_series()
        .rename(lists.name)
    )


def subtopics_typed(dtype: pl.DataType, field: str = "subtopics") -> bool:
    """Whether ``dtype`` is a list of structs whose ``field`` lists integers or strings."""
    inner = dtype.inner if isinstance(dtype, pl.List) else None
    if not isinstance(inner, pl.Struct):
        return False
    subtopics = {one.name: one.dtype for one in inner.fields}.get(field)
    if not isinstance(subtopics, pl.List):
        return False
    return subtopics.inner.is_integer() or subtopics.inner == pl.String


def offsets(counts: Ints) -> Ints:
    """The offsets of segments of ``counts`` elements: 0, then their running total."""
    import numpy as np

    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def _value_ranks(values: pl.Series) -> tuple[Ints, Ints, int]:
    """Each value's rank by value and by text (``str``), and the number of ranks.

    Dense ranks, or for integers of a narrow range their offset from the lowest.
    """
    import numpy as np

    if not len(values):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 1
    if values.dtype == pl.String:
        # The distinct strings sorted (UTF-8 bytes sort as code points, as Python's str),
        # each value's place among them read off an Enum of them.
        distinct = values.unique().sort()
        ranks = values.cast(pl.Enum(distinct)).to_physical().to_numpy().astype(np.int64)
        return ranks, ranks, len(distinct)
    if values.dtype == pl.UInt64:
        ranks = values.rank("dense").to_numpy().astype(np.int64) - 1
        distinct = values.unique().sort()
        text = distinct.cast(pl.String).rank("ordinal").to_numpy().astype(np.int64) - 1
        return ranks, text[ranks], len(distinct)
    numbers = values.cast(pl.Int64).to_numpy()
    low, high = int(numbers.min()), int(numbers.max())
    if high - low < MASK_BITS:
        # A narrow range: its values as ranks (some perhaps unused), in order.
        unique = np.arange(low, high + 1)
        ranks = numbers - low
    elif high - low <= 4 * len(numbers) + 1024:
        present = np.zeros(high - low + 1, dtype=bool)
        present[numbers - low] = True
        unique = np.flatnonzero(present) + low
        ranks = (np.cumsum(present) - 1)[numbers - low]
    else:
        unique, ranks = np.unique(numbers, return_inverse=True)
    # Integers 0-9 sort as their text; others by their text, the few distinct ones.
    if low >= 0 and high <= 9:
        return ranks, ranks, len(unique)
    text = pl.Series(unique).cast(pl.String).rank("ordinal").to_numpy().astype(np.int64) - 1
    return ranks, text[ranks], len(unique)


def sequential_sums(
    values: Floats, starts: Ints, lengths: Ints, *, compensated: bool = False
) -> Floats:
    """The sum of each ``values[start:start + length]``, added left to right from 0.0.

    As Python's ``sum`` of floats and polars' ``sum`` of fewer than 128 values;
    ``compensated``: Kahan's summation, as polars' ``sum`` of the groups of a
    ``group_by`` (and of a filtered list inside ``list.agg``).
    """
    import numpy as np

    sums = np.zeros(len(lengths), dtype=np.float64)
    if not len(lengths) or not lengths.max():
        return sums
    order = np.argsort(-lengths, kind="stable")
    longest = lengths[order]
    first = starts[order]
    total = np.zeros(len(lengths), dtype=np.float64)
    error = np.zeros(len(lengths), dtype=np.float64)
    for j in range(int(longest[0])):
        n = int(np.searchsorted(-longest, -j, side="left"))
        value = values[first[:n] + j]
        if compensated:
            value = value - error[:n]
            added = total[:n] + value
            error[:n] = (added - total[:n]) - value
            total[:n] = added
        else:
            total[:n] += value
    sums[order] = total
    return sums
